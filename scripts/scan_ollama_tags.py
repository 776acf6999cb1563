"""Scan every Ollama release tag of a git clone and write the pinned importer input.

Usage: python scripts/scan_ollama_tags.py /path/to/ollama.git > data-inputs/ollama-tags.json

For each release tag (no -rc tags) since v0.1.25 it records the commit and, from the
files at that tag, the GPU build lists and the documented support lists:

- ROCm targets of the Linux build: ``llm/generate/gen_linux.sh`` (array in amdGPUs),
  ``{llama/,}make/Makefile.rocm`` (HIP_ARCHS_COMMON + HIP_ARCHS_LINUX), the root
  ``CMakePresets.json`` preset the Dockerfile's ROCm stage builds, or
  ``llama/server/CMakePresets.json`` ``rocm_v*_linux`` (v0.30+);
- ROCm targets of the Windows build: ``gen_windows.ps1`` GPU_LIST, Makefile.rocm
  HIP_ARCHS_COMMON, or the preset the release workflow's Windows job builds;
- CUDA architectures of the shipped Linux CUDA builds (the Dockerfile stages copied into
  the amd64 image) with their CUDA versions;
- docs/gpu.md(x): the LLVM targets "known supported on linux", the NVIDIA compute
  capability floor and whether it documents the Vulkan backend;
- whether the tag builds a Vulkan backend (a Vulkan preset built by the Dockerfile);
- docs/gpu.md(x) "Windows Support": the AMD cards of its table and the sentence before it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=False).stdout


def show(repo: str, tag: str, path: str) -> str | None:
    out = subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def key(tag: str):
    return tuple(int(x) for x in tag.lstrip("v").split("."))


def targets(text: str) -> list[str]:
    """gfx names in order, xnack suffixes dropped, each once."""
    out: list[str] = []
    for t in re.findall(r"gfx[0-9a-f]+", text):
        if t not in out:
            out.append(t)
    return out


def cuda_list(text: str) -> list[str]:
    return [x.strip() for x in re.split(r"[;\s]+", text.strip().strip('"')) if x.strip()]


def presets(text: str) -> dict[str, dict]:
    data = json.loads(text)
    by_name = {p["name"]: p for p in data.get("configurePresets", [])}

    def resolved(name: str) -> dict:
        p = by_name[name]
        cache: dict = {}
        for parent in p.get("inherits", []) or []:
            cache.update(resolved(parent))
        cache.update(p.get("cacheVariables") or {})
        return cache
    return {name: resolved(name) for name in by_name}


def scan(repo: str, tag: str) -> dict:
    row: dict = {"tag": tag, "commit": git(repo, "rev-parse", f"{tag}^{{commit}}").strip(),
                 "date": git(repo, "log", "-1", "--format=%cs", tag).strip()}
    docker = show(repo, tag, "Dockerfile") or ""
    args = dict(re.findall(r"^ARG ([A-Z0-9_]+)=\"?([^\"\s]+)\"?", docker, re.M))
    row["rocm_version_linux"] = args.get("ROCMVERSION") or args.get("ROCM_VERSION")
    gen_linux = show(repo, tag, "llm/generate/gen_linux.sh")
    gen_common = show(repo, tag, "llm/generate/gen_common.sh")
    gen_win = show(repo, tag, "llm/generate/gen_windows.ps1")
    make_rocm = show(repo, tag, "make/Makefile.rocm") or show(repo, tag, "llama/make/Makefile.rocm")
    root_presets = show(repo, tag, "CMakePresets.json")
    server_presets = show(repo, tag, "llama/server/CMakePresets.json")
    release = show(repo, tag, ".github/workflows/release.yaml") or ""
    cuda: list[dict] = []
    if "gen_linux.sh" in docker:
        row["era"] = "gen"
        row["files"] = {"rocm_linux": "llm/generate/gen_linux.sh", "cuda_linux": "llm/generate/gen_common.sh",
                        "windows": "llm/generate/gen_windows.ps1"}
        body = re.search(r"amdGPUs\(\)\s*\{(.*?)\n\}", gen_linux or "", re.S)
        row["rocm_targets_linux"] = targets(body.group(1)) if body else []
        body = re.search(r"GPU_LIST\s*=\s*@\((.*?)\)", gen_win or "", re.S)
        row["rocm_targets_windows"] = targets(body.group(1)) if body else []
        m = re.search(r'CMAKE_CUDA_ARCHITECTURES="([^"]+)"', gen_common or "")
        if "CUDA_V11_ARCHITECTURES" in args:
            # The Dockerfile passes its own lists to gen_linux.sh (one build per CUDA major).
            row["files"]["cuda_linux"] = "Dockerfile"
            for variant in ("11", "12"):
                if f"CUDA_V{variant}_ARCHITECTURES" in args:
                    cuda.append({"cuda": args.get(f"CUDA_VERSION_{variant}"),
                                 "archs": cuda_list(args[f"CUDA_V{variant}_ARCHITECTURES"])})
        elif m:
            cuda.append({"cuda": args.get("CUDA_VERSION"), "archs": cuda_list(m.group(1))})
    elif make_rocm is not None and "preset" not in docker:
        row["era"] = "make"
        folder = "make" if show(repo, tag, "make/Makefile.rocm") is not None else "llama/make"
        row["files"] = {"rocm_linux": f"{folder}/Makefile.rocm", "cuda_linux": f"{folder}/Makefile.cuda_v12",
                        "windows": f"{folder}/Makefile.rocm"}
        common = re.search(r"HIP_ARCHS_COMMON\s*:?=\s*(.*)", make_rocm)
        linux = re.search(r"HIP_ARCHS_LINUX\s*:?=\s*(.*)", make_rocm)
        row["rocm_targets_linux"] = targets((common.group(1) if common else "") + " " + (linux.group(1) if linux else ""))
        row["rocm_targets_windows"] = targets(common.group(1) if common else "")
        for variant in ("11", "12"):
            mk = show(repo, tag, f"{folder}/Makefile.cuda_v{variant}") or ""
            m = re.search(r"CUDA_ARCHITECTURES\?=\s*(.*)", mk)
            shipped = re.search(rf"^COPY --from=cuda-{variant}", docker, re.M) or f"dist_cuda_v{variant}" in docker
            if m and shipped:
                cuda.append({"cuda": args.get(f"CUDA_VERSION_{variant}"), "archs": cuda_list(m.group(1))})
    else:
        row["era"] = "server-presets" if server_presets else "presets"
        table = presets(root_presets) if root_presets else {}
        row["files"] = {"rocm_linux": "CMakePresets.json", "cuda_linux": "CMakePresets.json",
                        "windows": ".github/workflows/release.yaml"}
        if server_presets:
            row["files"]["rocm_linux"] = row["files"]["cuda_linux"] = "llama/server/CMakePresets.json"
            table.update(presets(server_presets))
        # Linux: the stages the amd64 image (and the rocm flavour) copy in.
        copied = set(re.findall(r"^COPY --from=([\w.-]+)", docker, re.M))
        stage_preset = dict(re.findall(r"^FROM [^\n]*? AS ([\w.-]+)\n(?:(?!^FROM)[\s\S])*?--preset '([^']+)'", docker, re.M))
        rocm_linux: list[str] = []
        for stage, preset in stage_preset.items():
            if stage not in copied or preset not in table:
                continue
            cache = table[preset]
            if preset.startswith("ROCm") or "rocm" in preset:
                rocm_linux += [t for t in targets(cache.get("AMDGPU_TARGETS", "")) if t not in rocm_linux]
            elif "CUDA" in preset and "JetPack" not in preset and "MLX" not in preset:
                ver = args.get(f"CUDA{preset.split()[-1]}VERSION")
                cuda.append({"cuda": ver, "preset": preset, "archs": cuda_list(cache.get("CMAKE_CUDA_ARCHITECTURES", ""))})
        if server_presets:
            for name, cache in table.items():
                if re.fullmatch(r"rocm_v[\d_]+_linux", name):
                    rocm_linux += [t for t in targets(cache.get("AMDGPU_TARGETS", "")) if t not in rocm_linux]
                m = re.fullmatch(r"llama_cuda_v(\d+)_linux", name)
                if m:
                    cuda.append({"cuda": args.get(f"CUDA{m.group(1)}VERSION"), "preset": name,
                                 "archs": cuda_list(cache.get("CMAKE_CUDA_ARCHITECTURES", ""))})
        row["rocm_targets_linux"] = rocm_linux
        windows_presets = re.findall(r"preset: '((?:ROCm|CUDA)[^']*)'", release)
        row["windows_presets"] = windows_presets
        rocm_win: list[str] = []
        for preset in windows_presets:
            if preset.startswith("ROCm") and preset in table:
                rocm_win += [t for t in targets(table[preset].get("AMDGPU_TARGETS", "")) if t not in rocm_win]
        if server_presets:
            for name, cache in table.items():
                if re.fullmatch(r"rocm_v[\d_]+_windows", name):
                    rocm_win += [t for t in targets(cache.get("AMDGPU_TARGETS", "")) if t not in rocm_win]
        row["rocm_targets_windows"] = rocm_win
        row["vulkan"] = any("vulkan" in p.lower() for s, p in stage_preset.items() if s in copied) or \
            any("vulkan" in s.lower() and not s.endswith("-deps") for s in copied)
    row.setdefault("vulkan", False)
    row["cuda_linux"] = cuda
    m = re.search(r"rocm-version: '([\d.]+)'", release)
    row["hip_sdk_windows"] = m.group(1) if m else None
    row["windows_build"] = gen_win is not None or "windows" in release
    doc_path = next((p for p in ("docs/gpu.md", "docs/gpu.mdx") if show(repo, tag, p) is not None), None)
    row["doc"] = doc_path
    doc = show(repo, tag, doc_path) if doc_path else ""
    part = re.split(r"known supported GPU types on linux", doc, flags=re.I)
    row["doc_linux_targets"] = targets(re.split(r"\n\s*\n(?!\|)", part[1].split("|", 1)[-1])[0]) if len(part) > 1 else []
    m = re.search(r"compute capability (\d+\.\d+)\+?", doc or "")
    row["doc_nvidia_cc_floor"] = m.group(1) if m else None
    row["doc_vulkan"] = ("experimental" if re.search(r"Vulkan is currently an Experimental", doc or "")
                         else ("default" if re.search(r"Vulkan is enabled by default", doc or "") else None))
    row["doc_windows_cards"], row["doc_windows_statement"] = windows_cards(doc or "")
    return row


def windows_cards(doc: str) -> tuple[list[list[str]], str | None]:
    """The AMD "Windows Support" table of the docs: [family, card] pairs as written, and the
    sentence before the table."""
    m = re.search(r"^### Windows Support\s*\n(.*?)(?=^#)", doc, re.M | re.S)
    if not m:
        return [], None
    body = m.group(1)
    statement = next((line.strip() for line in body.splitlines() if line.strip() and not line.startswith("|")), None)
    cards = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].startswith("AMD"):
            cards += [[cells[0], card] for card in re.findall(r"`([^`]+)`", cells[1])]
    return cards, statement


def main() -> None:
    repo = sys.argv[1]
    tags = [t for t in git(repo, "tag").split() if re.fullmatch(r"v\d+\.\d+\.\d+", t)]
    tags = sorted((t for t in tags if key(t) >= (0, 1, 25)), key=key)
    rows = [scan(repo, t) for t in tags]
    json.dump({"repository": "https://github.com/ollama/ollama", "releases": rows}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
