"""Importer for the ROCm Linux system requirements pages, one page per ROCm release.

Each release's documentation (``ROCm/rocm-install-on-linux``, branch ``docs/X.Y.Z``,
``docs/reference/system-requirements.rst``) has a GPU table per tab (Instinct,
Radeon PRO, Radeon, Ryzen APU where it exists) with a support mark per card
(✅ supported, ⚠️ deprecated, ❌ unsupported) and says that an unlisted GPU is not
supported, so each tab is a complete list over its segment. An OS table gives
kernels per point release (GA/HWE for Ubuntu). Footnotes limit pairs across layers,
and the wording changed from release to release; every form is read into facts:

* on a GPU: "X is supported only on <OS (kernel: K)>, ..." or "X is supported on
  <OS>, ..." (6.1) -> the GPU gets only those OS releases (and kernels);
  "OS support for X extends to every listed OS except <OS (kernel: K)>" (6.2) ->
  the GPU gets the OS only with the other kernels; "X is currently not officially
  supported on RHEL 9.x" (6.0) -> stated unsupported there;
* on an OS: "<OS> is supported only on <GPUs>" -> the OS is supported for those
  GPUs and stated unsupported for every other listed GPU;
* "Preview support for HWE kernels" -> said in the OS fact's note.

The input is a folder with one page per release, named ``<release>.rst``
(:data:`PAGES` pins where each comes from), or one such file. Subjects are the
``rocm-X.Y.Z`` toolkit nodes; GPU ids are shared with the specification importer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from packaging.version import Version

from gpulane.model import Fact, KBFile, Layer, Node, Platform, Relation, Selector, Source, Status

from .common import (
    DISTRO_NAMES, REVIEWED, OsRef, footnote_texts, gpu_ids, gpu_name, os_node, parse_kernels, parse_mark,
    parse_os_list, read_rst_tables, read_source, sort_kernels, split_footnotes, tab_segment,
)
from .errors import ImportFormatError

REPO = "https://github.com/ROCm/rocm-install-on-linux"
PATH = "docs/reference/system-requirements.rst"


@dataclass(frozen=True)
class Page:
    """One release's page: the docs branch, its head commit when read, and the file's last change."""

    release: str
    commit: str  # head of the docs/<release> branch when read
    file_commit: str  # last commit that changed the file on that branch

    @property
    def source(self) -> Source:
        return Source(
            id=f"rocm-linux-sysreq-{self.release}",
            url=f"{REPO}/blob/{self.commit}/{PATH}",
            publisher="AMD",
            title=f"ROCm installation on Linux, System requirements (ROCm {self.release} documentation)",
            version=self.commit,
            reviewed=REVIEWED,
            note=(f"Branch docs/{self.release}; the file last changed in {self.file_commit[:12]}. Published as "
                  f"https://rocm.docs.amd.com/projects/install-on-linux/en/docs-{self.release}/reference/"
                  "system-requirements.html"),
        )


#: Every page read, by ROCm release (branches of ROCm/rocm-install-on-linux).
PAGES: dict[str, Page] = {p.release: p for p in (
    Page("6.0.0", "4ffc2acda73032962fd70057940e30a0f95aff7d", "00ef7d5acfbf516fefeff50dbf5a2a2261f52f80"),
    Page("6.0.2", "add6228e1b7ae0a17c8099b3c63e7fff4bf4b896", "95ee6d4917a70b423866ed96069500586d85c312"),
    Page("6.1.0", "06bf78188ce75473bfd63e7617bac48d13f97bb3", "7c384209279104fff9d49688cc7327a0520816ab"),
    Page("6.1.1", "ef4a396f53d36a672f57b4ab731bc979cf2bbe8b", "ef4a396f53d36a672f57b4ab731bc979cf2bbe8b"),
    Page("6.1.2", "70eabccab6993f9d64a20b1db350f1972b811152", "70eabccab6993f9d64a20b1db350f1972b811152"),
    Page("6.2.0", "86439fc9869b866748b8d64f515df267092b86f5", "a77f9108e5a166015f0973b8842f839218c584de"),
    Page("6.2.1", "e605245eb5c2b4a5b8f46b25c7b1bd0d25250eea", "5d105a509e9d1292fcf70bafc39ca4ab26aed84c"),
    Page("6.2.2", "bdb054c4864388c50e7cf0fbcad17888d8bd9fca", "cccc3308cdd5db6ae02876a872ee8b5d5e81ba16"),
    Page("6.2.4", "c3325cba8483d34623b394b2785eff8148644efe", "cccc3308cdd5db6ae02876a872ee8b5d5e81ba16"),
)}

RELEASES = tuple(PAGES)
SOURCES = tuple(p.source for p in PAGES.values())

GPU_SECTION = "Supported GPUs"
OS_SECTION = "Supported operating systems"
VIRT_SECTION = "Virtualization support"
RANK = {Status.supported: 0, Status.deprecated: 1, Status.unsupported: 2}
LINUX = {Layer.os: Selector(layer=Layer.os, platform=Platform.linux)}



@dataclass
class GpuRow:
    line: int
    name: str
    ids: tuple[str, ...]
    target: str
    status: Status
    tab: str
    segment: str
    footnotes: list[str]


@dataclass
class OsRow:
    line: int
    ref: OsRef
    kernels: list[str]
    footnotes: list[str]
    label: str


@dataclass
class GpuLimit:
    """What a footnote on one GPU says about the operating systems."""

    only: Optional[dict[str, Optional[list[str]]]] = None  # os node -> kernels (None = every listed kernel)
    excluded: dict[str, set[str]] = field(default_factory=dict)  # os node -> kernels excluded
    not_on: set[str] = field(default_factory=set)  # os nodes stated unsupported
    text: list[str] = field(default_factory=list)


@dataclass
class Limits:
    gpus: dict[str, GpuLimit] = field(default_factory=dict)  # gpu id -> limit
    only_gpus: dict[str, set[str]] = field(default_factory=dict)  # os node -> gpu ids
    os_notes: dict[str, list[str]] = field(default_factory=dict)  # os node -> notes (preview ...)


# ----------------------------------------------------------------- reading


_SUP = re.compile(r"\s*:sup:`([^`]+)`")


def _marks(text: str) -> tuple[str, list[str]]:
    """Split footnote references off a cell: ``[#name]_`` and (6.0) ``:sup:`1```."""
    sups = [f"sup-{n}" for n in _SUP.findall(text)]
    value, names = split_footnotes(_SUP.sub("", text))
    return value, names + sups


def _footnotes(text: str) -> dict[str, tuple[int, str]]:
    out = dict(footnote_texts(text))
    for i, line in enumerate(text.splitlines()):
        m = re.match(r"^:sup:`([^`]+)`\s+(.*)$", line)
        if m:
            out[f"sup-{m.group(1)}"] = (i + 1, m.group(2).strip())
    # footnote bodies: drop RST emphasis and references
    return {k: (line, re.sub(r":ref:`([^`<]*?)\s*(?:<[^`>]*>)?`", r"\1", body).replace("*", ""))
            for k, (line, body) in out.items()}


def _segment(path: Path, line: int, tab: str) -> str:
    segment = tab_segment(tab)
    if segment is None:
        raise ImportFormatError(path, line, f"GPU table in tab {tab!r}: expected a tab named AMD Instinct, "
                                            "AMD Radeon PRO, AMD Radeon or AMD Ryzen")
    return segment


def _read_gpu_tables(path: Path, tables) -> list[GpuRow]:
    rows = []
    for table in tables:
        if table.section != GPU_SECTION:
            continue
        tab = table.tab or "(no tab)"
        header = table.header
        if len(header) < 4 or header[0] not in ("GPU", "Accelerator", "Product Name", "Name") \
                or "LLVM target" not in header or header[-1] != "Support":
            raise ImportFormatError(
                path, table.line,
                f"GPU table in tab {tab!r}: expected a header (GPU, [Series,] Architecture, LLVM target, Support), "
                f"found {header}",
            )
        segment = _segment(path, table.line, tab)
        target_col = header.index("LLVM target")
        for lineno, cells in table.rows:
            if len(cells) != len(header):
                raise ImportFormatError(path, lineno, f"tab {tab!r}: row has {len(cells)} cells, "
                                                      f"expected {len(header)}")
            name, target, mark = cells[0], cells[target_col], cells[-1]
            if not re.fullmatch(r"gfx[0-9a-f]{3,4}", target):
                raise ImportFormatError(
                    path, lineno, f"tab {tab!r}, row {name!r}, column 'LLVM target': expected e.g. 'gfx1100', "
                    f"found {target!r}")
            value, notes = _marks(mark)
            parsed = parse_mark(value)
            if parsed is None:
                raise ImportFormatError(
                    path, lineno, f"tab {tab!r}, row {name!r}, column 'Support': expected ✅, ⚠️ or ❌, found {mark!r}")
            name = name.replace("™", "")
            rows.append(GpuRow(lineno, name, gpu_ids(name), target, parsed[0], tab, segment, notes))
    if not rows:
        raise ImportFormatError(path, None, f"no GPU table found under the heading {GPU_SECTION!r}")
    return rows


def _read_os_table(path: Path, tables) -> list[OsRow]:
    found = [t for t in tables if t.section == OS_SECTION]
    if len(found) != 1:
        raise ImportFormatError(path, None, f"expected one OS table under {OS_SECTION!r}, found {len(found)}")
    table = found[0]
    header = table.header
    if header not in (["OS", "Kernel", "Support"], ["Operating system", "Kernel", "Support"],
                      ["Operating system", "Kernel", "Glibc", "Support"]):
        raise ImportFormatError(
            path, table.line, f"OS table: expected header (Operating system, Kernel, [Glibc,] Support), "
                              f"found {header}")
    rows = []
    for lineno, cells in table.rows:
        if len(cells) != len(header):
            raise ImportFormatError(path, lineno, f"OS table: row has {len(cells)} cells, expected {len(header)}")
        label, kernel_text, mark = cells[0], cells[1], cells[-1]
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
        value, notes = _marks(mark)
        parsed = parse_mark(value)
        if parsed is None or parsed[0] is not Status.supported:
            raise ImportFormatError(
                path, lineno, f"OS table, row {label!r}, column 'Support': expected ✅, found {mark!r}")
        rows.append(OsRow(lineno, refs[0], kernels, notes, label))
    return rows


_DISTROS = "|".join(re.escape(d) for d in DISTRO_NAMES)
_OS_ITEM = re.compile(rf"({_DISTROS})\s+(\d+\.x|\d+(?:\.\d+)*(?:\s+SP\d+)?)(?:\s*\(kernel:\s*([^)]*)\))?")


def _os_items(path: Path, line: int, text: str, oses: list[OsRow]) -> dict[str, Optional[list[str]]]:
    """``"Ubuntu 22.04.4 (kernel: 5.15 [GA]), RHEL 9.4 and SLES 15 SP5"`` -> {os node: kernels or None}."""
    out: dict[str, Optional[list[str]]] = {}
    for distro, version, kernel in _OS_ITEM.findall(text):
        if version.endswith(".x"):  # "RHEL 9.x": every listed release of that major version
            nodes = {r.ref.node_id for r in oses
                     if r.label.startswith(f"{distro} {version[:-1]}")}
        else:
            refs = parse_os_list(f"{distro} {version}")
            nodes = {refs[0].node_id} if refs else set()
        if not nodes:
            raise ImportFormatError(path, line, f"footnote: cannot read the operating system {distro} {version!r}")
        kernels = parse_kernels(kernel) if kernel else None
        if kernel and kernels is None:
            raise ImportFormatError(path, line, f"footnote: cannot read the kernels {kernel!r} of {distro} {version}")
        for node in nodes:
            out[node] = sorted(set(out.get(node) or []) | set(kernels)) if kernels else out.get(node)
            if kernels is None:
                out[node] = None
    if not out:
        raise ImportFormatError(path, line, f"footnote: no operating system found in {text!r}")
    return out


def _gpu_names(path: Path, line: int, text: str, gpus: list[GpuRow]) -> set[str]:
    """``"AMD Instinct MI300X, MI300A, and MI100 GPUs"`` -> GPU ids of the page's rows."""
    text = re.sub(r"\b(GPUs?|accelerators?)\b", "", text)
    ids: set[str] = set()
    for token in re.split(r",\s*|\s+and\s+", text):
        token = token.strip().removeprefix("and ").strip()
        if not token:
            continue
        key = re.sub(r"^(AMD\s+)?(Instinct\s+|Radeon\s+)?", "", token).strip().lower()
        hits = [r for r in gpus if re.sub(r"^AMD\s+(Instinct\s+|Radeon\s+)?", "", r.name).lower() == key
                or gpu_name(r.name).lower().endswith(" " + key)]
        if not hits:
            raise ImportFormatError(path, line, f"footnote: GPU {token!r} is not in the page's GPU tables")
        for r in hits:
            ids.update(r.ids)
    return ids


def _read_footnotes(path: Path, text: str, gpus: list[GpuRow], oses: list[OsRow]) -> Limits:
    texts = _footnotes(text)
    limits = Limits()
    for row in gpus:
        for name in row.footnotes:
            if name not in texts:
                raise ImportFormatError(path, row.line, f"row {row.name!r}: footnote {name} has no definition")
            line, body = texts[name]
            body = " ".join(body.split())
            for gid in row.ids:
                limit = limits.gpus.setdefault(gid, GpuLimit())
                limit.text.append(body)
            if re.search(r"supported on all (below )?listed", body):
                continue
            m = re.search(r"extended to all listed .*?\bexcept\b(.*)$", body)
            if m:
                for node, kernels in _os_items(path, line, m.group(1), oses).items():
                    if kernels is None:
                        raise ImportFormatError(path, line, f"footnote {name}: an exclusion without a kernel")
                    for gid in row.ids:
                        limits.gpus[gid].excluded.setdefault(node, set()).update(kernels)
                continue
            m = re.search(r"\bnot officially supported on (.+?)(?:\.\s|\.?$)", body)
            if m:
                for gid in row.ids:
                    limits.gpus[gid].not_on.update(_os_items(path, line, m.group(1), oses))
                continue
            m = re.search(r"\b(?:is|are) (?:supported only|only supported|supported) on (.+)$", body)
            if m:
                allowed = _os_items(path, line, m.group(1), oses)
                for gid in row.ids:
                    limits.gpus[gid].only = allowed
                continue
            raise ImportFormatError(
                path, line, f"footnote {name} on GPU {row.name!r}: expected '... supported only on <OS>, ...', "
                f"'... extended to all listed ... except <OS> (kernel: <K>)' or '... not officially supported on "
                f"<OS>', found {body!r}")
    for row in oses:
        for name in row.footnotes:
            if name not in texts:
                raise ImportFormatError(path, row.line, f"row {row.label!r}: footnote {name} has no definition")
            line, body = texts[name]
            body = " ".join(body.split())
            if re.fullmatch(r"Preview support for HWE kernels?\.?", body):
                limits.os_notes.setdefault(row.ref.node_id, []).append(f"{row.label}: preview support for the HWE "
                                                                       "kernel")
                continue
            m = re.fullmatch(r"(.+?) (?:is|are) (?:supported only|only supported) on (.+?)\.?", body)
            subjects = _os_items(path, line, m.group(1), oses) if m else {}
            if not m or row.ref.node_id not in subjects:
                raise ImportFormatError(
                    path, line, f"footnote {name} on OS {row.label!r}: expected '{row.label} is supported only "
                    f"on <GPU>', found {body!r}")
            limits.only_gpus[row.ref.node_id] = _gpu_names(path, line, m.group(2), gpus)
    return limits


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


# ------------------------------------------------------------------- facts


def _release_of(path: Path) -> Page:
    page = PAGES.get(path.stem)
    if page is None:
        raise ImportFormatError(path, None, f"expected a file named <release>.rst for a known ROCm release "
                                            f"({', '.join(PAGES)}), found {path.name!r}")
    return page


def parse(path: Path) -> KBFile:
    """Read one page (``<release>.rst``) or a folder of them into one KBFile."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix == ".rst")
        if not files:
            raise ImportFormatError(path, None, "no <release>.rst page in the folder")
    else:
        files = [path]
    sources, facts = [], []
    kernels: dict[str, list[str]] = {}
    refs: dict[str, tuple[str, OsRef]] = {}  # os node -> (newest release listing it, ref)
    for file in files:
        page = _release_of(file)
        source, file_facts, oses = _parse_page(file, page)
        sources.append(source)
        facts.extend(file_facts)
        for row in oses:
            kernels.setdefault(row.ref.node_id, []).extend(row.kernels)
            old = refs.get(row.ref.node_id)
            if old is None or Version(old[0]) < Version(page.release):
                refs[row.ref.node_id] = (page.release, row.ref)
    nodes: list[Node] = [
        os_node(ref, f"rocm-linux-sysreq-{release}", kernels[node_id]) for node_id, (release, ref) in refs.items()
    ]
    return KBFile(sources=sources, nodes=nodes, facts=facts)


def _parse_page(path: Path, page: Page) -> tuple[Source, list[Fact], list[OsRow]]:
    text = read_source(path)
    tables = read_rst_tables(path, text)
    gpus = _read_gpu_tables(path, tables)
    oses = _read_os_table(path, tables)
    limits = _read_footnotes(path, text, gpus, oses)
    virt = _virtualization_notes(path, tables)
    source = page.source
    subject = f"rocm-{page.release}"
    positive = sorted({gid for row in gpus if row.status is not Status.unsupported for gid in row.ids})

    facts: list[Fact] = []
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
                when=LINUX,
                status=row.status,
                exhaustive=True,
                domain=Selector(layer=Layer.gpu, vendor="amd", segment=row.segment),
                source=source.id,
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
            when=LINUX,
            status=status,
            exhaustive=True,
            domain=Selector(layer=Layer.arch, vendor="amd"),
            source=source.id,
            section=f"{GPU_SECTION}, LLVM target column",
            note=f"Derived from the GPU list: {', '.join(names)}.",
        ))
    by_node: dict[str, list[OsRow]] = {}
    for row in oses:
        by_node.setdefault(row.ref.node_id, []).append(row)
    for node_id, rows in by_node.items():
        facts.extend(_os_facts(subject, source.id, node_id, rows, positive, limits))
    return source, facts, oses


def _allowed(gid: str, node_id: str, kernels: list[str], limits: Limits) -> Optional[list[str]]:
    """The kernels of this OS on which the page supports the GPU (None: not supported there)."""
    only = limits.only_gpus.get(node_id)
    if only is not None and gid not in only:
        return None
    limit = limits.gpus.get(gid)
    if limit is None:
        return kernels
    if node_id in limit.not_on:
        return None
    allowed = kernels
    if limit.only is not None:
        if node_id not in limit.only:
            return None
        listed = limit.only[node_id]
        if listed is not None:
            allowed = [k for k in allowed if k in listed]
    excluded = limit.excluded.get(node_id, set())
    allowed = [k for k in allowed if k not in excluded]
    return allowed or None


# The OS table is complete over Linux releases (the page is the Linux requirements).
LINUX_OSES = Selector(layer=Layer.os, platform="linux")


def _os_facts(subject: str, source: str, node_id: str, rows: list[OsRow], positive: list[str],
              limits: Limits) -> list[Fact]:
    points = ", ".join(f"{r.label} (kernel {', '.join(r.kernels)})" for r in rows)
    notes = limits.os_notes.get(node_id, [])
    listed = f"Listed as {points}." + (" " + "; ".join(notes) + "." if notes else "")
    kernels = sort_kernels(k for r in rows for k in r.kernels)
    base = dict(relation=Relation.supports, subject=subject, object=Selector(ids=[node_id]), source=source,
                section=OS_SECTION)
    full, blocked = [], []
    partial: dict[str, list[str]] = {}
    for gid in positive:
        allowed = _allowed(gid, node_id, kernels, limits)
        if allowed is None:
            blocked.append(gid)
        elif allowed == kernels:
            full.append(gid)
        else:
            partial[gid] = allowed
    facts = []
    if full:
        unlimited = not blocked and not partial
        facts.append(Fact(id=f"{subject}-sysreq-os-{node_id}", exhaustive=True, domain=LINUX_OSES, kernels=kernels,
                          when={} if unlimited else {Layer.gpu: Selector(ids=full)},
                          note=listed if unlimited else listed + " Footnotes limit it to the GPUs in the condition.",
                          **base))
    for gid, allowed in sorted(partial.items()):
        facts.append(Fact(
            id=f"{subject}-sysreq-os-{node_id}-{gid}", exhaustive=True, domain=LINUX_OSES, kernels=allowed,
            when={Layer.gpu: Selector(ids=[gid])},
            note=f"{listed} A footnote on this GPU limits it to the {' and '.join(allowed)} kernel here.",
            **base))
    if blocked:
        reasons = []
        if node_id in limits.only_gpus:
            reasons.append("a footnote limits this OS to other GPUs")
        if any(gid in limits.gpus for gid in blocked):
            reasons.append("footnotes on these GPUs leave this OS out")
        facts.append(Fact(id=f"{subject}-sysreq-os-{node_id}-other-gpus", status=Status.unsupported,
                          when={Layer.gpu: Selector(ids=blocked)},
                          note=f"{listed} Not for these GPUs: {'; '.join(reasons)}.", **base))
    return facts
