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


def test_generic_target_build_counts_for_members():
    kg = build_graph()
    assert kg.generic_members["gfx11-generic"] >= {"gfx1100", "gfx1103", "gfx1151"}
    via: dict = {}
    cond = kg._expand_build_targets(["gfx11-generic"], via)
    assert {"gfx11-generic", "gfx1100", "gfx1151"} <= cond.ids
    assert "generic" in via["gfx1151"][1] and via["gfx1151"][0] == "gfx11-generic"
    assert "gfx1030" not in cond.ids


def test_amd_archs_in_shipped_kb():
    kg = build_graph()
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
def amd():
    from gpulane.loaders.importers import amd_products

    return amd_products.parse(FIX / "amd" / "amdgpu.ids")


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
        amd_products.parse(tmp_path / "amdgpu.ids")
    for name in ("pci.ids", "AMDGPUUsage-processors.rst"):
        (tmp_path / name).write_text((FIX / "amd" / name).read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"amdgpu.ids:2: expected 'DEVICE,<tab>REVISION,<tab>NAME'"):
        amd_products.parse(tmp_path / "amdgpu.ids")


def test_every_amd_gpu_has_exactly_one_architecture():
    kg = build_graph()
    for gid in kg.by_layer[Layer.gpu]:
        if kg.nodes[gid].vendor == "amd":
            assert len(set(kg.arch_of(gid))) == 1, gid
            assert kg.nodes[gid].segment, gid
