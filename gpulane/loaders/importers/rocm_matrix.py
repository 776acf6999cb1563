"""Importer for the ROCm compatibility matrix, historical CSV (ROCm 6.0.0 onward).

The CSV is transposed: the first row holds the ROCm releases (one column,
``7.0.1/7.0.0``, stands for two releases) and every other row is one attribute.
Column 0 is the row label, written with RST roles (``:doc:`PyTorch <...>```) and
footnote references (``[#name]_``); an empty label continues the label above.
Cells that start with ``.. _anchor:`` are RST anchors, ``N/A`` is "not
applicable", and a few cells carry footnote references too.

We read these row groups and ignore the component-version rows:

* ``Operating systems``: toolkit ``supports`` os, exhaustive per release;
* ``GPU / LLVM target``: toolkit ``supports`` arch, exhaustive per release;
* ``FRAMEWORK SUPPORT``: toolkit ``supports`` a framework (PyTorch, TensorFlow) or app
  (llama.cpp) chosen by a selector; rows for what the knowledge base has no nodes for
  (JAX versions, ONNX Runtime, verl, DGL, ...) are read and checked but emit nothing;
* ``AMD GPU Driver``: toolkit ``supports`` amdgpu driver versions, exhaustive;
* ``HIP``: the HIP version, kept in the toolkit node's note.

The footnote texts live in ``compatibility-matrix.rst``; every footnote the CSV
references must be one this module knows how to read (:data:`FOOTNOTES`),
otherwise the import stops so that a person reads the new footnote first.
"""

from __future__ import annotations

import csv
import re
from datetime import date
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from packaging.version import InvalidVersion, Version

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source, Status

from .common import REVIEWED, OsRef, gpu_id, os_node, parse_os_list, split_footnotes, strip_rst_inline
from .errors import ImportFormatError

COMMIT = "decd7e712cb227873d6803e86f5f33870a0661d0"

SOURCE = Source(
    id="rocm-compat-matrix",
    url=f"https://github.com/alanina/ROCm/blob/{COMMIT}/docs/compatibility/compatibility-matrix-historical-6.0.csv",
    publisher="AMD",
    title="ROCm compatibility matrix, past versions (compatibility-matrix-historical-6.0.csv)",
    version=COMMIT,
    reviewed=REVIEWED,
    note="Mirror of ROCm/ROCm docs/compatibility/compatibility-matrix-historical-6.0.csv in the fork alanina/ROCm.",
)

FOOTNOTE_SOURCE = Source(
    id="rocm-compat-matrix-footnotes",
    url=f"https://github.com/alanina/ROCm/blob/{COMMIT}/docs/compatibility/compatibility-matrix.rst",
    publisher="AMD",
    title="ROCm compatibility matrix page, footnotes to the past-versions table (compatibility-matrix.rst)",
    version=COMMIT,
    reviewed=REVIEWED,
)

# Read for what the matrix's TensorFlow row names (AMD's tensorflow-rocm builds); the build
# nodes' notes restate it.
TF_COMPAT_COMMIT = "e396b4898f459db094bfd60b876f419f77eb9f09"
TF_COMPAT_SOURCE = Source(
    id="rocm-tensorflow-compat",
    url=f"https://github.com/ROCm/ROCm/blob/{TF_COMPAT_COMMIT}/docs/compatibility/ml-compatibility/tensorflow-compatibility.rst",
    publisher="AMD",
    title="ROCm documentation, TensorFlow compatibility (ROCm TensorFlow release, Docker image components)",
    version=TF_COMPAT_COMMIT,
    reviewed=date(2026, 12, 1),
    note="AMD maintains ROCm/tensorflow-upstream; the Docker image table links tensorflow-rocm wheels "
         "(repo.radeon.com/rocm/manylinux/rocm-rel-6.3/tensorflow_rocm-2.17.0-...manylinux_2_28_x86_64.whl).",
)

VERSION_RE = re.compile(r"\d+\.\d+\.\d+")


# ---------------------------------------------------------------- row labels

