"""llama.cpp build tags: the CMake default-architecture reader, the node choice (one node
per backend where the build facts change), and questions answered from the range facts.

Expectations are written from the files read at the tags in ggml-org/llama.cpp:
ggml/src/ggml-cuda/CMakeLists.txt at b4717 ("52;61;70;75;80" default) and b4751
("50;61;70;75;80", commit "CUDA: correct the lowest Maxwell supported by CUDA 12"), b6527
(the CUDA-version conditional list), .github/workflows/release.yml at b6469/b6470/b6480
(Windows HIP targets: gfx1151 added, dropped, added back) and b8123 (the first Linux ROCm
archive), and the README's "Supported backends" table (Vulkan -> GPU).
"""

from __future__ import annotations

import json

import pytest

from gpulane.loaders.importers import INPUTS_DIR, ImportFormatError
from gpulane.loaders.importers.llama_cpp_releases import (CMakeBlockError, cuda_build_groups,
                                                          default_cuda_architectures, parse)
from gpulane.model import Layer
from gpulane.queries import run
from gpulane.queries.explain import explain

PINNED = INPUTS_DIR / "llama-cpp-tags.json"

# The default block at b4751 (ggml/src/ggml-cuda/CMakeLists.txt), one statement a line as the scan writes it.
B4751 = """if (NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
if (GGML_NATIVE AND CUDAToolkit_VERSION VERSION_GREATER_EQUAL "11.6" AND CMAKE_VERSION VERSION_GREATER_EQUAL "3.24")
set(CMAKE_CUDA_ARCHITECTURES "native")
elseif(GGML_CUDA_F16 OR GGML_CUDA_DMMV_F16)
set(CMAKE_CUDA_ARCHITECTURES "60;61;70;75;80")
else()
set(CMAKE_CUDA_ARCHITECTURES "50;61;70;75;80")
endif()
endif()"""

# The block at b6527: entries appended under CUDA version conditions.
B6527 = """if (NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
if (GGML_NATIVE AND CUDAToolkit_VERSION VERSION_GREATER_EQUAL "11.6" AND CMAKE_VERSION VERSION_GREATER_EQUAL "3.24")
set(CMAKE_CUDA_ARCHITECTURES "native")
else()
if (CUDAToolkit_VERSION VERSION_LESS "13")
list(APPEND CMAKE_CUDA_ARCHITECTURES 50-virtual 61-virtual 70-virtual)
endif ()
list(APPEND CMAKE_CUDA_ARCHITECTURES 75-virtual 80-virtual 86-real)
if (CUDAToolkit_VERSION VERSION_GREATER_EQUAL "11.8")
list(APPEND CMAKE_CUDA_ARCHITECTURES 89-real)
endif()
endif()
endif()"""


def test_the_default_list_of_a_non_native_build():
    assert default_cuda_architectures(B4751, (12, 4)) == ["50", "61", "70", "75", "80"]
    assert default_cuda_architectures(B6527, (12, 4)) == ["50-virtual", "61-virtual", "70-virtual", "75-virtual",
                                                          "80-virtual", "86-real", "89-real"]
    assert default_cuda_architectures(B6527, (13, 0)) == ["75-virtual", "80-virtual", "86-real", "89-real"]
    assert default_cuda_architectures(B6527, (11, 7)) == ["50-virtual", "61-virtual", "70-virtual", "75-virtual",
                                                          "80-virtual", "86-real"]


def test_entries_are_grouped_by_the_cuda_versions_they_are_built_with():
    groups = {spec: set(entries) for entries, spec in cuda_build_groups(B6527)}
    assert groups == {"<13": {"50-virtual", "61-virtual", "70-virtual"}, None: {"75-virtual", "80-virtual", "86-real"},
                      ">=11.8": {"89-real"}}
    assert cuda_build_groups(B4751) == [(("50", "61", "70", "75", "80"), None)]


def test_an_unknown_cmake_statement_is_refused():
    with pytest.raises(CMakeBlockError, match="not one this reader knows"):
        default_cuda_architectures('if (NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\nforeach(x)\nendif()', (12, 4))


