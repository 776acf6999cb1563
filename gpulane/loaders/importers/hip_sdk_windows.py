"""Importer for the Windows HIP SDK system requirements page.

The page (``rocm-install-on-windows`` ``docs/reference/system-requirements.rst``)
lists the supported Windows variants and, per GPU tab (Radeon PRO / Radeon), two
marks: ``Runtime`` (the HIP and OpenCL runtimes that ship with the Windows
driver) and ``HIP SDK`` (the runtime plus the HIP libraries). An unlisted GPU is
not supported, so both lists are exhaustive.

We model one toolkit node, :data:`TOOLKIT_ID` (family ``hip-sdk``), with

* ``runs_on`` facts for each listed Windows release (exhaustive),
* ``supports`` facts toolkit -> GPU from the **HIP SDK** column (exhaustive;
  ❌ becomes an ``unsupported`` fact), each noting the **Runtime** mark, and
* ``supports`` facts toolkit -> LLVM target (the best HIP SDK mark among the
  target's GPUs) so that the toolkit-architecture pair of a path is covered.

The runtime-only support (✅ runtime, ❌ SDK, e.g. RX 6700 XT) is kept in the
note of the unsupported SDK fact: the runtime is part of the display driver, not
a toolkit a path chooses. Nothing here is inferred from the Linux pages.

The HIP SDK 5.5 and 5.7 pages predate ``rocm-install-on-windows``: they are
``docs/release/windows_support.md`` of ``ROCm/ROCm`` (Markdown pipe tables in
``tab-item`` blocks), read as ``<label>.md`` with the same checks.

The 6.4.2, 7.1.1 and 7.2 pages call the sections "Supported OSes" (7.x) and
"Windows-supported GPUs and APUs", add an "AMD APU" tab of Ryzen AI processors and
(7.x) an "AMD ROCm Debugger" column, kept in the facts' notes. An APU row becomes a
fact only where a GPU node stands for the processor (:data:`APU_NODES`), and the APU
tab never makes a complete list. AMD's list of Windows releases is the release-versioning
table of ``rocm-install-on-windows`` (``docs/about/release-versioning.rst`` at 0ebf988:
5.5, 5.7, 6.1, 6.2, 6.4, 7.1, 7.2.0; 5.6, 6.0 and 6.3 were Linux-only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import datetime as dt

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source, Status

from .common import (REVIEWED, RstTable, gpu_id, gpu_ids, gpu_name, os_node, parse_mark, parse_os_list, read_rst_tables,
                     read_source, tab_segment)
from .errors import ImportFormatError

COMMIT = "91a3e0c625945f3d2ef7dc397208ab8ff5de651d"

# The page states no HIP SDK release number. The copy is from the install-on-windows
# docs of the ROCm 6.2 period (file last changed 2024-07-19, copied 2024-10-21).
HIP_SDK_VERSION = "6.2"
TOOLKIT_ID = f"hip-sdk-{HIP_SDK_VERSION}"
# The HIP runtime that ships with the Windows display driver, as the same page marks it.
RUNTIME_ID = f"hip-runtime-{HIP_SDK_VERSION}"

SOURCE = Source(
    id="hip-sdk-windows-sysreq",
    url=f"https://github.com/ROCm/rocm-install-on-windows/blob/{COMMIT}/docs/reference/system-requirements.rst",
    publisher="AMD",
    title="HIP SDK installation on Windows, System requirements",
    version=COMMIT,
    reviewed=REVIEWED,
    note="Copied at 4c3801469215c56f677426d7fc5bd62142834bb8 (2024-10-21); the page names no HIP SDK release.",
)

OS_SECTION = "Supported SKUs"
GPU_SECTION = "Windows-supported GPUs"
#: What the 7.x pages call the same two sections.
SECTION_NAMES = {"Supported OSes": OS_SECTION, "Windows-supported GPUs and APUs": GPU_SECTION}
OS_HEADER = ["Distribution", "Processor architectures", "Validated update"]
GPU_HEADER = ["Name", "Architecture", "LLVM target", "Runtime", "HIP SDK"]
#: The 7.x pages add a column to the Radeon PRO and Radeon tabs (not to the APU tab).
DEBUGGER_COLUMN = "AMD ROCm Debugger"
# The ROCm 5.x Markdown pages call the GPU section differently.
MD_GPU_SECTIONS = ("GPU Support Table", "Windows Supported GPUs")
RANK = {Status.supported: 0, Status.deprecated: 1, Status.unsupported: 2}
WORDS = {Status.supported: "supported", Status.deprecated: "deprecated", Status.unsupported: "not supported"}


def _tab_domain(tab: str) -> Selector:
    segment = tab_segment(tab)
    return Selector(layer=Layer.gpu, vendor="amd", segment=segment) if segment else Selector(layer=Layer.gpu, vendor="amd")


@dataclass(frozen=True)
class Page:
    """One documentation version of the page: the label its nodes carry and its source."""

    label: str  # node id suffix and version ("6.2")
    source: Source
    period: str  # the documentation releases that showed this text
    note: str = ""  # the toolkit node's note, where the period alone does not say which release the page is


PAGE_62 = Page(HIP_SDK_VERSION, SOURCE, "ROCm 6.1.2-6.2.4")
#: The day the ROCm/ROCm Markdown pages (HIP SDK 5.5, 5.7) and the 7.1.1 page were read.
REVIEWED_MD = dt.date(2026, 12, 1)
#: Every page read, oldest first (ROCm/ROCm for 5.5 and 5.7, branches of ROCm/rocm-install-on-windows
#: for 6.x; the 6.4.2 and 7.x pages are not in it).
PAGES: dict[str, Page] = {p.label: p for p in (
    Page("5.5", Source(
        id="hip-sdk-windows-support-5.5",
        url=("https://github.com/ROCm/ROCm/blob/b4d3dde1a2f62de76e227ee409b7f501e366a859/"
             "docs/release/windows_support.md"),
        publisher="AMD", title="GPU and OS Support (Windows), HIP SDK 5.5 for Windows (ROCm/ROCm tag win-5.5)",
        version="b4d3dde1a2f62de76e227ee409b7f501e366a859", reviewed=REVIEWED_MD,
        note="The commit of the tag win-5.5, which GitHub publishes as the release 'HIP SDK 5.5 for Windows'; the "
             "file last changed in 4dd5cf1 (2023-07-27)."), "HIP SDK 5.5 release (tag win-5.5)"),
    Page("5.7", Source(
        id="hip-sdk-windows-support-5.7",
        url=("https://github.com/ROCm/ROCm/blob/7aada9a2ae61956d480bc43a57b0a53396c1e1c0/"
             "docs/release/windows_support.md"),
        publisher="AMD", title="GPU and OS Support (Windows), ROCm 5.7.1 documentation",
        version="7aada9a2ae61956d480bc43a57b0a53396c1e1c0", reviewed=REVIEWED_MD,
        note="Branch docs/5.7.1; the file last changed in 227e135 (2023-10-17). AMD's release-versioning page lists "
             "5.7 as a Windows release and says a HIP SDK release is documented by the ROCm documentation of the "
             "same major.minor; docs/5.7.0 has the same tables with older wording."), "ROCm 5.7.1"),
    Page("6.0.0", Source(
        id="hip-sdk-windows-sysreq-6.0.0",
        url=("https://github.com/ROCm/rocm-install-on-windows/blob/81441d84df61b9ec533b085f98f1c1fc8500c05a/"
             "docs/reference/system-requirements.rst"),
        publisher="AMD", title="HIP SDK installation on Windows, System requirements (ROCm 6.0.0 documentation)",
        version="81441d84df61b9ec533b085f98f1c1fc8500c05a", reviewed=REVIEWED,
        note="Branch docs/6.0.0; the file last changed in b010293 (2024-01-11)."), "ROCm 6.0.0",
        note="The requirements page gives no release number; these facts restate it as shown in the ROCm 6.0.0 "
             "documentation. AMD's release-versioning table on the same branch marks ROCm 6.0 as a Linux-only "
             "release: no HIP SDK 6.0 for Windows was published, so this node is the documentation of that "
             "period, not a release one can install."),
    Page("6.1.1", Source(
        id="hip-sdk-windows-sysreq-6.1.1",
        url=("https://github.com/ROCm/rocm-install-on-windows/blob/08f4e0a1bf93b2845eb6d674aceaa129a003a3ec/"
             "docs/reference/system-requirements.rst"),
        publisher="AMD", title="HIP SDK installation on Windows, System requirements (ROCm 6.1.1 documentation)",
        version="08f4e0a1bf93b2845eb6d674aceaa129a003a3ec", reviewed=REVIEWED,
        note="Branch docs/6.1.1; the file last changed in 26c3a9c (2024-02-20); the same text is on the "
             "docs/6.0.2 and docs/6.1.0 branches."), "ROCm 6.0.2-6.1.1"),
    PAGE_62,
    Page("6.4.2", Source(
        id="hip-sdk-windows-sysreq-6.4.2",
        url=("https://github.com/ROCm/rocm-install-on-windows/blob/e80ca8151d8c14663f4eabe8fa7596690fb5dfd8/"
             "docs/reference/system-requirements.rst"),
        publisher="AMD", title="HIP SDK installation on Windows, System requirements (HIP SDK 6.4.2)",
        version="e80ca8151d8c14663f4eabe8fa7596690fb5dfd8", reviewed=REVIEWED_MD,
        note="The page names no release. Its tables equal, row for row, those of the rendered docs-6.4.2 page "
             "(https://rocm.docs.amd.com/projects/install-on-windows/en/docs-6.4.2/reference/system-requirements.html, "
             "dated 2025-09-08); the commit's branch and date were not seen."), "ROCm 6.4.2",
        note="The requirements page gives no release number; these facts restate the version whose tables the "
             "rendered ROCm 6.4.2 documentation shows. AMD's release-versioning table lists 6.4 as a Windows "
             "release."),
    Page("7.1.1", Source(
        id="hip-sdk-windows-sysreq-7.1.1",
        url=("https://github.com/ROCm/rocm-install-on-windows/blob/f704f2860a659e11df82a36f2eb0503c691fa8d4/"
             "docs/reference/system-requirements.rst"),
        publisher="AMD", title="HIP SDK installation on Windows, System requirements (HIP SDK 7.1.1 period)",
        version="f704f2860a659e11df82a36f2eb0503c691fa8d4", reviewed=REVIEWED_MD,
        note="The page names no release. This version has the AMD ROCm Debugger column, and AMD's HIP SDK 7.1.1 "
             "release notes (docs/reference/releasenotes.rst at 9bcabfdb1d5ef597d841ec0d1b1a20120fa508ad) "
             "introduce that debugger; it lacks the Ryzen AI 300 and 400 rows that the 7.2.0 release notes "
             "(docs/about/releasenotes.rst at 0ebf988e299e2f0129ec47076e239fe545c7c053) list as new in 7.2.0. "
             "The commit's branch and date were not seen; a65b7ef and 92adf80 have the same tables."),
        "HIP SDK 7.1.1",
        note="The requirements page gives no release number; these facts restate the version of the page that "
             "carries the ROCm Debugger column new in HIP SDK 7.1.1 and predates the 7.2.0 additions (see the "
             "source's note). AMD's release-versioning table lists 7.1 as a Windows release."),
    Page("7.2", Source(
        id="hip-sdk-windows-sysreq-7.2",
        url=("https://github.com/ROCm/rocm-install-on-windows/blob/0ebf988e299e2f0129ec47076e239fe545c7c053/"
             "docs/reference/system-requirements.rst"),
        publisher="AMD", title="HIP SDK installation on Windows, System requirements (HIP SDK 7.2.0)",
        version="0ebf988e299e2f0129ec47076e239fe545c7c053", reviewed=REVIEWED_MD,
        note="At this commit the repository's release notes are those of the AMD HIP SDK for Windows 7.2.0 "
             "(docs/about/releasenotes.rst) and its release-versioning table ends with 7.2.0; the rendered "
             "docs-7.2 page (rocm.docs.amd.com, dated 2026-07-31) shows the same tables."), "HIP SDK 7.2.0",
        note="The requirements page gives no release number; these facts restate it at the commit whose release "
             "notes are those of HIP SDK 7.2.0."),
)}
SOURCES = tuple(p.source for p in PAGES.values())

#: The APU rows of the 7.x pages (Ryzen AI processors) whose GPU the knowledge base models: the
#: Ryzen AI Max+ PRO 395 is a node of its own (gpu-arch-specs.rst); the Ryzen AI Max+ 395 is an alias
#: of its integrated Radeon 8060S (amd-gpus.yaml). The other rows name processors no node stands for,
#: so the APU tab never makes an exhaustive list (an unlisted integrated GPU may be carried by a listed
#: processor).
APU_NODES = {"Ryzen AI Max+ Pro 395": "ryzen-ai-max-plus-pro-395", "Ryzen AI Max+ 395": "radeon-8060s"}

#: A row name that is no product, per page, and the product it stands for. The 5.7 page's
#: "RX 6750" sits where the next page (6.0.0, docs/6.0.0 81441d8) lists "AMD Radeon RX 6750 XT"
#: with the same marks (runtime ✅, HIP SDK ❌); AMD sold no plain RX 6750.
PAGE_NAME_FIXES = {"5.7": {"AMD Radeon RX 6750": "AMD Radeon RX 6750 XT"}}


def _page_file(label: str) -> str:
    return f"{label}.{'md' if label.startswith('5.') else 'rst'}"


def parse(path: Path) -> KBFile:
    """Read one page (the 6.2 one, or ``<label>.rst`` / ``<label>.md``) or a folder of such pages."""
    path = Path(path)
    if not path.is_dir():
        page = PAGES.get(path.stem, PAGE_62)
        return _parse_page(path, page)
    files = sorted(p for p in path.iterdir() if p.suffix in (".rst", ".md"))
    unknown = [f.name for f in files if f.stem not in PAGES or f.name != _page_file(f.stem)]
    if not files or unknown:
        raise ImportFormatError(path, None, f"expected pages named {', '.join(_page_file(k) for k in PAGES)}; "
                                            f"found {', '.join(f.name for f in files) or 'none'}")
    sources, nodes, facts, seen = [], [], [], set()
    for file in sorted(files, key=lambda f: list(PAGES).index(f.stem), reverse=True):  # newest page first
        kb = _parse_page(file, PAGES[file.stem])
        sources.extend(kb.sources)
        facts.extend(kb.facts)
        for node in kb.nodes:
            if node.id not in seen:  # an OS named by several pages: the newest page's node
                seen.add(node.id)
                nodes.append(node)
    return KBFile(sources=sources, nodes=nodes, facts=facts)


def read_md_tables(text: str) -> list[RstTable]:
    """The pipe tables of a ROCm 5.x Markdown page, as :class:`RstTable` s: ``##`` headings are
    sections (the GPU section renamed to :data:`GPU_SECTION`), ``:::{tab-item} X`` opens a tab,
    link markup in cells is reduced to its text and trademark signs are dropped."""
    def cells(line: str) -> list[str]:
        out = []
        for cell in line.strip().strip("|").split("|"):
            cell = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", cell)
            out.append(" ".join(re.sub(r"[™®]", "", cell).split()))
        return out

    lines = text.splitlines()
    tables: list[RstTable] = []
    section, tab = "", None
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        m = re.match(r"^#{2,3}\s+(.*)$", line)
        if m:
            section, tab = m.group(1).strip(), None
            if section in MD_GPU_SECTIONS:
                section = GPU_SECTION
        m = re.match(r"^:::\{tab-item\}\s*(.*)$", line)
        if m:
            tab = m.group(1).strip()
        elif line in (":::", "::::"):
            tab = None if line == ":::" else tab
        if line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|?\s*$", lines[i + 1].strip()):
            table = RstTable(kind="md-table", line=i + 1, section=section, tab=tab, header=cells(line))
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                table.rows.append((i + 1, cells(lines[i])))
                i += 1
            tables.append(table)
            continue
        i += 1
    return tables


def _same_header(found: list[str], expected: list[str]) -> bool:
    """Headers agree up to case (the 5.x pages write "Processor Architectures", "LLVM Target")."""
    return [h.lower() for h in found] == [h.lower() for h in expected]


def _parse_page(path: Path, page: Page) -> KBFile:
    text = read_source(path)
    tables = read_md_tables(text) if path.suffix == ".md" else read_rst_tables(path, text)
    for table in tables:
        table.section = SECTION_NAMES.get(table.section, table.section)
    SOURCE, HIP_SDK_VERSION = page.source, page.label  # noqa: N806 - this page's source and label
    TOOLKIT_ID, RUNTIME_ID = f"hip-sdk-{page.label}", f"hip-runtime-{page.label}"  # noqa: N806

    os_tables = [t for t in tables if t.section == OS_SECTION]
    if len(os_tables) != 1:
        raise ImportFormatError(path, None, f"expected one Windows table under {OS_SECTION!r}, found {len(os_tables)}")
    os_table = os_tables[0]
    if not _same_header(os_table.header, OS_HEADER):
        raise ImportFormatError(
            path, os_table.line,
            f"Windows table: expected header (Distribution, Processor architectures, Validated update), "
            f"found {os_table.header}",
        )
    nodes: list[Node] = [
        Node(id=TOOLKIT_ID, layer=Layer.toolkit, name=f"HIP SDK {HIP_SDK_VERSION} for Windows", vendor="amd",
             family="hip-sdk", version=HIP_SDK_VERSION, source=SOURCE.id,
             note=page.note or f"The requirements page gives no release number; these facts restate the page as "
                               f"shown in the {page.period} documentation."),
        Node(id=RUNTIME_ID, layer=Layer.toolkit, name=f"HIP runtime of the Windows driver (HIP SDK {HIP_SDK_VERSION} "
             f"page)", vendor="amd", family="hip-runtime", version=HIP_SDK_VERSION, source=SOURCE.id,
             note="The HIP runtime that ships with the AMD Windows display driver: the page's Runtime column. A "
                  "program that bundles the HIP libraries it uses needs only this runtime, not the HIP SDK."),
    ]
    # The runtime is part of the Windows driver: Windows only, the page lists no versions for it.
    facts: list[Fact] = [Fact(
        id=f"{RUNTIME_ID}-os-windows", relation=Relation.runs_on, subject=RUNTIME_ID,
        object=Selector(layer=Layer.os, platform="windows"), source=SOURCE.id, section=GPU_SECTION,
        note="The Runtime column is the HIP runtime of the Windows display driver.")]
    for lineno, cells in os_table.rows:
        if len(cells) != 3:
            raise ImportFormatError(path, lineno, f"Windows table: row has {len(cells)} cells, expected 3")
        label, cpu, update = cells
        refs = parse_os_list(label)
        if refs is None or len(refs) != 1 or refs[0].platform.value != "windows":
            raise ImportFormatError(
                path, lineno, f"Windows table, column 'Distribution': expected e.g. 'Windows 11', found {label!r}")
        ref = refs[0]
        nodes.append(os_node(ref, SOURCE.id))
        facts.append(Fact(
            id=f"{TOOLKIT_ID}-os-{ref.node_id}",
            relation=Relation.runs_on,
            subject=TOOLKIT_ID,
            object=Selector(ids=[ref.node_id]),
            exhaustive=True,
            domain=Selector(layer=Layer.os, platform="windows"),
            source=SOURCE.id,
            section=OS_SECTION,
            note=f"{cpu} only; validated with update {update}." if update else f"{cpu} only; the page names no "
                                                                               f"validated update.",
        ))

    gpu_tables = [t for t in tables if t.section == GPU_SECTION]
    if not gpu_tables:
        raise ImportFormatError(path, None, f"no GPU table found under {GPU_SECTION!r}")
    best: dict[str, tuple[Status, list[str]]] = {}
    best_runtime: dict[str, tuple[Status, list[str]]] = {}
    rows_seen: dict[str, tuple[int, tuple[str, ...]]] = {}  # name -> (times listed, its cells)
    apus_left_out: list[str] = []
    for table in gpu_tables:
        tab = table.tab or "(no tab)"
        with_debugger = _same_header(table.header, GPU_HEADER + [DEBUGGER_COLUMN])
        if not (with_debugger or _same_header(table.header, GPU_HEADER)):
            raise ImportFormatError(
                path, table.line, f"GPU table in tab {tab!r}: expected header {GPU_HEADER} (and optionally "
                                  f"{DEBUGGER_COLUMN!r}), found {table.header}")
        width = len(table.header)
        for lineno, cells in table.rows:
            if len(cells) != width:
                raise ImportFormatError(
                    path, lineno, f"tab {tab!r}: row has {len(cells)} cells, expected {width}")
            # A row repeated with the same cells (the 7.1.1 page lists the RX 6950 XT three times)
            # is one row; a repeat with other marks is a contradiction we do not resolve.
            times, first = rows_seen.get(cells[0], (0, tuple(cells)))
            if times and first != tuple(cells):
                raise ImportFormatError(
                    path, lineno, f"tab {tab!r}: row {cells[0]!r} is listed again with other cells ({cells} "
                                  f"after {list(first)})")
            rows_seen[cells[0]] = (times + 1, first)
            if times:
                continue
            name, _arch, target, runtime_mark, sdk_mark = cells[:5]
            debugger_mark = cells[5] if with_debugger else None
            fixed = PAGE_NAME_FIXES.get(page.label, {}).get(name)
            if not re.fullmatch(r"gfx[0-9a-f]{3,4}", target):
                raise ImportFormatError(
                    path, lineno, f"tab {tab!r}, row {name!r}, column 'LLVM target': expected e.g. 'gfx1100', "
                    f"found {target!r}")
            marks = {}
            columns = [("Runtime", runtime_mark), ("HIP SDK", sdk_mark)]
            if debugger_mark is not None:
                columns.append((DEBUGGER_COLUMN, debugger_mark))
            for column, mark in columns:
                parsed = parse_mark(mark)
                if parsed is None or parsed[1]:
                    raise ImportFormatError(
                        path, lineno, f"tab {tab!r}, row {name!r}, column {column!r}: expected ✅, ⚠️ or ❌, "
                        f"found {mark!r}")
                marks[column] = parsed[0]
            runtime, sdk = marks["Runtime"], marks["HIP SDK"]
            note = f"Windows HIP runtime: {WORDS[runtime]}; HIP SDK libraries: {WORDS[sdk]}."
            if debugger_mark is not None:
                note += f" AMD ROCm Debugger: {WORDS[marks[DEBUGGER_COLUMN]]}."
            if fixed:
                note += (f" The page names this row {gpu_name(name)!r}, no product; the next page of the series lists "
                         f"{gpu_name(fixed)} in its place with the same marks.")
                name = fixed
            if runtime is not Status.unsupported and sdk is Status.unsupported:
                note += (" Programs that need only the HIP runtime of the Windows driver can run on this GPU; "
                         "the SDK's libraries are not supported on it.")
            # The APU tab names processors; the knowledge base knows an APU by its integrated GPU,
            # and the tab is not a complete list of those (see APU_NODES).
            apu = tab_segment(tab) == "integrated"
            if apu:
                gid = APU_NODES.get(gpu_name(name))
                ids: tuple[str, ...] = (gid,) if gid else ()
                if gid is None:
                    apus_left_out.append(gpu_name(name))
                elif gid != gpu_id(name):
                    note += f" The page's row is the {gpu_name(name)}, which carries this GPU."
            else:
                ids = gpu_ids(name)
            for gid in ids:
                facts.append(Fact(
                    id=f"{TOOLKIT_ID}-gpu-{gid}",
                    relation=Relation.supports,
                    subject=TOOLKIT_ID,
                    object=Selector(ids=[gid]),
                    status=sdk,
                    exhaustive=sdk is not Status.unsupported and not apu,
                    domain=_tab_domain(tab) if sdk is not Status.unsupported and not apu else None,
                    source=SOURCE.id,
                    section=f"{GPU_SECTION}, {tab} tab, HIP SDK and Runtime columns",
                    note=note,
                ))
                facts.append(Fact(
                    id=f"{RUNTIME_ID}-gpu-{gid}",
                    relation=Relation.supports,
                    subject=RUNTIME_ID,
                    object=Selector(ids=[gid]),
                    status=runtime,
                    exhaustive=runtime is not Status.unsupported and not apu,
                    domain=_tab_domain(tab) if runtime is not Status.unsupported and not apu else None,
                    source=SOURCE.id,
                    section=f"{GPU_SECTION}, {tab} tab, Runtime column",
                    note=note,
                ))
            for table_best, mark in ((best, sdk), (best_runtime, runtime)):
                status, names = table_best.get(target, (mark, []))
                if RANK[mark] < RANK[status]:
                    status = mark
                table_best[target] = (status, names + [gpu_name(name)])
    if apus_left_out:
        nodes[0] = nodes[0].model_copy(update={"note": f"{nodes[0].note} The APU tab's rows "
                                                       f"{', '.join(apus_left_out)} are left out: no GPU node of "
                                                       f"the knowledge base stands for them."})
    repeated = {gid: times for name, (times, _) in rows_seen.items() if times > 1
                for gid in gpu_ids(PAGE_NAME_FIXES.get(page.label, {}).get(name, name))}
    if repeated:
        facts = [f.model_copy(update={"note": f"{f.note} The page lists this row {repeated[f.object.ids[0]]} times "
                                              f"with the same marks."})
                 if f.relation is Relation.supports and f.object.ids and f.object.ids[0] in repeated else f
                 for f in facts]
    for target, (status, names) in best_runtime.items():
        facts.append(Fact(
            id=f"{RUNTIME_ID}-arch-{target}",
            relation=Relation.supports,
            subject=RUNTIME_ID,
            object=Selector(ids=[target]),
            status=status,
            source=SOURCE.id,
            section=f"{GPU_SECTION}, LLVM target and Runtime columns",
            note=(f"Derived from the Runtime marks of: {', '.join(sorted(names))}. Not a complete list: AMD "
                  f"decides per card (the GPU facts)."),
        ))
    for target, (status, names) in best.items():
        facts.append(Fact(
            id=f"{TOOLKIT_ID}-arch-{target}",
            relation=Relation.supports,
            subject=TOOLKIT_ID,
            object=Selector(ids=[target]),
            status=status,
            source=SOURCE.id,
            section=f"{GPU_SECTION}, LLVM target and HIP SDK columns",
            note=(f"Derived from the HIP SDK marks of: {', '.join(sorted(names))}. Not a complete list: AMD "
                  f"decides per card (the GPU facts)."),
        ))
    return KBFile(sources=[SOURCE], nodes=nodes, facts=facts)