OS_LABEL = "Operating systems & kernels"
ARCH_FAMILY_LABEL = "Architecture"
TARGET_LABEL = "GPU / LLVM target"
DRIVER_LABEL = "AMD GPU Driver"
HIP_LABEL = "HIP"

# label -> (layer, family) for the framework support rows
FRAMEWORK_ROWS = {
    "PyTorch": (Layer.framework, "torch"),
    "TensorFlow": (Layer.framework, "tensorflow"),
    "JAX": (Layer.framework, "jax"),
    "ONNX Runtime": (Layer.framework, "onnxruntime"),
    "verl": (Layer.app, "verl"),
    "Stanford Megatron-LM": (Layer.app, "stanford-megatron-lm"),
    "DGL": (Layer.app, "dgl"),
    "Megablocks": (Layer.app, "megablocks"),
    "Ray": (Layer.app, "ray"),
    "llama.cpp": (Layer.app, "llama.cpp"),
    "FlashInfer": (Layer.app, "flashinfer"),
}
# The rows whose framework or app the knowledge base has nodes for. The other rows (ONNX
# Runtime, verl, DGL, Ray, ...; JAX, whose nodes are the jax[cuda12]/[rocm7] plugins, not the
# versions this matrix names) are still read and checked, but emit no facts: a fact whose
# object selects no node would be dead weight that `kb check` rightly flags.
MODELLED_ROWS = frozenset({"PyTorch", "TensorFlow", "llama.cpp"})
FRAMEWORK_SECTION = "FRAMEWORK SUPPORT"
# Rows that name AMD's own ROCm builds of a framework rather than the upstream releases: AMD's
# TensorFlow compatibility page says AMD maintains ROCm/tensorflow-upstream and publishes
# tensorflow-rocm wheels, and the matrix's TensorFlow row names those builds (2.18.1, 2.16.2 ...
# are tensorflow-rocm versions; the upstream nodes in tensorflow.yaml are the CUDA builds of
# TensorFlow's tested-build table). Each version such a row names becomes a framework node of its
# own (label -> node id/name prefix), and the row's facts select only ROCm builds.
ROCM_BUILD_ROWS = {"TensorFlow": "tensorflow-rocm"}
ROCM_BUILD_NOTE = ("AMD's ROCm build of {label} {version}, named in the {label} row of AMD's compatibility matrix. "
                   "AMD's {label} compatibility page says AMD keeps a ROCm {label} repository "
                   "(ROCm/tensorflow-upstream) and links {prefix} wheels on repo.radeon.com; this is not the "
                   "CUDA build of {label}'s own tested-build table.")


# ----------------------------------------------------------------- footnotes


@dataclass(frozen=True)
class Footnote:
    """How we read one footnote of the matrix (restated in our words)."""

    kind: str  # "os-caveat" | "gpu-note" | "only-on" | "not-on-gpus" | "note"
    text: str  # our restatement
    releases: tuple[str, ...] = ()  # for "only-on": the releases named ("6.4.*" allowed)
    gpus: tuple[str, ...] = ()  # for "not-on-gpus": GPU names


