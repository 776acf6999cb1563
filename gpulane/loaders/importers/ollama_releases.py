"""Importer for Ollama releases: one app node per (release, backend), range facts.

Input: the pinned scan of every release tag of ``ollama/ollama`` since v0.1.25
(``scripts/scan_ollama_tags.py`` writes it from a clone; the file is committed under
``data-inputs/``). Per tag it holds the commit, the ROCm targets of
the Linux and Windows builds, the CUDA architectures of the shipped Linux CUDA builds,
the ROCm and HIP SDK versions the builds bundle, whether a Vulkan backend ships, and
what ``docs/gpu.md(x)`` says (LLVM targets known supported on Linux, the NVIDIA compute
capability floor, the Vulkan note).

Nodes: ``ollama-<version>-cuda``, ``-rocm`` and (from the first release that builds it)
``-vulkan``; none uses a framework, the Vulkan one no toolkit either.

Facts (each a range over the releases that say the same, cited at the first of them):

* ``ships_kernels_for`` — the ROCm build lists (Linux, Windows) and the union of the
  shipped Linux CUDA builds' architectures (``61`` builds sm_61 and compute_61,
  ``61-virtual`` only compute_61, ``61-real`` only sm_61); complete lists;
* ``supports`` — the LLVM targets the docs call known supported on Linux, kept only
  where the build at that tag compiles them (the docs of v0.12.5-v0.12.10 still list
  gfx900/gfx906 after the build dropped them in v0.12.4), complete over AMD archs;
* ``requires`` — the NVIDIA compute capability floor the docs state;
* Vulkan: only ``runs_on`` (the docs name Windows and Linux but no GPU, so the
  architecture edge stays unknown);
* ``bundles`` — the ROCm release the Linux image is built from, the CUDA releases of
  the shipped Linux CUDA builds;
* ``runs_on`` — Linux for every backend, Windows where the tag builds Windows binaries;
* Windows ROCm (from v0.2.8, where the docs have a "Windows Support" card table): ``supports``
  the listed cards (complete over AMD GPUs), ``ships_kernels_for`` the Windows build's
  targets, ``runs_on`` Windows and ``bundles`` the HIP SDK line the build installs (where the
  knowledge base has a node of that line).
"""

from __future__ import annotations

import re
from pathlib import Path

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source, Status

from .app_releases import Run, read_json, release_selector, runs, tag_source
from .errors import ImportFormatError

REPO = "https://github.com/ollama/ollama"
FAMILY = "ollama"
BACKEND_NAMES = {"cuda": "CUDA", "rocm": "ROCm", "vulkan": "Vulkan"}
INPUT = "ollama-tags.json"

SOURCE = Source(id="ollama-release-tags", url=f"{REPO}/tags", publisher="Ollama",
                title="Ollama release tags (v0.1.25 onwards)", version="tags up to v0.32.15",
                reviewed=__import__("datetime").date(2026, 11, 30))


def version(row: dict) -> str:
    return row["tag"].lstrip("v")


def cuda_targets(archs: list[str]) -> list[str]:
    """CMake CUDA architectures → build targets (sm_XX machine code, compute_XX PTX)."""
    out: list[str] = []
    for entry in archs:
        m = re.fullmatch(r"(\d+)(a?)(?:-(real|virtual))?", entry)
        if not m:
            continue
        number, suffix, kind = m.groups()
        if kind != "virtual":
            out.append(f"sm_{number}{suffix}")
        if kind != "real" and not suffix:
            out.append(f"compute_{number}")
    return sorted(set(out), key=lambda t: (int(re.sub(r"\D", "", t)), t))


# CUDA 11.3 has no toolkit node (NVIDIA's release-note table the CUDA nodes come from starts
# at 11.4): a bundles fact naming only it would rule out every toolkit, so none is written
# and the app-toolkit edge of those releases stays unknown.
_NO_TOOLKIT_NODE = {("cuda", "11.3")}


# The Windows ROCm facts were added (and their sources read again) later than the rest.
REVIEWED_WINDOWS = __import__("datetime").date(2026, 12, 1)
# HIP SDK for Windows lines that have a toolkit node (hip-sdk-windows.yaml: 6.0.0, 6.1.1, 6.2, 6.4.2, 7.2).
_HIP_SDK_NODES = {"6.0", "6.1", "6.2", "6.4", "7.2"}
# Cards of the docs' Windows table that name no card (checked by kb check through `unmatched`).
_NOT_A_CARD = {"RX 6900 XTX"}


