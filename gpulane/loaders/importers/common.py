"""Helpers shared by the AMD importers: ids, OS names, status marks, RST tables.

Everything that decides a node id lives here, so that the importers agree:
the GPU specification table, the Linux system requirements and the Windows
HIP SDK page all name GPUs, and the three must produce the same ids.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from gpulane.model import Layer, Node, Platform, Status

from .errors import ImportFormatError

#: The day the AMD sources in ``shared/sources`` were read for these importers.
REVIEWED = dt.date(2026, 11, 30)


# --------------------------------------------------------------------------- ids


def read_source(path: Path) -> str:
    """A vendor file's text, or an ImportFormatError that says why it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFormatError(path, None, f"cannot read the file: {exc}") from exc


def read_json_object(path: Path, expected: str) -> dict:
    """A pinned JSON input that must be an object; ``expected`` says what it should hold, for the error."""
    try:
        data = json.loads(read_source(path))
    except json.JSONDecodeError as exc:
        raise ImportFormatError(path, exc.lineno, f"not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ImportFormatError(path, None, f"expected a JSON object with {expected}")
    return data


def slug(text: str) -> str:
    """Lower-case, ``+`` spelled out, every other run of non-alphanumerics a dash."""

    text = text.replace("+", " plus ")
    return re.sub(r"[^a-z0-9.]+", "-", text.lower().replace(".", "-")).strip("-")


# Spelling slips in the published tables, corrected so that ids and names are right.
NAME_FIXES = {
    "Ryzen Al 7 350": "Ryzen AI 7 350",  # lower-case L for I in gpu-arch-specs.rst
    "RX 9070 GRE": "Radeon RX 9070 GRE",  # the Windows 7.x pages drop "Radeon" in this one row
}


def gpu_name(raw: str) -> str:
    """The official product name without the vendor prefix, in AMD's current casing.

    ``"AMD Radeon Pro W5500"`` -> ``"Radeon PRO W5500"``; ``"MI300X"`` (Instinct tab of
    the specification table, which omits the brand) -> ``"Instinct MI300X"``.
    """

    name = " ".join(raw.split())
    if name.startswith("AMD "):
        name = name[4:]
    name = NAME_FIXES.get(name, name)
    name = re.sub(r"^Radeon Pro\b", "Radeon PRO", name)
    if re.match(r"^MI\d", name):
        name = "Instinct " + name
    return name


def gpu_id(raw: str) -> str:
    """The GPU node id: the slug of :func:`gpu_name` (``instinct-mi300x``)."""

    return slug(gpu_name(raw))


# Names that a page uses for a product the specification table splits into SKUs.
GPU_VARIANTS = {
    "instinct-mi50": ("instinct-mi50-16gb", "instinct-mi50-32gb"),
}


def gpu_ids(raw: str) -> tuple[str, ...]:
    """The GPU node ids a name on a support page stands for (usually one)."""

    gid = gpu_id(raw)
    return GPU_VARIANTS.get(gid, (gid,))


# Tab titles of AMD's GPU tables (vendor marks and a trailing "GPUs" dropped) -> the
# market segment AMD's own grouping puts the products in.
_TAB_SEGMENTS = {
    "amd instinct": "datacenter",
    "amd radeon pro": "workstation",
    "amd radeon": "consumer",
    "amd ryzen": "integrated",
    "amd apu": "integrated",  # the Windows HIP SDK pages' APU tab (Ryzen AI processors)
}


def tab_segment(tab: Optional[str]) -> Optional[str]:
    """``"AMD Radeon PRO GPUs"`` -> ``"workstation"``; ``None`` for a tab of another name."""

    key = re.sub(r"[™®]", "", tab or "").strip().lower()
    key = re.sub(r"\s+(gpus|accelerators|apus)$", "", key)
    if not key.startswith("amd "):  # the ROCm 5.x pages title tabs "Radeon Pro™", "Radeon™"
        key = "amd " + key
    return _TAB_SEGMENTS.get(key)


# ----------------------------------------------------------------------- OS names


@dataclass(frozen=True)
class OsRef:
    """One operating-system release named by a source, resolved to our node."""

    node_id: str
    family: str
    version: str
    name: str
    platform: Platform
    point: str  # the release as the source spells it ("22.04.5", "8.9", "SP6")


# prefix as published -> (family, id prefix, how point releases map to nodes)
#   "major-minor": Ubuntu (24.04.3 -> ubuntu-24.04)
#   "major":       Oracle Linux (8.10 -> oracle-linux-8)
#   "exact":       RHEL, CentOS, Azure Linux, Debian, Rocky (9.4 -> rhel-9.4)
#   "sles":        SLES (15 SP6 -> sles-15-sp6)
_DISTROS = [
    ("Ubuntu", "ubuntu", "ubuntu", "Ubuntu", "major-minor"),
    ("RHEL", "rhel", "rhel", "RHEL", "exact"),
    ("SLES", "sles", "sles", "SLES", "sles"),
    ("CentOS", "centos", "centos", "CentOS", "exact"),
    ("Oracle Linux", "oracle-linux", "oracle-linux", "Oracle Linux", "major"),
    ("Debian", "debian", "debian", "Debian", "exact"),
    ("Azure Linux", "azure-linux", "azure-linux", "Azure Linux", "exact"),
    ("Rocky Linux", "rocky", "rocky", "Rocky Linux", "exact"),
    ("Windows Server", "windows-server", "windows-server", "Windows Server", "exact"),
    ("Windows", "windows", "windows", "Windows", "exact"),
]


DISTRO_NAMES = tuple(d[0] for d in _DISTROS)


def _os_ref(prefix: str, version: str) -> Optional[OsRef]:
    for published, family, id_prefix, display, mode in _DISTROS:
        if prefix != published:
            continue
        platform = Platform.windows if family.startswith("windows") else Platform.linux
        if mode == "sles":
            m = re.fullmatch(r"(\d+)\s+SP(\d+)", version)
            if not m:
                return None
            major, sp = m.groups()
            return OsRef(f"sles-{major}-sp{sp}", family, f"{major}.{sp}", f"SLES {major} SP{sp}", platform, version)
        if not re.fullmatch(r"\d+(\.\d+)*", version):
            return None
        parts = version.split(".")
        if mode == "major-minor":
            if len(parts) < 2:
                return None
            key = ".".join(parts[:2])
        elif mode == "major":
            key = parts[0]
        else:
            key = version
        return OsRef(f"{id_prefix}-{key}", family, key, f"{display} {key}", platform, version)
    return None


def parse_os_list(text: str) -> Optional[list[OsRef]]:
    """Read ``"RHEL 10.1, 10.0, 9.7"``, ``"SLES 15 SP7, SP6"``, ``"Ubuntu 24.04.1, 24.04"``.

    Later items inherit the distribution (and for SLES the major version) of the
    first. Returns ``None`` when the text is not such a list.
    """

    items = [item.strip() for item in text.split(",")]
    if not items or not items[0]:
        return None
    first = items[0]
    prefix = None
    for published, *_ in _DISTROS:
        if first.startswith(published + " "):
            prefix = published
            break
    if prefix is None:
        return None
    refs = []
    rest = first[len(prefix) + 1 :].strip()
    sles_major = rest.split()[0] if prefix == "SLES" and rest else None
    for index, item in enumerate(items):
        if index == 0:
            version = rest
        elif item.startswith(prefix + " "):
            version = item[len(prefix) + 1 :].strip()
        elif prefix == "SLES" and re.fullmatch(r"SP\d+", item):
            version = f"{sles_major} {item}"
        else:
            version = item
        ref = _os_ref(prefix, version)
        if ref is None:
            return None
        refs.append(ref)
    return refs


def os_node(ref: OsRef, source: Optional[str], kernels: Iterable[str] = ()) -> Node:
    return Node(
        id=ref.node_id,
        layer=Layer.os,
        name=ref.name,
        family=ref.family,
        version=ref.version,
        platform=ref.platform,
        kernels=sort_kernels(kernels),
        source=source,
    )


def _kernel_key(kernel: str) -> tuple:
    nums = re.findall(r"\d+", kernel)
    return (tuple(int(n) for n in nums), kernel)


def sort_kernels(kernels: Iterable[str]) -> list[str]:
    return sorted(set(kernels), key=_kernel_key)


def parse_kernels(text: str) -> Optional[list[str]]:
    """``"5.15 [GA], 6.8 [HWE]"`` -> ``["5.15 GA", "6.8 HWE"]``; ``"5.14.0-362"`` -> ``["5.14.0-362"]``;
    ``"5.15.0 (UEK)"`` -> ``["5.15.0 UEK"]`` (Oracle's Unbreakable Enterprise Kernel)."""

    out = []
    for item in text.split(","):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)*(?:-\d+(?:\.\d+)*)?)\s*(?:\[(GA|HWE)\]|\((UEK)\)|(GA|HWE))?\s*",
                         item)
        if not m:
            return None
        label = m.group(2) or m.group(3) or m.group(4)
        out.append(m.group(1) + (f" {label}" if label else ""))
    return out


