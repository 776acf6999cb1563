"""Read-only checks of set-up steps: is this step already satisfied on this machine?

Each check reads, never changes: `nvidia-smi` and `rocminfo` through the probe readers,
a program's presence on PATH, or a Python module imported by an isolated interpreter
(`python -I`; run_tool starts it in an empty temporary folder, so the current directory
cannot shadow the installed package).
"""

from __future__ import annotations

import shutil
import sys

from gpulane.model import StepCheck
from gpulane.probe import readers as r
from gpulane.probe.runner import TORCH_TIMEOUT_S, Runner, run_tool

__all__ = ["check_step", "SATISFIED", "NOT_SATISFIED", "NOT_CHECKED"]

SATISFIED = "satisfied"
NOT_SATISFIED = "not satisfied"
NOT_CHECKED = "not checked"

_VERSION_SCRIPT = "import importlib, sys; m = importlib.import_module(sys.argv[1]); print(getattr(m, '__version__', ''))"


def check_step(check: StepCheck | None, run: Runner = run_tool, python: str = sys.executable) -> tuple[str, str]:
    """(state, detail) for one step's check; steps without one are "not checked"."""
    if check is None:
        return NOT_CHECKED, "no read-only check is known for this step"
    if check.probe == "nvidia-smi":
        reading = r.read_nvidia_smi_query(run(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap",
                                              "--format=csv,noheader"], 10.0).text)
        if reading.status == r.OK and reading.gpus:
            return SATISFIED, f"nvidia-smi: driver {reading.gpus[0].driver_version or '?'} ({reading.gpus[0].name})"
        return NOT_SATISFIED, f"nvidia-smi: {reading.detail or reading.status}"
    if check.probe == "rocminfo":
        reading = r.read_rocminfo(run(["rocminfo"], 10.0).text)
        if reading.status == r.OK and reading.agents:
            return SATISFIED, "rocminfo lists " + ", ".join(a.gfx or "?" for a in reading.agents)
        return NOT_SATISFIED, f"rocminfo: {reading.detail or reading.status}"
    if check.probe == "command":
        found = shutil.which(check.program or "")
        return (SATISFIED, f"{check.program} is at {found}") if found else (NOT_SATISFIED, f"{check.program} is not on PATH")
    return _python_check(check, run, python)


def _python_check(check: StepCheck, run: Runner, python: str) -> tuple[str, str]:
    # -I: isolated mode, so PYTHON* variables and the current folder cannot shadow the installed
    # package; run_tool also starts the interpreter in an empty folder.
    result = run([python, "-I", "-c", _VERSION_SCRIPT, check.module or ""], TORCH_TIMEOUT_S)
    if result.text is None or result.problem:
        return NOT_SATISFIED, f"import {check.module}: {result.problem or 'failed'}"
    version = result.text.strip().splitlines()[-1] if result.text.strip() else ""
    if check.version and version != check.version:
        return NOT_SATISFIED, f"{check.module} {version or '(no version)'} is installed, the step installs {check.version}"
    return SATISFIED, f"{check.module} {version}".strip()
