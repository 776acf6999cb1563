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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from gpulane.probe import readers as r

__all__ = ["ToolRun", "Found", "run_tool", "probe_machine", "read_packages", "PACKAGES", "TOOL_TIMEOUT_S",
           "TORCH_TIMEOUT_S"]

TOOL_TIMEOUT_S = 10.0
TORCH_TIMEOUT_S = 60.0
# Distribution names → the name the knowledge base knows the app by.
PACKAGES = {"vllm": "vllm", "flash-attn": "flash-attn", "bitsandbytes": "bitsandbytes", "xformers": "xformers"}


@dataclass
class ToolRun:
    """What one command printed; text is None when it could not be run."""

    argv: list[str]
    text: str | None
    problem: str | None = None  # "not found" | "timed out after Ns" | "exit status N"


Runner = Callable[[list[str], float], ToolRun]


def run_tool(argv: list[str], timeout: float = TOOL_TIMEOUT_S) -> ToolRun:
    """Run a command and capture its stdout; missing tools and failures become a problem string."""
    exe = argv[0] if Path(argv[0]).is_absolute() else shutil.which(argv[0])
    if exe is None:
        return ToolRun(argv, None, "not found")
    try:
        done = subprocess.run([exe, *argv[1:]], capture_output=True, text=True, timeout=timeout,
                              errors="replace", stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return ToolRun(argv, None, f"timed out after {timeout:g}s")
    except OSError as exc:
        return ToolRun(argv, None, f"could not run: {exc.strerror or exc}")
    if done.returncode != 0:
        # nvidia-smi explains a missing kernel module on stdout with a non-zero status: keep the text.
        return ToolRun(argv, (done.stdout or "") + (done.stderr or ""), f"exit status {done.returncode}")
    return ToolRun(argv, done.stdout)


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
            text = os_release.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = None
        os_reading = r.read_os_release(text, kernel)

    torch = r.read_torch_report(call([python, "-c", r.TORCH_SCRIPT], TORCH_TIMEOUT_S))
    if torch.status == r.NOT_FOUND and runs[-1].problem and runs[-1].problem != "not found":
        torch = r.TorchReading(r.UNREADABLE, detail=f"the torch check {runs[-1].problem}")
    return Found(nvidia, amd, os_reading, kernel, torch, read_packages(), platform.python_version(), runs)