def windows_gpus(cards: tuple[tuple[str, str], ...]) -> tuple[list[str], list[str], list[str]]:
    """The docs' Windows card table ("AMD Radeon RX", "7900 XTX") → GPU node ids, the names as
    listed ("RX 7900 XTX", "Radeon PRO W7900"), and the names that are no card."""
    ids, listed, unmatched = [], [], []
    for family, card in cards:
        brand = "RX" if family.endswith("RX") else "Radeon PRO" if family.endswith("PRO") else family.removeprefix("AMD ")
        name = f"{brand} {card}"
        if name in _NOT_A_CARD:
            unmatched.append(name)
            continue
        spaced = re.sub(r"^(\d+)(?=[A-Z])", r"\1 ", card) if brand == "RX" else card  # "6900XT" is the RX 6900 XT
        prefix = "radeon-rx" if brand == "RX" else "radeon-pro" if brand == "Radeon PRO" else re.sub(r"\W+", "-", brand.lower())
        ids.append(f"{prefix}-{re.sub(r'[^a-z0-9]+', '-', spaced.lower()).strip('-')}")
        listed.append(name)
    return ids, listed, unmatched


def minor_line(v: str) -> str:
    return ".".join(v.split(".")[:2])


def toolkit_spec(family: str, versions: list[str]) -> str | None:
    """The bundled releases as a spec over their minor lines ("==12.8.* || ==13.0.*").

    The images are built from one patch release (ROCm 7.2.1, CUDA 12.4.0); the toolkit
    nodes of that minor line stand in for it, since the knowledge base does not hold
    every patch release."""
    lines = [minor_line(v) for v in versions if (family, minor_line(v)) not in _NO_TOOLKIT_NODE]
    return " || ".join(f"=={line}.*" for line in dict.fromkeys(lines)) or None


