"""Importer for AMD GPU products: libdrm's ``amdgpu.ids`` with chip names from ``pci.ids``.

``amdgpu.ids`` (libdrm, ``data/amdgpu.ids``) maps every PCI device id and
revision the amdgpu kernel driver knows to AMD's marketing name. It says nothing
about the architecture, so each device id is looked up in ``pci.ids`` (the PCI ID
Project's list, community-maintained) for its chip codename ("Navi 14"), and the
chip is mapped to its LLVM target by :data:`CHIP_TARGETS`, each entry citing
where that mapping is stated (Mesa's ``amd_family.c``, TheRock's target table,
LLVM's processor table or AMD's GPU specification table).

The importer reads ``amdgpu.ids`` and, beside it, ``pci.ids`` and
``AMDGPUUsage-processors.rst`` (LLVM's example products, for dGPUs the driver
list only names as a series, such as the RX Vega 56 and 64).

Scope: every product whose chip has a stated LLVM target (GCN 1 to RDNA 4, APU
graphics included). Products whose chip has none (a mobile codename such as
"Mars" or "Venus" that no source maps, or one mapped ambiguously, such as
"Picasso/Raven 2") are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .common import REVIEWED, gpu_id, gpu_name, read_source
from .errors import ImportFormatError
from . import vram_table
from .rocm_gpu_specs import gpu_aliases
from . import amd_llvm_processors

LIBDRM_COMMIT = "15cdcfe9e1c4b00f2a819bc1f4b3efa1326ac6bc"
PCIIDS_COMMIT = "c1c12547d626ebf05fd0223144ad87fab5e95d06"
MESA_COMMIT = "9b011a7344e62dfc4269e0af54a5957da6b3e7a1"
THEROCK_COMMIT = "584db9380f11981d8d104c5208301bc08363daf4"

SOURCE = Source(
    id="libdrm-amdgpu-ids",
    url=f"https://github.com/sailfishos-mirror/drm/blob/{LIBDRM_COMMIT}/data/amdgpu.ids",
    publisher="freedesktop.org (libdrm)",
    title="libdrm amdgpu.ids: PCI device and revision ids to AMD marketing names",
    version=LIBDRM_COMMIT,
    reviewed=REVIEWED,
    note="GitHub mirror of the freedesktop.org mesa/drm repository; names and PCI ids only.",
)
PCIIDS = Source(
    id="pciids-amd",
    url=f"https://github.com/pciutils/pciids/blob/{PCIIDS_COMMIT}/pci.ids",
    publisher="The PCI ID Project",
    title="pci.ids, AMD (1002) section: device names with chip codenames",
    version=PCIIDS_COMMIT,
    reviewed=REVIEWED,
    note="Community-maintained; used here for chip codenames and device names, not for architectures.",
)
MESA = Source(
    id="mesa-amd-family",
    url=f"https://github.com/bminor/mesa-mesa/blob/{MESA_COMMIT}/src/amd/common/amd_family.c",
    publisher="Mesa (AMD common code)",
    title="Mesa src/amd/common/amd_family.c: chip family to LLVM processor name (ac_get_llvm_processor_name)",
    version=MESA_COMMIT,
    reviewed=REVIEWED,
    note="GitHub mirror of gitlab.freedesktop.org/mesa/mesa.",
)
THEROCK = Source(
    id="therock-amdgpu-targets",
    url=f"https://github.com/ROCm/TheRock/blob/{THEROCK_COMMIT}/cmake/therock_amdgpu_targets.cmake",
    publisher="AMD (ROCm TheRock)",
    title="TheRock cmake/therock_amdgpu_targets.cmake: build targets with product names",
    version=THEROCK_COMMIT,
    reviewed=REVIEWED,
    note="Development build targets; not a support statement.",
)
ROCM_SPECS = "rocm-gpu-arch-specs"  # defined by the rocm-gpu-specs importer
LLVM = amd_llvm_processors.SOURCE.id


@dataclass(frozen=True)
class ChipTarget:
    target: str
    source: str
    why: str  # how the source states it


# pci.ids chip codename (first word(s) before any XT/PRO/GL suffix) -> LLVM target.
CHIP_TARGETS: dict[str, ChipTarget] = {
    "Ellesmere": ChipTarget("gfx803", LLVM, "LLVM lists polaris10 (Radeon RX 470, RX 480) under gfx803; pci.ids names "
                                            "the RX 470/480/570/580/590 chip Ellesmere"),
    "Baffin": ChipTarget("gfx803", LLVM, "LLVM lists polaris11 (Radeon RX 460) under gfx803; pci.ids names the "
                                         "RX 460/560 chip Baffin"),
    "Lexa": ChipTarget("gfx803", MESA.id, "Mesa compiles POLARIS12 for polaris11 (gfx803 in LLVM); pci.ids names the "
                                       "Polaris 12 chips Lexa"),
    "Polaris12": ChipTarget("gfx803", MESA.id, "Mesa compiles POLARIS12 for polaris11 (gfx803 in LLVM)"),
    "Polaris 20": ChipTarget("gfx803", LLVM, "pci.ids: a Polaris 10 refresh (RX 580 2048SP, RX 590 GME); LLVM: "
                                             "polaris10 is gfx803"),
    "Polaris 22": ChipTarget("gfx803", MESA.id, "Mesa compiles VEGAM (Radeon RX Vega M, Polaris 22) for polaris11 "
                                             "(gfx803)"),
    "Vega 10": ChipTarget("gfx900", MESA.id, "Mesa: VEGA10 -> gfx900"),
    "Vega 20": ChipTarget("gfx906", MESA.id, "Mesa: VEGA20 -> gfx906"),
    "Raven Ridge": ChipTarget("gfx902", MESA.id, "Mesa: RAVEN -> gfx902"),
    "Arcturus": ChipTarget("gfx908", MESA.id, "Mesa: MI100 (Arcturus) -> gfx908"),
    "Aldebaran/MI200": ChipTarget("gfx90a", MESA.id, "Mesa: MI200 -> gfx90a"),
    "Navi 10": ChipTarget("gfx1010", MESA.id, "Mesa: NAVI10 -> gfx1010"),
    "Navi 12": ChipTarget("gfx1011", MESA.id, "Mesa: NAVI12 -> gfx1011"),
    "Navi 14": ChipTarget("gfx1012", MESA.id, "Mesa: NAVI14 -> gfx1012"),
    "Navi 21": ChipTarget("gfx1030", MESA.id, "Mesa: NAVI21 -> gfx1030"),
    "Navi 22": ChipTarget("gfx1031", MESA.id, "Mesa: NAVI22 -> gfx1031"),
    "Navi 23": ChipTarget("gfx1032", MESA.id, "Mesa: NAVI23 -> gfx1032"),
    "Navi 24": ChipTarget("gfx1034", MESA.id, "Mesa: NAVI24 -> gfx1034"),
    "Navi 31": ChipTarget("gfx1100", MESA.id, "Mesa: NAVI31 -> gfx1100"),
    "Navi 32": ChipTarget("gfx1101", MESA.id, "Mesa: NAVI32 -> gfx1101"),
    "Navi 33": ChipTarget("gfx1102", MESA.id, "Mesa: NAVI33 -> gfx1102"),
    "Navi 44": ChipTarget("gfx1200", ROCM_SPECS, "AMD's GPU specification table: Radeon RX 9060 XT is gfx1200; "
                                                 "pci.ids names its chip (7590) Navi 44"),
    "Navi 48": ChipTarget("gfx1201", ROCM_SPECS, "AMD's GPU specification table: Radeon RX 9070 XT is gfx1201; "
                                                 "pci.ids names its chip (7550) Navi 48"),
    "VanGogh": ChipTarget("gfx1033", MESA.id, "Mesa: VANGOGH -> gfx1033"),
    "Rembrandt": ChipTarget("gfx1035", MESA.id, "Mesa: REMBRANDT -> gfx1035"),
    "Raphael": ChipTarget("gfx1036", MESA.id, "Mesa: RAPHAEL_MENDOCINO -> gfx1036"),
    "Mendocino": ChipTarget("gfx1036", MESA.id, "Mesa: RAPHAEL_MENDOCINO -> gfx1036"),
    "Phoenix1": ChipTarget("gfx1103", MESA.id, "Mesa: PHOENIX -> gfx1103"),
    "Phoenix2": ChipTarget("gfx1103", MESA.id, "Mesa: PHOENIX2 -> gfx1103"),
    "Strix": ChipTarget("gfx1150", MESA.id, "Mesa: STRIX1 -> gfx1150"),
    "Strix Halo": ChipTarget("gfx1151", MESA.id, "Mesa: STRIX_HALO -> gfx1151"),
    "Krackan": ChipTarget("gfx1152", MESA.id, "Mesa: KRACKAN1 -> gfx1152"),
}

# pci.ids gives every MI300/MI350 device the codename "Aqua Vanjaram"; AMD's specification
# table separates them: MI300A/MI300X/MI325X are gfx942, MI350X/MI355X are gfx950.
AQUA_VANJARAM = ("Aqua Vanjaram", {"MI30": "gfx942", "MI32": "gfx942", "MI35": "gfx950"})

# GCN 1-3 chips: pci.ids names them as LLVM's "Alternative Processor" column does.
for _chip, _llvm_name, _target in (
        ("Tahiti", "tahiti", "gfx600"), ("Pitcairn", "pitcairn", "gfx601"), ("Cape Verde", "verde", "gfx601"),
        ("Oland", "oland", "gfx602"), ("Hainan", "hainan", "gfx602"), ("Kaveri", "kaveri", "gfx700"),
        ("Hawaii", "hawaii", "gfx701"), ("Kabini", "kabini", "gfx703"), ("Mullins", "mullins", "gfx703"),
        ("Bonaire", "bonaire", "gfx704"), ("Carrizo", "carrizo", "gfx801"), ("Iceland", "iceland", "gfx802"),
        ("Tonga", "tonga", "gfx802"), ("Fiji", "fiji", "gfx803"), ("Stoney", "stoney", "gfx810")):
    CHIP_TARGETS[_chip] = ChipTarget(_target, LLVM, f"LLVM's processor table lists ``{_llvm_name}`` as an "
                                                     f"alternative name of {_target}")

# Marketing names TheRock's target table gives to a target.
NAME_TARGETS: dict[str, ChipTarget] = {
    "Radeon 820M": ChipTarget("gfx1153", THEROCK.id, 'TheRock: therock_add_amdgpu_target(gfx1153 "AMD Radeon 820M iGPU")'),
}

APU_CHIPS = {"Renoir/Cezanne/Lucienne", "Renoir", "Cezanne", "Lucienne", "Kaveri", "Kabini", "Mullins", "Carrizo", "Stoney", "Raven Ridge", "VanGogh", "Rembrandt", "Raphael", "Mendocino", "Phoenix1", "Phoenix2", "Strix",
             "Strix Halo", "Krackan", "Krackan2", "HawkPoint1", "HawkPoint2", "Picasso/Raven 2", "Sephiroth"}

# Names that stand for several products or none (left out).
_NOT_A_PRODUCT = re.compile(r"^(Radeon( RX| Pro| PRO)?( WX)? (Series|Graphics)|Radeon Series|Radeon \d00 Series|"
                            r"Radeon RX Vega|TDC-\d+|Radeon Pro Series|Radeon PRO Series|Radeon PRO WX Series)$")

_LINE = re.compile(r"^([0-9A-Fa-f]{4}),\s*([0-9A-Fa-f]{2}),\s*(.+?)\s*$")


@dataclass
class Product:
    name: str
    spellings: set[str] = field(default_factory=set)
    devices: set[str] = field(default_factory=set)
    line: int = 0
    # pci.ids' own name when it names a range of models ("Radeon R7 200 Series"), which amdgpu.ids'
    # reader leaves out as no single product; a product made from it is marked generic_name
    range_name: str = ""


def read_pci_ids(path: Path, vendor: str) -> dict[str, tuple[str, str]]:
    """device id -> (chip codename, text in brackets) for one vendor of a pci.ids file."""

    out: dict[str, tuple[str, str]] = {}
    inside = False
    for line in read_source(path).splitlines():
        if re.match(r"^[0-9a-f]{4}  ", line):
            inside = line.startswith(vendor + "  ")
            continue
        if line.startswith("C "):
            inside = False
        if not inside:
            continue
        m = re.match(r"^\t([0-9a-f]{4})  (.*)$", line)
        if m:
            text = m.group(2).strip()
            b = re.match(r"^(.*?)\s*\[(.*)\]\s*$", text)
            out[m.group(1)] = (b.group(1), b.group(2)) if b else (text, "")
    if not out:
        raise ImportFormatError(path, None, f"no devices of vendor {vendor} (expected a line '{vendor}  <name>')")
    return out


def chip_family(codename: str) -> str:
    """``"Navi 21 GL-XL"`` -> ``"Navi 21"``; ``"Vega 10 XTX"`` -> ``"Vega 10"``."""

    for chip in sorted(CHIP_TARGETS, key=len, reverse=True):
        if codename == chip or codename.startswith(chip + " "):
            return chip
    if codename.startswith(AQUA_VANJARAM[0]):
        return AQUA_VANJARAM[0]
    return codename.split(" ")[0] if codename.split(" ")[0] in ("Ellesmere", "Baffin", "Lexa") else codename


def product_name(raw: str) -> str:
    """``"AMD Radeon 780M Graphics"`` -> ``"Radeon 780M"``; ``"AMD Radeon RX 580 Series"`` -> ``"Radeon RX 580"``."""

    name = gpu_name(raw.replace("ATI ", "AMD ", 1) if raw.startswith("ATI ") else raw)
    name = re.sub(r"\s+(Graphics|Series)$", "", name)
    name = re.sub(r"^Radeon Instinct ", "Instinct ", name)
    name = re.sub(r"^Radeon (\d{4}[MS])$", r"Radeon \1", name)
    return name


def segment_of(name: str, chip: str) -> str:
    if chip in APU_CHIPS or name.startswith("Ryzen"):
        return "integrated"
    if name.startswith("Instinct") or "Instinct" in name:
        return "datacenter"
    if re.match(r"^(Radeon (PRO|AI PRO)|FirePro)\b", name):
        return "workstation"
    if re.match(r"^(Embedded )?Radeon E\d", name) or name.startswith("Embedded"):
        return "embedded"
    return "consumer"


# AMD's own device names for the functions a board shows virtual machines when shared (SR-IOV):
# "Radeon Pro V620 MxGPU", "Instinct MI300X VF". pci.ids names one such device "Navi 22-XL SRIOV MxGPU".
_VIRTUAL_FUNCTION = re.compile(r" (MxGPU|VF)$")


def is_virtual_function(name: str) -> bool:
    """Whether AMD's name for a device says it is a virtual function, not a board."""

    return bool(_VIRTUAL_FUNCTION.search(name))