FOOTNOTES: dict[str, Footnote] = {
    "os-compatibility": Footnote(
        "os-caveat",
        "AMD notes that some of the listed operating systems are supported only with particular GPUs; "
        "check the Linux system requirements of this ROCm release for the GPU in question.",
    ),
    "gpu-compatibility": Footnote(
        "gpu-note",
        "AMD notes that some GPUs of this architecture are supported on fewer operating systems; the per-GPU "
        "limits are in the Linux system requirements of the release.",
    ),
    "tf-mi350": Footnote(
        "not-on-gpus",
        "AMD excludes TensorFlow 2.17.1 on the Instinct MI350 series; 2.19.1 or 2.18.1 are the versions to use there.",
        gpus=("MI350X", "MI355X"),
    ),
    "verl_compat": Footnote("only-on", "AMD's footnote names ROCm 6.2.0 as the only release for verl.", ("6.2.0",)),
    "stanford-megatron-lm_compat": Footnote(
        "only-on", "AMD's footnote names ROCm 6.3.0 as the only release for Stanford Megatron-LM.", ("6.3.0",)
    ),
    "dgl_compat": Footnote(
        "only-on", "AMD's footnote names ROCm 7.0.0, 6.4.3 and 6.4.0 as the releases for DGL.", ("7.0.0", "6.4.3", "6.4.0")
    ),
    "megablocks_compat": Footnote(
        "only-on", "AMD's footnote names ROCm 6.3.0 as the only release for Megablocks.", ("6.3.0",)
    ),
    "ray_compat": Footnote("only-on", "AMD's footnote names ROCm 6.4.1 as the only release for Ray.", ("6.4.1",)),
    "llama-cpp_compat": Footnote(
        "only-on", "AMD's footnote names ROCm 7.0.0 and the 6.4 releases as the releases for llama.cpp.", ("7.0.0", "6.4.*")
    ),
    "flashinfer_compat": Footnote(
        "only-on", "AMD's footnote names ROCm 6.4.1 as the only release for FlashInfer.", ("6.4.1",)
    ),
    "mi325x_KVM": Footnote(
        "note", "Instinct MI325X systems using KVM SR-IOV virtualization should avoid amdgpu 30.20.0."
    ),
    "driver_patch": Footnote(
        "note", "amdgpu 30.10.1 is a fix-only update of 30.10 and works with both ROCm 7.0.0 and 7.0.1."
    ),
    "kfd_support": Footnote(
        "note",
        "From ROCm 6.4.0 AMD keeps the amdgpu driver and the ROCm user space compatible across releases up to a "
        "year apart (before 6.4.0: two releases either way); the list reflects testing at each release's launch.",
    ),
    "ROCT-rocr": Footnote("note", "From ROCm 6.3.0 the ROCT thunk library ships inside the ROCr runtime package."),
}


def footnote(path: Path, line: int, name: str, where: str) -> Footnote:
    key = name.removesuffix("-past-60")
    if key not in FOOTNOTES:
        raise ImportFormatError(
            path, line,
            f"{where}: footnote reference [#{name}]_ is not one this importer knows "
            f"({', '.join(sorted(FOOTNOTES))}); read its text in compatibility-matrix.rst and teach the importer",
        )
    return FOOTNOTES[key]


def _release_matches(release: str, pattern: str) -> bool:
    if pattern.endswith(".*"):
        return release.startswith(pattern[:-1])
    return release == pattern


# ----------------------------------------------------------------- parsing


@dataclass
class Column:
    header: str  # as published, stripped
    releases: tuple[str, ...]  # one or two ROCm versions
    index: int  # 0-based CSV column


def _columns(path: Path, line: int, header: list[str]) -> list[Column]:
    if not header or header[0].strip() != "ROCm Version":
        found = header[0].strip() if header else ""
        raise ImportFormatError(path, line, f"row 1, column 1: expected 'ROCm Version', found {found!r}")
    cols = []
    for index, cell in enumerate(header[1:], start=1):
        value = cell.strip()
        parts = tuple(p.strip() for p in value.split("/"))
        if not value or not all(VERSION_RE.fullmatch(p) for p in parts):
            raise ImportFormatError(
                path, line,
                f"row 1, column {index + 1}: expected a ROCm version such as '6.2.0' (or '7.0.1/7.0.0'), "
                f"found {cell!r}",
            )
        cols.append(Column(value, parts, index))
    seen: set[str] = set()
    for col in cols:
        for release in col.releases:
            if release in seen:
                raise ImportFormatError(path, line, f"row 1: ROCm {release} appears in two columns")
            seen.add(release)
    return cols


def _version_spec(path: Path, line: int, item: str, where: str) -> Optional[str]:
    """``"2.6"`` -> ``"==2.6.*"``; ``"2.9.1"`` -> ``"==2.9.1"``; ``"v0.2.5"`` -> ``"==0.2.5"``;
    ``None`` for labels that are not PEP 440 versions (``b6652``, a commit id)."""

    value = item.strip()
    if re.fullmatch(r"v?\d+\.\d+", value):
        return f"=={value.lstrip('v')}.*"
    try:
        Version(value)
    except InvalidVersion:
        if re.fullmatch(r"b\d+|[0-9a-f]{7,40}", value):
            return None
        raise ImportFormatError(path, line, f"{where}: expected a version such as '2.6' or '2.9.1', found {item!r}")
    return f"=={value.lstrip('v')}"


