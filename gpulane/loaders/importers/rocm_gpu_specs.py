"""Importer for AMD's GPU hardware specification page (``gpu-arch-specs.rst``).

The page is a ``tab-set`` of ``list-table`` directives: Instinct, Radeon PRO,
Radeon and Ryzen APU tabs. Each row is one product (SKU). We read the name,
architecture, LLVM target and VRAM columns, and produce

* one ``gpu`` node per SKU (id = slug of the product name, aliases for the short
  names people type),
* one ``arch`` node per LLVM target (``gfx1100``, family from the Architecture
  column), and
* one ``has_arch`` fact per SKU.

The table is a hardware reference: a row here says nothing about ROCm support.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .common import NAME_FIXES, REVIEWED, gpu_id, gpu_name, read_rst_tables, read_source, tab_segment
from .errors import ImportFormatError

COMMIT = "7ab402a3b3e580ca27321635596ca14eca8c1277"

SOURCE = Source(
    id="rocm-gpu-arch-specs",
    url=f"https://github.com/alanina/ROCm/blob/{COMMIT}/docs/reference/gpu-arch-specs.rst",
    publisher="AMD",
    title="ROCm documentation, GPU hardware specifications (gpu-arch-specs.rst)",
    version=COMMIT,
    reviewed=REVIEWED,
    note="Hardware reference tables; a product listed here is not thereby supported by ROCm.",
)

NAME_COLUMN = "Name"
ARCH_COLUMN = "Architecture"
TARGET_COLUMN = "LLVM target name"
VRAM_COLUMN = "VRAM (GiB)"
MODEL_COLUMN = "Graphics model"  # the APU tab only

SHARED_MEMORY = "Dynamic + carveout"


def gpu_aliases(name: str) -> list[str]:
    """Short names people use for a product; the engine requires them to be unique.

    ``Radeon RX 7900 XTX`` -> ``RX 7900 XTX``, ``7900 XTX``, ``7900xtx``;
    ``Radeon PRO W7900`` -> ``PRO W7900``, ``W7900``; ``Instinct MI300X`` -> ``MI300X``.
    """

    aliases: list[str] = []
    m = re.fullmatch(r"Instinct (MI\w+)(?: \((\d+GB)\))?", name)
    if m:
        aliases.append(f"{m.group(1)} {m.group(2)}" if m.group(2) else m.group(1))
    m = re.fullmatch(r"Radeon RX (\d{4})(.*)", name)
    if m:
        number, suffix = m.group(1), m.group(2).strip()
        aliases.append(f"RX {number}{' ' + suffix if suffix else ''}")
        if suffix:
            aliases.append(f"{number} {suffix}")
            aliases.append(f"{number}{suffix.replace(' ', '')}".lower())
        else:
            aliases.append(f"rx{number}")
    m = re.fullmatch(r"Radeon (AI PRO|PRO) (\S+)(.*)", name)
    if m:
        line, model, rest = m.group(1), m.group(2), m.group(3)
        aliases.append(f"{line} {model}{rest}")
        if model != "VII":
            aliases.append(f"{model}{rest}")
    return aliases


def parse(path: Path) -> KBFile:
    path = Path(path)
    text = read_source(path)
    tables = [t for t in read_rst_tables(path, text) if t.kind == "list-table"]
    if not tables:
        raise ImportFormatError(path, None, "no list-table found; expected one per tab-item")

    gpus: dict[str, Node] = {}
    archs: dict[str, tuple[set[str], list[str]]] = {}  # target -> (families, tabs)
    facts: list[Fact] = []
    for table in tables:
        tab = table.tab or "(no tab)"
        needed = [NAME_COLUMN, ARCH_COLUMN, TARGET_COLUMN, VRAM_COLUMN]
        missing = [c for c in needed if c not in table.header]
        if missing:
            raise ImportFormatError(
                path, table.line,
                f"list-table in tab {tab!r}: header row lacks column(s) {missing}; found {table.header}",
            )
        col = {name: table.header.index(name) for name in needed}
        model_col = table.header.index(MODEL_COLUMN) if MODEL_COLUMN in table.header else None
        for row_index, (lineno, cells) in enumerate(table.rows):
            if len(cells) != len(table.header):
                raise ImportFormatError(
                    path, lineno,
                    f"tab {tab!r}: row has {len(cells)} cells, expected {len(table.header)} (one per header column)",
                )
            raw_name = cells[col[NAME_COLUMN]]
            family = cells[col[ARCH_COLUMN]]
            target = cells[col[TARGET_COLUMN]]
            vram = cells[col[VRAM_COLUMN]]
            if not raw_name:
                raise ImportFormatError(path, lineno, f"tab {tab!r}: empty {NAME_COLUMN!r} cell")
            if not re.fullmatch(r"gfx[0-9a-f]{3,4}", target):
                raise ImportFormatError(
                    path, table.cell_line(row_index, col[TARGET_COLUMN]),
                    f"tab {tab!r}, row {raw_name!r}, column {TARGET_COLUMN!r}: expected an LLVM target such as "
                    f"'gfx1100', found {target!r}",
                )
            if not re.fullmatch(r"[A-Z]+[0-9.]*", family):
                raise ImportFormatError(
                    path, table.cell_line(row_index, col[ARCH_COLUMN]),
                    f"tab {tab!r}, row {raw_name!r}, column {ARCH_COLUMN!r}: expected a family such as 'RDNA3' "
                    f"or 'GCN5.1', found {family!r}",
                )
            notes = []
            if re.fullmatch(r"\d+(\.\d+)?", vram):
                vram_gb = float(vram)
            elif vram == SHARED_MEMORY:
                vram_gb = None
                notes.append("An APU: its graphics use system memory (dynamic allocation plus a fixed carve-out).")
            else:
                raise ImportFormatError(
                    path, table.cell_line(row_index, col[VRAM_COLUMN]),
                    f"tab {tab!r}, row {raw_name!r}, column {VRAM_COLUMN!r}: expected a number of GiB or "
                    f"{SHARED_MEMORY!r}, found {vram!r}",
                )
            name = gpu_name(raw_name)
            spelled = " ".join(raw_name.split())
            if spelled.removeprefix("AMD ") in NAME_FIXES:
                notes.append(f"The source table spells the name {spelled!r}.")
            if model_col is not None and cells[model_col]:
                notes.append(f"Integrated graphics: {cells[model_col]}.")
            gid = gpu_id(raw_name)
            if gid in gpus:
                raise ImportFormatError(path, lineno, f"tab {tab!r}: product {raw_name!r} (id {gid}) listed twice")
            gpus[gid] = Node(
                id=gid,
                layer=Layer.gpu,
                name=name,
                aliases=gpu_aliases(name),
                vendor="amd",
                vram_gb=vram_gb,
                segment=tab_segment(table.tab),
                source=SOURCE.id,
                note=" ".join(notes) or None,
            )
            families, tabs = archs.setdefault(target, (set(), []))
            families.add(family)
            tabs.append(tab)
            facts.append(
                Fact(
                    id=f"{gid}-has-{target}",
                    relation=Relation.has_arch,
                    subject=gid,
                    object=Selector(ids=[target]),
                    source=SOURCE.id,
                    section=f"{tab} tab, {TARGET_COLUMN} column",
                )
            )

    nodes = list(gpus.values())
    for target, (families, _tabs) in archs.items():
        family = "/".join(sorted(families))
        note = None
        if len(families) > 1:
            note = (f"The specification table gives this LLVM target more than one architecture "
                    f"({', '.join(sorted(families))}) for different products.")
        nodes.append(
            Node(
                id=target,
                layer=Layer.arch,
                name=f"{target} ({family})",
                vendor="amd",
                family=family,
                llvm_target=target,
                source=SOURCE.id,
                note=note,
            )
        )
    return KBFile(sources=[SOURCE], nodes=nodes, facts=facts)