# ------------------------------------------------------------------ status marks

MARKS = {"\u2705": Status.supported, "\u26a0": Status.deprecated, "\u274c": Status.unsupported}

FOOTNOTE_REF = re.compile(r"\s*\[#([A-Za-z0-9_.\-]+)\]_")


def split_footnotes(text: str) -> tuple[str, list[str]]:
    """Remove RST footnote references: ``"2.17.1 [#tf-mi350-past-60]_"`` -> ("2.17.1", ["tf-mi350-past-60"])."""

    names = FOOTNOTE_REF.findall(text)
    return FOOTNOTE_REF.sub("", text).strip(), names


def parse_mark(text: str) -> Optional[tuple[Status, list[str]]]:
    """``"✅ [#mi300x]_"`` -> (supported, ["mi300x"]); ⚠️ deprecated; ❌ unsupported."""

    value, notes = split_footnotes(text)
    status = MARKS.get(value.replace("\ufe0f", "").strip())
    return (status, notes) if status is not None else None


# --------------------------------------------------------------------- RST tables


@dataclass
class RstTable:
    """One ``csv-table`` or ``list-table`` of an RST page, with where it was found."""

    kind: str  # "csv-table" | "list-table"
    line: int  # line of the directive
    section: str  # the heading above it
    tab: Optional[str]  # the enclosing tab-item title
    header: list[str] = field(default_factory=list)
    rows: list[tuple[int, list[str]]] = field(default_factory=list)  # (line, cells)
    cell_lines: list[list[int]] = field(default_factory=list)  # per row, the line of each cell

    def cell_line(self, row: int, column: int) -> int:
        """The line of a cell (the row's line when unknown)."""

        lines = self.cell_lines[row] if row < len(self.cell_lines) else []
        return lines[column] if column < len(lines) else self.rows[row][0]
    options: dict[str, str] = field(default_factory=dict)


