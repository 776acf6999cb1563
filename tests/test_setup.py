"""`gpulane setup`: cited set-up steps for a configuration's best path.

The expected commands below were written from the pages the steps cite, read at the
pinned commits (not copied from program output):
- ROCm quick start, rocm-install-on-linux docs/6.2.2 (bdb054c): Ubuntu tab, with that
  commit's conf.py values amdgpu_version 6.2.2, amdgpu_install_version 6.2.60202-1,
  24.04 noble / 22.04 jammy;
- PyTorch previous versions: v2.6.0 section (commit e08a598), v2.5.1 section (pytorch.org
  page, read through a capture); uv's PyTorch guide (6eeb463): replace pip with `uv pip`;
- vLLM gpu.cuda.inc.md (0487d5c): `uv pip install vllm --torch-backend=...`;
- llama.cpp docs/build.md (00fd518): get the code, HIP build with CMake for Linux;
- Ollama docs/docker.mdx (02725d3): AMD GPU; docs/linux.mdx (002ace8): ROCm v7 driver.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from gpulane.api import build_graph
from gpulane.cli.render_setup import setup_json, setup_markdown, setup_shell
from gpulane.errors import KBLoadError, QueryError
from gpulane.graph.check import check_graph
from gpulane.model import Layer, StepCheck
from gpulane.probe.runner import ToolRun
from gpulane.probe.step_checks import NOT_CHECKED, NOT_SATISFIED, SATISFIED, check_step
from gpulane.queries.run import compile_query
from gpulane.queries.setup import setup

from tests.conftest import MINI, write_kb

ROCM_622_QUICK_START = "https://github.com/ROCm/rocm-install-on-linux/blob/bdb054c4864388c50e7cf0fbcad17888d8bd9fca/docs/install/quick-start.rst"
PYTORCH_V260 = "https://github.com/pytorch/pytorch.github.io/blob/e08a598e6b960b1f87d112290db9a9778a9c8041/_get_started/previous-versions.md"
UV_GUIDE = "https://github.com/astral-sh/uv/blob/6eeb4631b4850cbc509126116730a25824d37020/docs/guides/integration/pytorch.md"


def _quick_start(codename: str) -> str:
    return "\n".join([
        "sudo apt update",
        'sudo apt install "linux-headers-$(uname -r)" "linux-modules-extra-$(uname -r)"',
        "sudo usermod -a -G render,video $LOGNAME",
        f"wget https://repo.radeon.com/amdgpu-install/6.2.2/ubuntu/{codename}/amdgpu-install_6.2.60202-1_all.deb",
        "sudo apt install ./amdgpu-install_6.2.60202-1_all.deb",
        "sudo apt update",
        "sudo apt install amdgpu-dkms rocm",
    ])


def _setup(kg, text: str):
    return setup(kg, compile_query(kg, "setup " + text))


def _by_layer(answer) -> list[tuple[str, str | None]]:
    return [(ps.layer.value, ps.command) for ps in answer.steps]


def _source_url(kg, step) -> str:
    return kg.sources[step.source].url


# -- the five configurations of the issue -----------------------------------------------------------

def test_rx7900xtx_ubuntu2404_torch(shipped):
    answer = _setup(shipped, 'gpu = "RX 7900 XTX", os = "Ubuntu 24.04", framework = torch')
    assert answer.supported and answer.method == "native"
    assert answer.path.values[Layer.framework] == "torch-2.5.1+rocm6.2"
    assert answer.path.values[Layer.toolkit] == "rocm-6.2.2"
    assert _by_layer(answer) == [
        ("driver", _quick_start("noble")),
        ("framework", "pip install torch==2.5.1 torchvision==0.20.1 torchaudio==2.5.1 "
                      "--index-url https://download.pytorch.org/whl/rocm6.2"),
    ]
    driver, framework = answer.steps
    assert _source_url(shipped, driver.step) == ROCM_622_QUICK_START
    assert [l.value for l in driver.step.also_sets_up] == ["toolkit"]
    assert [alt.command for alt in framework.alternatives] == [
        "uv pip install torch==2.5.1 torchvision==0.20.1 torchaudio==2.5.1 "
        "--index-url https://download.pytorch.org/whl/rocm6.2"]
    assert _source_url(shipped, framework.alternatives[0].step) == UV_GUIDE
    assert framework.step.caveat  # the v2.5.1 line was read through a capture of PyTorch's page
    assert answer.gaps == []
    # A newer path exists; gpulane says why it did not choose it.
    assert answer.first_path is not None and answer.first_gaps


def test_rx7900xtx_wsl2_rocm_7_2(shipped):
    # Expected from AMD's ROCDXG README at 021a477 (Prerequisites, Quickstart steps 1-4): Windows
    # driver, WSL and Windows SDK on Windows; ROCm by the Linux quick start; then build and load
    # librocdxg inside WSL. No Linux kernel driver step, and no step borrowed from Ubuntu.
    answer = _setup(shipped, 'gpu = "RX 7900 XTX", os = WSL2, toolkit = "ROCm 7.2.2"')
    assert answer.supported
    assert [ps.step.id for ps in answer.steps] == [
        "rocm-7.2-wsl-windows-prerequisites", "rocm-7.2-wsl-install-rocm", "rocm-7.2-wsl-build-rocdxg"]
    build = answer.steps[-1]
    assert build.command.splitlines()[0] == "git clone https://github.com/ROCm/librocdxg.git"
    assert build.command.splitlines()[-1] == "export HSA_ENABLE_DXG_DETECTION=1"
    assert _source_url(shipped, build.step) == (
        "https://github.com/ROCm/librocdxg/blob/021a477ae052e38dc03c82213480157b20a10735/README.md")
    assert not any("amdgpu-dkms" in (ps.command or "") for ps in answer.steps)
    assert answer.gaps == []


def test_rtx4090_windows11_torch(shipped):
    answer = _setup(shipped, 'gpu = "RTX 4090", os = "Windows 11", framework = torch')
    assert _by_layer(answer) == [
        ("framework", "pip install torch==2.6.0 torchvision==0.21.0 torchaudio==2.6.0 "
                      "--index-url https://download.pytorch.org/whl/cu126")]
    step = answer.steps[0]
    assert _source_url(shipped, step.step) == PYTORCH_V260
    assert step.step.section == "v2.6.0, Wheel, Linux and Windows, CUDA 12.6"
    assert [alt.command for alt in step.alternatives] == [
        "uv pip install torch==2.6.0 torchvision==0.21.0 torchaudio==2.6.0 "
        "--index-url https://download.pytorch.org/whl/cu126"]
    # No source read here says how to install NVIDIA's Windows driver: a gap, not a guess.
    assert [(g.layer.value, g.kind) for g in answer.gaps] == [("driver", "gap")]
    toolkit = next(n for n in answer.notes if n.layer.value == "toolkit")
    assert toolkit.kind == "provided" and toolkit.by == "torch-2.6.0+cu126"


def test_rtx5090_ubuntu2404_vllm(shipped):
    answer = _setup(shipped, 'gpu = "RTX 5090", os = "Ubuntu 24.04", app = vLLM')
    assert answer.path.values[Layer.framework] == "torch-2.13.0+cu132"
    # vLLM's docs: `--torch-backend=<variant>` picks the PyTorch index; the variant is the path's build.
    assert _by_layer(answer) == [("app", "uv pip install vllm --torch-backend=cu132")]
    assert answer.steps[0].step.source == "vllm-docs-gpu-cuda"
    assert [g.layer.value for g in answer.gaps] == ["driver"]
    assert {n.layer.value: n.kind for n in answer.notes} == {"driver": "gap", "toolkit": "provided",
                                                             "framework": "covered"}


def test_w7900_ubuntu2204_llamacpp(shipped):
    answer = _setup(shipped, 'gpu = "Radeon PRO W7900", os = "Ubuntu 22.04", app = llama.cpp')
    assert _by_layer(answer) == [
        ("driver", _quick_start("jammy")),
        ("app", "\n".join([
            "git clone https://github.com/ggml-org/llama.cpp",
            "cd llama.cpp",
            'HIPCXX="$(hipconfig -l)/clang" HIP_PATH="$(hipconfig -R)" \\',
            "    cmake -S . -B build -DGGML_HIP=ON -DGPU_TARGETS=gfx1100 -DCMAKE_BUILD_TYPE=Release \\",
            "    && cmake --build build --config Release -- -j 16",
        ])),
    ]
    assert answer.steps[1].step.source == "llamacpp-build-md"
    assert answer.gaps == []


def test_ollama_container_on_mi300x(shipped):
    answer = _setup(shipped, "gpu = MI300X, app = Ollama using container")
    assert answer.method == "container"
    driver, app = answer.steps
    assert driver.layer.value == "driver" and driver.command is None
    assert "ROCm v7" in driver.step.instruction and driver.step.source == "ollama-docs-linux"
    assert app.command == ("docker run -d --device /dev/kfd --device /dev/dri -v ollama:/root/.ollama "
                           "-p 11434:11434 --name ollama ollama/ollama:rocm")
    assert _source_url(shipped, app.step).endswith("02725d3d64510e335bbb0940196ab22385651bc2/docs/docker.mdx")
    assert {n.layer.value: n.kind for n in answer.notes} == {"toolkit": "bundled", "framework": "not_used"}
    # Without `using container`, the native install script is the app step instead.
    native = _setup(shipped, "gpu = MI300X, app = Ollama")
    assert [ps.command for ps in native.steps if ps.layer.value == "app"] == [
        "curl -fsSL https://ollama.com/install.sh | sh"]


# -- unsupported: no steps, only the explanation and the fixes ---------------------------------------

def test_unsupported_configuration_gets_no_steps_only_explanation_and_fixes(shipped):
    answer = _setup(shipped, 'gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM')
    assert not answer.supported and answer.steps == []
    assert answer.explanation.verdict == "not_supported"
    assert answer.fixes is not None and answer.fixes.fixes
    data = setup_json(shipped, answer)
    assert data["supported"] is False and data["steps"] == []
    assert data["explanation"]["verdict"] == "not_supported" and data["fixes"]["fixes"]
    text = setup_markdown(shipped, answer)
    assert "no set-up steps" in text and "vllm-os-windows-native" in text and "smallest changes" in text
    script = setup_shell(shipped, answer)
    assert all(line.startswith("#") or line == "exit 1" for line in script.splitlines())


# -- shell output: bash -n and shellcheck -------------------------------------------------------------

CONFIGS = ['gpu = "RX 7900 XTX", os = "Ubuntu 24.04", framework = torch',
           'gpu = "RTX 4090", os = "Windows 11", framework = torch',
           'gpu = "RTX 5090", os = "Ubuntu 24.04", app = vLLM',
           'gpu = "Radeon PRO W7900", os = "Ubuntu 22.04", app = llama.cpp',
           "gpu = MI300X, app = Ollama using container",
           'gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM']


@pytest.fixture(scope="module")
def scripts(shipped, tmp_path_factory) -> list[Path]:
    folder = tmp_path_factory.mktemp("scripts")
    paths = []
    for i, config in enumerate(CONFIGS):
        path = folder / f"setup-{i}.sh"
        path.write_text(setup_shell(shipped, _setup(shipped, config)), encoding="utf-8")
        paths.append(path)
    return paths


def test_shell_output_passes_bash_n(scripts):
    for path in scripts:
        done = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, (path.read_text(), done.stderr)


@pytest.mark.skipif(shutil.which("shellcheck") is None,
                    reason="shellcheck is not installed (Debian package 'shellcheck'; .ci/run installs it)")
def test_shell_output_passes_shellcheck(scripts):
    for path in scripts:
        done = subprocess.run(["shellcheck", "--shell=bash", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, (path.read_text(), done.stdout)


def test_shell_output_keeps_commands_and_cites_sources(shipped, scripts):
    text = scripts[0].read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert _quick_start("noble") in text
    assert f"# {ROCM_622_QUICK_START}" in text
    assert "# shellcheck disable=SC2086" in text  # the vendor's unquoted $LOGNAME, printed as written


# -- the language, the CLI and the record --------------------------------------------------------------

def test_setup_statement_parses_using_and_rejects_an_unknown_method(shipped):
    plan = compile_query(shipped, 'setup gpu = MI300X, app = Ollama using docker')
    assert plan.statement.verb == "setup" and plan.statement.using[0] == "docker"
    with pytest.raises(QueryError) as err:
        _setup(shipped, "gpu = MI300X, app = Ollama using dockr")
    assert "unknown set-up method 'dockr'" in str(err.value) and "docker" in (err.value.hint or "")
    with pytest.raises(QueryError):
        compile_query(shipped, "setup")


def test_cli_setup_json_and_query_statement(capsys, monkeypatch):
    from gpulane.cli.app import app
    from typer.testing import CliRunner

    runner = CliRunner()
    result = runner.invoke(app, ["setup", "gpu", "=", "RTX 4090,", "os", "=", "Windows 11,", "framework", "=",
                                 "torch", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["supported"] and data["steps"][0]["source"]["url"] == PYTORCH_V260
    result = runner.invoke(app, ["query", 'setup gpu = MI300X, app = Ollama using container', "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["method"] == "container"
    result = runner.invoke(app, ["setup", "gpu", "=", "MI300X,", "app", "=", "Ollama", "--container",
                                 "--format", "shell"])
    assert "ollama/ollama:rocm" in result.output


def test_record_gains_a_setup_section(shipped):
    from gpulane.cli.render_record import record_markdown
    from gpulane.cli.record import record_for

    record = record_for(shipped, 'gpu = "Radeon PRO W7900", os = "Ubuntu 22.04", app = llama.cpp')
    assert [e.layer for e in record.setup] == ["driver", "app"]
    assert record.setup[0].url == ROCM_622_QUICK_START
    text = record_markdown(record)
    assert "## Set-up" in text and "   sudo apt install amdgpu-dkms rocm" in text
    blocked = record_for(shipped, 'gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM')
    assert blocked.setup == [] and "No set-up steps" in record_markdown(blocked)


# -- steps as data: schema, checks, selection ----------------------------------------------------------

STEPS = """
steps:
  - id: rocm-driver
    layer: driver
    also_sets_up: [toolkit]
    applies_to: {os: ubuntu-24.04, toolkit: rocm-6.2.0}
    command: sudo apt install amdgpu-dkms rocm
    source: test
  - id: appx-build
    layer: app
    applies_to: {app: app-x}
    command: make GPU={arch.llvm_target} TORCH={framework.public} VARIANT={framework.local}
    source: test
  - id: appx-build-alt
    layer: app
    alternative_to: appx-build
    applies_to: {app: app-x}
    command: ninja
    source: test
  - id: appy-install
    layer: app
    applies_to: {app: app-y}
    command: install-appy
    source: test
