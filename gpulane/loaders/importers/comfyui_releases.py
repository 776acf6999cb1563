"""Importer for ComfyUI releases 0.3.10 to 0.3.64: one app node per release, range facts.

Input: the pinned scan of ``comfyanonymous/ComfyUI`` (``scripts/scan_comfyui_releases.py``;
``data-inputs/comfyui-releases.json``). The scanned snapshot holds no release tags, so a
release is the commit that first sets ``comfyui_version.py`` to its version (the
version-bump commit) and every fact is cited at that commit.

What the files at a release say, and so the facts (each a range over the releases that say
the same, cited at the first of them):

* ``requires`` torch — requirements.txt names ``torch`` with no version at every release;
* ``runs_on`` Linux and Windows — the README's "Manual Install (Windows, Linux)";
* ``supports`` NVIDIA GPUs — the README's NVIDIA install section (its stable PyTorch wheel
  index, cu124 ... cu129, is in the note: an install command, not a requirement);
* ``supports`` AMD GPUs on Linux — "AMD GPUs (Linux only)" / "(Linux)" (ROCm wheel index in
  the note), with the ``HSA_OVERRIDE_GFX_VERSION`` workarounds for RDNA2/RDNA3 cards not
  officially supported by ROCm;
* ``supports`` the RDNA families the Windows AMD section's heading names (from 0.3.63:
  "AMD GPUs (Experimental: Windows and Linux), RDNA 3, 3.5 and 4 only."), marked
  experimental. Before 0.3.63 the README's only Windows AMD route is DirectML
  (``torch-directml``), which no node here models: those releases say nothing about AMD on
  Windows that this knowledge base can state.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source, Status

from .app_releases import Run, read_json, release_selector, runs
from .errors import ImportFormatError

REVIEWED = dt.date(2026, 12, 1)
REPO = "https://github.com/comfyanonymous/ComfyUI"
FAMILY = "comfyui"
INPUT = "comfyui-releases.json"
SOURCE = Source(id="comfyui-release-commits", url=f"{REPO}/commits/master/comfyui_version.py", publisher="Comfy Org",
                title="ComfyUI version-bump commits of comfyui_version.py (0.3.10 to 0.3.64)",
                version="0.3.10 to 0.3.64", reviewed=REVIEWED,
                note="The scanned snapshot (Comfy-Org/ComfyUI at a125cd8) holds no release tags; each release is the "
                     "commit that first sets comfyui_version.py to its version.")

# "RDNA 3, 3.5 and 4" in a heading → the family names of the arch nodes.
_RDNA = re.compile(r"RDNA ((?:\d+(?:\.\d+)?)(?:(?:, | and )\d+(?:\.\d+)?)*)")
# The override lines: the version string → (family it is offered for, the target it runs as).
_OVERRIDES = {"10.3.0": ("RDNA2", "gfx1030"), "11.0.0": ("RDNA3", "gfx1100")}


def _families(heading: str) -> tuple[str, ...]:
    m = _RDNA.search(heading or "")
    return tuple(f"RDNA{n}" for n in re.split(r", | and ", m.group(1))) if m else ()


def parse(path: Path) -> KBFile:
    path = Path(path)
    _, rows = read_json(path, "releases")
    for i, row in enumerate(rows):
        if not isinstance(row.get("version"), str) or not re.fullmatch(r"\d+\.\d+\.\d+", row["version"]):
            raise ImportFormatError(path, None, f"releases[{i}]: 'version' missing or not X.Y.Z")
        for field in ("commit", "date"):
            if not isinstance(row.get(field), str):
                raise ImportFormatError(path, None, f"release {row['version']}: field '{field}' missing or not a string")
        if not isinstance(row.get("overrides", []), list):
            raise ImportFormatError(path, None, f"release {row['version']}: field 'overrides' is not a list")
    sources: dict[str, Source] = {SOURCE.id: SOURCE}
    nodes: list[Node] = []
    facts: list[Fact] = []

    def version(row: dict) -> str:
        return row["version"]

    def cite(run: Run, file: str) -> str:
        row = run.first
        src = Source(id=f"comfyui-{file.replace('.', '-').lower()}-{version(row)}", url=f"{REPO}/blob/{row['commit']}/{file}",
                     publisher="Comfy Org", title=f"ComfyUI {file} at version {version(row)}",
                     version=f"{version(row)} ({row['commit']}, the commit that sets comfyui_version.py to it)",
                     reviewed=REVIEWED)
        sources.setdefault(src.id, src)
        return src.id

    def through(run: Run) -> str:
        return f"Read at {version(run.first)}" + ("." if run.first is run.last else
                                                  f"; the same at every release through {version(run.last)}.")

    def add(run: Run, fid: str, relation: Relation, obj: Selector, file: str, section: str, note: str | None = None,
            **extra) -> None:
        facts.append(Fact(id=f"{fid}-{version(run.first)}", relation=relation,
                          subject=release_selector(FAMILY, run.spec(rows, version)), object=obj,
                          source=cite(run, file), section=section, reviewed=REVIEWED,
                          note=" ".join(x for x in (note, through(run)) if x), **extra))

    for row in rows:
        nodes.append(Node(id=f"comfyui-{version(row)}", layer=Layer.app, name=f"ComfyUI {version(row)}", family=FAMILY,
                          version=version(row), release_date=row["date"] or None, source=SOURCE.id))

    linux = {Layer.os: Selector(layer=Layer.os, platform="linux")}
    windows = {Layer.os: Selector(layer=Layer.os, platform="windows")}
    for run in runs(rows, lambda r: r.get("requirements_torch")):
        if run.value != "torch":
            continue  # only the unversioned line has been read; a pinned one would need its own reading
        add(run, "comfyui-torch", Relation.requires, Selector(layer=Layer.framework, family="torch"),
            "requirements.txt", "torch", "requirements.txt names torch without a version.")
    for run in runs(rows, lambda r: r.get("manual_install")):
        for platform in ("linux", "windows"):
            if platform.capitalize() in run.value:
                add(run, f"comfyui-os-{platform}", Relation.runs_on, Selector(layer=Layer.os, platform=platform),
                    "README.md", run.value)
    for run in runs(rows, lambda r: (r.get("nvidia_stable_index"),) if r.get("nvidia_heading") else None):
        index = run.value[0]
        add(run, "comfyui-arch-nvidia", Relation.supports, Selector(layer=Layer.arch, vendor="nvidia"), "README.md",
            "NVIDIA", f"The stable install command takes PyTorch from {index}." if index else None)
    for run in runs(rows, lambda r: (r["amd_linux_heading"], r.get("amd_linux_stable_index")) if r.get("amd_linux_heading") else None):
        heading, index = run.value
        add(run, "comfyui-arch-amd-linux", Relation.supports, Selector(layer=Layer.arch, vendor="amd"), "README.md",
            heading, "Through PyTorch's ROCm wheels" + (f" (stable install command: {index})" if index else "")
            + "; which AMD GPUs work is decided by the PyTorch ROCm build.", when=linux)
    for run in runs(rows, lambda r: tuple(r.get("overrides") or ())):
        for line in run.value:
            value = line.split("=", 1)[1]
            if value not in _OVERRIDES:
                continue
            family, target = _OVERRIDES[value]
            add(run, f"comfyui-amd-override-{family.lower()}", Relation.supports,
                Selector(layer=Layer.arch, vendor="amd", family=family), "README.md",
                "For AMD cards not officially supported by ROCm",
                "HSA_OVERRIDE_GFX_VERSION is a Linux ROCm runtime setting and does nothing on Windows.",
                when=linux, status=Status.workaround, action=f"{line} python main.py", runs_as=target)
    for run in runs(rows, lambda r: (r["windows_amd_heading"], tuple(r.get("windows_amd_indexes") or ()))
                    if _families(r.get("windows_amd_heading")) else None):
        heading, indexes = run.value
        for family in _families(heading):
            add(run, f"comfyui-arch-amd-windows-{family.lower().replace('.', '')}", Relation.supports,
                Selector(layer=Layer.arch, vendor="amd", family=family), "README.md", heading,
                "Per-target PyTorch nightlies from AMD's index" + (f" ({', '.join(indexes)})" if indexes else "") + ".",
                when=windows, caveat="The README calls this route experimental, with less hardware support than the "
                                     "Linux ROCm builds.")
    return KBFile(sources=list(sources.values()), nodes=nodes, facts=facts)
