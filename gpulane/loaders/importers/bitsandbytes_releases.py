"""Importer for bitsandbytes releases 0.37.0 onwards: one app node per (release, feature).

Input: the pinned scan of the release tags of ``bitsandbytes-foundation/bitsandbytes``
(``scripts/scan_bitsandbytes_tags.py``; committed in ``data-inputs/``):
per tag the commit, the torch requirement and its file, the hardware row of each
feature in ``docs/source/installation.mdx`` (0.43.0 onwards) or, before that, the
CHANGELOG's 0.37.0 entry "Int8 now supported on all GPUs", and whether Linux is named.

Nodes: ``bitsandbytes-<version>-llm-int8`` ("bitsandbytes 0.45.0 LLM.int8()"),
``-8bit-optimizers`` and ``-nf4-fp4`` for the releases whose docs have a row for them.
Facts, one per run of consecutive releases saying the same (cited at the first tag):

* LLM.int8() up to 0.42: ``supports`` every NVIDIA arch, with the CHANGELOG's caveat
  (below compute capability 7.5 the int8 weights are cast to 16/32-bit for the matmul);
* from 0.43: ``requires`` the compute capability each row names ("Turing ... or Ampere"
  is 7.5 up to 8.7; "Turing or newer" and "7.5+" are 7.5 onwards; "Kepler (GTX 780 or
  newer)" 3.5; "Maxwell ... or newer" 5.0; "6.0+" 6.0), complete over NVIDIA archs;
* ``requires`` torch as the package metadata or README states it;
* ``runs_on`` Linux.

The ROCm backend (the installation page has an "AMD ROCm" section from 0.48.0): one node
per release, ``bitsandbytes-<version>-rocm`` ("bitsandbytes 0.49.0 (ROCm)"), with

* ``ships_kernels_for`` — per row of the page's wheel table (OS, ROCm release, targets), for
  releases whose release workflow builds ROCm libraries into the wheels (0.49.0 on), complete
  over AMD archs, under that OS and the ROCm major.minor (bitsandbytes loads the library
  built for the major.minor of the installed torch's ROCm); for 0.48.x, whose wheels have
  no ROCm library (the workflow's ROCm job is switched off), the default HIP targets of a
  source build (CMakeLists.txt), not complete (the build takes other targets when asked);
* ``requires`` the ROCm range the page gives for source builds ("ROCm 6.1 - ROCm 7.0");
* ``runs_on`` Linux (the wheel rows and the Linux build), Windows where the table has
  Windows rows, and Windows ``unsupported`` where the page says it is not supported.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .app_releases import REVIEWED, Run, read_json, runs, tag_source
from .errors import ImportFormatError

REPO = "https://github.com/bitsandbytes-foundation/bitsandbytes"
INPUT = "bitsandbytes-tags.json"
FEATURES = {"llm-int8": "LLM.int8()", "8bit-optimizers": "8-bit optimizers/quantization",
            "nf4-fp4": "NF4/FP4 quantization"}
SOURCE = Source(id="bitsandbytes-release-tags", url=f"{REPO}/tags", publisher="bitsandbytes-foundation",
                title="bitsandbytes release tags (0.37.0 onwards)", version="tags up to 0.50.1", reviewed=REVIEWED)


def cc_spec(row_text: str) -> str | None:
    """The compute capability range a feature row of the installation page names."""
    m = re.match(r"(\d+\.\d+)\+", row_text)
    if m:
        return f">={m.group(1)}"
    if "Turing" in row_text and "Ampere" in row_text:
        return ">=7.5,<8.9"  # Turing (7.5) and Ampere (8.0, 8.6, 8.7) only
    if "Turing" in row_text and "or newer" in row_text:
        return ">=7.5"
    if "Kepler" in row_text and "GTX 780 or newer" in row_text:
        return ">=3.5"  # GTX 780: compute capability 3.5
    if "Maxwell" in row_text and "or newer" in row_text:
        return ">=5.0"
    return None


def torch_spec(requirement: str) -> str | None:
    spec = requirement[len("torch"):].strip()
    return spec or None


def parse(path: Path) -> KBFile:
    path = Path(path)
    _, rows = read_json(path, "releases")
    for i, row in enumerate(rows):
        if not isinstance(row.get("tag"), str) or not re.fullmatch(r"\d+\.\d+\.\d+", row["tag"]):
            raise ImportFormatError(path, None, f"releases[{i}]: 'tag' missing or not a release tag X.Y.Z")
        if not isinstance(row.get("commit"), str) or not isinstance(row.get("features"), dict):
            raise ImportFormatError(path, None, f"release {row['tag']}: 'commit' and 'features' are required")
        for feature in row["features"]:
            if feature not in FEATURES:
                raise ImportFormatError(path, None, f"release {row['tag']}: unknown feature {feature!r}")
    sources: dict[str, Source] = {SOURCE.id: SOURCE}
    nodes: list[Node] = []
    facts: list[Fact] = []

    def node_id(row: dict, feature: str) -> str:
        return f"bitsandbytes-{row['tag']}-{feature}"

    for row in rows:
        rocm = row.get("rocm")
        if rocm is not None and not isinstance(rocm, dict):
            raise ImportFormatError(path, None, f"release {row['tag']}: 'rocm' must be an object")
        for feature in row["features"]:
            nodes.append(Node(id=node_id(row, feature), layer=Layer.app,
                              name=f"bitsandbytes {row['tag']} {FEATURES[feature]}", family="bitsandbytes",
                              version=row["tag"], backend="cuda", source=SOURCE.id))

        if rocm:
            nodes.append(Node(id=rocm_node_id(row), layer=Layer.app, name=f"bitsandbytes {row['tag']} (ROCm)",
                              family="bitsandbytes", version=row["tag"], backend="rocm", source=SOURCE.id,
                              note="The ROCm backend" + (" (a preview in the installation guide)" if rocm.get("preview")
                                                         else "") + "."))

    def cite(run: Run, file: str) -> str:
        src = tag_source(REPO, "bitsandbytes-foundation", "bitsandbytes", file, run.first["tag"], run.first["commit"], "bnb")
        sources.setdefault(src.id, src)
        return src.id

    def through(run: Run) -> str:
        return f"Read at {run.first['tag']}" + ("." if run.first is run.last else
                                                   f"; the same at every release tag through {run.last['tag']}.")

    def subjects(run: Run, features, rocm: bool = False) -> list[str]:
        out = [node_id(r, f) for r in run.rows for f in features if f in r["features"]]
        return out + ([rocm_node_id(r) for r in run.rows if r.get("rocm")] if rocm else [])

    for feature in FEATURES:
        for run in runs(rows, lambda r: r["features"].get(feature)):
            subject = subjects(run, [feature])
            if run.value.startswith("all GPUs"):
                facts.append(Fact(id=f"bnb-{run.first['tag']}-{feature}-all-gpus", relation=Relation.supports,
                                  subject=subject, object=Selector(layer=Layer.arch, vendor="nvidia"),
                                  source=cite(run, "CHANGELOG.md"), section="0.37.0: Int8 Matmul + backward support for all GPUs",
                                  caveat="On GPUs with compute capability below 7.5 the int8 weights are cast to 16/32-bit "
                                         "for the matrix multiplication (slower, not the int8 kernel).",
                                  note=("The README at 0.37.0 still says LLM.int8() requires Turing or Ampere GPUs; the "
                                        "CHANGELOG entry of the same release, which describes the change, is followed. "
                                        + through(run))))
                continue
            spec = cc_spec(run.value)
            if spec is None:
                raise ImportFormatError(path, None, f"release {run.first['tag']}: cannot read the {feature} row {run.value!r}")
            facts.append(Fact(id=f"bnb-{run.first['tag']}-{feature}-cc", relation=Relation.requires, subject=subject,
                              object=Selector(layer=Layer.arch, vendor="nvidia", compute_capability=spec),
                              domain=Selector(layer=Layer.arch, vendor="nvidia"),
                              source=cite(run, run.first["features_file"]),
                              section=f"Hardware requirements, {FEATURES[feature]} row",
                              note=f"Row: {run.value.rstrip(' *')}. {through(run)}"))
    every = list(FEATURES)
    for run in runs(rows, lambda r: (r.get("torch"), r.get("torch_file")) if r.get("torch") else None):
        requirement, file = run.value
        facts.append(Fact(id=f"bnb-{run.first['tag']}-torch", relation=Relation.requires,
                          subject=subjects(run, every, rocm=True),
                          object=Selector(layer=Layer.framework, family="torch", version=torch_spec(requirement)),
                          source=cite(run, file), section="torch requirement",
                          note=f"Requirement: {requirement}. {through(run)}"))
    for run in runs(rows, lambda r: r["features_file"] if r.get("linux") else None):
        facts.append(Fact(id=f"bnb-{run.first['tag']}-os-linux", relation=Relation.runs_on, subject=subjects(run, every),
                          object=Selector(layer=Layer.os, platform="linux"),
                          source=cite(run, "README.md" if run.value == "CHANGELOG.md" else run.value),
                          section="Requirements (Linux)", note=through(run)))
    facts.extend(_rocm_facts(path, rows, cite, through))
    return KBFile(sources=list(sources.values()), nodes=nodes, facts=facts)


def rocm_node_id(row: dict) -> str:
    return f"bitsandbytes-{row['tag']}-rocm"


def rocm_minor_spec(path: Path, tag: str, rocm: str) -> str:
    """"6.2.4" → "==6.2.*": the wheel's library for ROCm 6.2 serves every 6.2.x torch build."""
    m = re.fullmatch(r"(\d+)\.(\d+)(\.\d+)?", rocm)
    if not m:
        raise ImportFormatError(path, None, f"release {tag}: ROCm release {rocm!r} is not X.Y or X.Y.Z")
    return f"=={m.group(1)}.{m.group(2)}.*"


