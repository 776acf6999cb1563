import json

import pytest

from gpulane.catalogue import CatalogueError, load_catalogue
from gpulane.cli.probe_commands import explain_error
from gpulane.queries.diagnose import EmptyErrorText, diagnose


@pytest.fixture(scope="module")
def kg():
    from gpulane.api import load_graph
    return load_graph()


def test_catalogue_cites_a_source_per_signature():
    cat = load_catalogue()
    assert len(cat.signatures) >= 16
    for sig in cat.signatures:
        assert sig.source.url.startswith("https://github.com/")
        assert sig.source.reviewed.isoformat() == "2026-11-30"
        # Each signature's own example message must match its patterns.
        assert any(p.search(sig.message) for p in sig.compiled()), sig.id


@pytest.mark.parametrize("text, expected", [
    ("RuntimeError: CUDA error: no kernel image is available for execution on the device", "cuda-no-kernel-image"),
    ('"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"', "hip-no-binary-for-gpu"),
    ("cudaGetDeviceCount CUDA driver version is insufficient for CUDA runtime version", "cuda-driver-insufficient"),
    ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "flash-attn-ampere-only"),
    ("AssertionError: Torch not compiled with CUDA enabled", "torch-not-compiled-with-cuda"),
    ("RuntimeError: CUDA error: invalid device function", "cuda-invalid-device-function"),
    ("RuntimeError: HIP error: invalid device function", "hip-invalid-device-function"),
    ("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory", "libcudart-not-found"),
    ("The installed version of bitsandbytes was compiled without GPU support.", "bitsandbytes-no-gpu-support"),
])
def test_real_messages_match_exactly_one_signature(kg, text, expected):
    d = diagnose(kg, text)
    assert [m.signature.id for m in d.matches] == [expected]


def test_captured_arch_and_driver_api(kg):
    d = diagnose(kg, "NVIDIA GeForce RTX 5090 with CUDA capability SM_120 is not compatible with the current "
                     "PyTorch installation.")
    m = d.matches[0]
    assert m.captures == {"arch": "SM_120"} and m.named[0].ids == ["sm_120"]
    d = diagnose(kg, "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).")
    assert d.matches[0].derived == {"driver_cuda_version": "11.4"}
    d = diagnose(kg, "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or "
                     "directory for GPU arch : gfx1031")
    assert d.matches[0].captures["arch"] == "gfx1031" and d.matches[0].named[0].ids == ["gfx1031"]


def test_with_configuration_names_the_breaking_edge_and_fixes(kg):
    d = diagnose(kg, "CUDA error: no kernel image is available for execution on the device",
                 'gpu = "GTX 1050", os = "Ubuntu 24.04", framework = "torch 2.8.0+cu128"')
    assert d.explanation.verdict == "not_supported"
    assert [(b.edge.upper.value, b.edge.lower.value) for b in d.implicated] == [("framework", "arch")]
    assert d.implicated[0].facts[0].id == "torch-2.8.0+cu128-kernels"
    assert d.fixes is not None and d.fixes.fixes


def test_mismatch_between_error_and_configuration_is_noted(kg):
    d = diagnose(kg, "with CUDA capability sm_120 is not compatible with the current PyTorch installation",
                 'gpu = "RTX 4090", framework = "torch 2.5.1+cu124"')
    assert d.mismatches == ["the error names arch sm_120, but the configuration's arch is sm_89 (Ada, CC 8.9)"]


def test_alone_lists_edges_and_what_to_ask(kg, capsys):
    explain_error("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!", None, False, kg=kg)
    out = capsys.readouterr().out
    assert "implicates: framework ↔ arch, toolkit ↔ arch, app ↔ arch" in out
    assert "ask for (or give them as a configuration to name the breaking edge):" in out
    assert "https://github.com/ROCm/tensorflow-upstream/issues/1800" in out


def test_json_names_the_layers_of_each_edge(kg, capsys):
    explain_error("Torch not compiled with CUDA enabled", None, True, kg=kg)
    data = json.loads(capsys.readouterr().out)
    assert data["known"] is True
    assert data["matches"][0]["edges"] == [{"layers": ["framework", "toolkit"]}, {"layers": ["framework", "arch"]}]
    assert data["matches"][0]["source"]["reviewed"] == "2026-11-30"


def test_unknown_text_lists_the_closest_signatures(kg, capsys):
    explain_error("error: HIP invalid device func", None, False, kg=kg)
    out = capsys.readouterr().out
    assert out.startswith("no known signature matches this error text")
    assert "hip-invalid-device-function" in out.splitlines()[2]


def test_empty_text_and_bad_catalogue_are_gpulane_errors(kg, tmp_path):
    with pytest.raises(EmptyErrorText):
        diagnose(kg, "   ")
    bad = tmp_path / "cat.yaml"
    bad.write_text("signatures:\n  - id: x\n    title: t\n")
    with pytest.raises(CatalogueError, match="cat.yaml: signatures.0"):
        load_catalogue(bad)