# AMD's brand and line words: a device name made of these alone ("AMD Radeon RX Series", "AMD Radeon Pro WX
# Series", "AMD Radeon RX Graphics") names a family of products, not one.
_FAMILY_WORDS = frozenset({"amd", "radeon", "rx", "pro", "wx", "series", "graphics"})


# "Radeon R7 200 Series", "Radeon HD 7900 Series": a range of models, not one product
_RANGE_OF_MODELS = re.compile(r"\d00 Series$")


def is_generic_name(name: str, spellings: set[str]) -> bool:
    """Whether every name amdgpu.ids gives the device is only AMD's brand and line words, with no
    model name or number: a family name, which no single product (or memory size) answers to."""

    words = [w.lower() for text in (name, *spellings) for w in text.split()]
    return bool(spellings) and all(w in _FAMILY_WORDS for w in words)


def aliases_for(name: str, spellings: set[str]) -> list[str]:
    out = list(gpu_aliases(name))
    m = re.fullmatch(r"Radeon (\d{3,4}[MS])", name)
    if m:  # iGPUs: "780M", "Radeon 780M Graphics"
        out += [m.group(1), f"{name} Graphics"]
    m = re.fullmatch(r"Radeon RX (\d{4}[MS]?)( XT| GRE)?( \d+GB)?", name)
    if m and not out:
        out.append(f"RX {m.group(1)}{m.group(2) or ''}{m.group(3) or ''}")
    m = re.fullmatch(r"Radeon RX (\d{3})( XT| X)?", name)
    if m:  # Polaris: "RX 580", "rx580"
        out += [f"RX {m.group(1)}{m.group(2) or ''}", f"rx{m.group(1)}{(m.group(2) or '').strip().lower()}"]
    m = re.fullmatch(r"Radeon RX Vega (\d+)( Liquid)?", name)
    if m:
        out += [f"Vega {m.group(1)}{m.group(2) or ''}", f"RX Vega {m.group(1)}{m.group(2) or ''}"]
    m = re.fullmatch(r"Radeon Vega (\d+)", name)
    if m:
        out.append(f"Vega {m.group(1)} Graphics")
    for spelled in sorted(spellings):
        short = spelled.removeprefix("AMD ").removeprefix("ATI ")
        if short != name and short not in out:
            out.append(short)
    if re.match(r"^Radeon PRO (\d|Vega\b)", name):
        # "5600 XT" alone is the Radeon RX card, not the PRO one
        out = [a for a in out if re.search(r"\bPRO\b|\bPro\b", a)]
    seen: list[str] = []
    for a in out:
        if a != name and a not in seen:
            seen.append(a)
    return seen