def parse(path: Path) -> KBFile:
    path = Path(path)
    _, rows = read_json(path, "releases")
    for i, row in enumerate(rows):
        for field in ("tag", "commit", "era"):
            if not isinstance(row.get(field), str):
                raise ImportFormatError(path, None, f"release #{i}: field '{field}' missing or not a string")
        if not re.fullmatch(r"v\d+\.\d+\.\d+", row["tag"]):
            raise ImportFormatError(path, None, f"release #{i}: tag {row['tag']!r} is not a release tag vX.Y.Z")
    sources: dict[str, Source] = {}
    nodes: list[Node] = []
    facts: list[Fact] = []

    def cite(run: Run, file: str | None) -> str:
        src = tag_source(REPO, "Ollama", "Ollama", file, run.first["tag"], run.first["commit"], "ollama")
        sources.setdefault(src.id, src)
        return src.id

    def through(run: Run) -> str:
        if run.first is run.last:
            return f"Read at {run.first['tag']}."
        return f"Read at {run.first['tag']}; the same at every release tag through {run.last['tag']}."

    def add(run: Run, rows_of: list[dict], fid: str, relation: Relation, subject: Selector, obj, file: str, section: str,
            **extra) -> None:
        extra_note = extra.pop("note", None)
        facts.append(Fact(id=f"{fid}-{version(run.first)}", relation=relation, subject=subject,
                          object=obj if isinstance(obj, Selector) else Selector(ids=list(obj)),
                          source=cite(run, file), section=section,
                          note=" ".join(x for x in (extra_note, through(run)) if x), **extra))

    vulkan_rows = [r for r in rows if r.get("vulkan")]
    for row in rows:
        v = version(row)
        for backend in ("cuda", "rocm") + (("vulkan",) if row.get("vulkan") else ()):
            nodes.append(Node(id=f"ollama-{v}-{backend}", layer=Layer.app, name=f"Ollama {v} ({BACKEND_NAMES[backend]})",
                              family=FAMILY, version=v, backend=backend,
                              layers={Layer.framework: "not_used", **({Layer.toolkit: "not_used"} if backend == "vulkan" else {})},
                              release_date=row.get("date") or None, source=SOURCE.id))

    def sel(run: Run, backend: str, pool: list[dict] = rows) -> Selector:
        return release_selector(FAMILY, run.spec(pool, version), backend)

    # ROCm, Linux build and docs.
    for run in runs(rows, lambda r: tuple(r.get("rocm_targets_linux") or ())):
        add(run, rows, "ollama-rocm-linux-build", Relation.ships_kernels_for, sel(run, "rocm"), run.value,
            run.first["files"]["rocm_linux"], "AMD GPU targets of the Linux ROCm build",
            when={Layer.os: Selector(layer=Layer.os, platform="linux")}, exhaustive=True,
            domain=Selector(layer=Layer.arch, vendor="amd"))

    def documented(r: dict) -> tuple[str, ...]:
        built = set(r.get("rocm_targets_linux") or ())
        return tuple(t for t in r.get("doc_linux_targets") or () if t in built)
    for run in runs(rows, documented):
        dropped = sorted(set(run.first.get("doc_linux_targets") or ()) - set(run.value))
        add(run, rows, "ollama-rocm-linux-docs", Relation.supports, sel(run, "rocm"), run.value,
            run.first["doc"], "AMD Radeon: Overrides on Linux (LLVM targets known supported on Linux)",
            when={Layer.os: Selector(layer=Layer.os, platform="linux")}, exhaustive=True,
            domain=Selector(layer=Layer.arch, vendor="amd"),
            note=(f"The docs also list {', '.join(dropped)}, which the Linux build at this tag does not compile; "
                  "they are left out." if dropped else None))
    for run in runs(rows, lambda r: r.get("rocm_version_linux")):
        add(run, rows, "ollama-rocm-linux-bundles", Relation.bundles, sel(run, "rocm"),
            Selector(layer=Layer.toolkit, family="rocm", version=toolkit_spec("rocm", [run.value])),
            "Dockerfile", "ROCm version argument of the Linux image build",
            when={Layer.os: Selector(layer=Layer.os, platform="linux")},
            note=f"The image is built from ROCm {run.value}; any ROCm {minor_line(run.value)} node stands for it.")
    # ROCm on Windows: the docs' "Windows Support" card list (from v0.2.8) is the support
    # statement, complete over AMD GPUs as the versionless node reads it; beside it the Windows
    # build list says what the release was compiled for. Before v0.2.8 the docs state nothing for
    # Windows, so the build lists of those releases are not loaded (a build list alone would read
    # "compiled for" as "supported"; kb check refuses it outside every statement's scope).
    def windows_doc(r: dict):
        cards = tuple(map(tuple, r.get("doc_windows_cards") or ()))
        return (cards, r.get("doc_windows_statement")) if cards else None
    for run in runs(rows, windows_doc):
        ids, listed, unmatched = windows_gpus(run.value[0])
        add(run, rows, "ollama-rocm-windows-docs", Relation.supports, sel(run, "rocm"), ids,
            run.first["doc"], "AMD Radeon: Windows Support (card table)",
            when={Layer.os: Selector(layer=Layer.os, platform="windows"),
                  Layer.arch: Selector(layer=Layer.arch, vendor="amd")},
            exhaustive=True, domain=Selector(layer=Layer.gpu, vendor="amd"), listed=listed, unmatched=unmatched,
            reviewed=REVIEWED_WINDOWS,
            note=(f"The docs: \"{run.value[1]}\" " if run.value[1] else "")
                 + "The table names cards without the brand; `listed` gives each as a full name. "
                 + (f"{', '.join(unmatched)}: no such card in the catalogue (the RX 6900 XT is listed separately). "
                    if unmatched else ""))
    documented_windows = [r for r in rows if r.get("doc_windows_cards")]
    for run in runs(documented_windows, lambda r: tuple(r.get("rocm_targets_windows") or ())):
        add(run, documented_windows, "ollama-rocm-windows-build", Relation.ships_kernels_for,
            sel(run, "rocm", documented_windows), run.value, run.first["files"]["windows"],
            "AMD GPU targets of the Windows ROCm build",
            when={Layer.os: Selector(layer=Layer.os, platform="windows")}, exhaustive=True,
            domain=Selector(layer=Layer.arch, vendor="amd"),
            reviewed=REVIEWED_WINDOWS,
            note="What the Windows ROCm runner was compiled for; the docs' Windows card table is the support "
                 "statement.")
    for run in runs(documented_windows, lambda r: r["files"]["windows"] if r.get("rocm_targets_windows") else None):
        add(run, documented_windows, "ollama-rocm-os-windows", Relation.runs_on, sel(run, "rocm", documented_windows),
            Selector(layer=Layer.os, platform="windows"), run.value, "Windows ROCm build", reviewed=REVIEWED_WINDOWS)
    for run in runs(documented_windows, lambda r: r.get("hip_sdk_windows") if r.get("rocm_targets_windows") else None):
        if minor_line(run.value) not in _HIP_SDK_NODES:
            continue  # no HIP SDK node of that line (7.1): the app-toolkit edge stays unknown
        add(run, documented_windows, "ollama-rocm-windows-bundles", Relation.bundles, sel(run, "rocm", documented_windows),
            Selector(layer=Layer.toolkit, family="hip-sdk", version=f"=={minor_line(run.value)}.*"),
            ".github/workflows/release.yaml", "Windows build: rocm-version of the HIP SDK it installs",
            when={Layer.os: Selector(layer=Layer.os, platform="windows")}, reviewed=REVIEWED_WINDOWS,
            note=f"The Windows ROCm runner is built with HIP SDK {run.value} and ships its libraries; the HIP SDK "
                 f"{minor_line(run.value)} node stands for it.")
    # CUDA, Linux builds and docs.
    for run in runs(rows, lambda r: tuple(cuda_targets([a for c in r.get("cuda_linux") or () for a in c["archs"]]))):
        add(run, rows, "ollama-cuda-linux-build", Relation.ships_kernels_for, sel(run, "cuda"), run.value,
            run.first["files"]["cuda_linux"], "CUDA architectures of the shipped Linux CUDA builds",
            when={Layer.os: Selector(layer=Layer.os, platform="linux")}, exhaustive=True,
            domain=Selector(layer=Layer.arch, vendor="nvidia"),
            note="CMake architecture entries without a suffix build machine code and PTX; -virtual entries PTX only.")
    for run in runs(rows, lambda r: tuple(c["cuda"] for c in r.get("cuda_linux") or () if c.get("cuda"))):
        spec = toolkit_spec("cuda", list(run.value))
        if spec is None:
            continue
        add(run, rows, "ollama-cuda-linux-bundles", Relation.bundles, sel(run, "cuda"),
            Selector(layer=Layer.toolkit, family="cuda", version=spec),
            "Dockerfile", "CUDA version arguments of the shipped Linux CUDA builds",
            when={Layer.os: Selector(layer=Layer.os, platform="linux")},
            note=f"Built with CUDA {', '.join(run.value)}; any node of those minor lines stands for them."
                 + (" CUDA 11.3 has no toolkit node here." if any(minor_line(v) == "11.3" for v in run.value) else ""))
    for run in runs(rows, lambda r: r.get("doc_nvidia_cc_floor")):
        add(run, rows, "ollama-cuda-cc-floor", Relation.requires, sel(run, "cuda"),
            Selector(layer=Layer.arch, vendor="nvidia", compute_capability=f">={run.value}"),
            run.first["doc"], "Nvidia (compute capability floor)")
    # Vulkan: the docs (from v0.12.11) say further AMD GPUs are reached through Vulkan on Windows
    # and Linux but name none, so no architecture fact is written (unknown, never "not
    # supported", as for the versionless node); the platforms are stated.
    for run in runs(vulkan_rows, lambda r: r.get("doc_vulkan")):
        note = ("The docs call Vulkan experimental here (off unless OLLAMA_VULKAN=1 is set for the server)."
                if run.value == "experimental" else "The docs say Vulkan is on by default here.")
        for platform in ("linux", "windows"):
            add(run, vulkan_rows, f"ollama-vulkan-os-{platform}", Relation.runs_on, sel(run, "vulkan", vulkan_rows),
                Selector(layer=Layer.os, platform=platform), run.first["doc"], "Vulkan GPU Support (Windows and Linux)",
                note=note)
    # Operating systems.
    for backend in ("cuda", "rocm"):
        for run in runs(rows, lambda r: True):
            add(run, rows, f"ollama-{backend}-os-linux", Relation.runs_on, sel(run, backend),
                Selector(layer=Layer.os, platform="linux"), "Dockerfile", "Linux image build")
    for run in runs(rows, lambda r: r["files"]["windows"] if r.get("windows_build") else None):
        add(run, rows, "ollama-cuda-os-windows", Relation.runs_on, sel(run, "cuda"),
            Selector(layer=Layer.os, platform="windows"), run.value, "Windows build")
    return KBFile(sources=[SOURCE, *sources.values()], nodes=nodes, facts=facts)