def _driver_spec(path: Path, line: int, item: str, where: str) -> str:
    value = item.strip()
    m = re.fullmatch(r"(\d+\.\d+)\.x", value)
    if m:
        return f"=={m.group(1)}.*"
    if re.fullmatch(r"\d+\.\d+(\.\d+)?", value):
        return f"=={value}"
    raise ImportFormatError(
        path, line, f"{where}: expected a driver version such as '30.10.1', '30.10' or '6.4.x', found {item!r}"
    )


# The matrix's "GPU / LLVM target" row is a summary: the page sends readers to each release's
# GPU tables, which list more (6.1.x and 6.2.x list gfx906 as deprecated). So its targets
# are supported ones, never a complete list.
SUMMARY_ROW_NOTE = ("A summary row, not a complete list: the release's Linux GPU tables decide per card and "
                    "may list more targets.")
# AMD's Linux tables list cards, not targets ("if a GPU is not listed on this table, it's not
# officially supported"): ROCm 6.4 lists the W6800 but not the RX 6800, both gfx1030, and ROCm 7.2.2
# lists the MI300X but not the MI308X, both gfx942. So a target in the summary row decides no card:
# the row's facts hold for no GPU (an empty selector) and are kept to show what the row says. A card
# is decided by the release's per-card table where the knowledge base holds one, and is unknown
# otherwise.
SUMMARY_ROW_SCOPE = Selector(layer=Layer.gpu, ids=[])
SUMMARY_ROW_SCOPE_NOTE = ("Decides no card: AMD lists supported GPUs per card in each release's Linux system "
                          "requirements, and a target in this row does not say which cards of it are supported.")
# Shown with every answer that rests on the summary row alone (a caveated fact is used only where
# no caveat-free fact, such as a per-card table, supports the pair).
SUMMARY_ROW_CAVEAT = ("Rests on the matrix's per-target summary row: AMD lists supported accelerators per card "
                      "in each release's Linux system requirements; check that page for this card.")


