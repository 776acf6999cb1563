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

ROCm 6.3.0 and 6.3.1 are read in forks that carry the upstream commits (docs/6.3.0, and develop
on the day 6.3.1 was documented; docs/conf.py at each commit names the release). ROCm 6.3.2 and
6.3.3 have only the compatibility matrix's OS/kernel lookup table (kind "kernels").

ROCm 6.4.1 has no docs branch here: its page is read from a capture of the rendered page
(``<release>.md``, Markdown tables, footnote marks but no footnote texts), and the per-card OS
limits from that release's notes (``<release>.release-notes.md``, "These GPUs are supported
on ..."); a card or OS row whose footnote neither states is left without OS facts (unknown).

ROCm 7.0.0 and 7.0.1 share one input (``7.0.0.rst``): a stored version of the RST page held in the
search tool's code index, which names no commit; it is taken as the page of the compatibility matrix's
7.0.1/7.0.0 column (see the source note). Its Instinct tab has a Series column and its OS table a Glibc
column, both read. No readable per-card page was found for 6.4.0, 6.4.2, 6.4.3, 7.0.2, 7.1.x, 7.2.0 or
7.2.1: those releases get no facts here (the matrix's per-target row decides no card).

The input is a folder with one page per release, named ``<release>.rst``
(:data:`PAGES` pins where each comes from), or one such file. Subjects are the
``rocm-X.Y.Z`` toolkit nodes; GPU ids are shared with the specification importer.
"""

from __future__ import annotations

import datetime as dt
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

RENDERED_REVIEWED = dt.date(2026, 12, 1)

REPO = "https://github.com/ROCm/rocm-install-on-linux"
PATH = "docs/reference/system-requirements.rst"
LEGACY_REPO = "https://github.com/ROCm/ROCm"
LEGACY_PATH = "docs/release/gpu_os_support.md"
MATRIX_PATH = "docs/compatibility/compatibility-matrix.rst"
KERNEL_SECTION = "Operating systems and kernel versions"


@dataclass(frozen=True)
class Page:
    """One release's page: the docs branch, its head commit when read, and the file's last change."""

    release: str
    commit: str  # head of the docs/<release> branch when read
    file_commit: str  # last commit that changed the file on that branch
    # "sysreq": the install-on-linux page (6.0-6.3.1); "kernels": only the OS/kernel lookup table of
    # ROCm/ROCm's compatibility matrix on the docs/6.3.2-6.3.3 branches (no per-card tables were readable);
    # "rendered": a capture of the rendered page (no docs branch readable), with the release notes
    kind: str = "sysreq"
    captured: str = ""  # "rendered": the date the captured page shows
    # where the commit was read when not in a snapshot of ROCm/rocm-install-on-linux itself (a fork that
    # carries the upstream commit), and which branch or state of the repository it is
    read_in: str = ""
    reviewed: Optional[dt.date] = None  # when not the importer's common review date
    # "index": a stored version of the page's RST held in the search tool's code index, which names
    # neither its commit nor its branch; ``index_id`` is its file id there and ``attributed`` says why it
    # is taken as this release's page
    index_id: str = ""
    attributed: str = ""
    # the release whose input file this page shares (the same stored version read for two releases)
    input_of: str = ""

    @property
    def suffix(self) -> str:
        return ".md" if self.legacy or self.kind == "rendered" else ".rst"

    @property
    def notes_source(self) -> Source:
        """ "rendered": the release notes, whose hardware section states the per-card OS limits."""
        return Source(
            id=f"rocm-release-notes-{self.release}",
            url=f"https://rocm.docs.amd.com/en/docs-{self.release}/about/release-notes.html",
            publisher="AMD",
            title=f"ROCm {self.release} release notes",
            version=self.release,
            reviewed=RENDERED_REVIEWED,
            note=(f"Read from a capture of the rendered page https://rocm.docs.amd.com/en/latest/about/"
                  f"release-notes.html while it showed the ROCm {self.release} release notes; only that section is "
                  f"kept as input."),
        )

    @property
    def legacy(self) -> bool:
        """ROCm 5.x: the page lived in ROCm/ROCm as Markdown (docs/release/gpu_os_support.md)."""
        return self.release.startswith("5.")

    @property
    def source(self) -> Source:
        if self.kind in ("index", "rendered"):  # the release's page on rocm.docs.amd.com, read in a copy
            rendered = dict(
                id=f"rocm-linux-sysreq-{self.release}",
                url=f"https://rocm.docs.amd.com/projects/install-on-linux/en/docs-{self.release}/reference/"
                    "system-requirements.html",
                publisher="AMD",
                title=f"ROCm installation on Linux, System requirements (ROCm {self.release} documentation)",
                reviewed=RENDERED_REVIEWED)
        if self.kind == "index":
            return Source(
                **rendered, version=f"{self.release} (see note)",
                note=(f"Read in a stored version of {PATH} of ROCm/rocm-install-on-linux held in the search tool's "
                      f"code index (file id {self.index_id}); the index names neither its commit nor its branch. "
                      + self.attributed),
            )
        if self.kind == "rendered":
            return Source(
                **rendered, version=self.release,
                note=(f"Read from a capture of the rendered page https://rocm.docs.amd.com/projects/install-on-linux/"
                      f"en/latest/reference/system-requirements.html dated {self.captured}, whose cross-references "
                      f"name ROCm Documentation v{self.release} (the release it documented then)."
                      + (" The capture has the footnote marks but not the footnote texts." if self.release in NOTES_RELEASES
                         else " The footnote texts are read from the capture.")),
            )
        if self.kind == "kernels":
            return Source(
                id=f"rocm-linux-kernels-{self.release}",
                url=f"{LEGACY_REPO}/blob/{self.commit}/{MATRIX_PATH}",
                publisher="AMD",
                title=f"ROCm compatibility matrix, Operating systems and kernel versions (ROCm {self.release} "
                      "documentation)",
                version=self.commit,
                reviewed=REVIEWED,
                note=(f"Branch docs/{self.release} of ROCm/ROCm; the file last changed in {self.file_commit[:12]}. "
                      f"Published as https://rocm.docs.amd.com/en/docs-{self.release}/compatibility/"
                      "compatibility-matrix.html"),
            )
        if self.legacy:
            return Source(
                id=f"rocm-linux-sysreq-{self.release}",
                url=f"{LEGACY_REPO}/blob/{self.commit}/{LEGACY_PATH}",
                publisher="AMD",
                title=f"ROCm GPU and OS support (Linux) (ROCm {self.release} documentation)",
                version=self.commit,
                reviewed=REVIEWED,
                note=(f"Branch docs/{self.release} of ROCm/ROCm; the file last changed in {self.file_commit[:12]}. "
                      f"Published as https://rocm.docs.amd.com/en/docs-{self.release}/release/gpu_os_support.html"),
            )
        where = self.read_in or f"Branch docs/{self.release}"
        return Source(
            id=f"rocm-linux-sysreq-{self.release}",
            url=f"{REPO}/blob/{self.commit}/{PATH}",
            publisher="AMD",
            title=f"ROCm installation on Linux, System requirements (ROCm {self.release} documentation)",
            version=self.commit,
            reviewed=self.reviewed or REVIEWED,
            note=(f"{where}; the file last changed in {self.file_commit[:12]}. Published as "
                  f"https://rocm.docs.amd.com/projects/install-on-linux/en/docs-{self.release}/reference/"
                  "system-requirements.html"),
        )


_ATTRIBUTED_700 = (
    "Taken as the page of ROCm 7.0.0 and 7.0.1, which AMD's compatibility matrix (past-versions table, source "
    "rocm-compat-matrix) treats as one column (7.0.1/7.0.0): its operating system table names exactly the releases "
    "of that column (Ubuntu 24.04.3 and "
    "22.04.5, RHEL 9.6, 9.4 and 8.10, SLES 15 SP7, Debian 12, Rocky Linux 9, Azure Linux 3.0, Oracle Linux 9 and "
    "8), unlike the 6.4.3 column (SLES 15 SP6, no Rocky Linux) and the 7.0.2 column (adds Debian 13, RHEL 10.0 "
    "and Oracle Linux 10), its GPU table has the MI355X and MI350X (gfx950) the matrix adds in 7.0, and its "
    "footnote labels end in -700. The page itself does not name a release. AMD's compatibility matrix as "
    "committed on 2025-09-17 (commit 20c90fc4061ba562de43e6cc31ade9f4d0a7c410, ROCm/ROCm history read in the fork "
    "alanina/ROCm; column 7.0.1/7.0.0) agrees: the same RHEL 8.10, SLES 15 SP7/Debian 12, Rocky Linux 9 and "
    "Oracle Linux limits, the V710 and V620 limits, and Ubuntu 24.04.3, 22.04.5 and RHEL 9.6 for the RDNA cards "
    "of ROCm 7.0.x, with the gfx1100 row marked by that footnote.")

#: Every page read, by ROCm release: ROCm 5.x from the docs/5.x.y branches of ROCm/ROCm,
#: ROCm 6.x from the docs/6.x.y branches of ROCm/rocm-install-on-linux.
PAGES: dict[str, Page] = {p.release: p for p in (
    Page("5.0.0", "815a7aa81d3df179eb81d888bd61ecab1d180a3f", "a7ce874940bfb8da4df5e9dd2a3ac5f697a7e114"),
    Page("5.0.1", "e979e772ea8e68a62db5d10260b3cad6a36c9c25", "a7ce874940bfb8da4df5e9dd2a3ac5f697a7e114"),
    Page("5.0.2", "91b4c3a7730134ebd792cf064831d499932e89f8", "a7ce874940bfb8da4df5e9dd2a3ac5f697a7e114"),
    Page("5.1.0", "3ef81535dfa27f4b9b20f03f4f01fef0e5364c3c", "3f60f1df3b74c4e347118d0ae4c54952203b8569"),
    Page("5.2.0", "89e60882ac1503764dec110992c004f53ca564ec", "92c094001204655c6ed1b4ded7ba5b53ad4d2033"),
    Page("5.2.3", "dacff66c66bedbfdc3dd5404bd306e97c8f3fbaa", "92c094001204655c6ed1b4ded7ba5b53ad4d2033"),
    Page("5.3.0", "5658eeb46e36f94def496dfa8b25b3b1ca81f2fb", "a9cda12159060a16de908d82ef3a4e773751cabd"),
    Page("5.3.2", "4720ecf62bbf7d5fd42d861679b8a8118e73db78", "5cf7fff3387a367e72ca72474d74f796c46e3dad"),
    Page("5.3.3", "9bfe4fcadf52eb36a3618f84bf533c14e8db4c79", "5cf7fff3387a367e72ca72474d74f796c46e3dad"),
    Page("5.4.0", "dac34360f21b0a76c8da4629105d5f60856d47d3", "b6509809d3b57aad43adbee1f9c161102c1eeff9"),
    Page("5.4.1", "2edcc3a6c6adbf9df3e55478d1444898ce9837b0", "b6509809d3b57aad43adbee1f9c161102c1eeff9"),
    Page("5.4.2", "45975549173829bd263cd9284a26f967a435bbeb", "b6509809d3b57aad43adbee1f9c161102c1eeff9"),
    Page("5.4.3", "b3d51b08e4774a991744e4497def8e5f18a209ef", "b6509809d3b57aad43adbee1f9c161102c1eeff9"),
    Page("5.5.0", "8e1883e3b5d5ed22205d63825939223587f48cb1", "30f27c46442f59a9718acf33a1535724d559f543"),
    Page("5.5.1", "e1ba50284cd89ad6f9c94c6f396638a7901d47e5", "0cff04e4c04f61d801a01f4db999c342e9e59441"),
    Page("5.6.0", "cd7898608c3eed441a859631663f5b5a6804ad99", "6fb7b9f3b554fd1aa26c036c1b4c0e7948a0db92"),
    Page("5.6.1", "0e0d89c45bc3842bf8d54ee0747cc1e4245111ed", "6fb7b9f3b554fd1aa26c036c1b4c0e7948a0db92"),
    Page("5.7.0", "30f6f2508a0335e19178c24f5c9d6932eae78373", "c2a4257103b27248f1868ffb164c2f01586c8a5a"),
    Page("5.7.1", "7aada9a2ae61956d480bc43a57b0a53396c1e1c0", "f53b99990cbf1a06f3c60af0c84e7f82e75abd7d"),
    Page("6.0.0", "4ffc2acda73032962fd70057940e30a0f95aff7d", "00ef7d5acfbf516fefeff50dbf5a2a2261f52f80"),
    Page("6.0.2", "add6228e1b7ae0a17c8099b3c63e7fff4bf4b896", "95ee6d4917a70b423866ed96069500586d85c312"),
    Page("6.1.0", "06bf78188ce75473bfd63e7617bac48d13f97bb3", "7c384209279104fff9d49688cc7327a0520816ab"),
    Page("6.1.1", "ef4a396f53d36a672f57b4ab731bc979cf2bbe8b", "ef4a396f53d36a672f57b4ab731bc979cf2bbe8b"),
    Page("6.1.2", "70eabccab6993f9d64a20b1db350f1972b811152", "70eabccab6993f9d64a20b1db350f1972b811152"),
    Page("6.2.0", "86439fc9869b866748b8d64f515df267092b86f5", "a77f9108e5a166015f0973b8842f839218c584de"),
    Page("6.2.1", "e605245eb5c2b4a5b8f46b25c7b1bd0d25250eea", "5d105a509e9d1292fcf70bafc39ca4ab26aed84c"),
    Page("6.2.2", "bdb054c4864388c50e7cf0fbcad17888d8bd9fca", "cccc3308cdd5db6ae02876a872ee8b5d5e81ba16"),
    Page("6.2.4", "c3325cba8483d34623b394b2785eff8148644efe", "cccc3308cdd5db6ae02876a872ee8b5d5e81ba16"),
    Page("6.3.0", "9bd0f9aaf1b3e17bc47e0eee38b28f4b218df792", "fb531b1a3c1efb1320c51530fa63ff3495e76b09",
         reviewed=RENDERED_REVIEWED,
         read_in="Branch docs/6.3.0, read in the fork randyh62/rocm-install-on-linux, which carries the upstream "
                 "branch and its commits (merged pull requests of ROCm/rocm-install-on-linux); docs/conf.py at the "
                 "same commit sets version and release to 6.3.0"),
    Page("6.3.1", "e7e92a05e20adaae9cd52912cfdcd730eddbe14e", "d413591eefeab812cafc2842a41829bcec9218e9",
         reviewed=RENDERED_REVIEWED,
         read_in="Branch develop at the merge of pull request #375 (2024-12-20, the day ROCm 6.3.1 was documented), "
                 "read in the fork peterjunpark/rocm-install-on-linux, which carries the upstream commits; "
                 "docs/conf.py at the same commit sets version and release to 6.3.1"),
    Page("6.3.2", "2a5163890321cedc9bf6a2b0e540c9d1f8f9af73", "7170d9813dccbcc7c736757c7cacc845525d7408", "kernels"),
    Page("6.3.3", "571578a8bdf6273b42068b11fc5edda567df778b", "35f4362e68f84f55767ffefe9eb5c0073da22c59", "kernels"),
    Page("6.4.1", "", "", "rendered", captured="2025-06-03"),
    Page("7.0.0", "", "", "index", index_id="66125256899", attributed=_ATTRIBUTED_700),
    Page("7.0.1", "", "", "index", index_id="66125256899", attributed=_ATTRIBUTED_700, input_of="7.0.0"),
    Page("7.2.2", "", "", "rendered", captured="2026-04-17"),
)}

#: Releases whose toolkit node this importer defines (the compatibility-matrix import stops at 7.2.0).
NEW_TOOLKITS = ("7.2.2",)

#: ROCm 5.x releases whose docs branch page is not read: the page on those branches lists
#: distributions released after the ROCm release (RHEL 9.1, Ubuntu 22.04.1), so it does not
#: describe that release. Their toolkit nodes exist (the release does), with no support facts.
UNREAD: dict[str, str] = {
    "5.1.1": "26560ec4e0ccd6baa3a7d7ad27979d4068bdca87",
    "5.1.3": "fdfd9187d7b60471f20810ddedb0a2cba502ad61",
    "5.2.1": "9135d26d5d8a9b2ac8dd827d63d204fbbacca483",
}

RELEASES = tuple(PAGES)
#: Rendered pages captured without their footnote texts: the release notes state the per-card limits.
NOTES_RELEASES = ("6.4.1",)
SOURCES = tuple(p.source for p in PAGES.values()) + tuple(
    p.notes_source for p in PAGES.values() if p.release in NOTES_RELEASES) + (Source(
    id="rocm-releases-5",
    url=f"{LEGACY_REPO}/tree/{UNREAD['5.2.1']}",
    publisher="AMD",
    title="ROCm repository, release tags and docs branches of ROCm 5.x",
    version=UNREAD["5.2.1"],
    reviewed=REVIEWED,
    note="The ROCm/ROCm repository has a release tag (rocm-5.1.1, rocm-5.1.3, rocm-5.2.1) and a docs branch for "
         "each of these releases; only the existence of the release is taken from it.",
),)

GPU_SECTION = "Supported GPUs"  # "Linux Supported GPUs" / "GPU Support Table" in the 5.x pages
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
    glibc: str = ""  # the page's Glibc column, where it has one
    kernel_text: str = ""  # the Kernel cell as written, where it names no kernel series ("5.14+")


@dataclass
class GpuLimit:
    """What a footnote on one GPU says about the operating systems."""

    only: Optional[dict[str, Optional[list[str]]]] = None  # os node -> kernels (None = every listed kernel)
    excluded: dict[str, set[str]] = field(default_factory=dict)  # os node -> kernels excluded
    not_on: set[str] = field(default_factory=set)  # os nodes stated unsupported
    text: list[str] = field(default_factory=list)
    source: Optional[str] = None  # where the limit is stated, when not on the page itself


@dataclass
class Limits:
    gpus: dict[str, GpuLimit] = field(default_factory=dict)  # gpu id -> limit
    only_gpus: dict[str, set[str]] = field(default_factory=dict)  # os node -> gpu ids
    os_notes: dict[str, list[str]] = field(default_factory=dict)  # os node -> notes (preview ...)
    # a footnote mark whose text was not read: the GPU gets no OS facts, the OS no facts (unknown)
    unread_gpus: set[str] = field(default_factory=set)
    unread_oses: set[str] = field(default_factory=set)


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
        glibc = cells[2] if header[2] == "Glibc" else ""
        if glibc and not re.fullmatch(r"\d+\.\d+", glibc):
            raise ImportFormatError(path, lineno, f"OS table, row {label!r}, column 'Glibc': expected e.g. '2.35', "
                                                  f"found {glibc!r}")
        rows.append(OsRow(lineno, refs[0], kernels, notes, label, glibc=glibc))
    return rows


_DISTROS = "|".join(re.escape(d) for d in DISTRO_NAMES)
# the kernel after a release: "(kernel: 5.15 [GA])" or (6.3.1) "[5.15 GA]"
_OS_ITEM = re.compile(rf"({_DISTROS})\s+(\d+\.x|\d+(?:\.\d+)*(?:\s+SP\d+)?)"
                      r"(?:\s*\(kernel:\s*([^)]*)\)|\s*\[([^\]]*)\])?")


def _os_items(path: Path, line: int, text: str, oses: list[OsRow]) -> dict[str, Optional[list[str]]]:
    """``"Ubuntu 22.04.4 (kernel: 5.15 [GA]), RHEL 9.4 and SLES 15 SP5"`` -> {os node: kernels or None}."""
    out: dict[str, Optional[list[str]]] = {}
    for distro, version, kernel, bracketed in _OS_ITEM.findall(text):
        kernel = kernel or bracketed
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


# ------------------------------------------- a captured rendered page (6.4.1)

NOTES_SUFFIX = ".release-notes.md"
NOTES_SECTION = "Operating system and hardware support changes"
_MD_FOOTNOTE = re.compile(r"\s*\[\[\d+\]\]\([^)\s]*#([\w-]+)\)")
_MD_HEADING_RULE = re.compile(r"^-{3,}\s*$")
_MD_ANCHOR = re.compile(r"\[#\]\([^)]*\)")


def _md_tables(path: Path, text: str):
    """Yield (section, tab, header line, header, rows) for each pipe table of a rendered-page capture.

    Sections are the page's underlined headings; a tab is the short line (such as "AMD Radeon PRO")
    just before a table, which is how the capture renders the page's tab titles.
    """
    lines = text.splitlines()
    section, tab = None, None
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and _MD_HEADING_RULE.match(lines[i + 1]) and line.strip():
            section, tab = _MD_ANCHOR.sub("", line).strip(), None
            i += 2
            continue
        if line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|?\s*$", lines[i + 1]):
            header = _md_cells(line)
            start, i = i + 1, i + 2
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append((i + 1, _md_cells(lines[i])))
                i += 1
            yield section, tab, start, header, rows
            continue
        if line.strip():
            tab = line.strip()
        i += 1


def _md_mark(text: str) -> tuple[str, list[str]]:
    """``"✅ [[5]](https://...#rdna-os)"`` -> ("✅", ["rdna-os"])."""
    return _MD_FOOTNOTE.sub("", text).strip(), _MD_FOOTNOTE.findall(text)


def _read_rendered_page(path: Path, text: str) -> tuple[list[GpuRow], list[OsRow]]:
    """The GPU tables (one per tab) and the OS table of a capture of the rendered page."""
    gpus: list[GpuRow] = []
    oses: list[OsRow] = []
    for section, tab, line, header, rows in _md_tables(path, text):
        if section == GPU_SECTION:
            if header not in (["Accelerator", "Architecture", "LLVM target", "Support"],
                              ["GPU", "Architecture", "LLVM target", "Support"]):
                raise ImportFormatError(path, line, f"GPU table in tab {tab!r}: expected a header (GPU, Architecture, "
                                                    f"LLVM target, Support), found {header}")
            segment = _segment(path, line, tab or "(no tab)")
            for lineno, cells in rows:
                if len(cells) != 4:
                    raise ImportFormatError(path, lineno, f"tab {tab!r}: row has {len(cells)} cells, expected 4")
                name, target = cells[0].replace("™", ""), cells[2]
                if not re.fullmatch(r"gfx[0-9a-f]{3,4}", target):
                    raise ImportFormatError(path, lineno, f"tab {tab!r}, row {name!r}, column 'LLVM target': expected "
                                                          f"e.g. 'gfx1100', found {target!r}")
                value, notes = _md_mark(cells[3])
                parsed = parse_mark(value)
                if parsed is None:
                    raise ImportFormatError(path, lineno, f"tab {tab!r}, row {name!r}, column 'Support': expected ✅, "
                                                          f"⚠️ or ❌, found {cells[3]!r}")
                gpus.append(GpuRow(lineno, name, gpu_ids(name), target, parsed[0], tab, segment, notes))
        elif section == OS_SECTION:
            if header != ["Operating system", "Kernel", "Glibc", "Support"]:
                raise ImportFormatError(path, line, f"OS table: expected a header (Operating system, Kernel, Glibc, "
                                                    f"Support), found {header}")
            for lineno, cells in rows:
                if len(cells) != 4:
                    raise ImportFormatError(path, lineno, f"OS table: row has {len(cells)} cells, expected 4")
                label, kernel_text, glibc = cells[0], cells[1], cells[2]
                refs = parse_os_list(label)
                if refs is None or len(refs) != 1:
                    raise ImportFormatError(path, lineno, f"OS table, column 'Operating system': expected one release "
                                                          f"such as 'RHEL 9.4', found {label!r}")
                # "5.14+" names no kernel series a running kernel can be checked against: kept as text only
                kernels = [] if kernel_text.endswith("+") else parse_kernels(kernel_text)
                if kernels is None:
                    raise ImportFormatError(path, lineno, f"OS table, row {label!r}, column 'Kernel': expected e.g. "
                                                          f"'5.15 [GA], 6.8 [HWE]' or '5.14+', found {kernel_text!r}")
                if not re.fullmatch(r"\d+\.\d+", glibc):
                    raise ImportFormatError(path, lineno, f"OS table, row {label!r}, column 'Glibc': expected e.g. "
                                                          f"'2.35', found {glibc!r}")
                value, notes = _md_mark(cells[3])
                parsed = parse_mark(value)
                if parsed is None or parsed[0] is not Status.supported:
                    raise ImportFormatError(path, lineno, f"OS table, row {label!r}, column 'Support': expected ✅, "
                                                          f"found {cells[3]!r}")
                oses.append(OsRow(lineno, refs[0], kernels, notes, label, glibc=glibc,
                                  kernel_text="" if kernels else kernel_text))
    if not gpus:
        raise ImportFormatError(path, None, f"no GPU table found under the heading {GPU_SECTION!r}")
    if not oses:
        raise ImportFormatError(path, None, f"no OS table found under the heading {OS_SECTION!r}")
    return gpus, oses


_NOTES_GPUS = re.compile(r"architecture-based (.+?) GPUs\b")
_NOTES_OSES = re.compile(r"These GPUs are supported on (.+?)\.(?:\s|$)")


def _rendered_limits(path: Path, page: Page, gpus: list[GpuRow], oses: list[OsRow]) -> Limits:
    """Per-card OS limits of a captured page: its footnote texts are not in the capture, so the
    release notes' hardware section ("... GPUs are supported on <OS>, ...") states them; a marked
    GPU or OS row the notes do not cover is left unread (no OS facts: unknown)."""
    notes_path = path.with_name(page.release + NOTES_SUFFIX)
    if not notes_path.is_file():
        raise ImportFormatError(path, None, f"expected the release notes next to the page, as {notes_path.name!r}")
    notes_text = read_source(notes_path)
    limits = Limits()
    source = page.notes_source.id
    for lineno, line in enumerate(notes_text.splitlines(), 1):
        oses_said = _NOTES_OSES.search(line)
        if not oses_said:
            continue
        plain = _md_link_text(line)
        named: set[str] = set()
        for group in _NOTES_GPUS.findall(plain):
            named |= _gpu_names(notes_path, lineno, group, gpus)
        if not named:
            raise ImportFormatError(notes_path, lineno, "OS limit: no GPU of the page named before 'These GPUs are "
                                                        "supported on'")
        allowed = _os_items(notes_path, lineno, _md_link_text(oses_said.group(1)), oses)
        for gid in named:
            limit = limits.gpus.setdefault(gid, GpuLimit(source=source))
            limit.only = allowed
            limit.text.append(f"supported on {oses_said.group(1)}")
    if not limits.gpus:
        raise ImportFormatError(notes_path, None, "no sentence 'These GPUs are supported on <OS>, ...' found")
    for row in gpus:
        if row.footnotes and not all(gid in limits.gpus for gid in row.ids):
            limits.unread_gpus.update(row.ids)
    limits.unread_oses = {row.ref.node_id for row in oses if row.footnotes}
    return limits


# ------------------------------------- a pandoc capture of the rendered page (7.2.2)

_PD_MARK = re.compile(r"\s*\[\^(\d+)\]")
_PD_LABEL = re.compile(r"^\[\[\\\[\]\{\.fn-bracket\}\[?(\d+)")
_PD_BACKREF = re.compile(r"\(#id(\d+)\)")
_PD_LINK = re.compile(r"\[\[([^\]]+)\]\{[^}]*\}\]\([^)]*\)\{[^}]*\}")


def _pd_cells(line: str) -> list[str]:
    return [c.strip().replace("\\[", "[").replace("\\]", "]") for c in line.strip().strip("|").split("|")]


def _read_pandoc_page(path: Path, text: str):
    """GPU tables, OS table and footnotes of a pandoc capture of the rendered page.

    Grid tables with one line per row; a tab is the short line before the table block; a
    footnote is a label line (number and back-references ``#idN``) followed by its text. Returns
    the rows, {footnote number: (line, text)} and the footnote marks in document order
    (row, footnote number or None) with the back-reference ids in the same order.
    """
    lines = text.splitlines()
    gpus: list[GpuRow] = []
    oses: list[OsRow] = []
    footnotes: dict[int, tuple[int, str]] = {}
    refs: list[tuple[object, int]] = []  # (row, mark) in document order
    backrefs: dict[int, int] = {}  # id -> footnote number
    section, tab, header = None, None, None
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = re.match(r"^##\s+(.*?)\[", line)
        if heading:
            section, tab, header = heading.group(1).strip(), None, None
        elif line.startswith("+") and i + 1 < len(lines) and lines[i + 1].startswith("|") and header is None:
            header = _pd_cells(lines[i + 1])
            i += 2
            continue
        elif line.startswith("+"):
            if line.startswith("+="):
                pass
            elif i + 1 >= len(lines) or not lines[i + 1].startswith("|"):
                header = None  # the table ends
        elif line.startswith("|") and header is not None and section in (GPU_SECTION, OS_SECTION):
            cells = _pd_cells(line)
            if len(cells) != len(header):
                raise ImportFormatError(path, i + 1, f"row has {len(cells)} cells, expected {len(header)}")
            row = _pd_gpu_row(path, i + 1, tab, header, cells) if section == GPU_SECTION else \
                _pd_os_row(path, i + 1, header, cells)
            (gpus if section == GPU_SECTION else oses).append(row)
            refs.extend((row, int(n)) for n in _PD_MARK.findall(cells[-1]))
        else:
            label = _PD_LABEL.match(line)
            if label:
                number = int(label.group(1))
                for ref_id in _PD_BACKREF.findall(line):
                    backrefs[int(ref_id)] = number
                j = i + 1
                while j < len(lines) and not lines[j].strip():
                    j += 1
                body = _PD_LINK.sub(r"\1", lines[j]).strip() if j < len(lines) else ""
                footnotes[number] = (j + 1, body)
                i = j + 1
                continue
            if line.strip() and not line.startswith(":::") and len(line) < 40 and section == GPU_SECTION:
                tab = line.strip()
        i += 1
    if not gpus:
        raise ImportFormatError(path, None, f"no GPU table found under the heading {GPU_SECTION!r}")
    if not oses:
        raise ImportFormatError(path, None, f"no OS table found under the heading {OS_SECTION!r}")
    # The k-th mark in the page is the k-th back-reference id: the marks' own numbers ([^N]) are
    # the capture's, not the page's. Both counts must agree, or the mapping is not safe.
    ids = sorted(backrefs)
    if len(ids) != len(refs) or ids != list(range(ids[0], ids[0] + len(ids))):
        raise ImportFormatError(path, None, f"{len(refs)} footnote marks in the tables but {len(ids)} back-references "
                                            f"in the footnotes: cannot tell which footnote each mark is")
    marks = [(row, backrefs[ref_id]) for (row, _), ref_id in zip(refs, ids)]
    for row in gpus + oses:
        row.footnotes = [str(number) for r, number in marks if r is row]
    return gpus, oses, footnotes, marks


def _pd_gpu_row(path: Path, line: int, tab, header: list[str], cells: list[str]) -> GpuRow:
    if header[0] != "GPU" or "LLVM target" not in header or header[-1] != "Support":
        raise ImportFormatError(path, line, f"GPU table in tab {tab!r}: expected a header (GPU, [Series,] "
                                            f"Architecture, LLVM target, Support), found {header}")
    name, target = cells[0].replace("™", ""), cells[header.index("LLVM target")]
    if not re.fullmatch(r"gfx[0-9a-f]{3,4}", target):
        raise ImportFormatError(path, line, f"tab {tab!r}, row {name!r}, column 'LLVM target': expected e.g. "
                                            f"'gfx1100', found {target!r}")
    parsed = parse_mark(_PD_MARK.sub("", cells[-1]))
    if parsed is None:
        raise ImportFormatError(path, line, f"tab {tab!r}, row {name!r}, column 'Support': expected ✅, ⚠️ or ❌, "
                                            f"found {cells[-1]!r}")
    return GpuRow(line, name, gpu_ids(name), target, parsed[0], tab, _segment(path, line, tab or "(no tab)"), [])


def _pd_os_row(path: Path, line: int, header: list[str], cells: list[str]) -> OsRow:
    if header != ["Operating system", "Kernel", "Glibc", "Support"]:
        raise ImportFormatError(path, line, f"OS table: expected a header (Operating system, Kernel, Glibc, Support), "
                                            f"found {header}")
    label, kernel_text, glibc = cells[0], cells[1], cells[2]
    refs = parse_os_list(label)
    if refs is None or len(refs) != 1:
        raise ImportFormatError(path, line, f"OS table, column 'Operating system': expected one release such as "
                                            f"'RHEL 9.4', found {label!r}")
    kernels = parse_kernels(kernel_text)
    if kernels is None:
        raise ImportFormatError(path, line, f"OS table, row {label!r}, column 'Kernel': expected e.g. "
                                            f"'5.15 [GA], 6.8 [HWE]', found {kernel_text!r}")
    if not re.fullmatch(r"\d+\.\d+", glibc):
        raise ImportFormatError(path, line, f"OS table, row {label!r}, column 'Glibc': expected e.g. '2.35', "
                                            f"found {glibc!r}")
    parsed = parse_mark(_PD_MARK.sub("", cells[3]))
    if parsed is None or parsed[0] is not Status.supported:
        raise ImportFormatError(path, line, f"OS table, row {label!r}, column 'Support': expected ✅, found {cells[3]!r}")
    return OsRow(line, refs[0], kernels, [], label, glibc=glibc)


def _os_subjects(path: Path, line: int, text: str) -> set[str]:
    """``"RHEL 8.10, Debian 12, and Oracle Linux 8"``, ``"Oracle Linux 10 and 9"`` -> OS node ids."""
    out: set[str] = set()
    distro = None
    for item in filter(None, (x.strip() for x in re.split(r",\s*(?:and\s+)?|\s+and\s+", text))):
        m = re.fullmatch(r"(.*?)\s*(\d[\w.]*(?:\s+SP\d+)?)", item)
        if not m:
            raise ImportFormatError(path, line, f"footnote: cannot read the operating system {item!r}")
        distro = m.group(1) or distro
        refs = parse_os_list(f"{distro} {m.group(2)}") if distro else None
        if not refs or len(refs) != 1:
            raise ImportFormatError(path, line, f"footnote: cannot read the operating system {item!r}")
        out.add(refs[0].node_id)
    return out


_PD_GPU_ALL = re.compile(r"\bsupports? all Supported operating systems listed below(?: except (.+?))?\.?$")
_PD_GPU_ONLY = re.compile(r"\bonly supports? (.+?)\.?$")
_PD_OS = re.compile(r"^(.+?) (?:is|are) supported (on all listed Supported GPUs except|"
                    r"on all AMD Instinct GPUs listed under Supported GPUs|only on) ?(.*?)\.?$")


def _pandoc_limits(path: Path, gpus: list[GpuRow], oses: list[OsRow], footnotes, marks) -> Limits:
    """Per-card and per-OS limits from the footnote texts of a pandoc capture.

    A GPU's footnote is the one its mark points to. An OS row is held to every footnote that
    concerns it: the one its mark points to and any whose text names it; where the two differ
    (the page marks RHEL 10.0 and 9.6 with the RHEL 10.1 / 9.7 footnote while another footnote
    names them), only the GPUs both allow are kept, and the fact says so.
    """
    limits = Limits()
    positive = {gid for r in gpus if r.status is not Status.unsupported for gid in r.ids}
    instinct = {gid for r in gpus if r.segment == "datacenter" and r.status is not Status.unsupported
                for gid in r.ids}
    os_rules: dict[int, tuple[set[str], set[str]]] = {}  # footnote -> (OS nodes named, GPUs allowed)
    for number, (line, body) in footnotes.items():
        m = _PD_OS.match(body)
        if m and not _PD_GPU_ALL.search(body):
            subjects = _os_subjects(path, line, m.group(1))
            if m.group(2).startswith("on all listed"):
                allowed = positive - _gpu_names(path, line, m.group(3), gpus)
            elif m.group(2).startswith("on all AMD Instinct"):
                allowed = set(instinct)
            else:
                allowed = _gpu_names(path, line, m.group(3), gpus)
            os_rules[number] = (subjects, allowed)
    for row in gpus:
        for name in row.footnotes:
            line, body = footnotes[int(name)]
            every = _PD_GPU_ALL.search(body)
            only = _PD_GPU_ONLY.search(body)
            for gid in row.ids:
                limit = limits.gpus.setdefault(gid, GpuLimit())
                limit.text.append(body)
                if every and every.group(1):
                    limit.not_on |= _os_subjects(path, line, every.group(1))
                elif only and not every:
                    limit.only = {node: None for node in _os_subjects(path, line, only.group(1))}
                elif not every:
                    raise ImportFormatError(path, line, f"footnote {name} on GPU {row.name!r}: expected '... supports "
                                                        f"all Supported operating systems listed below [except <OS>]' "
                                                        f"or '... only support(s) <OS>', found {body!r}")
    for row in oses:
        node = row.ref.node_id
        marked = {int(n) for n in row.footnotes}
        if any(n not in os_rules for n in marked):
            bad = next(n for n in marked if n not in os_rules)
            raise ImportFormatError(path, footnotes[bad][0], f"footnote {bad} on OS {row.label!r}: expected "
                                                             f"'<OS> is supported only on <GPUs>' or '... on all ...'")
        naming = {n for n, (subjects, _) in os_rules.items() if node in subjects}
        concerned = marked | naming
        if not concerned:
            continue
        allowed = set(positive)
        for n in concerned:
            allowed &= os_rules[n][1]
        limits.only_gpus[node] = allowed
        if marked != naming:
            limits.os_notes.setdefault(node, []).append(
                f"{row.label}: the page's footnote mark and the footnote naming it differ; held only for the GPUs "
                f"both allow")
    return limits


# ------------------------------------------------------- ROCm 5.x (Markdown)


def _md_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _md_link_text(text: str) -> str:
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).strip()


def _md_os_labels(path: Path, line: int, label: str) -> list[OsRef]:
    """``"RHEL 8.6 to 8.7"``, ``"RHEL 8.5, 8.4"``, ``"Ubuntu 20.04.5 LTS"`` -> the releases named."""
    label = re.sub(r"\s+LTS$", "", label.strip())
    m = re.fullmatch(r"(RHEL|CentOS)\s+(\d+)\.(\d+)\s+to\s+(\d+)\.(\d+)", label)
    if m:
        distro, major, a, major2, b = m.groups()
        if major != major2:
            raise ImportFormatError(path, line, f"OS table: cannot read the range {label!r}")
        lo, hi = sorted((int(a), int(b)))
        label = f"{distro} " + ", ".join(f"{major}.{minor}" for minor in range(lo, hi + 1))
    refs = parse_os_list(label)
    if refs is None:
        raise ImportFormatError(path, line, f"OS table, column 'Distribution': expected a release such as "
                                            f"'RHEL 8.6' or 'Ubuntu 22.04.2 LTS', found {label!r}")
    return refs


def _md_kernels(path: Path, line: int, text: str) -> list[str]:
    """``"5.15, OEM 5.17"`` -> ["5.15", "5.17 OEM"]; ``"5.19.0-45-generic"`` -> ["5.19.0-45"];
    ``"5.14 (5.14.0-284.11.1.el9_2.x86_64)"`` -> ["5.14.0-284.11.1.el9_2"]."""
    out = []
    for item in filter(None, (i.strip() for i in text.split(","))):
        inner = re.search(r"\(([^)]*)\)", item)
        if inner:
            item = inner.group(1)
        label = re.search(r"\b(LTS|HWE|OEM)\b", item)
        m = re.search(r"\d+(?:\.\d+)+(?:-[0-9][\w.]*?)?(?=(?:-generic|-default|\.x86_64)?(?:\s|$))", item)
        if not m:
            raise ImportFormatError(path, line, f"OS table, column 'Validated Kernel': expected e.g. '5.15' or "
                                                f"'5.19.0-45-generic', found {text!r}")
        out.append(m.group(0) + (f" {label.group(1)}" if label else ""))
    return out


def _read_markdown_page(path: Path, text: str):
    """The 5.x page: Markdown tables under MyST tab-items (GPU tabs; Supported/Unsupported OS tabs)."""
    gpus: list[GpuRow] = []
    oses: list[OsRow] = []
    dropped: list[OsRow] = []
    limits = Limits()
    virt: dict[str, list[str]] = {}
    tab: Optional[str] = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^:{3,}\{tab-item\}\s*(.*)$", line.strip())
        if m:
            tab = m.group(1).strip()
        if not line.startswith("|") or i + 1 >= len(lines) or not re.match(r"^\|[\s:|-]+\|?\s*$", lines[i + 1]):
            i += 1
            continue
        header = [_md_link_text(c) for c in _md_cells(line)]
        start, i = i, i + 2
        rows = []
        while i < len(lines) and lines[i].startswith("|"):
            rows.append((i + 1, _md_cells(lines[i])))
            i += 1
        for lineno, cells in rows:
            if len(cells) != len(header):
                raise ImportFormatError(path, lineno, f"table at line {start + 1}: row has {len(cells)} cells, "
                                                      f"expected {len(header)}")
        if header[0] == "Distribution":
            unsupported = tab == "Unsupported"
            for lineno, cells in rows:
                if len(header) == 4 and cells[3] != ("❌" if unsupported else "✅"):
                    raise ImportFormatError(path, lineno, f"OS table, row {cells[0]!r}, column 'Support': "
                                                          f"unexpected mark {cells[3]!r} in tab {tab!r}")
                kernels = _md_kernels(path, lineno, cells[2])
                for ref in _md_os_labels(path, lineno, cells[0]):
                    (dropped if unsupported else oses).append(OsRow(lineno, ref, kernels, [], _point_label(ref)))
        elif "LLVM Target" in header:
            segment = _segment(path, start + 1, tab or "(no tab)")
            for lineno, cells in rows:
                name, target, mark = cells[0].replace("™", ""), cells[header.index("LLVM Target")], cells[-1]
                if not re.fullmatch(r"gfx[0-9a-f]{3,4}", target):
                    raise ImportFormatError(path, lineno, f"tab {tab!r}, row {name!r}, column 'LLVM Target': "
                                                          f"expected e.g. 'gfx1100', found {target!r}")
                only = re.fullmatch(r"(\S+)\s*\((.+) only\)", mark)
                parsed = parse_mark(only.group(1) if only else mark)
                if parsed is None:
                    raise ImportFormatError(path, lineno, f"tab {tab!r}, row {name!r}, column 'Support': expected "
                                                          f"✅, ⚠️ or ❌ (optionally '(<OS> only)'), found {mark!r}")
                row = GpuRow(lineno, name, gpu_ids(name), target, parsed[0], tab or "(no tab)", segment, [])
                gpus.append(row)
                if only:
                    allowed = {r.node_id: None for r in _md_os_labels(path, lineno, only.group(2))}
                    for gid in row.ids:
                        limits.gpus.setdefault(gid, GpuLimit()).only = allowed
        elif header[0] == "Hypervisor":
            for _lineno, cells in rows:
                for gid in gpu_ids(cells[2]):
                    virt.setdefault(gid, []).append(f"{cells[0]} {cells[1]}")
    if not gpus:
        raise ImportFormatError(path, None, "no GPU table (a Markdown table with an 'LLVM Target' column) found")
    if not oses:
        raise ImportFormatError(path, None, "no supported-distribution table found")
    notes = {gid: "Also validated as a guest GPU under " + ", ".join(v) + "." for gid, v in virt.items()}
    return gpus, oses, dropped, limits, notes


_DISTRO_OF_LABEL = [("(RHEL", "RHEL"), ("(SLES)", "SLES"), ("Ubuntu", "Ubuntu"), ("CentOS", "CentOS"),
                    ("Oracle Linux", "Oracle Linux"), ("Debian", "Debian"), ("Azure Linux", "Azure Linux"),
                    ("Rocky Linux", "Rocky Linux")]


def _parse_kernel_table(path: Path, page: Page) -> tuple[Source, list[Fact], list[OsRow]]:
    """ROCm 6.3.x: the compatibility matrix's "Operating systems and kernel versions" table."""
    text = read_source(path)
    found = [t for t in read_rst_tables(path, text) if t.section == KERNEL_SECTION]
    if len(found) != 1 or found[0].header != ["OS", "Version", "Kernel"]:
        raise ImportFormatError(path, found[0].line if found else None,
                                f"expected one table (OS, Version, Kernel) under {KERNEL_SECTION!r}")
    rows: list[OsRow] = []
    distro = None
    for lineno, cells in found[0].rows:
        if len(cells) != 3:
            raise ImportFormatError(path, lineno, f"OS/kernel table: row has {len(cells)} cells, expected 3")
        label, version, kernel_text = cells
        if not (label or version or kernel_text):
            continue  # a spacer row
        if label:
            distro = next((name for key, name in _DISTRO_OF_LABEL if key in label), None)
            if distro is None:
                raise ImportFormatError(path, lineno, f"OS/kernel table, column 'OS': unknown distribution {label!r}")
        refs = parse_os_list(f"{distro} {version}") if distro else None
        kernels = parse_kernels(kernel_text)
        if refs is None or len(refs) != 1 or kernels is None:
            raise ImportFormatError(path, lineno, f"OS/kernel table: cannot read {distro} {version!r} with kernels "
                                                  f"{kernel_text!r}")
        rows.append(OsRow(lineno, refs[0], kernels, [], f"{distro} {version}"))
    source = page.source
    subject = f"rocm-{page.release}"
    by_node: dict[str, list[OsRow]] = {}
    for row in rows:
        by_node.setdefault(row.ref.node_id, []).append(row)
    facts = [Fact(
        id=f"{subject}-kernels-os-{node_id}", relation=Relation.supports, subject=subject,
        object=Selector(ids=[node_id]), kernels=sort_kernels(k for r in group for k in r.kernels),
        source=source.id, section=KERNEL_SECTION,
        note="Listed as " + ", ".join(f"{r.label} (kernel {', '.join(r.kernels)})" for r in group) + ".")
        for node_id, group in by_node.items()]
    return source, facts, rows


def _point_label(ref: OsRef) -> str:
    return f"{ref.name.rsplit(' ', 1)[0]} {ref.point}"


# ------------------------------------------------------------------- facts


def _release_of(path: Path) -> Page:
    page = PAGES.get(path.stem)
    if page is None or path.suffix != page.suffix:
        raise ImportFormatError(path, None, f"expected a file named <release>.rst (6.x), <release>.md (5.x, or a "
                                            f"captured rendered page) for a known ROCm release ({', '.join(PAGES)}), "
                                            f"found {path.name!r}")
    return page


def parse(path: Path) -> KBFile:
    """Read one page (``<release>.rst``) or a folder of them into one KBFile."""
    path = Path(path)
    if path.is_dir():
        # <release>.release-notes.md is read with its page, not on its own
        files = sorted(p for p in path.iterdir() if p.suffix in (".rst", ".md") and not p.name.endswith(NOTES_SUFFIX))
        if not files:
            raise ImportFormatError(path, None, "no <release>.rst or <release>.md page in the folder")
    else:
        files = [path]
    sources, facts = [], []
    toolkits: list[Node] = []
    kernels: dict[str, list[str]] = {}
    refs: dict[str, tuple[str, OsRef]] = {}  # os node -> (newest release listing it, ref)
    glibc: dict[str, tuple[str, str]] = {}  # os node -> (newest release giving its glibc, glibc)
    # a page read from another release's input (the same stored version) comes right after that release's page
    reads = [(file, page) for file in files
             for page in (_release_of(file), *(p for p in PAGES.values() if p.input_of == file.stem))]
    for file, page in reads:
        source, file_facts, oses = _parse_page(file, page)
        sources.append(source)
        if page.kind == "rendered" and page.release in NOTES_RELEASES:
            sources.append(page.notes_source)
        if page.release in NEW_TOOLKITS:
            toolkits.append(_toolkit(page.release, source.id))
        if page.legacy:
            toolkits.append(_toolkit(page.release, source.id))
        facts.extend(file_facts)
        for row in oses:
            kernels.setdefault(row.ref.node_id, []).extend(row.kernels)
            old = refs.get(row.ref.node_id)
            if old is None or Version(old[0]) < Version(page.release):
                refs[row.ref.node_id] = (page.release, row.ref)
            # the Glibc column (6.4+): the newest page that gives one for this OS release
            if row.glibc and (row.ref.node_id not in glibc or Version(glibc[row.ref.node_id][0]) < Version(page.release)):
                glibc[row.ref.node_id] = (page.release, row.glibc)
    nodes: list[Node] = [
        os_node(ref, f"rocm-linux-sysreq-{release}", kernels[node_id]) for node_id, (release, ref) in refs.items()
    ]
    nodes = [n.model_copy(update={"glibc": glibc[n.id][1],
                                  "attribute_sources": {"glibc": f"rocm-linux-sysreq-{glibc[n.id][0]}"}})
             if n.id in glibc else n for n in nodes]
    if any(t.id.startswith("rocm-5.") for t in toolkits) and path.is_dir():
        sources.append(SOURCES[-1])
        toolkits += [_toolkit(release, SOURCES[-1].id,
                              "No support facts: the page on this release's docs branch lists distributions "
                              "released after it, so it is not read.") for release in UNREAD]
    return KBFile(sources=sources, nodes=nodes + toolkits, facts=facts)


def _toolkit(release: str, source: str, note: Optional[str] = None) -> Node:
    """A ROCm 5.x release, or one the compatibility matrix import does not reach (most 6.x and 7.x
    toolkit nodes come from the compatibility matrix importer)."""
    return Node(id=f"rocm-{release}", layer=Layer.toolkit, name=f"ROCm {release}", vendor="amd", family="rocm",
                version=release, source=source, note=note)


def _parse_page(path: Path, page: Page) -> tuple[Source, list[Fact], list[OsRow]]:
    if page.kind == "kernels":
        return _parse_kernel_table(path, page)
    text = read_source(path)
    stated_unsupported: list[OsRow] = []
    if page.kind == "rendered" and text.startswith("---\n"):  # a pandoc capture, with footnote texts
        gpus, oses, footnotes, marks = _read_pandoc_page(path, text)
        limits = _pandoc_limits(path, gpus, oses, footnotes, marks)
        virt = {}
    elif page.kind == "rendered":
        gpus, oses = _read_rendered_page(path, text)
        limits = _rendered_limits(path, page, gpus, oses)
        virt = {}
    elif page.legacy:
        gpus, oses, stated_unsupported, limits, virt = _read_markdown_page(path, text)
    else:
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
        if node_id in limits.unread_oses:
            continue  # a footnote limits this OS to GPUs the page as read does not name: unknown
        facts.extend(_os_facts(subject, source.id, node_id, rows, [g for g in positive if g not in limits.unread_gpus],
                               limits, unlimited_ok=not limits.unread_gpus))
    # the "Unsupported" tab (5.5.1 on): a stated no, where no supported point release shares the node
    dropped: dict[str, list[OsRow]] = {}
    for row in stated_unsupported:
        if row.ref.node_id not in by_node:
            dropped.setdefault(row.ref.node_id, []).append(row)
    for node_id, rows in dropped.items():
        facts.append(Fact(
            id=f"{subject}-sysreq-os-{node_id}", relation=Relation.supports, subject=subject,
            object=Selector(ids=[node_id]), status=Status.unsupported, source=source.id,
            section=f"{OS_SECTION}, Unsupported tab",
            note="Listed as no longer supported: " + ", ".join(r.label for r in rows) + "."))
    # nodes for the dropped releases, without their kernels (the page tests none of them any more)
    return source, facts, oses + [OsRow(r.line, r.ref, [], [], r.label) for rows in dropped.values() for r in rows]


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
    # a row that names no kernel series ("5.14+") has nothing to narrow: the OS itself is allowed
    return allowed if allowed or not kernels else None


def _kernel_text(row: OsRow) -> str:
    text = f"kernel {', '.join(row.kernels)}" if row.kernels else f"kernel {row.kernel_text}"
    return text + (f"; Glibc {row.glibc}" if row.glibc else "")


# The OS table is complete over Linux releases (the page is the Linux requirements).
LINUX_OSES = Selector(layer=Layer.os, platform="linux")


def _os_facts(subject: str, source: str, node_id: str, rows: list[OsRow], positive: list[str],
              limits: Limits, unlimited_ok: bool = True) -> list[Fact]:
    """The toolkit -> OS facts of one OS node; ``unlimited_ok`` False: some GPUs of the page get no OS
    facts (an unread footnote), so even an unlimited OS names the GPUs it holds for."""
    points = ", ".join(f"{r.label} ({_kernel_text(r)})" for r in rows)
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
    limit_sources = {limits.gpus[g].source for g in blocked + list(partial) if g in limits.gpus} - {None}
    if limit_sources:
        source = sorted(limit_sources)[0]  # the partial/blocked facts rest on the stated limit
    if full:
        unlimited = not blocked and not partial and unlimited_ok
        facts.append(Fact(id=f"{subject}-sysreq-os-{node_id}", exhaustive=True, domain=LINUX_OSES, kernels=kernels,
                          when={} if unlimited else {Layer.gpu: Selector(ids=full)},
                          note=listed if unlimited else listed + (
                              " Footnotes limit it to the GPUs in the condition." if blocked or partial else
                              " Held for the GPUs in the condition: the others carry a footnote not read."),
                          **base))
    if limit_sources:
        base = dict(base, source=source, section=NOTES_SECTION)
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
            stated = [limits.gpus[g].source for g in blocked if g in limits.gpus and limits.gpus[g].source]
            reasons.append("the release notes limit these GPUs to other operating systems" if stated else
                           "footnotes on these GPUs leave this OS out")
        facts.append(Fact(id=f"{subject}-sysreq-os-{node_id}-other-gpus", status=Status.unsupported,
                          when={Layer.gpu: Selector(ids=blocked)},
                          note=f"{listed} Not for these GPUs: {'; '.join(reasons)}.", **base))
    return facts
