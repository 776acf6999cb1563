"""The PyTorch build importer: the shipped file is regenerated from the pinned extract,
and the builds people name resolve with the facts their sources give.

Expected values below were read from the sources the extract cites: the
previous-versions page (pytorch.github.io e3f009b) for 2.0-2.3, the binary build
matrix on test-infra's release/2.X branches, builder's release/2.X scripts (2.0-2.5), and the
per-release ROCm lists of huggingface/kernels' archs.nix (f3ad473, eeda161).
"""

from __future__ import annotations

import json

import pytest

from gpulane.api import build_graph
from gpulane.loaders.importers import DATA_DIR, IMPORTERS, INPUTS_DIR, ImportFormatError, _header, dump_kbfile
from gpulane.loaders.importers import pytorch_builds
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
    # XPU: release/2.5's matrix adds the xpu variant for Linux only, release/2.6 on for Linux and Windows.
    assert {f"torch-{v}+xpu" for v in ("2.5.0", "2.5.1", "2.6.0", "2.8.0", "2.12.1", "2.14.0")} <= torch
    assert "torch-2.4.1+xpu" not in torch
    assert len(torch) >= 150


def test_xpu_platforms_follow_the_matrix(kg):
    assert "torch-2.5.1+xpu-platform-linux" in kg.fact_by_id
    assert "torch-2.5.1+xpu-platform-windows" not in kg.fact_by_id  # no statement either way
    assert "torch-2.6.0+xpu-platform-windows" in kg.fact_by_id
    node = kg.nodes["torch-2.6.0+xpu"]
    assert (node.vendor, node.backend) == ("intel", "sycl")


def test_xpu_build_on_an_amd_gpu_is_known_impossible(kg):
    plan = run.compile_query(kg, 'explain gpu = "RX 7900 XTX", os = "Ubuntu 24.04", framework = "torch 2.8.0+xpu"')
    assert explain(kg, plan).verdict == "not_supported"


def test_rx_7900_xtx_on_torch_2_8_rocm_6_4(kg):
    # huggingface/kernels archs.nix "2.8": pytorch ba56102 (v2.8.0) build.sh lists gfx1100.
    plan = run.compile_query(kg, 'explain gpu = "RX 7900 XTX", framework = "torch 2.8.0+rocm6.4", os = "Ubuntu 24.04"')
    answer = explain(kg, plan)
    assert answer.verdict == "supported"
    fact = kg.fact_by_id["torch-2.8.0+rocm6.4-linux-kernels"].fact
    assert fact.source == "hf-kernels-torch-archs-f3ad473" and fact.exhaustive
    assert fact.object.ids == ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100",
                               "gfx1101", "gfx1102", "gfx1200", "gfx1201"]


@pytest.mark.parametrize("build,arch,listed", [
    # 2.8/2.9: eleven targets, no gfx950 and no gfx1151 (the list is complete, so absent = not built).
    ("torch-2.8.0+rocm6.3", "gfx950", False), ("torch-2.9.1+rocm6.4", "gfx1151", False),
    ("torch-2.9.0+rocm6.3", "gfx90a", True),
    # 2.10-2.12: fourteen targets with gfx950, gfx1150, gfx1151, still without gfx1103.
    ("torch-2.10.0+rocm7.0", "gfx950", True), ("torch-2.11.0+rocm7.2", "gfx1151", True),
    ("torch-2.12.0+rocm7.1", "gfx1103", False),
])
def test_listed_rocm_targets(kg, build, arch, listed):
    fact = kg.fact_by_id[f"{build}-linux-kernels"].fact
    assert (arch in fact.object.ids) is listed
    assert fact.when["os"].platform.value == "linux"


def test_measured_cuda_list_for_2_10_cu128(kg):
    # pytorch/pytorch#182250 (2026-05-03): 2.10.0+cu128 prints sm_70 ... sm_120, no compute_* entry.
    fact = kg.fact_by_id["torch-2.10.0+cu128-linux-kernels"].fact
    assert fact.object.ids == ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    plan = run.compile_query(kg, 'explain gpu = "Tesla V100", os = "Ubuntu 22.04", framework = "torch 2.10.0+cu128"')
    edge = next(e for e in explain(kg, plan).path.edges if (e.upper.value, e.lower.value) == ("framework", "arch"))
    assert [cf.id for cf in edge.facts] == ["torch-2.10.0+cu128-linux-kernels"]


def test_releases_no_source_covers_keep_no_list(kg):
    # 2.12.1 came after the archs.nix lists were removed; 2.6.0's scripts were not read at a release commit.
    for build in ("torch-2.12.1+rocm7.2", "torch-2.6.0+rocm6.2.4", "torch-2.7.0+rocm6.3", "torch-2.10.0+rocm7.1"):
        has = f"{build}-linux-kernels" in kg.fact_by_id
        assert has is (build == "torch-2.10.0+rocm7.1")


def test_an_arch_missing_from_a_complete_list_is_not_supported(kg):
    # gfx950 (MI355X class) is not in the 2.8 list, which the source gives in full.
    plan = run.compile_query(kg, 'explain gpu = MI355X, os = "Ubuntu 24.04", framework = "torch 2.8.0+rocm6.4"')
    answer = explain(kg, plan)
    assert answer.verdict == "not_supported"
    edges = {(b.edge.upper.value, b.edge.lower.value): {cf.id for cf in b.facts} for b in answer.breaks}
    assert "torch-2.8.0+rocm6.4-linux-kernels" in edges[("framework", "arch")]


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