def parse(path: Path) -> KBFile:
    path = Path(path)
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, strict=True)
            records = []
            for row in reader:
                records.append((reader.line_num, row))
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFormatError(path, None, f"cannot read the file: {exc}") from exc
    except csv.Error as exc:
        raise ImportFormatError(path, None, f"not a well-formed CSV file: {exc}") from exc
    if not records:
        raise ImportFormatError(path, 1, "the file is empty; expected a header row starting with 'ROCm Version'")

    header_line, header = records[0]
    columns = _columns(path, header_line, header)
    width = len(header)
    releases = [r for col in columns for r in col.releases]

    os_refs: dict[str, dict[str, list[str]]] = {r: {} for r in releases}  # release -> node id -> points
    os_nodes: dict[str, OsRef] = {}
    os_caveats: list[str] = []
    targets: dict[str, list[str]] = {r: [] for r in releases}
    target_notes: list[str] = []
    hip: dict[str, str] = {}
    facts: list[Fact] = []
    driver_notes: list[str] = []
    build_nodes: dict[str, Node] = {}  # version -> AMD's ROCm build of a framework (tensorflow-rocm)

    label = ""
    label_notes: list[str] = []
    section = ""
    seen_os = seen_targets = seen_driver = False
    for lineno, row in records[1:]:
        if len(row) != width:
            raise ImportFormatError(
                path, lineno, f"row has {len(row)} cells, expected {width} (a label and one per ROCm column)"
            )
        raw_label = row[0].strip()
        cells = [c.strip() for c in row[1:]]
        data = [c for c in cells if c and not c.startswith(".. _")]
        if raw_label:
            plain, notes = split_footnotes(raw_label)
            label = strip_rst_inline(plain)
            label_notes = notes
            if not data:  # a section heading such as "FRAMEWORK SUPPORT" (its cells are anchors)
                section = label
                for name in notes:
                    fn = footnote(path, lineno, name, f"row label {label!r}")
                    if fn.kind == "note" and label.startswith("DRIVER"):
                        driver_notes.append(fn.text)
                continue
        if not data:
            continue
        if not label:
            raise ImportFormatError(path, lineno, "row has data but no label, and no label above it to continue")

        for name in label_notes:
            fn = footnote(path, lineno, name, f"row {label!r}")
        if label == OS_LABEL:
            seen_os = True
            for name in label_notes:
                fn = footnote(path, lineno, name, f"row {label!r}")
                if fn.kind == "os-caveat" and fn.text not in os_caveats:
                    os_caveats.append(fn.text)
            _read_os_row(path, lineno, columns, cells, os_refs, os_nodes)
        elif label == ARCH_FAMILY_LABEL:
            continue  # the families follow from the LLVM targets (see the GPU specification importer)
        elif label == TARGET_LABEL:
            seen_targets = True
            for name in label_notes:
                fn = footnote(path, lineno, name, f"row {label!r}")
                if fn.text not in target_notes:
                    target_notes.append(fn.text)
            for col, cell in zip(columns, cells):
                if not cell:
                    continue
                if not re.fullmatch(r"gfx[0-9a-f]{3,4}", cell):
                    raise ImportFormatError(
                        path, lineno,
                        f"row {label!r}, column {col.header!r}: expected an LLVM target such as 'gfx1100', found {cell!r}",
                    )
                for release in col.releases:
                    if cell in targets[release]:
                        raise ImportFormatError(path, lineno, f"column {col.header!r}: {cell} listed twice")
                    targets[release].append(cell)
        elif label in FRAMEWORK_ROWS and section == FRAMEWORK_SECTION:
            row_facts = _framework_facts(path, lineno, label, label_notes, columns, cells)
            if label in MODELLED_ROWS:
                facts.extend(row_facts)
                if label in ROCM_BUILD_ROWS:
                    for version in _named_versions(path, lineno, label, row_facts):
                        build_nodes.setdefault(version, _rocm_build_node(label, version))
        elif label == DRIVER_LABEL:
            seen_driver = True
            facts.extend(_driver_facts(path, lineno, columns, cells, driver_notes))
        elif label == HIP_LABEL:
            for col, cell in zip(columns, cells):
                if cell and cell != "N/A":
                    for release in col.releases:
                        hip[release] = cell
        # every other row is a component version: not modelled

    for what, seen in (("operating systems", seen_os), (TARGET_LABEL, seen_targets), (DRIVER_LABEL, seen_driver)):
        if not seen:
            raise ImportFormatError(path, None, f"no {what!r} row found; is this the historical compatibility matrix?")

    nodes: list[Node] = []
    for col in columns:
        for release in col.releases:
            notes = []
            if len(col.releases) > 1:
                notes.append(f"The matrix shares one column, {col.header}, between ROCm {' and '.join(col.releases)}.")
            if release in hip:
                notes.append(f"Ships HIP {hip[release]}.")
            nodes.append(
                Node(
                    id=f"rocm-{release}",
                    layer=Layer.toolkit,
                    name=f"ROCm {release}",
                    vendor="amd",
                    family="rocm",
                    version=release,
                    source=SOURCE.id,
                    note=" ".join(notes) or None,
                )
            )
            for target in targets[release]:
                facts.append(
                    Fact(
                        id=f"rocm-{release}-arch-{target}",
                        relation=Relation.supports,
                        subject=f"rocm-{release}",
                        object=Selector(ids=[target]),
                        when={Layer.os: Selector(layer=Layer.os, platform="linux"), Layer.gpu: SUMMARY_ROW_SCOPE},
                        source=SOURCE.id,
                        section=f"{TARGET_LABEL} row, {col.header} column",
                        note=" ".join(target_notes + [SUMMARY_ROW_NOTE, SUMMARY_ROW_SCOPE_NOTE]),
                        caveat=SUMMARY_ROW_CAVEAT,
                    )
                )
            for node_id, points in os_refs[release].items():
                facts.append(
                    Fact(
                        id=f"rocm-{release}-os-{node_id}",
                        relation=Relation.supports,
                        subject=f"rocm-{release}",
                        object=Selector(ids=[node_id]),
                        exhaustive=True,
                        domain=Selector(layer=Layer.os, platform="linux"),
                        source=SOURCE.id,
                        section=f"Operating systems row, {col.header} column",
                        note=f"Listed as {_os_label(os_nodes[node_id], points)}.",
                        caveat=" ".join(os_caveats) or None,
                    )
                )
    nodes.extend(os_node(ref, SOURCE.id) for ref in os_nodes.values())
    nodes.extend(build_nodes[v] for v in sorted(build_nodes, key=Version, reverse=True))
    sources = [SOURCE, FOOTNOTE_SOURCE] + ([TF_COMPAT_SOURCE] if build_nodes else [])
    return KBFile(sources=sources, nodes=nodes, facts=facts)