def rocm_range_spec(path: Path, tag: str, low: str, high: str) -> str:
    """The page's "ROCm 6.1 - ROCm 7.0" as a version range: 7.0 (a minor line) means every 7.0.x,
    7.14.0 (a release) that release and no later."""
    if not re.fullmatch(r"\d+\.\d+(\.\d+)?", low) or not re.fullmatch(r"\d+\.\d+(\.\d+)?", high):
        raise ImportFormatError(path, None, f"release {tag}: ROCm range {low!r} - {high!r} is not two releases")
    major, minor, *patch = high.split(".")
    upper = f"<={high}" if patch else f"<{major}.{int(minor) + 1}"
    return f">={low},{upper}"


ROCM_REVIEWED = dt.date(2026, 12, 1)  # the ROCm sections were read a day after the rest


def _rocm_facts(path: Path, rows: list[dict], cite, through) -> list[Fact]:
    """The ROCm backend's facts, one per run of releases whose ROCm section says the same."""
    facts: list[Fact] = []
    rocm_rows = [r for r in rows if r.get("rocm")]
    amd = Selector(layer=Layer.arch, vendor="amd")

    def ids(run: Run) -> list[str]:
        return [rocm_node_id(r) for r in run.rows]

    def wheels(r: dict):
        rocm = r["rocm"]
        if "wheels" not in rocm:
            return None
        out = []
        for w in rocm["wheels"]:
            if not isinstance(w, dict) or w.get("os") not in ("linux", "windows") or not isinstance(w.get("rocm"), str) \
                    or not isinstance(w.get("targets"), list) or not w["targets"]:
                raise ImportFormatError(path, None, f"release {r['tag']}: a ROCm wheel row needs 'os' (linux|windows), "
                                                    "'rocm' and a non-empty 'targets' list")
            out.append((w["os"], w["rocm"], tuple(w["targets"])))
        return tuple(out)

    for run in runs(rocm_rows, wheels):
        first = run.first["tag"]
        preview = " The installation guide calls ROCm support a preview." if run.first["rocm"].get("preview") else ""
        for os_name, rocm, targets in run.value:
            facts.append(Fact(
                id=f"bnb-{first}-rocm-{os_name}-{rocm}", relation=Relation.ships_kernels_for, subject=ids(run),
                object=Selector(ids=list(targets)),
                when={Layer.os: Selector(layer=Layer.os, platform=os_name),
                      Layer.toolkit: Selector(layer=Layer.toolkit, family="rocm", version=rocm_minor_spec(path, first, rocm))},
                exhaustive=True, domain=amd, source=cite(run, run.first["rocm"]["section_file"]),
                section=f"AMD ROCm: wheel table, {os_name.capitalize()} x86-64 row, ROCm {rocm}",
                note=(f"The wheels carry a library per ROCm release; bitsandbytes loads the one built for the ROCm "
                      f"major.minor of the installed torch, so the row covers ROCm {'.'.join(rocm.split('.')[:2])}.x. "
                      f"The release workflow builds the ROCm libraries into the wheels at this tag.{preview} "
                      + through(run))))

    def source_default(r: dict):
        return tuple(r["rocm"].get("source_build_default_targets") or ()) if "wheels" not in r["rocm"] else None

    for run in runs(rocm_rows, source_default):
        facts.append(Fact(
            id=f"bnb-{run.first['tag']}-rocm-source-build", relation=Relation.ships_kernels_for, subject=ids(run),
            object=Selector(ids=list(run.value)), when={Layer.os: Selector(layer=Layer.os, platform="linux")},
            source=cite(run, "CMakeLists.txt"), section="CMAKE_HIP_ARCHITECTURES default (COMPUTE_BACKEND=hip)",
            caveat=("This release publishes no ROCm wheels (the release workflow's ROCm job is switched off): the "
                    "ROCm backend is built from source, for these targets unless others are asked for."),
            note=("The installation guide offers ROCm through preview wheels built from the main branch or a source "
                  "build. " + through(run))))

    def source_range(r: dict):
        rng = r["rocm"].get("source_rocm_range")
        return tuple(rng) if rng else None

    for run in runs(rocm_rows, source_range):
        low, high = run.value
        facts.append(Fact(
            id=f"bnb-{run.first['tag']}-rocm-toolkit-range", relation=Relation.requires, subject=ids(run),
            object=Selector(layer=Layer.toolkit, family="rocm", version=rocm_range_spec(path, run.first["tag"], low, high)),
            source=cite(run, run.first["rocm"]["section_file"]), section="AMD ROCm: Compile from Source",
            note=f"The page: it can be compiled from ROCm {low} to ROCm {high}. " + through(run)))

    def platforms(r: dict):
        rocm = r["rocm"]
        oses = {w["os"] for w in rocm.get("wheels", [])} or {"linux"}
        return (tuple(sorted(oses)), bool(rocm.get("windows_unsupported")))

    for run in runs(rocm_rows, platforms):
        oses, windows_unsupported = run.value
        src = cite(run, run.first["rocm"]["section_file"])
        for os_name in oses:
            facts.append(Fact(
                id=f"bnb-{run.first['tag']}-rocm-os-{os_name}", relation=Relation.runs_on, subject=ids(run),
                object=Selector(layer=Layer.os, platform=os_name), source=src,
                section=f"AMD ROCm: {os_name.capitalize()} x86-64", note=through(run)))
        if windows_unsupported:
            facts.append(Fact(
                id=f"bnb-{run.first['tag']}-rocm-os-windows-unsupported", relation=Relation.runs_on, subject=ids(run),
                object=Selector(layer=Layer.os, platform="windows"), status="unsupported", source=src,
                section="AMD ROCm", note="The page: Windows is not currently supported (for ROCm). " + through(run)))
    return [f.model_copy(update={"reviewed": ROCM_REVIEWED}) for f in facts]