"""


@pytest.fixture()
def mini_steps(tmp_path):
    folder = tmp_path / "kb"
    folder.mkdir()
    shutil.copy(MINI / "mini.yaml", folder / "mini.yaml")
    write_kb(folder, {"steps.yaml": STEPS})
    return build_graph(folder)


def test_steps_select_by_path_fill_placeholders_and_leave_gaps(mini_steps):
    answer = _setup(mini_steps, 'gpu = "Alpha 100", os = "Ubuntu 24.04", app = AppX')
    assert _by_layer(answer) == [("driver", "sudo apt install amdgpu-dkms rocm"),
                                 ("app", "make GPU=gfx1100 TORCH=2.5.1 VARIANT=rocm6.2")]
    assert [alt.command for alt in answer.steps[1].alternatives] == ["ninja"]
    assert [(g.layer.value, g.node) for g in answer.gaps] == [("framework", "torch-2.5.1+rocm6.2")]


def test_workaround_settings_only_under_allow_workaround(mini_steps):
    blocked = _setup(mini_steps, 'gpu = "Beta 200", os = "Ubuntu 24.04", app = AppY')
    assert not blocked.supported and blocked.steps == []
    answer = _setup(mini_steps, 'gpu = "Beta 200", os = "Ubuntu 24.04", app = AppY allow workaround')
    assert [(w.fact.id, w.setting) for w in answer.workarounds] == [("y-override", "HSA_OVERRIDE_GFX_VERSION=10.3.0")]
    script = setup_shell(mini_steps, answer)
    assert "# WORKAROUND (unofficial), from fact y-override" in script
    assert "export HSA_OVERRIDE_GFX_VERSION=10.3.0" in script


def test_bad_steps_are_refused_with_file_line_and_field(tmp_path):
    folder = write_kb(tmp_path / "bad", {"a.yaml": """