@pytest.mark.parametrize("content, message", [
    ("{}", "non-empty 'releases'"),
    ('{"releases": [{"tag": "v1.0", "commit": "x"}]}', "not a build tag"),
    ('{"releases": [{"tag": "b1", "commit": "x"}]}', "field 'backends'"),
    ('{"releases": [{"tag": "b1", "commit": "x", "backends": ["cuda"], "linux_ci": [], "readme_backends": {}, '
     '"windows_cuda": [], "windows_hip": [], "linux_rocm": [], "cuda_default": "if (NOT DEFINED '
     'CMAKE_CUDA_ARCHITECTURES)\\nfrobnicate()\\nendif()"}]}', "release b1: CUDA default block"),
])
def test_bad_scan_input_is_named(tmp_path, content, message):
    path = tmp_path / "scan.json"
    path.write_text(content)
    with pytest.raises(ImportFormatError, match=message):
        parse(path)


def test_nodes_only_where_the_build_facts_change():
    data = json.loads(PINNED.read_text())
    kb = parse(PINNED)
    by_backend = {}
    for node in kb.nodes:
        by_backend.setdefault(node.backend, set()).add(node.name)
    # Thousands of tags, a few dozen nodes.
    assert data["tags_scanned"] > 5000
    assert len(kb.nodes) < 100
    # The CUDA default list changed at b4717 (sm_80 added) and b4751 (5.2 -> 5.0); the Windows HIP
    # targets at b6469, b6470 and b6480; the newest tag is a node of every backend.
    assert {"llama.cpp b4717 (CUDA)", "llama.cpp b4751 (CUDA)"} <= by_backend["cuda"]
    assert {"llama.cpp b6469 (HIP)", "llama.cpp b6470 (HIP)", "llama.cpp b6480 (HIP)"} <= by_backend["rocm"]
    newest = data["last"]
    assert all(f"llama.cpp {newest} ({label})" in by_backend[b] for b, label in
               (("cuda", "CUDA"), ("rocm", "HIP"), ("vulkan", "Vulkan")))


def _explain(kg, text):
    return explain(kg, run.compile_query(kg, text))


def test_maxwell_5_0_is_built_from_b4751(shipped):
    # b4717's default list starts at 52 (sm_52 code and PTX): a CC 5.0 GPU gets no kernels.
    before = _explain(shipped, 'explain gpu = "GTX 750 Ti", app = "llama.cpp b4717 (CUDA)", os = "Ubuntu 22.04"')
    assert before.verdict == "not_supported"
    b = next(b for b in before.breaks if (b.edge.upper, b.edge.lower) == (Layer.app, Layer.arch))
    assert any(cf.id.startswith("llamacpp-cuda-ships-b4717") for cf in b.facts)
    # b4751's list starts at 50: the app-arch edge holds (the answer may stay unknown on the toolkit-OS
    # edge, which no source here covers for the CUDA releases that still build Maxwell).
    after = _explain(shipped, 'explain gpu = "GTX 750 Ti", app = "llama.cpp b4751 (CUDA)", os = "Ubuntu 22.04"')
    assert after.verdict != "not_supported"
    assert not any((b.edge.upper, b.edge.lower) == (Layer.app, Layer.arch) for b in after.breaks)


def test_gfx1151_on_windows_follows_the_hip_release_targets(shipped):
    def verdict(tag):
        return _explain(shipped, f'explain arch = gfx1151, app = "llama.cpp {tag} (HIP)", os = "Windows 11"').verdict
    # Not in b6470's Windows HIP targets; in b6469's and b6480's (compiled for, with no AMD support
    # statement beside it: never "supported").
    assert verdict("b6470") == "not_supported"
    assert verdict("b6480") not in ("supported", "not_supported")
    assert verdict("b6469") not in ("supported", "not_supported")


def test_radeon_780m_on_windows_through_llama_cpp(shipped):
    plan = run.compile_query(shipped, 'find app where gpu = "Radeon 780M" and os = "Windows 11"')
    found = {a for answer in run.find(shipped, plan).answers for a in answer[0]}
    # Vulkan: the README's "Vulkan -> GPU" row covers AMD GPUs; the newest Vulkan build is listed.
    data = json.loads(PINNED.read_text())
    assert f"llama.cpp-{data['last']}-vulkan" in found
    # HIP: gfx1103 is in no Windows HIP release's targets.
    assert not any(a.startswith("llama.cpp-b") and a.endswith("-hip") for a in found)
