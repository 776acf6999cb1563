"""Readers: recorded tool output → dataclasses. Pure functions, no I/O.

Each reader takes the text a tool printed (or None when the tool was not
found) and returns a reading whose ``status`` is ``ok``, ``not_found`` or
``unreadable``; a reader never raises on bad input.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

__all__ = ["NvidiaGpu", "NvidiaReading", "AmdAgent", "AmdReading", "OsReading", "KernelReading",
           "TorchReading", "read_nvidia_smi_query", "read_nvidia_smi_table", "merge_nvidia",
           "read_rocminfo", "read_amd_smi_static", "merge_amd", "read_os_release", "read_windows",
           "read_kernel", "read_torch_report", "OK", "NOT_FOUND", "UNREADABLE"]

OK, NOT_FOUND, UNREADABLE = "ok", "not_found", "unreadable"
# /etc/os-release is a few hundred bytes; more is read no further.
MAX_OS_RELEASE_BYTES = 64 * 1024


@dataclass
class NvidiaGpu:
    """One NVIDIA GPU as nvidia-smi names it."""

    name: str
    driver_version: str | None = None
    compute_cap: str | None = None  # "8.9"; None when the driver predates the field
    truncated: bool = False  # the plain table cuts long names with "..."


@dataclass
class NvidiaReading:
    status: str
    gpus: list[NvidiaGpu] = field(default_factory=list)
    driver_version: str | None = None
    cuda_version: str | None = None  # the newest CUDA the driver supports (plain table header)
    detail: str | None = None


@dataclass
class AmdAgent:
    """One AMD GPU agent: its LLVM target and marketing name."""

    gfx: str | None
    marketing_name: str | None = None
    driver_version: str | None = None


@dataclass
class AmdReading:
    status: str
    agents: list[AmdAgent] = field(default_factory=list)
    driver_version: str | None = None
    detail: str | None = None


@dataclass
class OsReading:
    status: str
    id: str | None = None
    version_id: str | None = None
    name: str | None = None
    pretty_name: str | None = None
    platform: str | None = None  # linux | windows | wsl2
    detail: str | None = None

    @property
    def label(self) -> str | None:
        """The release as the knowledge base names it: 'Ubuntu 24.04', 'RHEL 9.4', 'Windows 11'."""
        if self.status != OK:
            return None
        if self.platform == "windows":
            return self.name
        family = _OS_FAMILY.get((self.id or "").lower())
        if family and self.version_id:
            if family == "SLES":
                major, _, sp = self.version_id.partition(".")
                return f"SLES {major} SP{sp}" if sp else f"SLES {major}"
            version = self.version_id.split(".")[0] if family in ("Rocky Linux", "Oracle Linux", "Debian") \
                else self.version_id
            return f"{family} {version}"
        if self.name and self.version_id:
            return f"{self.name} {self.version_id}"
        return self.pretty_name or self.name


# os-release ID → the family word the knowledge base's OS names start with.
_OS_FAMILY = {"ubuntu": "Ubuntu", "debian": "Debian", "rhel": "RHEL", "sles": "SLES", "sled": "SLES",
              "ol": "Oracle Linux", "rocky": "Rocky Linux", "centos": "CentOS", "azurelinux": "Azure Linux",
              "fedora": "Fedora", "opensuse-leap": "openSUSE Leap", "arch": "Arch Linux"}


@dataclass
class KernelReading:
    status: str
    release: str | None = None  # as uname -r prints it: "6.8.0-45-generic"
    version: str | None = None  # "6.8.0"
    wsl: bool = False
    detail: str | None = None


@dataclass
class TorchReading:
    """What the torch in this Python environment says about itself."""

    status: str
    version: str | None = None
    cuda: str | None = None
    hip: str | None = None
    arch_list: list[str] = field(default_factory=list)
    device_available: bool | None = None
    device_names: list[str] = field(default_factory=list)
    detail: str | None = None


def _missing(cls, text):
    return cls(NOT_FOUND) if text is None else None


# -- NVIDIA ---------------------------------------------------------------------------------------

_VERSION = re.compile(r"^\d+(\.\d+)+$")


def read_nvidia_smi_query(text: str | None) -> NvidiaReading:
    """`nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader` output."""
    if text is None:
        return NvidiaReading(NOT_FOUND)
    gpus = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 2 or not parts[0] or not _VERSION.match(parts[1]):
            return NvidiaReading(UNREADABLE, detail=f"unexpected line: {line[:80]}")
        cap = parts[2] if len(parts) > 2 and re.fullmatch(r"\d+\.\d+", parts[2]) else None
        gpus.append(NvidiaGpu(parts[0], parts[1], cap))
    if not gpus:
        return NvidiaReading(UNREADABLE, detail="no GPU lines")
    return NvidiaReading(OK, gpus, gpus[0].driver_version)


# Possessive runs (*+, ++) and a line-bounded lazy gap keep these linear on hostile output.
_HEADER = re.compile(r"Driver Version:\s*+([\d.]++)(?:[^\n]*?CUDA Version:\s*+([\d.]++))?")


def _table_row(line: str) -> str | None:
    """The GPU name of a plain-table row such as '|   0  NVIDIA GeForce RTX 4090   Off |  ...', else None.

    Split into words rather than matched with a regular expression: a lazy name group followed by
    a run of spaces backtracks quadratically on a long line.
    """
    if not line.startswith("|"):
        return None
    cell = line[1:].split("|", 1)
    if len(cell) < 2 or not cell[0][:1].isspace() or not cell[0][-1:].isspace():
        return None
    words = cell[0].split()
    if len(words) < 3 or not words[0].isdecimal() or words[-1] not in ("On", "Off"):
        return None
    body = cell[0].strip()
    return body[len(words[0]):len(body) - len(words[-1])].strip()


def read_nvidia_smi_table(text: str | None) -> NvidiaReading:
    """Plain `nvidia-smi` output: the header's driver and CUDA versions, one row per GPU."""
    if text is None:
        return NvidiaReading(NOT_FOUND)
    header = _HEADER.search(text)
    if not header:
        # nvidia-smi prints this (exit status 9) when the kernel module is not loaded.
        if "couldn't communicate with the nvidia driver" in text.lower():
            return NvidiaReading(UNREADABLE, detail="nvidia-smi cannot reach the NVIDIA driver")
        return NvidiaReading(UNREADABLE, detail="no 'Driver Version' in the nvidia-smi header")
    driver, cuda = header.group(1), header.group(2)
    gpus = []
    for line in text.splitlines():
        name = _table_row(line)
        if name:
            truncated = name.endswith("...")
            gpus.append(NvidiaGpu(name.rstrip(". ").strip() if truncated else name, driver, None, truncated))
    return NvidiaReading(OK, gpus, driver, cuda)