sources:
  - {id: s, url: https://example.org, publisher: p, title: t, version: "1", reviewed: 2026-11-30}
steps:
  - id: nothing-to-do
    layer: app
    source: s
"""})
    with pytest.raises(KBLoadError) as err:
        build_graph(folder)
    assert "step 'nothing-to-do'" in str(err.value.problems[0]) and "command" in str(err.value.problems[0])


def test_kb_check_reports_step_references(tmp_path):
    folder = tmp_path / "kb"
    folder.mkdir()
    shutil.copy(MINI / "mini.yaml", folder / "mini.yaml")
    write_kb(folder, {"steps.yaml": """
steps:
  - {id: s1, layer: app, applies_to: {app: no-such-app}, command: x, source: test}
  - {id: s2, layer: app, command: "run {gpu.vram_gb}", source: nowhere}
  - {id: s3, layer: app, command: y, source: test, alternative_to: missing}
  - {id: s1, layer: app, command: z, source: test}
"""})
    problems = [str(p) for p in check_graph(build_graph(folder, strict=False)) if p.severity == "error"]
    text = "\n".join(problems)
    assert "step 's1': applies_to.app 'no-such-app' is not a node" in text
    assert "step 's2': source 'nowhere' is not defined" in text
    assert "step 's2': placeholder '{gpu.vram_gb}'" in text
    assert "step 's3': alternative_to 'missing' is not a step" in text
    assert "step 's1': duplicate id" in text


def test_the_shipped_steps_pass_kb_check(shipped):
    assert [str(p) for p in check_graph(shipped) if p.severity == "error" and "step" in p.message] == []
    assert len(shipped.kb.steps) >= 10


def test_checks_are_read_only_probes(tmp_path):
    def runner(outputs):
        def run(argv, timeout):
            return outputs.get(argv[0], ToolRun(argv, None, "not found"))
        return run

    assert check_step(None)[0] == NOT_CHECKED
    assert check_step(StepCheck(probe="nvidia-smi"), runner({}))[0] == NOT_SATISFIED
    smi = ToolRun(["nvidia-smi"], "NVIDIA GeForce RTX 5090, 595.71.05, 12.0\n")
    state, detail = check_step(StepCheck(probe="nvidia-smi"), runner({"nvidia-smi": smi}))
    assert state == SATISFIED and "595.71.05" in detail
    seen = []

    def python_runner(argv, timeout):
        seen.append(argv)
        return ToolRun(argv, "2.6.0+cu126\n")

    check = StepCheck(probe="python", module="torch", version="2.6.0+cu126")
    assert check_step(check, python_runner, python="/usr/bin/python3")[0] == SATISFIED
    assert seen[0][:2] == ["/usr/bin/python3", "-I"] and seen[0][-1] == "torch"
    other = StepCheck(probe="python", module="torch", version="2.5.1+rocm6.2")
    state, detail = check_step(other, python_runner, python="/usr/bin/python3")
    assert state == NOT_SATISFIED and "2.6.0+cu126 is installed" in detail
    assert check_step(StepCheck(probe="command", program="sh"))[0] == SATISFIED
    assert check_step(StepCheck(probe="command", program="no-such-program-gpulane"))[0] == NOT_SATISFIED
