"""Which architectures a build target's code runs on.

NVIDIA (CUDA programming guide, "Binary Compatibility" and "PTX
Compatibility"): machine code for sm_XY runs on sm_XZ when Z >= Y, within one
major version only; PTX for compute_XY is compiled by the driver for any GPU of
compute capability X.Y or newer; architecture-specific targets (sm_90a) run on
that exact architecture. AMD code objects load only on their exact LLVM target.
"""

from __future__ import annotations

import re

from gpulane.model import Node

_SASS = re.compile(r"^sm_(\d+)(\d)(a|f)?$")
_PTX = re.compile(r"^compute_(\d+)(\d)$")


def build_target_kind(target: str) -> str | None:
    """'sass', 'ptx', or None when the string is not an NVIDIA build target."""
    if _SASS.match(target):
        return "sass"
    if _PTX.match(target):
        return "ptx"
    return None


def runs_on(target: str, arch: Node) -> str | None:
    """Why code built for ``target`` runs on ``arch``, or None if it does not."""
    if arch.compute_capability is None:
        return "exact target" if target == arch.id else None
    major, minor = (int(x) for x in arch.compute_capability.split("."))
    if m := _SASS.match(target):
        t_major, t_minor, suffix = int(m.group(1)), int(m.group(2)), m.group(3)
        if suffix == "a":
            return "exact target" if (t_major, t_minor) == (major, minor) else None
        if t_major == major and minor >= t_minor:
            if minor == t_minor:
                return "exact target"
            return f"{target} machine code runs on newer GPUs of the same major version"
        return None
    if m := _PTX.match(target):
        t_major, t_minor = int(m.group(1)), int(m.group(2))
        if (major, minor) >= (t_major, t_minor):
            if (major, minor) == (t_major, t_minor):
                return "PTX for this exact target"
            return f"{target} PTX is compiled by the driver for newer GPUs"
        return None
    return None


GENERIC_SUFFIX = "-generic"


def is_generic_target(arch_id: str) -> bool:
    """Whether an arch id names an LLVM generic target (``gfx11-generic``)."""
    return arch_id.endswith(GENERIC_SUFFIX)