def merge_nvidia(query: NvidiaReading, table: NvidiaReading) -> NvidiaReading:
    """The query gives exact names and compute capability; the table adds the CUDA version."""
    if query.status == OK:
        return NvidiaReading(OK, query.gpus, query.driver_version,
                             table.cuda_version if table.status == OK else None)
    if table.status == OK:
        return table
    if NOT_FOUND in (query.status, table.status) and UNREADABLE not in (query.status, table.status):
        return NvidiaReading(NOT_FOUND)
    return NvidiaReading(UNREADABLE, detail=query.detail or table.detail)


# -- AMD ------------------------------------------------------------------------------------------

_GFX = re.compile(r"^gfx[0-9a-f]{3,4}$")


def read_rocminfo(text: str | None) -> AmdReading:
    """`rocminfo` output: the GPU agents (Device Type: GPU) with Name gfxNNNN and Marketing Name."""
    if text is None:
        return AmdReading(NOT_FOUND)
    if "Agent" not in text:
        first = next((l.strip() for l in text.splitlines() if l.strip()), "")
        return AmdReading(UNREADABLE, detail=f"no HSA agents listed{': ' + first[:80] if first else ''}")
    agents = []
    for block in _agent_blocks(text.splitlines()):
        fields: dict[str, str] = {}
        for line in block:
            key, sep, value = line.strip().partition(":")
            # Only the agent's own top-level fields (two-space indent); ISA names come later.
            if sep and line.startswith("  ") and not line.startswith("    ") and key not in fields:
                fields[key.strip()] = value.strip()
        if fields.get("Device Type", "").upper() != "GPU":
            continue
        gfx = fields.get("Name", "").lower()
        agents.append(AmdAgent(gfx if _GFX.match(gfx) else None, fields.get("Marketing Name") or None))
    return AmdReading(OK, agents)