def _os_label(ref: OsRef, points: list[str]) -> str:
    prefix = ref.name.rsplit(" ", 1)[0] if ref.family != "sles" else "SLES"
    return f"{prefix} {', '.join(points)}"


def _read_os_row(path: Path, lineno: int, columns: list[Column], cells: list[str],
                 os_refs: dict[str, dict[str, list[str]]], os_nodes: dict[str, OsRef]) -> None:
    for col, cell in zip(columns, cells):
        if not cell or cell.startswith(".. _"):
            continue
        refs = parse_os_list(cell)
        if refs is None:
            raise ImportFormatError(
                path, lineno,
                f"row {OS_LABEL!r}, column {col.header!r}: expected a distribution and releases such as "
                f"'RHEL 9.6, 9.4' or 'SLES 15 SP7, SP6', found {cell!r}",
            )
        for ref in refs:
            os_nodes.setdefault(ref.node_id, ref)
            for release in col.releases:
                points = os_refs[release].setdefault(ref.node_id, [])
                if ref.point not in points:
                    points.append(ref.point)


def _framework_facts(path: Path, lineno: int, label: str, label_notes: list[str],
                     columns: list[Column], cells: list[str]) -> list[Fact]:
    layer, family = FRAMEWORK_ROWS[label]
    only_on: Optional[Footnote] = None
    for name in label_notes:
        fn = footnote(path, lineno, name, f"row {label!r}")
        if fn.kind == "only-on":
            only_on = fn
    facts: list[Fact] = []
    for col, cell in zip(columns, cells):
        if not cell or cell == "N/A":
            continue
        where = f"row {label!r}, column {col.header!r}"
        specs: list[str] = []
        labels: list[str] = []
        excluded: list[tuple[str, Footnote]] = []
        for item in cell.split(","):
            value, notes = split_footnotes(item)
            if not value:
                raise ImportFormatError(path, lineno, f"{where}: empty item in {cell!r}")
            spec = _version_spec(path, lineno, value, where)
            labels.append(value)
            if spec is not None:
                specs.append(spec)
            for name in notes:
                fn = footnote(path, lineno, name, where)
                if fn.kind != "not-on-gpus":
                    raise ImportFormatError(path, lineno, f"{where}: footnote [#{name}]_ cannot qualify a version")
                if spec is None:
                    raise ImportFormatError(path, lineno, f"{where}: footnote on {value!r}, which is not a version")
                excluded.append((spec, fn))
        col_releases = list(col.releases)
        caveat = None
        if only_on is not None:
            named = [r for r in col_releases if any(_release_matches(r, p) for p in only_on.releases)]
            if named:
                col_releases = named
            else:
                caveat = (f"AMD's footnote for {label} does not name this release, while the matrix cell lists "
                          f"{cell}; treat the pairing as unconfirmed.")
        selector = {"layer": layer, "family": family}
        if label in ROCM_BUILD_ROWS:
            selector["backend"] = "rocm"
        if specs:
            selector["version"] = " || ".join(specs)
        listed = ", ".join(labels)
        note = f"AMD lists {label} {listed} for this release."
        if not specs:
            note = f"AMD lists {label} build {listed} for this release."
        if only_on is not None:
            note += " " + only_on.text
        for release in col_releases:
            facts.append(
                Fact(
                    id=f"rocm-{release}-{layer.value}-{family}",
                    relation=Relation.supports,
                    subject=f"rocm-{release}",
                    object=Selector(**selector),
                    source=SOURCE.id,
                    section=f"{FRAMEWORK_SECTION}, {label} row, {col.header} column",
                    note=note,
                    caveat=caveat,
                )
            )
            for spec, fn in excluded:
                version = spec.removeprefix("==")
                facts.append(
                    Fact(
                        id=f"rocm-{release}-{layer.value}-{family}-{version}-not-on-{'-'.join(g.lower() for g in fn.gpus)}",
                        relation=Relation.supports,
                        subject=f"rocm-{release}",
                        object=Selector(layer=layer, family=family, version=spec,
                                        backend="rocm" if label in ROCM_BUILD_ROWS else None),
                        when={Layer.gpu: Selector(ids=sorted(gpu_id(g) for g in fn.gpus))},
                        status=Status.unsupported,
                        source=FOOTNOTE_SOURCE.id,
                        section=f"Footnote to the {label} row, {col.header} column",
                        note=fn.text,
                    )
                )
    return facts


