"""A configuration from a YAML or JSON file, as statement text.

    gpu: RX 7900 XTX
    os: Ubuntu 24.04
    app: vLLM
    driver: ">= 550"        # a version or a comparison
    keep: [gpu]             # fix only
    allow: [workaround]

JSON is YAML, so one reader takes both.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from gpulane.errors import PlanFileError
from gpulane.model import LAYER_NAMES

__all__ = ["read_plan_file", "plan_to_text"]

_EXTRA = ("keep", "allow")
_MAX_BYTES = 64 * 1024


def read_plan_file(path: Path) -> str:
    """The configuration text of a plan file (what follows 'explain' or 'fix')."""
    try:
        if path.stat().st_size > _MAX_BYTES:
            raise PlanFileError(str(path), f"larger than {_MAX_BYTES} bytes; a plan is a few lines")
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except PlanFileError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise PlanFileError(str(path), f"cannot read it ({exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise PlanFileError(str(path), f"not YAML or JSON{where}") from None
    return plan_to_text(data, str(path))


def plan_to_text(data: object, where: str = "plan") -> str:
    """Turn a mapping of layer → value into configuration text."""
    if not isinstance(data, dict) or not data:
        raise PlanFileError(where, "expected a mapping such as {gpu: RX 7900 XTX, os: Ubuntu 24.04}")
    parts, tail = [], []
    for key, value in data.items():
        key = str(key)
        if key in _EXTRA:
            values = value if isinstance(value, list) else [value]
            tail.append(f"{key} " + ", ".join(str(v) for v in values))
            continue
        if key not in LAYER_NAMES and key not in ("vendor", "vram", "family", "platform", "cc"):
            raise PlanFileError(where, f"unknown key '{key}': expected one of {', '.join(LAYER_NAMES)}, keep, allow")
        text = str(value).strip()
        if '"' in text or "\n" in text:
            raise PlanFileError(where, f"the value of '{key}' cannot contain quotes or line breaks")
        if text[:2] in (">=", "<=", "!=", "==") or text[:1] in (">", "<"):
            op = text[:2] if text[:2] in (">=", "<=", "!=", "==") else text[:1]
            parts.append(f'{key} {op} {text[len(op):].strip()}')
        else:
            parts.append(f'{key} = "{text}"')
    return ", ".join(parts) + ("" if not tail else " " + " ".join(tail))