def _indent(line: str) -> int:
    # docutils expands a tab to the next multiple of 8 columns (the 7.2 Windows page indents
    # some csv-table rows with a tab)
    line = line.expandtabs(8)
    return len(line) - len(line.lstrip(" "))


def read_rst_tables(path: Path, text: str) -> list[RstTable]:
    """Find every csv-table and list-table in an RST page (inline content only)."""

    lines = text.splitlines()
    tables: list[RstTable] = []
    section = ""
    tab: Optional[str] = None
    tab_indent = -1
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        # a heading: text followed by a line of = - * ~ ^ (or over+underlined)
        if i + 1 < len(lines) and stripped and re.fullmatch(r"([=\-*~^#])\1{2,}", lines[i + 1].strip()) \
                and not re.fullmatch(r"([=\-*~^#])\1{2,}", stripped):
            section = stripped
            tab, tab_indent = None, -1
        m = re.match(r"^(\s*)\.\. tab-item::\s*(.*)$", line)
        if m:
            tab, tab_indent = m.group(2).strip(), len(m.group(1))
        elif tab is not None and stripped and _indent(line) <= tab_indent and not stripped.startswith(".. tab-item"):
            tab, tab_indent = None, -1
        m = re.match(r"^(\s*)\.\. (csv-table|list-table)::\s*(.*)$", line)
        if m:
            table, i = _read_table(path, lines, i, len(m.group(1)), m.group(2), section, tab)
            tables.append(table)
            continue
        i += 1
    return tables


