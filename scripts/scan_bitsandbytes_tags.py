"""Scan the bitsandbytes release tags 0.37.0 onwards of a git clone and write the pinned
importer input (data-inputs/bitsandbytes-tags.json).

Usage: python scripts/scan_bitsandbytes_tags.py /path/to/bitsandbytes.git > bitsandbytes-tags.json

Per tag: the commit; the torch requirement of the package (pyproject.toml dependencies
or setup.py install_requires; before 0.43 the README's "Requirements: ... pytorch"
line); the per-feature hardware rows of docs/source/installation.mdx (0.43 onwards);
whether the README (up to 0.42) or the installation page names Linux; and, from the tag
whose installation page has an "AMD ROCm" section (0.48.0), the ROCm backend: the wheel
table of that section (OS, ROCm release, targets) when the release workflow builds ROCm
libraries into the wheels (.github/workflows/python-package.yml: a ``build-rocm`` job that
is not switched off and that ``build-wheels`` waits for), else the default HIP targets of
a source build (CMakeLists.txt); the ROCm range the page gives for source builds; whether
the page says Windows is not supported.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys


def show(repo: str, tag: str, path: str) -> str | None:
    out = subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def key(tag: str):
    return tuple(int(x) for x in tag.split("."))


def scan(repo: str, tag: str) -> dict:
    commit = subprocess.run(["git", "-C", repo, "rev-parse", f"{tag}^{{commit}}"], capture_output=True,
                            text=True).stdout.strip()
    row: dict = {"tag": tag, "commit": commit}
    pyproject, setup = show(repo, tag, "pyproject.toml") or "", show(repo, tag, "setup.py") or ""
    readme, install = show(repo, tag, "README.md") or "", show(repo, tag, "docs/source/installation.mdx")
    torch = None
    m = re.search(r'^dependencies\s*=\s*\[(.*?)\]', pyproject, re.S | re.M)
    if m:
        torch = next((d.strip().strip('"') for d in m.group(1).split(",") if d.strip().strip('"').startswith("torch")), None)
        row["torch_file"] = "pyproject.toml" if torch else None
    if torch is None:
        m = re.search(r"install_requires\s*=\s*\[(.*?)\]", setup, re.S)
        if m:
            torch = next((d.strip().strip("'\"") for d in m.group(1).split(",")
                          if d.strip().strip("'\"").startswith("torch")), None)
            row["torch_file"] = "setup.py" if torch else None
    if torch is None and re.search(r"Requirements:.*\bpytorch\b", readme):
        torch, row["torch_file"] = "torch", "README.md"
    row["torch"] = torch
    features: dict[str, str] = {}
    if install:
        row["features_file"] = "docs/source/installation.mdx"
        for name, pattern in (("llm-int8", r"LLM\.int8\(\)"), ("8bit-optimizers", r"8-bit optimizers/quantization"),
                              ("nf4-fp4", r"NF4/FP4 quantization")):
            m = re.search(rf"^\|\s*{pattern}\s*\|(.*)\|\s*$", install, re.M)
            if m:
                features[name] = re.sub(r"\s+", " ", m.group(1)).strip(" |")
        row["linux"] = "Linux" in install
    else:
        row["features_file"] = "CHANGELOG.md"
        changelog = show(repo, tag, "CHANGELOG.md") or ""
        if "Int8 now supported on all GPUs" in changelog:
            features["llm-int8"] = "all GPUs (CHANGELOG 0.37.0: below compute capability 7.5 the int8 weights are cast to 16/32-bit)"
        row["linux"] = "Linux distribution" in readme
    row["features"] = features
    rocm = scan_rocm(repo, tag, install or "")
    if rocm:
        row["rocm"] = rocm
    return row


def scan_rocm(repo: str, tag: str, install: str) -> dict | None:
    """The ROCm backend as the tag's installation page, release workflow and CMakeLists.txt give it."""
    m = re.search(r"^## AMD ROCm[^\n]*\n(.*?)(?=^## |\Z)", install, re.S | re.M)
    if not m:
        return None
    section = m.group(1)
    workflow = show(repo, tag, ".github/workflows/python-package.yml") or ""
    job = re.search(r"^  build-rocm:\n(.*?)(?=^  \S)", workflow, re.S | re.M)
    wheels_job = re.search(r"^  build-wheels:\n(.*?)(?=^  \S)", workflow, re.S | re.M)
    needs = wheels_job and re.search(r"^    needs:\n((?:\s+-.*\n|\s+#.*\n)+)", wheels_job.group(1), re.M)
    released = bool(job and not re.search(r"^    if: false", job.group(1), re.M)
                    and needs and re.search(r"^\s+- build-rocm\s*$", needs.group(1), re.M))
    out: dict = {"section_file": "docs/source/installation.mdx",
                 "preview": "(Preview)" in install[m.start():m.start() + 80]}
    if released:
        wheels = []
        for os_name, rocm, targets in re.findall(r"^\|\s*\*\*(Linux|Windows) x86-64\*\*\s*\|\s*([\d.]+)\s*\|(.*)$",
                                                 section, re.M):
            wheels.append({"os": os_name.lower(), "rocm": rocm,
                           "targets": re.findall(r"gfx[0-9a-f]+", targets)})
        out["wheels"] = wheels
        out["wheels_file"] = ".github/workflows/python-package.yml"
    else:
        cmake = show(repo, tag, "CMakeLists.txt") or ""
        d = re.search(r'set\(CMAKE_HIP_ARCHITECTURES "([^"]+)"\)', cmake)
        out["source_build_default_targets"] = d.group(1).split(";") if d else None
    rng = re.search(r"can be compiled from ROCm (\d+(?:\.\d+)*) - ROCm (\d+(?:\.\d+)*)", section)
    out["source_rocm_range"] = [rng.group(1), rng.group(2)] if rng else None
    out["windows_unsupported"] = "Windows is not currently supported" in section
    return out


def main() -> None:
    repo = sys.argv[1]
    tags = subprocess.run(["git", "-C", repo, "tag"], capture_output=True, text=True).stdout.split()
    tags = sorted((t for t in tags if re.fullmatch(r"\d+\.\d+\.\d+", t) and key(t) >= (0, 37, 0)), key=key)
    rows = [scan(repo, t) for t in tags]
    sys.stdout.write('{"repository": "https://github.com/bitsandbytes-foundation/bitsandbytes", "releases": [\n')
    sys.stdout.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in rows))
    sys.stdout.write("\n]}\n")


if __name__ == "__main__":
    main()
