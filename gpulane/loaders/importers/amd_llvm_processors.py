"""Importer for LLVM's AMDGPU processor tables (``llvm/docs/AMDGPUUsage.rst``).

Two RST grid tables are read, by column position:

* ``amdgpu-processor-table``: every GCN processor LLVM compiles for, with its
  alternative (codename) processor names, whether it is a dGPU or an APU, the
  operating-system runtimes listed for it and example products;
* ``amdgpu-generic-processor-table``: the generic targets (``gfx11-generic``...)
  and the processors each one runs on.

Output: one ``arch`` node per processor (APU targets carry ``segment:
integrated``), one ``arch`` node per generic target, and per generic target one
``supports`` fact listing its member processors. The graph uses those facts so
that a build for a generic target counts for its members.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .common import REVIEWED, read_source
from .errors import ImportFormatError

COMMIT = "f5c8b0a9139bcc301b75f3e77e307f65f7f870d8"

SOURCE = Source(
    id="llvm-amdgpu-processors",
    url=f"https://github.com/llvm/llvm-project/blob/{COMMIT}/llvm/docs/AMDGPUUsage.rst",
    publisher="LLVM Project",
    title="User Guide for AMDGPU Backend: processor and generic processor tables (AMDGPUUsage.rst)",
    version=COMMIT,
    reviewed=REVIEWED,
    note="Compiler targets; a processor listed here is not thereby supported by ROCm.",
)

PROCESSOR_TABLE = "amdgpu-processor-table"
GENERIC_TABLE = "amdgpu-generic-processor-table"

# Column starts, from the tables' "=====" border lines (0-based character offsets).
_ROW_START = 5
_PRODUCTS_COLUMN = 102  # processor table, "Example Products"
_MEMBERS_COLUMN = (41, 59)  # generic table, "Supported Processors"

_PROCESSOR_ROW = re.compile(r"^ {5}``(gfx[0-9a-f]+)``")
_CONTINUATION_ROW = re.compile(r"^ {5}\\ ")
_GENERIC_ROW = re.compile(r"^ {5}``(gfx[0-9]+(?:-[0-9]+)*-generic)``")
_SECTION = re.compile(r"^ {5}\*\*(.+?)\*\*")
_ALTERNATIVE = re.compile(r"^.{5}.{0,12}- ``([a-z0-9]+)``")
_OS = re.compile(r"\*(rocm-amdhsa|pal-amdhsa|pal-amdpal)\*")
_KIND = re.compile(r"``amdgcn``\s+(dGPU|APU)\b")
_MEMBER = re.compile(r"- ``(gfx[0-9a-f]+)``")
_NOT_A_PRODUCT = ("*TBA*", ".. TODO::", "Add product", "names.")


@dataclass
class Processor:
    target: str
    line: int
    section: str
    kind: Optional[str] = None
    alternatives: list[str] = field(default_factory=list)
    runtimes: list[str] = field(default_factory=list)
    products: list[str] = field(default_factory=list)


def family_of(section: str, target: str) -> Optional[str]:
    """The architecture family a section heading names for a target.

    ``"GCN GFX10.3 (RDNA 2)"`` -> ``"RDNA2"`` (RDNA 1 is ``"RDNA"``, as AMD's GPU
    specification table spells it); ``"GCN GFX9 (Vega)"`` -> ``"GCN GFX9"``. A target
    whose GFX major version is not the heading's gets none: the table lists
    gfx1200/gfx1201 under the GFX11 (RDNA 3.5) heading.
    """

    m = re.match(r"GCN GFX(\d+)(?:\.\d+)? \((.*)\)$", section)
    if not m:
        return None
    major = m.group(1)
    digits = target[3:]
    if not digits.startswith(major) or (len(digits) == 4 and len(major) == 1):
        return None
    rdna = re.search(r"RDNA (\d+(?:\.\d+)?)", m.group(2))
    if rdna:
        version = rdna.group(1)
        return "RDNA" if version == "1" else f"RDNA{version}"
    return f"GCN GFX{major}"


def _table_lines(path: Path, lines: list[str], name: str) -> tuple[int, list[str]]:
    """The lines of the grid table named ``name`` (after its ``:name:`` option)."""

    for i, line in enumerate(lines):
        if line.strip() == f":name: {name}":
            body = []
            for j in range(i + 1, len(lines)):
                if lines[j].strip() and not lines[j].startswith("     "):
                    break
                body.append(lines[j])
            return i + 2, body
    raise ImportFormatError(path, None, f"no table named {name!r} (expected a ':name: {name}' option line)")


def _processors(path: Path, first_line: int, body: list[str]) -> list[Processor]:
    rows: list[Processor] = []
    section = ""
    current: Optional[Processor] = None
    for offset, line in enumerate(body):
        lineno = first_line + offset
        m = _SECTION.match(line)
        if m:
            section, current = m.group(1), None
            continue
        m = _PROCESSOR_ROW.match(line)
        if m:
            current = Processor(m.group(1), lineno, section)
            rows.append(current)
        elif _CONTINUATION_ROW.match(line):
            if current is None:
                raise ImportFormatError(path, lineno, "a continuation row ('\\') before any processor row")
        elif current is None or not line.strip() or line.strip().startswith("="):
            continue
        kind = _KIND.search(line)
        if kind and current.kind is None:
            current.kind = kind.group(1)
        elif kind and kind.group(1) != current.kind:
            raise ImportFormatError(path, lineno, f"{current.target}: rows disagree on dGPU/APU")
        alt = _ALTERNATIVE.match(line)
        if alt:
            current.alternatives.append(alt.group(1))
        for runtime in _OS.findall(line):
            if runtime not in current.runtimes:
                current.runtimes.append(runtime)
        product = line[_PRODUCTS_COLUMN:].strip()
        if not product or product.startswith(_NOT_A_PRODUCT):
            continue
        if product.startswith("- "):
            current.products.append(product[2:].strip())
        elif current.products:
            current.products[-1] += " " + product
    for proc in rows:
        if proc.kind is None:
            raise ImportFormatError(path, proc.line, f"{proc.target}: no 'dGPU' or 'APU' after the triple column")
    return rows


def _generics(path: Path, first_line: int, body: list[str]) -> list[tuple[str, int, list[str]]]:
    out: list[tuple[str, int, list[str]]] = []
    start, end = _MEMBERS_COLUMN
    for offset, line in enumerate(body):
        m = _GENERIC_ROW.match(line)
        if m:
            out.append((m.group(1), first_line + offset, []))
        if out:
            out[-1][2].extend(_MEMBER.findall(line[start:end]))
    for name, lineno, members in out:
        if not members:
            raise ImportFormatError(path, lineno, f"{name}: no supported processors in columns {start}-{end}")
    return out


def parse(path: Path) -> KBFile:
    path = Path(path)
    lines = read_source(path).splitlines()
    first, body = _table_lines(path, lines, PROCESSOR_TABLE)
    processors = _processors(path, first, body)
    if not processors:
        raise ImportFormatError(path, first, f"{PROCESSOR_TABLE}: no processor rows (``gfx...``)")
    first_generic, generic_body = _table_lines(path, lines, GENERIC_TABLE)
    generics = _generics(path, first_generic, generic_body)

    nodes: list[Node] = []
    seen: set[str] = set()
    for proc in processors:
        if proc.target in seen:
            raise ImportFormatError(path, proc.line, f"processor {proc.target} listed twice")
        seen.add(proc.target)
        family = family_of(proc.section, proc.target)
        parts = [f"LLVM processor table: {proc.kind}" + (f", under {proc.section!r}." if family else ".")]
        if proc.runtimes:
            parts.append(f"OS support column: {', '.join(proc.runtimes)}.")
        if proc.products:
            parts.append(f"Example products: {', '.join(proc.products)}.")
        nodes.append(Node(
            id=proc.target,
            layer=Layer.arch,
            name=f"{proc.target} ({family})" if family else proc.target,
            aliases=proc.alternatives,
            vendor="amd",
            family=family,
            segment="integrated" if proc.kind == "APU" else None,
            llvm_target=proc.target,
            source=SOURCE.id,
            note=" ".join(parts),
        ))

    facts: list[Fact] = []
    for name, lineno, members in generics:
        unknown = [m for m in members if m not in seen]
        if unknown:
            raise ImportFormatError(path, lineno, f"{name}: members {unknown} are not rows of {PROCESSOR_TABLE}")
        nodes.append(Node(
            id=name,
            layer=Layer.arch,
            name=name,
            vendor="amd",
            llvm_target=name,
            source=SOURCE.id,
            note=(f"A generic target: one code object (code object V6 and above) runs on "
                  f"{', '.join(members)}."),
        ))
        facts.append(Fact(
            id=f"{name}-members",
            relation=Relation.supports,
            subject=name,
            object=Selector(ids=members),
            source=SOURCE.id,
            section=f"{GENERIC_TABLE}: Supported Processors",
            note="Code built for the generic target runs on each of these processors.",
        ))
    return KBFile(sources=[SOURCE], nodes=nodes, facts=facts)