def _drop_shared_aliases(nodes: dict[str, Node]) -> None:
    """An alias two products share names neither: it is removed from both."""

    def normalise(text: str) -> str:  # the spelling-insensitive key the name index uses
        return re.sub(r"[\s\-_'\"()]+", "", text.lower())

    owners: dict[str, set[str]] = {}
    for node in nodes.values():
        for text in {node.name, *node.aliases}:
            owners.setdefault(normalise(text), set()).add(node.id)
    for gid, node in list(nodes.items()):
        keep = [a for a in node.aliases if len(owners[normalise(a)]) == 1]
        if keep != node.aliases:
            nodes[gid] = node.model_copy(update={"aliases": keep})


# Products AMD's specification table splits into SKUs with their own ids (instinct-mi50-16gb, -32gb).
_SPLIT_ELSEWHERE = {"Instinct MI50"}


def _split_names(name: str) -> list[str]:
    """``"Instinct MI250X / MI250"`` -> both names; other names unchanged."""

    m = re.fullmatch(r"Instinct (MI\w+) / (MI\w+)", name)
    if m:
        return [f"Instinct {m.group(1)}", f"Instinct {m.group(2)}"]
    return [name]


def _read_ids(path: Path) -> dict[str, Product]:
    products: dict[str, Product] = {}
    saw_version = False
    for lineno, line in enumerate(read_source(path).splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if re.fullmatch(r"\d+\.\d+\.\d+", s) and not saw_version:
            saw_version = True
            continue
        m = _LINE.match(line)
        if not m:
            raise ImportFormatError(path, lineno, f"expected 'DEVICE,<tab>REVISION,<tab>NAME', found {s!r}")
        device, _revision, raw = m.groups()
        if _RANGE_OF_MODELS.search(raw) or re.search(r"\d00 / ", raw):
            continue  # a range of models ("Radeon R7 200 Series", "Radeon HD 7900 Series"), not one product
        for name in _split_names(product_name(raw)):
            if _NOT_A_PRODUCT.match(name) or " / " in name or name in _SPLIT_ELSEWHERE:
                continue
            product = products.setdefault(name, Product(name, line=lineno))
            if " / " not in raw:
                product.spellings.add(raw)
            product.devices.add(device.lower())
    if not products:
        raise ImportFormatError(path, None, "no product lines ('DEVICE,\\tREVISION,\\tNAME')")
    return products


# TheRock names one target for three APU chips: therock_add_amdgpu_target(gfx90c "AMD Renoir/Lucienne/Cezanne iGPU").
RENOIR_FAMILY = "Renoir/Lucienne/Cezanne iGPU"
RENOIR_CHIPS = ("Renoir", "Cezanne", "Lucienne")


def _add_pci_only_products(products: dict[str, Product], chips: dict[str, tuple[str, str]]) -> None:
    """Products pci.ids names (in brackets) on devices amdgpu.ids does not list.

    Only devices whose chip has a stated target; the bracket text is split on "/".
    The Renoir, Cezanne and Lucienne iGPUs, which pci.ids names only as a series,
    become one product under TheRock's name for them.
    """

    listed = {d for p in products.values() for d in p.devices}
    for device, (codename, names) in sorted(chips.items()):
        if device in listed:
            continue
        if codename in RENOIR_CHIPS:
            product = products.setdefault(RENOIR_FAMILY, Product(RENOIR_FAMILY))
            product.devices.add(device)
            continue
        if re.search(r"Audio|USB|PCI Express|SRIOV", codename):
            continue  # a function of the card, not a GPU
        if chip_family(codename) not in CHIP_TARGETS and not codename.startswith(AQUA_VANJARAM[0]):
            continue
        for part in (p.strip() for p in re.split(r"\s*/\s*", names or "")):
            if not re.match(r"^(Radeon|Instinct|FirePro)\b", part) or not re.search(r"\d", part) \
                    or re.search(r"Engineering|Radeon Pro$|Radeon Instinct$|XX", part):
                continue
            name = product_name("AMD " + part)
            if _NOT_A_PRODUCT.match(name):
                continue
            product = products.setdefault(name, Product(name))
            product.devices.add(device)
            if _RANGE_OF_MODELS.search(part):
                product.range_name = part


def _target_for(product: Product, chips: dict[str, tuple[str, str]]) -> tuple[Optional[ChipTarget], str, list[str]]:
    """(target, chip family, devices the target comes from) for a product."""

    if product.name in NAME_TARGETS:
        return NAME_TARGETS[product.name], "", sorted(product.devices)
    if product.name == RENOIR_FAMILY:
        return ChipTarget("gfx90c", THEROCK.id, 'TheRock: therock_add_amdgpu_target(gfx90c "AMD Renoir/Lucienne/'
                                                 'Cezanne iGPU"); pci.ids names the devices Renoir, Cezanne and '
                                                 'Lucienne'), "Renoir/Cezanne/Lucienne", sorted(product.devices)
    found: dict[str, tuple[ChipTarget, str, list[str]]] = {}
    for device in sorted(product.devices):
        codename = chips.get(device, ("", ""))[0]
        family = chip_family(codename)
        if family == AQUA_VANJARAM[0]:
            for prefix, target in AQUA_VANJARAM[1].items():
                if prefix in product.name:
                    ct = ChipTarget(target, ROCM_SPECS, f"AMD's GPU specification table gives the {prefix}x series "
                                                        f"{target}; pci.ids names the chip Aqua Vanjaram")
                    found.setdefault(target, (ct, family, []))[2].append(device)
            continue
        ct = CHIP_TARGETS.get(family)
        if ct is not None:
            found.setdefault(ct.target, (ct, family, []))[2].append(device)
    if len(found) != 1:
        return None, "", []
    return next(iter(found.values()))


def _llvm_examples(path: Path, target: str) -> list[str]:
    """LLVM's example products for one target."""

    for node in amd_llvm_processors.parse(path).nodes:
        if node.id == target and node.note and "Example products: " in node.note:
            return node.note.split("Example products: ", 1)[1].rstrip(".").split(", ")
    return []


def _llvm_products(path: Path) -> list[tuple[str, str]]:
    """(product, target) for LLVM's dGPU example products."""

    kb = amd_llvm_processors.parse(path)
    out = []
    for node in kb.nodes:
        if node.segment == "integrated" or not node.note or "Example products: " not in node.note:
            continue
        for product in node.note.split("Example products: ", 1)[1].rstrip(".").split(", "):
            if product.startswith(("Radeon RX", "Radeon Vega", "Radeon VII", "Radeon Pro", "Radeon PRO")):
                out.append((product, node.id))
    return out


DATA_DIR = Path(__file__).resolve().parents[2] / "data"
ROCM_SPECS_FILE = "rocm-gpu-specs.yaml"


def stated_elsewhere(data_dir: Path = DATA_DIR) -> set[str]:
    """GPU ids AMD's specification table already gives an architecture (rocm-gpu-specs.yaml)."""

    import yaml

    path = Path(data_dir) / ROCM_SPECS_FILE
    if not path.exists():
        return set()
    facts = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("facts", []) or []
    return {f["subject"] for f in facts if f.get("relation") == "has_arch" and isinstance(f.get("subject"), str)}


def parse(path: Path, data_dir: Path = DATA_DIR) -> KBFile:
    path = Path(path)
    known_arch = stated_elsewhere(data_dir)
    pci_path = path.parent / "pci.ids"
    llvm_path = path.parent / "AMDGPUUsage-processors.rst"
    for needed in (pci_path, llvm_path):
        if not needed.exists():
            raise ImportFormatError(path, None, f"expected {needed.name} beside amdgpu.ids (see the README)")
    chips = read_pci_ids(pci_path, "1002")
    memory_path = path.parent / vram_table.FILE_NAME
    memory = vram_table.load(memory_path) if memory_path.exists() else {}
    pages_path = path.parent / vram_table.PAGES_FILE
    pages = vram_table.load_pages(pages_path) if pages_path.exists() else {}
    matches = vram_table.load_matches_beside(path)
    products = _read_ids(path)
    _add_pci_only_products(products, chips)

    nodes: dict[str, Node] = {}
    facts: list[Fact] = []
    left_out: list[str] = []
    used_sources = {SOURCE.id, PCIIDS.id}
    for product in sorted(products.values(), key=lambda p: p.name):
        target, family, devices = _target_for(product, chips)
        if target is None:
            left_out.append(product.name)
            continue
        gid = gpu_id(product.name)
        if gid in nodes:
            raise ImportFormatError(path, product.line, f"{product.name!r}: id {gid} already used by "
                                                         f"{nodes[gid].name!r}")
        codenames = sorted({chips.get(d, ("?", ""))[0] for d in product.devices})
        pci_ids = [f"1002:{d}" for d in sorted(product.devices)]
        note = f"Chip (pci.ids): {', '.join(codenames)}."
        aliases = aliases_for(product.name, product.spellings)
        if product.name == RENOIR_FAMILY:
            # the codenames, and the APUs LLVM's processor table names as gfx90c example products
            aliases += [f"{c} iGPU" for c in RENOIR_CHIPS] + list(RENOIR_CHIPS) + _llvm_examples(llvm_path, "gfx90c")
            note += " Products: LLVM's processor table lists these APUs under gfx90c (given here as aliases)."
        for d in sorted(product.devices):
            comment = _pci_comment(pci_path, d)
            if comment:
                note += f" pci.ids: {comment}."
                used = re.fullmatch(r"Used in the (.+)", comment)
                if used:  # "Used in the Steam Deck LCD" -> "Steam Deck LCD", "Steam Deck"
                    aliases += [a for a in (used.group(1), re.sub(r" (LCD|OLED)$", "", used.group(1)))
                                if a not in aliases]
        segment = segment_of(product.name, family or codenames[0])
        extra = {}
        spellings = [product.name, *sorted(product.spellings)]
        size = vram_table.lookup(memory, spellings)
        if size is None and gid not in known_arch:
            # TechPowerUp keeps the old "Radeon Instinct" brand ("Radeon Instinct MI308X"); tried last, and
            # only for products AMD's own table does not list (it gives their memory)
            size = vram_table.lookup(memory, [f"Radeon {s}" for s in spellings if s.startswith("Instinct ")])
        stated = vram_table.size_in_name(product.name)
        if gid in pages:  # AMD's spec page, read by hand (vram-vendor-pages.csv)
            extra = pages[gid].attributes()
            note += " " + pages[gid].sentence()
        elif stated is not None and segment != "integrated":  # amdgpu.ids names the size: "Radeon R9 380 4GB"
            extra = {"vram_gb": stated}
            note += " Memory size as the product name states it."
        elif gid in matches and segment != "integrated":  # TechPowerUp entries matched by hand
            extra = matches[gid].attributes()
            note += " " + matches[gid].sentence()
        elif size is not None and segment != "integrated":
            extra = {"vram_gb": size[0], "attribute_sources": {"vram_gb": vram_table.SOURCE_ID}}
            note += f" Memory size from TechPowerUp (third party): {size[1]}."
        if is_generic_name(product.name, product.spellings) and segment != "integrated":
            extra["generic_name"] = True
            note += (" amdgpu.ids gives these devices only a family name (brand and line words, no model: "
                     + ", ".join(sorted(product.spellings)) + "): it names no single product and no single memory "
                     "size; not counted among discrete GPUs.")
        elif product.range_name and segment != "integrated":
            extra["generic_name"] = True
            note += (f" pci.ids names these devices only by a range of models ({product.range_name}), a name "
                     "amdgpu.ids' reader leaves out as no single product: no single memory size; not counted "
                     "among discrete GPUs.")
        if is_virtual_function(product.name):
            extra["virtual_function"] = True
            note += " A virtual function (AMD names it MxGPU / VF): what a virtual machine sees of a shared board."
        nodes[gid] = Node(
            id=gid, layer=Layer.gpu, name=product.name, aliases=aliases,
            vendor="amd", segment=segment, pci_ids=pci_ids,
            source=SOURCE.id, note=note, **extra,
        )
        if gid in known_arch:
            continue  # AMD's own table states it (a test checks the chip mapping agrees)
        used_sources.add(target.source)
        facts.append(Fact(
            id=f"{gid}-arch-{target.target}-from-chip", relation=Relation.has_arch, subject=gid,
            object=Selector(ids=[target.target]), source=target.source,
            section=f"chip {family or 'name'} -> {target.target}",
            note=f"{target.why}. Devices: {', '.join(pci_ids)}" + (f" (chip {family})." if family else "."),
        ))
    for product, target in _llvm_products(llvm_path):
        name = gpu_name(product)
        gid = gpu_id(product)
        if gid in nodes or any(name in n.aliases for n in nodes.values()):
            continue
        extra = {}
        note = "Named as an example product of its target in LLVM's processor table."
        size = vram_table.lookup(memory, [name, product])
        if gid in pages:
            extra = pages[gid].attributes()
            note += " " + pages[gid].sentence()
        elif gid in matches:
            extra = matches[gid].attributes()
            note += " " + matches[gid].sentence()
        elif size is not None:
            extra = {"vram_gb": size[0], "attribute_sources": {"vram_gb": vram_table.SOURCE_ID}}
            note += f" Memory size from TechPowerUp (third party): {size[1]}."
        nodes[gid] = Node(id=gid, layer=Layer.gpu, name=name, aliases=aliases_for(name, set()), vendor="amd",
                          segment=segment_of(name, ""), source=LLVM, note=note, **extra)
        facts.append(Fact(id=f"{gid}-arch-{target}-from-llvm", relation=Relation.has_arch, subject=gid,
                          object=Selector(ids=[target]), source=LLVM,
                          section=f"amdgpu-processor-table: {target}, Example Products"))
    _add_apu_aliases(path.parent / "apu-graphics.csv", nodes)
    _drop_shared_aliases(nodes)
    sources = [s for s in (SOURCE, PCIIDS, MESA, THEROCK) if s.id in used_sources]
    return KBFile(sources=sources, nodes=list(nodes.values()), facts=facts)


def _add_apu_aliases(path: Path, nodes: dict[str, Node]) -> None:
    """APU names from the hand-kept ``apu-graphics.csv`` (one cited row each) as aliases of their iGPU."""

    if not path.exists():
        return
    import csv

    lines = [l for l in read_source(path).splitlines() if l.strip() and not l.startswith("#")]
    for lineno, row in enumerate(csv.DictReader(lines), 2):
        if set(row) != {"apu", "igpu", "evidence"} or not all(row.values()):
            raise ImportFormatError(path, lineno, "expected the columns apu,igpu,evidence, all filled")
        gid = gpu_id(row["igpu"])
        if gid not in nodes:
            raise ImportFormatError(path, lineno, f"{row['igpu']!r} is not a product of amdgpu.ids")
        node = nodes[gid]
        note = f"{node.note} {row['apu']} carries it: {row['evidence']}."
        # The model number alone is how users name a Ryzen ("8700G", "7840HS"); a bare number ("395") is not.
        model = row["apu"].split()[-1]
        short = [model] if re.fullmatch(r"\d{4}[A-Z]{1,2}", model) else []
        nodes[gid] = node.model_copy(update={"aliases": node.aliases + [row["apu"], *short], "note": note})


_COMMENTS: dict[Path, dict[str, str]] = {}


def _pci_comment(path: Path, device: str) -> Optional[str]:
    """The '# ...' comment pci.ids puts above a device line ("Used in the Steam Deck LCD")."""

    if path not in _COMMENTS:
        found: dict[str, str] = {}
        last: Optional[str] = None
        inside = False
        for line in read_source(path).splitlines():
            if re.match(r"^[0-9a-f]{4}  ", line):
                inside = line.startswith("1002  ")
                last = None
                continue
            if not inside:
                continue
            if line.startswith("# "):
                last = line[2:].strip()
                continue
            m = re.match(r"^\t([0-9a-f]{4})  ", line)
            if m and last:
                found[m.group(1)] = last
            last = None
        _COMMENTS[path] = found
    return _COMMENTS[path].get(device)
