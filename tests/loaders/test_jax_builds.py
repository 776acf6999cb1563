"""The JAX build importer: the shipped file is regenerated from the pinned scan of the
release tags, and the facts say what the files at each tag say.

Expected values below were read from jax-ml/jax at the release tags: .bazelrc
(jax-v0.4.30 f4158ac: build:cuda TF_CUDA_COMPUTE_CAPABILITIES
"sm_50,sm_60,sm_70,sm_80,compute_90"; jax-v0.8.0 403977d: cuda_v12 CUDA 12.9.1 and
"sm_50,...,sm_100,compute_120", cuda_v13 CUDA 13.0.0 and "sm_75,sm_80,sm_90,sm_100,compute_120";
jax-v0.7.1 5712de4: one build:cuda config, CUDA 12.9.1), setup.py (jax-v0.4.5 a002643 and
jax-v0.4.37 ffb07cd name an older jaxlib as current; jax-v0.4.25 f9e20d5 has cuda11 and
cuda12 extras, jax-v0.4.26 fed7efd cuda12 only), README.md at jax-v0.4.14 88a60b8 (two CUDA
wheel variants: CUDA 12.0 with cuDNN 8.9, CUDA 11.8 with cuDNN 8.6; CUDA wheels for Linux
x86_64 only) and ci/build_artifacts.sh (release-type builds from jax-v0.5.3 c8032a9).
"""

from __future__ import annotations

import json

import pytest

from gpulane.loaders.importers import DATA_DIR, IMPORTERS, INPUTS_DIR, ImportFormatError, _header, dump_kbfile

IMP = IMPORTERS["jax-builds"]


@pytest.fixture(scope="module")
def kb():
    return IMP.parse(INPUTS_DIR / IMP.default_input)


def facts(kb):
    return {f.id: f for f in kb.facts}


def test_shipped_file_equals_a_fresh_import(kb):
    assert (DATA_DIR / IMP.target).read_text(encoding="utf-8") == dump_kbfile(kb, _header(IMP, IMP.default_input))


def test_builds_per_release(kb):
    ids = {n.id for n in kb.nodes}
    assert {"jax-0.4.0+cuda11", "jax-0.4.0+cpu", "jax-0.4.25+cuda11", "jax-0.4.25+cuda12",
            "jax-0.4.30+cuda12", "jax-0.8.0+cuda12", "jax-0.8.0+cuda13", "jax-0.11.0+cuda13"} <= ids
    assert "jax-0.4.26+cuda11" not in ids  # CUDA 11 extras gone at jax-v0.4.26
    assert not any(i.startswith(("jax-0.4.5+", "jax-0.4.37+", "jax-0.5.2+")) for i in ids)  # no jaxlib of their own
    # jax-v0.7.1's setup.py names cuda13 extras, but its .bazelrc builds CUDA 12.9.1 only
    assert "jax-0.7.1+cuda12" in ids and "jax-0.7.1+cuda13" not in ids
    assert len(ids) >= 140


def test_kernel_lists(kb):
    f = facts(kb)
    old = f["jax-0.4.30+cuda12-linux-kernels"]
    assert old.object.ids == ["sm_50", "sm_60", "sm_70", "sm_80", "compute_90"]
    assert not old.exhaustive and old.caveat  # built outside the repository at that tag
    new = f["jax-0.8.0+cuda13-linux-kernels"]
    assert new.object.ids == ["sm_75", "sm_80", "sm_90", "sm_100", "compute_120"]
    assert new.exhaustive and new.when["os"].platform.value == "linux"
    assert f["jax-0.8.0+cuda12-linux-kernels"].object.ids[0] == "sm_50"


def test_toolkits(kb):
    f = facts(kb)
    assert f["jax-0.8.0+cuda13-toolkit"].object.version == "==13.0.*"
    assert f["jax-0.8.0+cuda12-toolkit"].object.version == "==12.9.*"
    assert f["jax-0.4.14+cuda12-toolkit"].object.version == "==12.0.*"
    assert f["jax-0.4.14+cuda11-toolkit"].object.version == "==11.8.*"
    assert f["jax-0.4.0+cuda11-toolkit"].object.version == "==11.*"  # the README names no build release


def test_platforms_and_cpu_builds(kb):
    f = facts(kb)
    assert f["jax-0.4.14+cuda12-platform-windows"].status.value == "unsupported"
    assert f["jax-0.4.14+cuda12-platform-linux"].status.value == "supported"
    assert f["jax-0.4.30+cpu-no-nvidia-kernels"].object.ids == [] and f["jax-0.4.30+cpu-no-nvidia-kernels"].exhaustive
    assert "jax-0.4.30+cpu-platform-windows" in f
    assert "jax-0.4.0+cpu-platform-windows" not in f  # the README then listed no Windows wheels
    cpu = next(n for n in kb.nodes if n.id == "jax-0.4.30+cpu")
    assert cpu.backend == "cpu" and cpu.vendor is None


def test_bad_input_is_refused(tmp_path):
    data = json.loads((INPUTS_DIR / IMP.default_input).read_text(encoding="utf-8"))
    row = data["releases"][0]
    row["cuda_configs"][0]["capabilities"] = ["8.0"]
    bad = tmp_path / "jax.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="capabilities"):
        IMP.parse(bad)
    row["cuda_configs"][0]["capabilities"] = ["sm_80"]
    row["tag"] = "v0.4.0"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="tag"):
        IMP.parse(bad)


def test_thor_is_written_with_its_node_id(kb):
    # jax-v0.10.2 .bazelrc: cuda_v12 "...,sm_100,sm_101,compute_120" (CUDA 12.9.1), cuda_v13 "...,sm_100,sm_110,..."
    f = facts(kb)
    assert f["jax-0.10.2+cuda12-linux-kernels"].object.ids == [
        "sm_50", "sm_60", "sm_70", "sm_80", "sm_90", "sm_100", "sm_110", "compute_120"]
    assert "sm_101" in f["jax-0.10.2+cuda12-linux-kernels"].note
    assert f["jax-0.10.2+cuda13-linux-kernels"].object.ids == ["sm_75", "sm_80", "sm_90", "sm_100", "sm_110", "compute_120"]
