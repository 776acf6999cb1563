"""The thin I/O layer: call each tool with a timeout, hand its text to a reader.

A tool that is missing, times out or fails is "not found" or "unreadable",
never an exception.
"""

from __future__ import annotations

import importlib.metadata
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from gpulane.probe import readers as r
from gpulane.textsafe import visible

__all__ = ["ToolRun", "Found", "run_tool", "probe_machine", "read_packages", "PACKAGES", "TOOL_TIMEOUT_S",
           "TORCH_TIMEOUT_S", "MAX_OUTPUT_BYTES"]

TOOL_TIMEOUT_S = 10.0
TORCH_TIMEOUT_S = 60.0
# Real tool output is a few kilobytes (rocminfo on an 8-GPU machine: ~100 KB).
MAX_OUTPUT_BYTES = 1024 * 1024
# Distribution names → the name the knowledge base knows the app by.
PACKAGES = {"vllm": "vllm", "flash-attn": "flash-attn", "bitsandbytes": "bitsandbytes", "xformers": "xformers"}


@dataclass
class ToolRun:
    """What one command printed; text is None when it could not be run."""

    argv: list[str]
    text: str | None
    problem: str | None = None  # "not found" | "timed out after Ns" | "exit status N"


Runner = Callable[[list[str], float], ToolRun]


def run_tool(argv: list[str], timeout: float = TOOL_TIMEOUT_S, max_bytes: int = MAX_OUTPUT_BYTES) -> ToolRun:
    """Run a command and capture its stdout; missing tools and failures become a problem string.

    The command runs in a fresh empty folder (never the user's current one, where a planted
    ``torch.py`` or ``nvidia-smi`` could be), and at most ``max_bytes`` of its output are read: a tool
    that prints more is stopped and its output refused.
    """
    exe = argv[0] if Path(argv[0]).is_absolute() else shutil.which(argv[0])
    if exe is None:
        return ToolRun(argv, None, "not found")
    with tempfile.TemporaryDirectory(prefix="gpulane-probe-") as neutral:
        try:
            proc = subprocess.Popen([exe, *argv[1:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    stdin=subprocess.DEVNULL, cwd=neutral)
        except OSError as exc:
            return ToolRun(argv, None, f"could not run: {exc.strerror or exc}")
        out, err, too_much, timed_out = _collect(proc, timeout, max_bytes)
    if timed_out:
        return ToolRun(argv, None, f"timed out after {timeout:g}s")
    if too_much:
        return ToolRun(argv, None, f"printed more than {max_bytes} bytes")
    stdout = _shown(out)
    if proc.returncode != 0:
        # nvidia-smi explains a missing kernel module on stdout with a non-zero status: keep the text.
        return ToolRun(argv, stdout + _shown(err), f"exit status {proc.returncode}")
    return ToolRun(argv, stdout)


def _shown(data: bytes) -> str:
    """Tool output as text with its control characters (an ESC sequence) made visible escapes."""
    return visible(data.decode("utf-8", errors="replace").replace("\r\n", "\n"))


def _collect(proc: subprocess.Popen, timeout: float, max_bytes: int) -> tuple[bytes, bytes, bool, bool]:
    """Read both pipes into buffers of at most max_bytes together; stop the tool past that or its time."""
    buffers = {"out": bytearray(), "err": bytearray()}
    over = threading.Event()

    def drain(name: str, pipe) -> None:
        buf = buffers[name]
        while chunk := pipe.read1(65536):
            if len(buffers["out"]) + len(buffers["err"]) + len(chunk) > max_bytes:
                over.set()
                _stop(proc)
                return
            buf.extend(chunk)

    readers = [threading.Thread(target=drain, args=(name, pipe), daemon=True)
               for name, pipe in (("out", proc.stdout), ("err", proc.stderr))]
    for t in readers:
        t.start()
    timed_out = False
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _stop(proc)
        proc.wait()
    for t in readers:
        t.join(1.0)  # a child the tool left behind may hold the pipe open: do not wait on it
    for pipe in (proc.stdout, proc.stderr):
        try:
            pipe.close()
        except OSError:
            pass
    return bytes(buffers["out"]), bytes(buffers["err"]), over.is_set(), timed_out


def _stop(proc: subprocess.Popen) -> None:
    try:
        proc.kill()
    except OSError:
        pass


@dataclass
class Found:
    """Everything read from this machine, each part with its reading status."""

    nvidia: r.NvidiaReading
    amd: r.AmdReading
    os: r.OsReading
    kernel: r.KernelReading
    torch: r.TorchReading
    packages: dict[str, str | None] = field(default_factory=dict)
    python: str = ""
    runs: list[ToolRun] = field(default_factory=list)

    @property
    def has_gpu(self) -> bool:
        return bool((self.nvidia.status == r.OK and self.nvidia.gpus) or
                    (self.amd.status == r.OK and self.amd.agents))


def read_packages(names: dict[str, str] = PACKAGES,
                  lookup: Callable[[str], str] = importlib.metadata.version) -> dict[str, str | None]:
    """Installed versions of the packages gpulane knows about (None when not installed)."""
    out: dict[str, str | None] = {}
    for dist in names:
        try:
            out[dist] = lookup(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
        except Exception:  # a broken dist-info must not stop the probe
            out[dist] = None
    return out


def probe_machine(run: Runner = run_tool, os_release: Path = Path("/etc/os-release"),
                  python: str = sys.executable) -> Found:
    """Read this machine: NVIDIA and AMD tools, the OS and kernel, and the Python stack."""
    runs: list[ToolRun] = []

    def call(argv: list[str], timeout: float = TOOL_TIMEOUT_S) -> str | None:
        result = run(argv, timeout)
        runs.append(result)
        if result.problem == "not found" or result.text is None:
            return None
        return result.text

    query = call(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"])
    table = call(["nvidia-smi"])
    nvidia = r.merge_nvidia(r.read_nvidia_smi_query(query), r.read_nvidia_smi_table(table))
    amd = r.merge_amd(r.read_rocminfo(call(["rocminfo"])), r.read_amd_smi_static(call(["amd-smi", "static"])))

    if platform.system() == "Windows":
        kernel = r.KernelReading(r.NOT_FOUND)
        os_reading = r.read_windows(platform.release(), platform.version())
    else:
        kernel = r.read_kernel(call(["uname", "-r"]))
        try:
            with open(os_release, "rb") as fh:
                text = _shown(fh.read(r.MAX_OS_RELEASE_BYTES))
        except OSError:
            text = None
        os_reading = r.read_os_release(text, kernel)

    # -I: isolated mode, so neither the current folder (a stray torch.py) nor PYTHON* variables
    # decide what "import torch" loads; run_tool also runs it from an empty folder.
    torch = r.read_torch_report(call([python, "-I", "-c", r.TORCH_SCRIPT], TORCH_TIMEOUT_S))
    if torch.status == r.NOT_FOUND and runs[-1].problem and runs[-1].problem != "not found":
        torch = r.TorchReading(r.UNREADABLE, detail=f"the torch check {runs[-1].problem}")
    return Found(nvidia, amd, os_reading, kernel, torch, read_packages(), platform.python_version(), runs)