def _named_versions(path: Path, lineno: int, label: str, facts: list[Fact]) -> list[str]:
    """The releases a ROCm-build row names (``==2.18.1`` -> ``2.18.1``); each must be a full release."""
    versions: list[str] = []
    for fact in facts:
        for spec in (fact.object.version or "").split(" || "):
            version = spec.strip().removeprefix("==")
            if not version:
                continue
            if not re.fullmatch(r"\d+\.\d+\.\d+", version):
                raise ImportFormatError(
                    path, lineno, f"row {label!r}: expected full releases such as '2.18.1' (each names one "
                    f"{ROCM_BUILD_ROWS[label]} build), found {spec.strip()!r}")
            if version not in versions:
                versions.append(version)
    return versions


def _rocm_build_node(label: str, version: str) -> Node:
    prefix = ROCM_BUILD_ROWS[label]
    family = FRAMEWORK_ROWS[label][1]
    return Node(
        id=f"{prefix}-{version}",
        layer=Layer.framework,
        name=f"{prefix} {version}",
        vendor="amd",
        family=family,
        version=version,
        backend="rocm",
        source=SOURCE.id,
        note=ROCM_BUILD_NOTE.format(label=label, version=version, prefix=prefix),
    )


def _driver_facts(path: Path, lineno: int, columns: list[Column], cells: list[str],
                  section_notes: list[str]) -> list[Fact]:
    facts = []
    for col, cell in zip(columns, cells):
        if not cell or cell == "N/A":
            continue
        where = f"row {DRIVER_LABEL!r}, column {col.header!r}"
        specs, labels, notes = [], [], []
        for item in cell.split(","):
            value, refs = split_footnotes(item)
            specs.append(_driver_spec(path, lineno, value, where))
            labels.append(value)
            for name in refs:
                fn = footnote(path, lineno, name, where)
                if fn.text not in notes:
                    notes.append(fn.text)
        for release in col.releases:
            facts.append(
                Fact(
                    id=f"rocm-{release}-driver-amdgpu",
                    relation=Relation.supports,
                    subject=f"rocm-{release}",
                    object=Selector(layer=Layer.driver, vendor="amd", family="amdgpu", version=" || ".join(specs)),
                    exhaustive=True,
                    domain=Selector(layer=Layer.driver, vendor="amd", family="amdgpu"),
                    source=SOURCE.id,
                    section=f"DRIVER & USER SPACE, {DRIVER_LABEL} row, {col.header} column",
                    note=" ".join([f"Tested amdgpu driver versions: {', '.join(labels)}."] + notes + section_notes),
                )
            )
    return facts
