"""Importer for the ROCm Linux system requirements page of the ROCm 6.2.x docs.

The page (``rocm-install-on-linux`` ``docs/reference/system-requirements.rst``)
has a GPU table per tab (Instinct / Radeon PRO / Radeon) with a support mark per
GPU (✅ supported, ⚠️ deprecated, ❌ unsupported) and states that an unlisted GPU
is not supported, so the lists are exhaustive. An OS table gives kernels per
point release. Footnotes limit some pairs across layers:

* on a GPU's mark: "OS support for this GPU extends to every listed OS except
  <OS (kernel: K)> and ..." -> the GPU gets the OS only with the other kernels;
* on an OS's mark: "<OS> is supported only on <GPU>" -> the OS is supported for
  that GPU and stated unsupported for every other listed GPU.

The page covers every ROCm 6.2.x release, so each fact is emitted for each of
:data:`RELEASES`. Subjects are the ``rocm-6.2.*`` toolkit nodes (from the matrix
importer); objects are GPU ids shared with the specification importer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source, Status

from .common import (
    DISTRO_NAMES, REVIEWED, OsRef, footnote_texts, gpu_ids, gpu_name, os_node, parse_kernels, parse_mark, parse_os_list,
    read_rst_tables, read_source, sort_kernels,
)
from .errors import ImportFormatError

COMMIT = "cccc3308cdd5db6ae02876a872ee8b5d5e81ba16"
RELEASES = ("6.2.0", "6.2.1", "6.2.2", "6.2.4")

SOURCE = Source(
    id="rocm-linux-sysreq-6.2",
    url=f"https://github.com/ROCm/rocm-install-on-linux/blob/{COMMIT}/docs/reference/system-requirements.rst",
    publisher="AMD",
    title="ROCm installation on Linux, System requirements (ROCm 6.2.x documentation)",
    version=COMMIT,
    reviewed=REVIEWED,
    note="Same file as in the 6.2.x docs snapshot f297bde3afa98d750d1aa460386491db9a721f30 (2024-10-24).",
)

GPU_SECTION = "Supported GPUs"
OS_SECTION = "Supported operating systems"
VIRT_SECTION = "Virtualization support"
RANK = {Status.supported: 0, Status.deprecated: 1, Status.unsupported: 2}


@dataclass
class GpuRow:
    line: int
    name: str
    ids: tuple[str, ...]
    target: str
    status: Status
    tab: str
    footnotes: list[str]


@dataclass
class OsRow:
    line: int
    ref: OsRef
    kernels: list[str]
    footnotes: list[str]
    label: str


@dataclass
class Limits:
    only_gpus: dict[str, tuple[int, set[str]]] = field(default_factory=dict)  # os node -> gpu ids
    excluded: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # gpu id -> os node -> kernels


def _read_gpu_tables(path: Path, tables) -> list[GpuRow]:
    rows = []
    for table in tables:
        if table.section != GPU_SECTION:
            continue
        tab = table.tab or "(no tab)"
        if len(table.header) != 4 or table.header[1:] != ["Architecture", "LLVM target", "Support"]:
            raise ImportFormatError(
                path, table.line,
                f"GPU table in tab {tab!r}: expected header (GPU, Architecture, LLVM target, Support), "
                f"found {table.header}",
            )
        for lineno, cells in table.rows:
            if len(cells) != 4:
                raise ImportFormatError(path, lineno, f"tab {tab!r}: row has {len(cells)} cells, expected 4")
            name, _arch, target, mark = cells
            if not re.fullmatch(r"gfx[0-9a-f]{3,4}", target):
                raise ImportFormatError(
                    path, lineno, f"tab {tab!r}, row {name!r}, column 'LLVM target': expected e.g. 'gfx1100', "
                    f"found {target!r}")
            parsed = parse_mark(mark)
            if parsed is None:
                raise ImportFormatError(
                    path, lineno, f"tab {tab!r}, row {name!r}, column 'Support': expected ✅, ⚠️ or ❌, found {mark!r}")
            rows.append(GpuRow(lineno, name, gpu_ids(name), target, parsed[0], tab, parsed[1]))
    if not rows:
        raise ImportFormatError(path, None, f"no GPU table found under the heading {GPU_SECTION!r}")
    return rows


def _read_os_table(path: Path, tables) -> list[OsRow]:
    found = [t for t in tables if t.section == OS_SECTION]
    if len(found) != 1:
        raise ImportFormatError(path, None, f"expected one OS table under {OS_SECTION!r}, found {len(found)}")
    table = found[0]
    if table.header != ["Operating system", "Kernel", "Support"]:
        raise ImportFormatError(
            path, table.line, f"OS table: expected header (Operating system, Kernel, Support), found {table.header}")
    rows = []
    for lineno, cells in table.rows:
        if len(cells) != 3:
            raise ImportFormatError(path, lineno, f"OS table: row has {len(cells)} cells, expected 3")
        label, kernel_text, mark = cells
        refs = parse_os_list(label)
        if refs is None or len(refs) != 1:
            raise ImportFormatError(
                path, lineno, f"OS table, column 'Operating system': expected one release such as 'RHEL 9.4', "
                f"found {label!r}")
        kernels = parse_kernels(kernel_text)
        if kernels is None:
            raise ImportFormatError(
                path, lineno, f"OS table, row {label!r}, column 'Kernel': expected e.g. '5.15 [GA], 6.8 [HWE]', "
                f"found {kernel_text!r}")
        parsed = parse_mark(mark)
        if parsed is None or parsed[0] is not Status.supported:
            raise ImportFormatError(
                path, lineno, f"OS table, row {label!r}, column 'Support': expected ✅, found {mark!r}")
        rows.append(OsRow(lineno, refs[0], kernels, parsed[1], label))
    return rows


def _read_footnotes(path: Path, text: str, gpus: list[GpuRow], oses: list[OsRow]) -> Limits:
    texts = footnote_texts(text)
    limits = Limits()
    for row in gpus:
        for name in row.footnotes:
            if name not in texts:
                raise ImportFormatError(path, row.line, f"row {row.name!r}: footnote [#{name}]_ has no definition")
            line, body = texts[name]
            m = re.search(r"extended to all listed .*?\bexcept\b(.*)$", body)
            if not m:
                raise ImportFormatError(
                    path, line, f"footnote [#{name}] on GPU {row.name!r}: expected 'extended to all listed ... "
                    f"except <OS> (kernel: <K>) and ...', found {body!r}")
            distros = "|".join(re.escape(d) for d in DISTRO_NAMES)
            pairs = re.findall(rf"((?:{distros})\s[\d.]+(?:\s+SP\d+)?)\s*\(kernel:\s*(.*?)\)", m.group(1))
            if not pairs:
                raise ImportFormatError(path, line, f"footnote [#{name}]: no '<OS> (kernel: <K>)' exclusion found")
            for os_label, kernel in pairs:
                refs = parse_os_list(os_label.replace("*", "").strip())
                kernels = parse_kernels(kernel)
                if refs is None or len(refs) != 1 or kernels is None:
                    raise ImportFormatError(
                        path, line, f"footnote [#{name}]: cannot read the exclusion {os_label!r} (kernel: {kernel})")
                for gid in row.ids:
                    limits.excluded.setdefault(gid, {}).setdefault(refs[0].node_id, set()).update(kernels)
    for row in oses:
        for name in row.footnotes:
            if name not in texts:
                raise ImportFormatError(path, row.line, f"row {row.label!r}: footnote [#{name}]_ has no definition")
            line, body = texts[name]
            m = re.fullmatch(r"(.+?) is supported only on (.+?)\.?", body.strip())
            refs = parse_os_list(m.group(1).strip()) if m else None
            if not m or refs is None or [r.node_id for r in refs] != [row.ref.node_id]:
                raise ImportFormatError(
                    path, line, f"footnote [#{name}] on OS {row.label!r}: expected '{row.label} is supported only "
                    f"on <GPU>', found {body!r}")
            ids: set[str] = set()
            for gpu in re.split(r",\s*|\s+and\s+", m.group(2)):
                ids.update(gpu_ids(gpu))
            limits.only_gpus[row.ref.node_id] = (line, ids)
    return limits


def parse(path: Path) -> KBFile:
    path = Path(path)
    text = read_source(path)
    tables = read_rst_tables(path, text)
    gpus = _read_gpu_tables(path, tables)
    oses = _read_os_table(path, tables)
    limits = _read_footnotes(path, text, gpus, oses)
    virt = _virtualization_notes(path, tables)

    positive = sorted({gid for row in gpus if row.status is not Status.unsupported for gid in row.ids})

    # OS nodes: point releases of one node merge (Ubuntu 22.04.5 and 22.04.4 -> ubuntu-22.04)
    by_node: dict[str, list[OsRow]] = {}
    for row in oses:
        by_node.setdefault(row.ref.node_id, []).append(row)
    nodes: list[Node] = [
        os_node(rows[0].ref, SOURCE.id, [k for r in rows for k in r.kernels]) for rows in by_node.values()
    ]

    facts: list[Fact] = []
    for release in RELEASES:
        subject = f"rocm-{release}"
        # GPUs (exhaustive list)
        for row in gpus:
            for gid in row.ids:
                note = f"Listed as {gpu_name(row.name)} ({row.target}) in the {row.tab} tab."
                if gid in virt:
                    note += " " + virt[gid]
                facts.append(Fact(
                    id=f"{subject}-sysreq-gpu-{gid}",
                    relation=Relation.supports,
                    subject=subject,
                    object=Selector(ids=[gid]),
                    status=row.status,
                    exhaustive=row.status is not Status.unsupported,
                    source=SOURCE.id,
                    section=f"{GPU_SECTION}, {row.tab} tab",
                    note=note,
                ))
        # LLVM targets: the best mark among the GPUs of that target
        best: dict[str, Status] = {}
        for row in gpus:
            if row.target not in best or RANK[row.status] < RANK[best[row.target]]:
                best[row.target] = row.status
        for target, status in best.items():
            names = sorted({gpu_name(r.name) for r in gpus if r.target == target})
            facts.append(Fact(
                id=f"{subject}-sysreq-arch-{target}",
                relation=Relation.supports,
                subject=subject,
                object=Selector(ids=[target]),
                status=status,
                exhaustive=status is not Status.unsupported,
                source=SOURCE.id,
                section=f"{GPU_SECTION}, LLVM target column",
                note=f"Derived from the GPU list: {', '.join(names)}.",
            ))
        # operating systems
        for node_id, rows in by_node.items():
            facts.extend(_os_facts(subject, node_id, rows, positive, limits))
    return KBFile(sources=[SOURCE], nodes=nodes, facts=facts)


def _os_facts(subject: str, node_id: str, rows: list[OsRow], positive: list[str], limits: Limits) -> list[Fact]:
    points = ", ".join(f"{r.label} (kernel {', '.join(r.kernels)})" for r in rows)
    base = dict(relation=Relation.supports, subject=subject, object=Selector(ids=[node_id]), source=SOURCE.id,
                section=OS_SECTION)
    facts = []
    only = limits.only_gpus.get(node_id)
    if only is not None:
        _line, ids = only
        others = [g for g in positive if g not in ids]
        facts.append(Fact(id=f"{subject}-sysreq-os-{node_id}", exhaustive=True,
                          when={Layer.gpu: Selector(ids=sorted(ids))},
                          note=f"Listed as {points}; a footnote limits it to the GPUs named in the condition.",
                          **base))
        if others:
            facts.append(Fact(id=f"{subject}-sysreq-os-{node_id}-other-gpus", status=Status.unsupported,
                              when={Layer.gpu: Selector(ids=others)},
                              note="A footnote limits this OS to other GPUs.", **base))
        return facts
    kernels = sort_kernels(k for r in rows for k in r.kernels)
    limited = {gid: ex[node_id] for gid, ex in limits.excluded.items() if node_id in ex and gid in positive}
    if not limited:
        facts.append(Fact(id=f"{subject}-sysreq-os-{node_id}", exhaustive=True, note=f"Listed as {points}.", **base))
        return facts
    others = [g for g in positive if g not in limited]
    facts.append(Fact(id=f"{subject}-sysreq-os-{node_id}", exhaustive=True, when={Layer.gpu: Selector(ids=others)},
                      note=f"Listed as {points}.", **base))
    for gid, excluded in sorted(limited.items()):
        allowed = [k for k in kernels if k not in excluded]
        if not allowed:
            facts.append(Fact(id=f"{subject}-sysreq-os-{node_id}-{gid}", status=Status.unsupported,
                              when={Layer.gpu: Selector(ids=[gid])},
                              note=f"A footnote excludes every listed kernel of this OS for {gid}.", **base))
            continue
        facts.append(Fact(
            id=f"{subject}-sysreq-os-{node_id}-{gid}", exhaustive=True, when={Layer.gpu: Selector(ids=[gid])},
            note=f"Listed as {points}.",
            caveat=(f"Only with the {' or '.join(allowed)} kernel; a footnote excludes "
                    f"{' and '.join(sort_kernels(excluded))} for this GPU."),
            **base))
    return facts


def _virtualization_notes(path: Path, tables) -> dict[str, str]:
    notes: dict[str, list[str]] = {}
    for table in tables:
        if table.section != VIRT_SECTION:
            continue
        if table.header[:3] != ["Hypervisor", "Version", "GPU"]:
            raise ImportFormatError(path, table.line, f"virtualization table: unexpected header {table.header}")
        for _lineno, cells in table.rows:
            hypervisor, version, gpu = cells[0], cells[1], cells[2]
            for gid in gpu_ids(gpu):
                notes.setdefault(gid, []).append(f"{hypervisor} {version}")
    return {gid: "Also validated as a guest GPU under " + ", ".join(v) + "." for gid, v in notes.items()}
