"""Atomic file writes: a temporary file beside the target, fsync, then rename.

An interrupted or failed write leaves the old file intact; a reader never sees
half a file. New files get the usual permissions (0666 less the umask), and a
replaced file keeps its own.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["stage", "commit", "discard", "write_atomic"]


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def stage(path: Path, text: str, make_parents: bool = False) -> str:
    """Write text to a temporary file beside `path` and return its name (not yet in place)."""
    path = Path(path)
    if make_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _mode_for(path))
    except BaseException:
        discard(tmp)
        raise
    return tmp


def commit(tmp: str, path: Path) -> None:
    """Move a staged file into place."""
    os.replace(tmp, path)


def discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def write_atomic(path: Path, text: str, make_parents: bool = False) -> None:
    """Replace `path` with `text`, all or nothing."""
    tmp = stage(path, text, make_parents)
    try:
        commit(tmp, path)
    except BaseException:
        discard(tmp)
        raise
