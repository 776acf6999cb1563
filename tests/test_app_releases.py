"""App releases: range facts with selector subjects, names of releases, and the
Ollama release importer regenerated from its pinned input.

Expectations are written from the sources read at the tags (ollama/ollama
CMakePresets.json, Dockerfile and docs/gpu.md at v0.12.3, v0.12.4, v0.12.6, v0.18.0),
not from program output.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpulane.graph.check import check_graph as check
from gpulane.loaders import rdf as rdf_loader
from gpulane.graph import rdf
from gpulane.loaders.importers import INPUTS_DIR, IMPORTERS, ImportFormatError, plan_import
from gpulane.loaders.importers.ollama_releases import cuda_targets, parse as parse_ollama
from gpulane.loaders.importers.vllm_releases import parse as parse_vllm
from gpulane.loaders.importers.bitsandbytes_releases import parse as parse_bnb
from gpulane.api import build_graph
from gpulane.errors import KBInvalidError
from gpulane.model import Fact, Layer, Selector
from gpulane.queries import run
from gpulane.queries.explain import EXPLAIN_BUDGET_S, explain
from gpulane.queries.fix import FIX_BUDGET_S, fix
from tests.conftest import TESTS, write_kb

PINNED = INPUTS_DIR
RELEASE_KINDS = ["ollama-releases", "vllm-releases", "bitsandbytes-releases", "flash-attention-releases",
                 "xformers-releases", "llama-cpp-releases", "comfyui-releases"]


def ids(kg, text, layer=Layer.app):
    return {i for r in kg.names.resolve(text, layer) for i in r.ids}


# ------------------------------------------------------------ selector subjects

RANGE_KB = {
    "kb.yaml": """
sources:
  - {id: s, url: "https://example.org/s", publisher: P, title: T, version: "1", reviewed: 2026-11-30}
nodes:
  - {id: gfx906, layer: arch, name: gfx906, vendor: amd, llvm_target: gfx906, source: s}
  - {id: gfx1100, layer: arch, name: gfx1100, vendor: amd, llvm_target: gfx1100, source: s}
  - {id: app-1.0-rocm, layer: app, name: App 1.0 (ROCm), family: app, version: "1.0", backend: rocm, source: s}
  - {id: app-1.1-rocm, layer: app, name: App 1.1 (ROCm), family: app, version: "1.1", backend: rocm, source: s}
  - {id: app-1.1-vulkan, layer: app, name: App 1.1 (Vulkan), family: app, version: "1.1", backend: vulkan, source: s}
facts:
  - id: new-builds
    relation: ships_kernels_for
    subject: {layer: app, family: app, backend: rocm, version: ">=1.1"}
    object: [gfx1100]
    exhaustive: true
    domain: {layer: arch, vendor: amd}
    source: s