def test_release_2_5_cuda_lists_from_builder(kg):
    # builder release/2.5 (aec5fb5) manywheel/build_cuda.sh: base 5.0;6.0;7.0;7.5;8.0;8.6, CUDA 11.8 adds
    # 3.7 and 9.0, CUDA 12.1 and 12.4 add 9.0 (the x86_64 branch of the 12.4 case); no +PTX.
    for version in ("2.5.0", "2.5.1"):
        cu118 = kg.fact_by_id[f"torch-{version}+cu118-linux-kernels"].fact
        assert cu118.source == "pytorch-builder-release-2.5-cuda" and cu118.exhaustive
        assert cu118.object.ids == ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_37", "sm_90"]
        assert cu118.when["os"].platform.value == "linux"
        for cuda in ("cu121", "cu124"):
            assert kg.fact_by_id[f"torch-{version}+{cuda}-linux-kernels"].fact.object.ids == [
                "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
    # builder's release/2.5 has no ROCm image script: the 2.5 ROCm wheels get no list from it.
    assert "torch-2.5.0+rocm6.1-linux-kernels" not in kg.fact_by_id


def test_ptx_entries_map_to_machine_code_and_ptx():
    assert pytorch_builds._arch_ids("cuda", ["9.0", "12.0+PTX"]) == ["sm_90", "sm_120", "compute_120"]
    assert pytorch_builds._arch_ids("rocm", ["gfx1100"]) == ["gfx1100"]


# Build-script shapes the evaluator reads (written for these tests, in the forms the scripts use).
_BUILDER_STYLE = """
TORCH_CUDA_ARCH_LIST="5.0;6.0;7.0"
case ${CUDA_VERSION} in
    12.4)
        if [[ "$GPU_ARCH_TYPE" = "cuda-aarch64" ]]; then
            TORCH_CUDA_ARCH_LIST="9.0"
        else
            TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST};9.0"
        fi
        ;;
    11.[67])
        TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST};3.7"
        ;;
    *)
        exit 1
        ;;
esac
"""

_INLINE_STYLE = """
TORCH_CUDA_ARCH_LIST="7.5;8.0;9.0;10.0"
case ${CUDA_VERSION} in
    # a comment line
    12.6) TORCH_CUDA_ARCH_LIST="5.0;${TORCH_CUDA_ARCH_LIST//10.0/}" ;;
    12.9) TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST};12.0+PTX" ;;
    13.0)
        TORCH_CUDA_ARCH_LIST="8.0;$([[ "$ARCH" == "aarch64" ]] && echo "11.0;" || echo "")12.0"
        if [[ "$PACKAGE_TYPE" == "libtorch" ]]; then
            TORCH_CUDA_ARCH_LIST="9.0"
        fi
        ;;
    *) exit 1 ;;
esac
"""


def test_cuda_arch_lists_reads_the_x86_64_wheel_lists():
    assert pytorch_builds.cuda_arch_lists(_BUILDER_STYLE) == {
        "12.4": ["5.0", "6.0", "7.0", "9.0"], "11.6": ["5.0", "6.0", "7.0", "3.7"],
        "11.7": ["5.0", "6.0", "7.0", "3.7"]}
    assert pytorch_builds.cuda_arch_lists(_INLINE_STYLE) == {
        "12.6": ["5.0", "7.5", "8.0", "9.0"], "12.9": ["7.5", "8.0", "9.0", "10.0", "12.0+PTX"],
        "13.0": ["8.0", "12.0"]}


def test_cuda_arch_lists_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match="case"):
        pytorch_builds.cuda_arch_lists('TORCH_CUDA_ARCH_LIST="8.0"\n')
    odd = _BUILDER_STYLE.replace('"${TORCH_CUDA_ARCH_LIST};3.7"', '"$(pick_arches)"')
    with pytest.raises(ValueError, match="unsupported shell expression"):
        pytorch_builds.cuda_arch_lists(odd)
    cond = _BUILDER_STYLE.replace('"$GPU_ARCH_TYPE" = "cuda-aarch64"', '"$SOMETHING" = "1"')
    with pytest.raises(ValueError, match="unsupported condition"):
        pytorch_builds.cuda_arch_lists(cond)


def test_bad_input_names_the_problem(tmp_path):
    bad = tmp_path / "in.json"
    bad.write_text(json.dumps({"sources": [], "kernels": {}, "releases": [
        {"version": "2.9.0", "source": "nowhere", "variants": {}}]}))
    with pytest.raises(ImportFormatError, match="release 2.9.0: source 'nowhere'"):
        IMP.parse(bad)
    bad.write_text(json.dumps({"sources": [{"id": "s", "url": "https://example.org/s", "publisher": "p", "title": "t", "version": "1"}], "kernels": {},
                               "releases": [{"version": "2.9.0", "source": "s", "variants": {
                                   "cpu": {"platforms": ["linux"]}}}],
                               "kernel_lists": [{"kind": "rocm", "builds": ["2.9.0+cpu"], "targets": ["gfx90a"],
                                                 "source": "s"}]}))
    with pytest.raises(ImportFormatError, match="'2.9.0\\+cpu' is not a rocm build"):
        IMP.parse(bad)
    bad.write_text(json.dumps({"sources": [], "kernels": {}, "releases": [], "kernel_lists": ["x"]}))
    with pytest.raises(ImportFormatError, match="kernel_lists\\[0\\]: expected an object"):
        IMP.parse(bad)
    bad.write_text(json.dumps({"sources": [{"id": "s", "url": "u"}], "kernels": {}, "releases": []}))
    with pytest.raises(ImportFormatError, match="Source"):
        IMP.parse(bad)
    bad.write_text("{not json")
    with pytest.raises(ImportFormatError, match="not valid JSON"):
        IMP.parse(bad)
