import json
import sys
from pathlib import Path

from gpulane.cli.probe_commands import probe_command
from gpulane.probe import configuration_from, probe_machine
from gpulane.probe.runner import ToolRun, read_packages, run_tool

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "probe"


def fake_runner(outputs: dict[str, str | None]):
    """A runner that answers from recorded files; tools not listed are 'not found'."""
    def run(argv, timeout):
        key = "python" if argv[0] == sys.executable else " ".join(argv)
        name = outputs.get(key)
        if name is None:
            return ToolRun(argv, None, "not found")
        return ToolRun(argv, (FIXTURES / name).read_text(encoding="utf-8"))
    return run


NVIDIA = {"nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader": "nvidia-smi-query-4090.csv",
          "nvidia-smi": "nvidia-smi-4090.txt", "uname -r": None, "python": "torch-report-cu124.json"}
AMD = {"rocminfo": "rocminfo-gfx1100.txt", "amd-smi static": "amd-smi-static-7900xtx.txt"}


def _found(outputs, os_release="os-release-ubuntu-24.04"):
    return probe_machine(fake_runner(outputs), FIXTURES / os_release)


def test_nvidia_machine_configuration(kg):
    cfg = configuration_from(kg, _found(NVIDIA))
    assert cfg.has_gpu
    assert cfg.statement() == ('gpu = "GeForce RTX 4090", os = "Ubuntu 24.04", driver = 550.54.14, '
                               'framework = "torch 2.5.1+cu124"')


def test_amd_machine_configuration_notes_the_unused_driver(kg):
    cfg = configuration_from(kg, _found(AMD))
    assert cfg.statement() == 'gpu = "Radeon RX 7900 XTX", os = "Ubuntu 24.04"'
    assert any("amdgpu driver 6.10.5" in n for n in cfg.notes)


def test_unresolved_gpu_falls_back_to_its_architecture(kg, tmp_path):
    (tmp_path / "q.csv").write_text("NVIDIA Imaginary 9999, 580.65.06, 8.9\n")
    run = fake_runner({})

    def runner(argv, timeout):
        if argv[0] == "nvidia-smi" and len(argv) > 1:
            return ToolRun(argv, (tmp_path / "q.csv").read_text())
        return run(argv, timeout)
    cfg = configuration_from(kg, probe_machine(runner, FIXTURES / "os-release-ubuntu-24.04"))
    assert 'arch = "sm_89' in cfg.statement()
    assert any('GPU "NVIDIA Imaginary 9999" is not placed' in n for n in cfg.notes)


def test_unlabelled_torch_is_read_from_its_cuda_version(kg):
    cfg = configuration_from(kg, _found({"python": "torch-report-unlabelled.json"}))
    assert 'framework = "torch 2.8.0+cu128"' in cfg.statement()
    assert any("read as torch 2.8.0+cu128" in n for n in cfg.notes)


def test_no_gpu_still_reports_os_and_python(kg, capsys):
    probe_command(False, kg=kg, found=_found({"python": "torch-report-crash.txt"}, "os-release-debian-12"))
    out = capsys.readouterr().out
    assert "no GPU found on this machine" in out
    assert "OS: Debian 12" in out
    assert "torch: unreadable (the torch report was not JSON)" in out
    # No GPU, no invented example GPU: the probe says what to ask instead.
    assert "configuration:" not in out
    assert ('nothing to explain without a GPU; to see which GPUs have supported paths here: '
            'gpulane find gpu where os = "Debian 12"') in out


def test_probe_json_shape(kg, capsys):
    probe_command(True, kg=kg, found=_found(NVIDIA))
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"configuration", "found", "explanation"}
    assert data["configuration"]["gpu"] == {"found": "NVIDIA GeForce RTX 4090", "resolved": ["geforce-rtx-4090"]}
    assert data["found"]["nvidia"]["cuda_version"] == "12.4"
    assert data["explanation"]["verdict"] == "supported"


def test_wsl_os_is_reported_not_pinned(kg, tmp_path):
    outputs = dict(AMD)
    outputs["uname -r"] = "kernel"
    (tmp_path / "kernel").write_text("5.15.167.4-microsoft-standard-WSL2\n")

    def runner(argv, timeout):
        if argv == ["uname", "-r"]:
            return ToolRun(argv, (tmp_path / "kernel").read_text())
        return fake_runner(AMD)(argv, timeout)
    cfg = configuration_from(kg, probe_machine(runner, FIXTURES / "os-release-ubuntu-24.04"))
    assert "os =" not in cfg.statement()
    assert any("WSL2" in n for n in cfg.notes)


def test_run_tool_missing_and_timeout():
    assert run_tool(["gpulane-no-such-tool-xyz"]).problem == "not found"
    slow = run_tool([sys.executable, "-c", "import time; time.sleep(5)"], timeout=0.5)
    assert slow.text is None and slow.problem.startswith("timed out")


def test_read_packages_tolerates_missing_and_broken():
    import importlib.metadata

    def lookup(name):
        if name == "vllm":
            return "0.9.1"
        if name == "xformers":
            raise ValueError("broken metadata")
        raise importlib.metadata.PackageNotFoundError(name)
    assert read_packages(lookup=lookup) == {"vllm": "0.9.1", "flash-attn": None, "bitsandbytes": None,
                                            "xformers": None}


def test_torch_check_never_imports_from_the_current_folder(tmp_path, monkeypatch):
    """Issue 17 item 3: a torch.py in the working folder is not what the torch check imports."""
    marker = tmp_path / "pwned"
    (tmp_path / "torch.py").write_text(f"open({str(marker)!r}, 'w').close()\n__version__ = '9.9.9'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))

    def only_python(argv, timeout):
        return run_tool(argv, timeout) if argv[0] == sys.executable else ToolRun(argv, None, "not found")

    found = probe_machine(only_python, FIXTURES / "os-release-ubuntu-24.04")
    assert not marker.exists()
    assert found.torch.version != "9.9.9"


def test_tool_output_is_read_up_to_a_cap(tmp_path):
    """Issue 17 item 5: a tool printing without end is stopped, not read into memory."""
    import time

    start = time.monotonic()
    flood = run_tool([sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('x' * 65536)"],
                     timeout=30, max_bytes=1 << 20)
    assert flood.text is None and "more than" in flood.problem
    assert time.monotonic() - start < 10
    ok = run_tool([sys.executable, "-c", "print('hello')"])
    assert ok.text == "hello\n" and ok.problem is None
    failed = run_tool([sys.executable, "-c", "import sys; print('why'); sys.exit(3)"])
    assert failed.problem == "exit status 3" and "why" in failed.text