""",
}


def test_a_selector_subject_covers_every_release_it_picks(tmp_path):
    kg = build_graph(write_kb(tmp_path, RANGE_KB))
    cf = kg.fact_by_id["new-builds"]
    assert cf.subjects == frozenset({"app-1.1-rocm"})  # not 1.0, not the Vulkan node
    assert kg.subjects_of(cf.fact) == ["app-1.1-rocm"]
    assert cf.fact.subjects == []  # the written fact names no ids
    assert [p for p in check(kg) if p.severity == "error"] == []


def test_a_selector_subject_that_picks_nothing_is_an_error(tmp_path):
    files = {"kb.yaml": RANGE_KB["kb.yaml"].replace('version: ">=1.1"', 'version: ">=9"')}
    with pytest.raises(KBInvalidError, match="subject selector matches no node"):
        build_graph(write_kb(tmp_path, files))


def test_selector_subjects_survive_the_rdf_round_trip(tmp_path):
    kg = build_graph(write_kb(tmp_path, RANGE_KB))
    again = rdf_loader.parse_rdf(rdf.export(kg, "turtle"), "turtle")
    fact = next(f for f in again.facts if f.id == "new-builds")
    assert fact.subject == Selector(layer=Layer.app, family="app", backend="rocm", version=">=1.1")


def test_fact_subject_may_be_written_as_a_mapping():
    fact = Fact.model_validate({"id": "f", "relation": "supports", "source": "s", "object": "gfx906",
                                "subject": {"layer": "app", "family": "ollama", "version": ">=0.12.4"}})
    assert fact.subject_selector is not None and fact.subjects == []
    assert Fact.model_validate({"id": "g", "relation": "supports", "subject": "a", "object": "b"}).subjects == ["a"]


# ------------------------------------------------------------------------ names

def test_app_name_alone_means_every_release(shipped):
    every = ids(shipped, "Ollama")
    assert {"ollama-cuda", "ollama-rocm", "ollama-vulkan", "ollama-0.12.4-rocm", "ollama-0.1.25-cuda",
            "ollama-0.12.6-vulkan"} <= every


def test_app_release_names(shipped):
    # v0.12.4 builds CUDA and ROCm; the Vulkan preset is first built at v0.12.6.
    assert ids(shipped, "Ollama 0.12.4") == {"ollama-0.12.4-cuda", "ollama-0.12.4-rocm"}
    assert ids(shipped, "Ollama 0.12.6") == {"ollama-0.12.6-cuda", "ollama-0.12.6-rocm", "ollama-0.12.6-vulkan"}
    assert ids(shipped, "ollama@0.5.*") >= {"ollama-0.5.0-rocm", "ollama-0.5.13-cuda"}
    assert not any(i.startswith("ollama-0.6") for i in ids(shipped, "ollama@0.5.*"))
    assert ids(shipped, "Ollama (ROCm)") >= {"ollama-0.1.25-rocm", "ollama-0.32.15-rocm"}
    assert not any(i.endswith("-cuda") for i in ids(shipped, "Ollama (ROCm)"))
    assert ids(shipped, "Ollama 0.12.4 (ROCm)") == {"ollama-0.12.4-rocm"}


def test_app_version_comparison(shipped):
    plan = run.compile_query(shipped, "find app where app = ollama >= 0.12 and arch = gfx1100")
    pinned = plan.problem.pins[Layer.app]
    assert "ollama-0.12.0-rocm" in pinned and "ollama-0.11.11-rocm" not in pinned


# ------------------------------------------------------------------ the importer

@pytest.mark.parametrize("kind", RELEASE_KINDS)
def test_release_files_regenerate_from_the_pinned_inputs(kind):
    imp = IMPORTERS[kind]
    plan = plan_import(kind, PINNED / imp.default_input)
    (file_plan,) = plan.files
    assert file_plan.unchanged, f"{file_plan.path.name} differs from a fresh import; run gpulane kb import {kind}"


def test_ollama_release_count():
    kb = parse_ollama(PINNED / "ollama-tags.json")
    versions = {n.version for n in kb.nodes}
    assert "0.1.25" in versions and "0.32.15" in versions
    assert len(versions) == 199  # every vX.Y.Z tag from v0.1.25 to v0.32.15, no -rc tags


def test_cuda_architecture_entries():
    # CMake: a bare entry builds machine code and PTX, -virtual only PTX, -real only machine code.
    assert set(cuda_targets(["61", "75-virtual", "86-real", "90a"])) == {"sm_61", "compute_61", "compute_75", "sm_86", "sm_90a"}


def test_vllm_release_count():
    kb = parse_vllm(PINNED / "vllm-releases.json")
    versions = {n.version for n in kb.nodes}
    # PyPI's release list from 0.2.0 to 0.33.0: 91 versions with wheels, and 0.2.1 (sdist only).
    assert len(versions) == 92 and {"0.2.0", "0.2.1", "0.2.1.post1", "0.9.0.1", "0.21.0", "0.33.0"} <= versions


def test_vllm_torch_pins_as_the_metadata_states_them():
    kb = parse_vllm(PINNED / "vllm-releases.json")
    pins = {f.subject: f.object.version for f in kb.facts if f.id.endswith("-torch-pin")}
    assert pins["vllm-0.2.1.post1"] == "==2.0.1"
    assert pins["vllm-0.2.2"] == ">=2.1.0"  # a floor, as 0.2.2's Requires-Dist says
    assert pins["vllm-0.5.2"] == "==2.3.1"  # written "torch (==2.3.1)"
    assert pins["vllm-0.6.4"] == "==2.5.1" and pins["vllm-0.6.3.post1"] == "==2.4.0"
    assert pins["vllm-0.6.5"] == "==2.5.1"  # the line carries a platform_machine marker
    assert pins["vllm-0.21.0"] == "==2.11.0"  # from the sdist's PKG-INFO
    linux = {f.subject for f in kb.facts if f.id.endswith("-os-linux")}
    assert "vllm-0.21.0" in linux  # its setup.py: Linux (or macOS, CPU only)
    assert "vllm-0.2.1" not in linux  # nothing in 0.2.1's sdist names a platform


def test_vllm_row_without_wheel_or_sdist_is_named(tmp_path):
    path = tmp_path / "vllm.json"
    path.write_text('{"releases": [{"version": "0.2.1", "requires_dist": ["torch==2.0.1"], "wheel": null}]}')
    with pytest.raises(ImportFormatError, match="release 0.2.1: .*'sdist'"):
        parse_vllm(path)


def test_bitsandbytes_rocm_backend_from_0_48():
    kb = parse_bnb(PINNED / "bitsandbytes-tags.json")
    rocm = sorted((n.version for n in kb.nodes if n.backend == "rocm"), key=lambda v: tuple(map(int, v.split("."))))
    assert rocm == ["0.48.0", "0.48.1", "0.48.2", "0.49.0", "0.49.1", "0.49.2", "0.50.0", "0.50.1"]
    facts = {f.id: f for f in kb.facts}
    # 0.48.x: the release workflow's ROCm job is off; CMakeLists.txt's default HIP targets, not a complete list.
    source = facts["bnb-0.48.0-rocm-source-build"]
    assert source.object.ids == ["gfx90a", "gfx942", "gfx1100"] and not source.exhaustive and source.caveat
    assert "bitsandbytes-0.48.2-rocm" in source.subjects and "bitsandbytes-0.49.0-rocm" not in source.subjects
    # 0.49.0's table: ROCm 6.2.4 builds CDNA gfx90a/gfx942 and RDNA gfx1100/gfx1101; 7.0.2 adds gfx950 and RDNA 3.5/4.
    assert facts["bnb-0.49.0-rocm-linux-6.2.4"].object.ids == ["gfx90a", "gfx942", "gfx1100", "gfx1101"]
    assert "gfx950" in facts["bnb-0.49.0-rocm-linux-7.0.2"].object.ids
    assert facts["bnb-0.49.0-rocm-linux-7.0.2"].when[Layer.toolkit].version == "==7.0.*"
    assert facts["bnb-0.48.0-rocm-toolkit-range"].object.version == ">=6.1,<7.1"  # "ROCm 6.1 - ROCm 7.0"
    assert facts["bnb-0.50.0-rocm-toolkit-range"].object.version == ">=6.3,<=7.14.0"  # "ROCm 6.3 - ROCm 7.14.0"
    # Windows: "not currently supported" up to 0.49.2; 0.50.0 ships Windows ROCm 7.2.1 and 7.14.0 wheels.
    assert "bitsandbytes-0.49.2-rocm" in facts["bnb-0.48.0-rocm-os-windows-unsupported"].subjects
    assert facts["bnb-0.50.0-rocm-windows-7.2.1"].object.ids[:2] == ["gfx1100", "gfx1101"]


@pytest.mark.parametrize("content, message", [
    ("{}", "non-empty 'releases'"),
    ('{"releases": [{"tag": "v0.1.0-rc1", "commit": "x", "era": "gen"}]}', "not a release tag"),
    ('{"releases": [{"commit": "x"}]}', "field 'tag'"),
    ("not json", "not valid JSON"),
])
def test_bad_scan_input_is_named(tmp_path, content, message):
    path = tmp_path / "scan.json"
    path.write_text(content)
    with pytest.raises(ImportFormatError, match=message):
        parse_ollama(path)


def test_the_import_kinds_are_registered():
    assert all(IMPORTERS[k].bundled and IMPORTERS[k].target == f"{k}.yaml" for k in RELEASE_KINDS)


# -------------------------------------------------------------- questions (Ollama)

# Answers must not depend on how busy the machine is: the searches get a budget a busy
# machine cannot cut (as in test_scenarios.py; the CLI keeps its own budgets).
UNHURRIED = 15


def _explain(kg, text):
    return explain(kg, run.compile_query(kg, text), budget_s=EXPLAIN_BUDGET_S * UNHURRIED)


def _fix(kg, plan):
    return fix(kg, plan, budget_s=FIX_BUDGET_S * UNHURRIED)


def test_gfx906_dropped_from_ollama_0_12_4(shipped):
    # v0.12.4's "ROCm 6" preset and docs/gpu.md no longer name gfx906; v0.12.3's do.
    answer = _explain(shipped, 'explain arch = gfx906, toolkit = rocm, app = "Ollama 0.12.4", os = "Ubuntu 22.04"')
    assert answer.verdict == "not_supported"
    b = next(b for b in answer.breaks if (b.edge.upper, b.edge.lower) == (Layer.app, Layer.arch))
    assert {cf.id for cf in b.facts} >= {"ollama-rocm-linux-build-0.12.4"}
    assert answer.path.values[Layer.app] == "ollama-0.12.4-rocm"
    ok = _explain(shipped, 'explain arch = gfx906, toolkit = rocm, app = "Ollama 0.12.3", os = "Ubuntu 22.04"')
    assert ok.verdict == "supported"
    assert ok.path.values[Layer.app] == "ollama-0.12.3-rocm"


def test_fix_moves_ollama_back_to_a_release_that_builds_gfx906(shipped):
    answer = _fix(shipped, run.compile_query(
        shipped, 'fix arch = gfx906, app = "Ollama 0.12.4", os = "Ubuntu 22.04" keep arch'))
    first = answer.fixes[0]
    assert first.changes[Layer.app][0] == "ollama-0.12.3-rocm"
    # With every ROCm release allowed, the newest one that builds gfx906 is the answer.
    rocm = _fix(shipped, run.compile_query(shipped, 'fix arch = gfx906, app = "Ollama (ROCm)", os = "Ubuntu 22.04" keep arch'))
    assert rocm.before.verdict == "supported"
    assert rocm.before.path.values[Layer.app] == "ollama-0.12.3-rocm"
    # Any release at all: the newest release with a supported path is the ROCm one (the Vulkan
    # backend names no GPUs, so it is unknown there, never supported).
    any_release = _fix(shipped, run.compile_query(shipped, 'fix arch = gfx906, app = Ollama, os = "Ubuntu 22.04" keep arch'))
    assert any_release.before.verdict == "supported"
    assert any_release.before.path.values[Layer.app] == "ollama-0.12.3-rocm"


def test_gfx1103_on_windows_through_vulkan(shipped):
    # The Vulkan backend is built from v0.12.6 and its docs (v0.12.11 on) say it reaches further
    # AMD GPUs on Windows and Linux without naming any: the releases are found when unknown
    # edges are allowed, labelled as unknown, and never "not supported".
    plan = run.compile_query(shipped, 'find app where arch = gfx1103 and os = "Windows 11" allow unknown')
    found = {a for answer in run.find(shipped, plan).answers for a in answer[0]}
    assert {"ollama-0.12.6-vulkan", "ollama-0.32.15-vulkan"} <= found
    strict = run.compile_query(shipped, 'find app where arch = gfx1103 and os = "Windows 11"')
    assert not {a for answer in run.find(shipped, strict).answers for a in answer[0] if a.endswith("-vulkan")
                and a.startswith("ollama-0.")}


def test_radeon_780m_on_windows(shipped):
    if not shipped.names.resolve("Radeon 780M", Layer.gpu):
        pytest.skip("Radeon 780M has no GPU node yet (it comes with the catalogue GPU import)")
    plan = run.compile_query(shipped, 'find app where gpu = "Radeon 780M" and os = "Windows 11" allow unknown')
    found = {a for answer in run.find(shipped, plan).answers for a in answer[0]}
    assert "ollama-0.32.15-vulkan" in found


def test_radeon_780m_through_ollama_rocm_on_windows(shipped):
    # docs/gpu.mdx "Windows Support" (v0.2.8 on) lists discrete Radeon RX / PRO cards only; the
    # Windows ROCm build (llama/server/CMakePresets.json rocm_v7_1_windows) compiles gfx1103 in
    # v0.30.0-v0.31.1 and not in v0.31.2. The 780M is in no Windows list: not supported, whatever
    # the build; a listed card with a built target is supported.
    for version in ("0.12.3", "0.30.0", "0.31.2"):
        answer = _explain(shipped, f'explain gpu = "Radeon 780M", app = "Ollama {version} (ROCm)", os = "Windows 11"')
        assert answer.verdict == "not_supported", version
        assert any((b.edge.upper, b.edge.lower) == (Layer.app, Layer.gpu) for b in answer.breaks), version
    built = _explain(shipped, 'explain gpu = "Radeon 780M", app = "Ollama 0.30.0 (ROCm)", os = "Windows 11"')
    assert not any((b.edge.upper, b.edge.lower) == (Layer.app, Layer.arch) for b in built.breaks)
    dropped = _explain(shipped, 'explain gpu = "Radeon 780M", app = "Ollama 0.31.2 (ROCm)", os = "Windows 11"')
    assert any((b.edge.upper, b.edge.lower) == (Layer.app, Layer.arch) for b in dropped.breaks)
    listed = _explain(shipped, 'explain gpu = "RX 7900 XTX", app = "Ollama 0.12.3 (ROCm)", os = "Windows 11"')
    assert listed.verdict == "supported"
    # Only the Vulkan releases (unknown: the docs name no GPU for Vulkan) reach it, with unknowns allowed.
    plan = run.compile_query(shipped, 'find app where gpu = "Radeon 780M" and os = "Windows 11" allow unknown')
    ollama = {a for answer in run.find(shipped, plan).answers for a in answer[0] if a.startswith("ollama-0.")}
    assert "ollama-0.32.15-vulkan" in ollama
    assert not {a for a in ollama if a.endswith("-rocm") and tuple(map(int, a.split("-")[1].split("."))) >= (0, 2, 8)}
