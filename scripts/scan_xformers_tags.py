"""Scan the xFormers release tags v0.0.20 onwards of a git clone and write the pinned
importer input (data-inputs/xformers-tags.json).

Usage: python scripts/scan_xformers_tags.py /path/to/xformers.git > xformers-tags.json

Per tag: the commit; the torch versions the wheel workflow (.github/workflows/wheels.yml)
builds the published wheels for; the CUDA and ROCm variants it builds where it lists
them; the PyTorch version the README's pip line names and the platforms it names.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys


def show(repo: str, tag: str, path: str) -> str:
    out = subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else ""


def scan(repo: str, tag: str) -> dict:
    commit = subprocess.run(["git", "-C", repo, "rev-parse", f"{tag}^{{commit}}"], capture_output=True,
                            text=True).stdout.strip()
    wheels, readme = show(repo, tag, ".github/workflows/wheels.yml"), show(repo, tag, "README.md")
    torch: list[str] = []
    for m in re.finditer(r"torch_version:\s*\"(\d+\.\d+\.\d+)\"", wheels):
        torch.append(m.group(1))
    for m in re.finditer(r"for torch_version in \[([^\]]*)\]", wheels):
        torch += re.findall(r"'(\d+\.\d+\.\d+)'", m.group(1))
    m = re.search(r"CU_VERSIONS = \[([^\]]*)\]", wheels)
    cuda = re.findall(r"'(\d+)'", m.group(1)) if m else []
    m = re.search(r"ROCM_VERSIONS = \[([^\]]*)\]", wheels)
    rocm = re.findall(r"[\"'](\d+(?:\.\d+)*)[\"']", m.group(1)) if m else []
    pip = re.search(r"\(RECOMMENDED, ([^)]*)\) Install latest stable with pip\*\*: Requires \[PyTorch (\d+\.\d+\.\d+)\]", readme)
    return {"tag": tag, "commit": commit, "wheel_torch": list(dict.fromkeys(torch)), "cuda": cuda, "rocm": rocm,
            "readme_pip_platforms": pip.group(1) if pip else None, "readme_pip_torch": pip.group(2) if pip else None}


def main() -> None:
    from packaging.version import Version
    repo = sys.argv[1]
    tags = subprocess.run(["git", "-C", repo, "tag"], capture_output=True, text=True).stdout.split()
    tags = sorted((t for t in tags if re.fullmatch(r"v0\.0\.\d+(\.post\d+)?", t) and Version(t) >= Version("0.0.20")),
                  key=Version)
    rows = [scan(repo, t) for t in tags]
    sys.stdout.write('{"repository": "https://github.com/facebookresearch/xformers", "releases": [\n')
    sys.stdout.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in rows))
    sys.stdout.write("\n]}\n")


if __name__ == "__main__":
    main()