def _read_table(path: Path, lines: list[str], start: int, indent: int, kind: str,
                section: str, tab: Optional[str]) -> tuple[RstTable, int]:
    table = RstTable(kind=kind, line=start + 1, section=section, tab=tab)
    i = start + 1
    body: list[tuple[int, str]] = []
    while i < len(lines):
        line = lines[i]
        if line.strip() and _indent(line) <= indent:
            break
        body.append((i + 1, line))
        i += 1
    # options come first
    content_start = 0
    for k, (lineno, line) in enumerate(body):
        m = re.match(r"^\s*:([\w-]+):\s*(.*)$", line)
        if m and not line.strip().startswith(":doc:") and not line.strip().startswith(":ref:"):
            table.options[m.group(1)] = m.group(2).strip()
            content_start = k + 1
            continue
        if not line.strip():
            content_start = k + 1
            continue
        break
    content = body[content_start:]
    if kind == "csv-table":
        if "header" in table.options:
            table.header = [c.strip() for c in next(csv.reader([table.options["header"]], skipinitialspace=True))]
        for lineno, line in content:
            if not line.strip():
                continue
            try:
                cells = next(csv.reader([line.strip()], skipinitialspace=True, strict=True))
            except csv.Error as exc:
                raise ImportFormatError(path, lineno, f"csv-table row: cannot read the quoted cells ({exc})")
            table.rows.append((lineno, [c.strip() for c in cells]))
            table.cell_lines.append([lineno] * len(cells))
    else:
        rows: list[tuple[int, list[str]]] = []
        lines_of: list[list[int]] = []
        for lineno, line in content:
            s = line.strip()
            if not s:
                continue
            if s == "*" or s.startswith("* "):
                rows.append((lineno, []))
                lines_of.append([])
                rest = s[1:].strip()
                if rest.startswith("- ") or rest == "-":
                    rows[-1][1].append(rest[1:].strip())
                    lines_of[-1].append(lineno)
                continue
            if s == "-" or s.startswith("- "):
                if not rows:
                    raise ImportFormatError(path, lineno, "list-table: a cell ('- ...') before the first row ('*')")
                rows[-1][1].append(s[1:].strip())
                lines_of[-1].append(lineno)
                continue
            if rows and rows[-1][1]:
                # continuation of the previous cell's text
                rows[-1][1][-1] = (rows[-1][1][-1] + " " + s).strip()
                continue
            raise ImportFormatError(path, lineno, f"list-table: expected '*' (a row) or '- ' (a cell), found {s!r}")
        header_rows = int(table.options.get("header-rows", "0") or 0)
        if header_rows:
            if not rows:
                raise ImportFormatError(path, table.line, "list-table: header-rows is set but the table has no rows")
            table.header = rows[0][1]
            rows = rows[header_rows:]
            lines_of = lines_of[header_rows:]
        table.rows = rows
        table.cell_lines = lines_of
    return table, i


def footnote_texts(text: str) -> dict[str, tuple[int, str]]:
    """``.. [#name] text`` definitions (text joined over its indented lines)."""

    out: dict[str, tuple[int, str]] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)\.\. \[#([A-Za-z0-9_.\-]+)\]\s*(.*)$", line)
        if not m:
            continue
        parts = [m.group(3).strip()]
        for nxt in lines[i + 1 :]:
            if nxt.strip() and _indent(nxt) > len(m.group(1)) and not nxt.strip().startswith(".. "):
                parts.append(nxt.strip())
            else:
                break
        out[m.group(2)] = (i + 1, " ".join(parts))
    return out


def strip_rst_inline(text: str) -> str:
    """``:doc:`PyTorch <...>``` -> ``PyTorch``; ```ONNX Runtime <url>`_`` -> ``ONNX Runtime``."""

    text = re.sub(r":(?:doc|ref):`([^`<]*?)\s*<[^`>]*>`", r"\1", text)
    text = re.sub(r":(?:doc|ref):`([^`]*)`", r"\1", text)
    text = re.sub(r"`([^`<]*?)\s*<[^`>]*>`_+", r"\1", text)
    text = FOOTNOTE_REF.sub("", text)
    return " ".join(text.split())
