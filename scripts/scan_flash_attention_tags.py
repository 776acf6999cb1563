"""Scan the FlashAttention 2.x release tags of a git clone and write the pinned importer
input (data-inputs/flash-attention-tags.json).

Usage: python scripts/scan_flash_attention_tags.py /path/to/flash-attention.git > flash-attention-tags.json

Per tag (v2.0.0 onwards, fa4-* tags left out): the commit and, from README.md, the CUDA
and PyTorch floors of the requirements, the NVIDIA GPU generations the CUDA build
supports, whether Linux is named, and the ROCm section (ROCm floor, GPUs of the CK
backend) where there is one.
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
    readme = show(repo, tag, "README.md")
    row: dict = {"tag": tag, "commit": commit}
    m = re.search(r"^- CUDA (\d+\.\d+) and above", readme, re.M)
    row["cuda_floor"] = m.group(1) if m else None
    m = re.search(r"^- PyTorch (\d+\.\d+) and above", readme, re.M)
    row["torch_floor"] = m.group(1) if m else None
    m = re.search(r"^1\. (Ampere, Ada, or Hopper) GPUs", readme, re.M)
    row["nvidia_gpus"] = m.group(1) if m else None
    row["linux"] = bool(re.search(r"^- Linux\.", readme, re.M))
    m = re.search(r"^- ROCm (\d+\.\d+) and above", readme, re.M)
    row["rocm_floor"] = m.group(1) if m else None
    m = re.search(r"^1\. (MI200 or MI300) GPUs", readme, re.M)
    row["rocm_gpus"] = m.group(1) if m else None
    return row


def main() -> None:
    repo = sys.argv[1]
    tags = subprocess.run(["git", "-C", repo, "tag"], capture_output=True, text=True).stdout.split()
    tags = [t for t in tags if re.fullmatch(r"v2\.\d+\.\d+(\.post\d+)?", t)]
    from packaging.version import Version
    tags.sort(key=lambda t: Version(t))
    rows = [scan(repo, t) for t in tags]
    sys.stdout.write('{"repository": "https://github.com/Dao-AILab/flash-attention", "releases": [\n')
    sys.stdout.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in rows))
    sys.stdout.write("\n]}\n")


if __name__ == "__main__":
    main()