def _is_stars(line: str) -> bool:
    stripped = line.rstrip()
    return len(stripped) >= 3 and stripped.strip("*") == ""


def _agent_blocks(lines: list[str]) -> list[list[str]]:
    """The lines of each agent: what follows a '*****' / 'Agent N' / '*****' header, up to the next one.

    Read line by line (a regular expression over runs of '*' and spaces backtracked on long runs).
    """
    headers = [i for i in range(1, len(lines) - 1)
               if _is_stars(lines[i - 1]) and lines[i].startswith("Agent ") and lines[i][6:].strip().isdecimal()
               and lines[i + 1].startswith("***")]
    return [lines[h + 2:(nxt - 1 if nxt is not None else len(lines))]
            for h, nxt in zip(headers, [*headers[1:], None])]


def read_amd_smi_static(text: str | None) -> AmdReading:
    """`amd-smi static` output: per GPU, ASIC MARKET_NAME and TARGET_GRAPHICS_VERSION, DRIVER VERSION."""
    if text is None:
        return AmdReading(NOT_FOUND)
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines)
              if line.startswith("GPU:") and line[4:].strip().isdecimal()]
    if not starts:
        return AmdReading(UNREADABLE, detail="no 'GPU: N' sections")
    agents = []
    for start, nxt in zip(starts, [*starts[1:], len(lines)]):
        section = None
        values: dict[tuple[str | None, str], str] = {}
        for line in lines[start + 1:nxt]:
            stripped = line.strip()
            if not stripped:
                continue
            indent = len(line) - len(line.lstrip())
            key, _, value = stripped.partition(":")
            if indent <= 4 and not value.strip():
                section = key.strip()
            else:
                values[(section, key.strip())] = value.strip()
        gfx = values.get(("ASIC", "TARGET_GRAPHICS_VERSION"), "").lower()
        name = values.get(("ASIC", "MARKET_NAME"))
        driver = values.get(("DRIVER", "VERSION"))
        agents.append(AmdAgent(gfx if _GFX.match(gfx) else None, None if name in (None, "N/A") else name,
                               None if driver in (None, "N/A") else driver))
    driver = next((a.driver_version for a in agents if a.driver_version), None)
    return AmdReading(OK, agents, driver)


def merge_amd(rocminfo: AmdReading, amd_smi: AmdReading) -> AmdReading:
    """rocminfo gives the targets the runtime sees; amd-smi adds names, targets and the driver."""
    if rocminfo.status == OK and rocminfo.agents:
        agents = []
        for i, a in enumerate(rocminfo.agents):
            other = amd_smi.agents[i] if amd_smi.status == OK and i < len(amd_smi.agents) else None
            agents.append(AmdAgent(a.gfx or (other.gfx if other else None),
                                   a.marketing_name or (other.marketing_name if other else None),
                                   other.driver_version if other else None))
        return AmdReading(OK, agents, amd_smi.driver_version if amd_smi.status == OK else None)
    if amd_smi.status == OK:
        return amd_smi
    if rocminfo.status == OK:
        return rocminfo  # rocminfo ran and found no GPU agent
    if UNREADABLE in (rocminfo.status, amd_smi.status):
        return AmdReading(UNREADABLE, detail=rocminfo.detail or amd_smi.detail)
    return AmdReading(NOT_FOUND)


