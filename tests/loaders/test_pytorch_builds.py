"""The PyTorch build importer: the shipped file is regenerated from the pinned extract,
and the builds people name resolve with the facts their sources give.

Expected values below were read from the sources the extract cites: the
previous-versions page (pytorch.github.io e3f009b) for 2.0-2.3, the binary build
matrix on test-infra's release/2.X branches, and builder's release/2.X scripts.
"""

from __future__ import annotations

import json

import pytest

from gpulane.api import build_graph
from gpulane.loaders.importers import DATA_DIR, IMPORTERS, INPUTS_DIR, ImportFormatError, _header, dump_kbfile
from gpulane.queries import run
from gpulane.queries.explain import explain

IMP = IMPORTERS["pytorch-builds"]


def test_shipped_file_equals_a_fresh_import():
    kb = IMP.parse(INPUTS_DIR / IMP.default_input)
    assert (DATA_DIR / IMP.target).read_text(encoding="utf-8") == dump_kbfile(kb, _header(IMP, IMP.default_input))


@pytest.fixture(scope="module")
def kg():
    return build_graph()


@pytest.mark.parametrize("build", ["torch-2.2.1+cu121", "torch-2.4.0+rocm6.1", "torch-2.4.1+cpu",
                                   "torch-2.1.0+rocm5.6", "torch-2.0.0+cu117", "torch-2.12.1+cu132"])
def test_builds_exist(kg, build):
    assert kg.nodes[build].family == "torch"


def test_every_patch_release_has_its_variants(kg):
    torch = {n for n in kg.by_layer[kg.nodes["torch-2.4.1+cpu"].layer] if n.startswith("torch-")}
    # v2.2.1 on the previous-versions page: ROCm 5.7, CUDA 11.8 and 12.1, CPU.
    assert {"torch-2.2.1+rocm5.7", "torch-2.2.1+cu118", "torch-2.2.1+cu121", "torch-2.2.1+cpu"} <= torch
    # release/2.8 test channel: CUDA 12.6, 12.8, 12.9; ROCm 6.3, 6.4.
    assert {f"torch-2.8.0+{v}" for v in ("cu126", "cu128", "cu129", "rocm6.3", "rocm6.4", "cpu")} <= torch
    assert len(torch) >= 140


def test_rocm_wheels_are_linux_only_and_kernels_scoped_to_linux(kg):
    fact = kg.fact_by_id["torch-2.4.0+rocm6.1-platform-windows"].fact
    assert fact.status.value == "unsupported"
    kernels = kg.fact_by_id["torch-2.4.0+rocm6.1-linux-kernels"].fact
    # release/2.4 build_docker.sh: six base targets, gfx942 from ROCm 6.0 on.
    assert kernels.object.ids == ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942"]
    assert kernels.when["os"].platform.value == "linux"
    # release/2.0 build_cuda.sh, CUDA 11.7: 3.7;5.0;6.0;7.0;7.5;8.0;8.6
    assert kg.fact_by_id["torch-2.0.1+cu117-linux-kernels"].fact.object.ids == [
        "sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"]


def test_cpu_build_uses_no_gpu(kg):
    plan = run.compile_query(kg, 'explain gpu = "RX 7900 XTX", os = "Ubuntu 24.04", framework = "torch 2.4.1+cpu"')
    answer = explain(kg, plan)
    assert answer.verdict == "not_supported"
    edges = {(b.edge.upper.value, b.edge.lower.value): {cf.id for cf in b.facts} for b in answer.breaks}
    assert edges[("framework", "arch")] == {"torch-2.4.1+cpu-no-amd-kernels"}


def test_mi210_on_a_2_4_rocm_wheel(kg):
    # release/2.4 PYTORCH_ROCM_ARCH lists gfx90a; the variant is built for Linux.
    plan = run.compile_query(kg, 'explain gpu = "MI210", os = "Ubuntu 22.04", framework = "torch 2.4.0+rocm6.1"')
    assert explain(kg, plan).verdict == "supported"


def test_bad_input_names_the_problem(tmp_path):
    bad = tmp_path / "in.json"
    bad.write_text(json.dumps({"sources": [], "kernels": {}, "releases": [
        {"version": "2.9.0", "source": "nowhere", "variants": {}}]}))
    with pytest.raises(ImportFormatError, match="release 2.9.0: source 'nowhere'"):
        IMP.parse(bad)
    bad.write_text("{not json")
    with pytest.raises(ImportFormatError, match="not valid JSON"):
        IMP.parse(bad)
