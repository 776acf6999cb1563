"""Scan the releases of a ComfyUI git clone and write the pinned importer input
(data-inputs/comfyui-releases.json).

Usage: python scripts/scan_comfyui_releases.py /path/to/ComfyUI.git > comfyui-releases.json

The snapshot this input was made from (Comfy-Org/ComfyUI, HEAD a125cd8, 2025-10-12) holds no
vX.Y.Z release tags, so a release is the commit that first sets ``comfyui_version.py`` to
its version (the version-bump commit; ComfyUI 0.3.10 to 0.3.64). Per release: the commit
and date; the ``torch`` line of requirements.txt; and from README.md the GPU install
sections (headings), the PyTorch wheel index URLs of the stable NVIDIA and AMD-on-Linux
install commands, the families named in the heading of the Windows AMD section (where there
is one), whether the DirectML section is there, and the HSA_OVERRIDE_GFX_VERSION lines of
"For AMD cards not officially supported by ROCm". Only what the files say is recorded.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def show(repo: str, commit: str, path: str) -> str:
    out = subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else ""


def section(readme: str, heading: str) -> str:
    """The text under the first heading that starts with ``heading``, up to the next heading."""
    m = re.search(r"^#+ " + re.escape(heading) + r".*?$\n(.*?)(?=^#+ |\Z)", readme, re.M | re.S)
    return m.group(1) if m else ""


def scan(repo: str, commit: str, version: str) -> dict:
    readme, requirements = show(repo, commit, "README.md"), show(repo, commit, "requirements.txt")
    headings = [h.strip() for h in re.findall(r"^#+ (.*)$", readme, re.M)]
    nvidia = section(readme, "NVIDIA")
    amd_linux = section(readme, "AMD GPUs (Linux")
    windows_amd = next((h for h in headings if re.match(r"AMD GPUs \(.*Windows", h)), None)
    stable = re.compile(r"```pip install torch torchvision torchaudio --(?:extra-)?index-url (\S+?)```")
    override = section(readme, "For AMD cards not officially supported by ROCm")
    return {
        "version": version, "commit": commit, "date": git(repo, "log", "-1", "--format=%cs", commit).strip(),
        "requirements_torch": next((l.strip() for l in requirements.splitlines() if re.match(r"torch\b(?![a-z])", l)), None),
        "manual_install": next((h for h in headings if h.startswith("Manual Install")), None),
        "nvidia_heading": "NVIDIA" in headings,
        "nvidia_stable_index": (stable.search(nvidia) or [None, None])[1] if nvidia else None,
        "amd_linux_heading": next((h for h in headings if h.startswith("AMD GPUs (Linux")), None),
        "amd_linux_stable_index": (stable.search(amd_linux) or [None, None])[1] if amd_linux else None,
        "windows_amd_heading": windows_amd,
        "windows_amd_indexes": re.findall(r"--index-url (https://rocm\.nightlies\.amd\.com/\S+?)```",
                                          section(readme, windows_amd)) if windows_amd else [],
        "directml": any(h.startswith("DirectML") for h in headings),
        "overrides": re.findall(r"(HSA_OVERRIDE_GFX_VERSION=[\d.]+)", override),
    }


def main() -> None:
    repo = sys.argv[1]
    seen: dict[str, str] = {}
    for commit in git(repo, "log", "--reverse", "--format=%H", "--", "comfyui_version.py").split():
        m = re.search(r"__version__\s*=\s*\"(\d+\.\d+\.\d+)\"", show(repo, commit, "comfyui_version.py"))
        if m and m.group(1) not in seen:
            seen[m.group(1)] = commit
    rows = [scan(repo, commit, version) for version, commit in seen.items()]
    sys.stdout.write('{"repository": "https://github.com/comfyanonymous/ComfyUI", "releases": [\n')
    sys.stdout.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in rows))
    sys.stdout.write("\n]}\n")


if __name__ == "__main__":
    main()