# -- OS and kernel --------------------------------------------------------------------------------

def read_os_release(text: str | None, kernel: KernelReading | None = None) -> OsReading:
    """/etc/os-release (KEY=value lines, values optionally quoted)."""
    if text is None:
        return OsReading(NOT_FOUND)
    fields = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        fields[key.strip()] = value
    if "ID" not in fields:
        return OsReading(UNREADABLE, detail="no ID= line")
    platform = "wsl2" if kernel is not None and kernel.wsl else "linux"
    return OsReading(OK, fields["ID"], fields.get("VERSION_ID"), fields.get("NAME"), fields.get("PRETTY_NAME"),
                     platform)


def read_windows(release: str, version: str) -> OsReading:
    """platform.release() and platform.version() on Windows: build 22000 and later is Windows 11."""
    try:
        build = int(version.split(".")[2])
    except (IndexError, ValueError):
        return OsReading(UNREADABLE, detail=f"unexpected Windows version '{version}'")
    name = "Windows 11" if release == "10" and build >= 22000 else f"Windows {release}"
    return OsReading(OK, "windows", release, name, name, "windows")


def read_kernel(text: str | None) -> KernelReading:
    """`uname -r`: '6.8.0-45-generic', '5.15.167.4-microsoft-standard-WSL2'."""
    if text is None:
        return KernelReading(NOT_FOUND)
    release = text.strip().splitlines()[0].strip() if text.strip() else ""
    m = re.match(r"^(\d+\.\d+(?:\.\d+)?)", release)
    if not m:
        return KernelReading(UNREADABLE, detail=f"unexpected kernel release '{release[:60]}'")
    return KernelReading(OK, release, m.group(1), "microsoft" in release.lower())


# -- Python environment ---------------------------------------------------------------------------

# Run in a child interpreter: importing a broken torch can crash or hang, and must not take
# gpulane with it. Prints one JSON line.
TORCH_SCRIPT = r"""
import json, sys
out = {}
try:
    import torch
except Exception as exc:
    out["import_error"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out)); sys.exit(0)
out["version"] = str(torch.__version__)
out["cuda"] = getattr(torch.version, "cuda", None)
out["hip"] = getattr(torch.version, "hip", None)
try:
    out["arch_list"] = list(torch.cuda.get_arch_list())
except Exception as exc:
    out["arch_list"] = []
try:
    out["available"] = bool(torch.cuda.is_available())
    if out["available"]:
        out["devices"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
except Exception as exc:
    out["available"] = False
    out["device_error"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
"""


def read_torch_report(text: str | None) -> TorchReading:
    """The JSON line TORCH_SCRIPT prints; None when the child could not run at all."""
    if text is None:
        return TorchReading(NOT_FOUND)
    line = next((l for l in reversed(text.strip().splitlines()) if l.startswith("{")), None)
    try:
        data = json.loads(line) if line else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        return TorchReading(UNREADABLE, detail="the torch report was not JSON")
    if "import_error" in data:
        err = str(data["import_error"])
        if err.startswith("ModuleNotFoundError") and "'torch'" in err:
            return TorchReading(NOT_FOUND)
        return TorchReading(UNREADABLE, detail=f"import torch failed: {err[:200]}")
    if not isinstance(data.get("version"), str):
        return TorchReading(UNREADABLE, detail="no torch version in the report")
    arch = data.get("arch_list") or []
    return TorchReading(OK, data["version"], data.get("cuda"), data.get("hip"),
                        [str(a) for a in arch] if isinstance(arch, list) else [],
                        data.get("available"), [str(d) for d in data.get("devices") or []],
                        data.get("device_error"))
