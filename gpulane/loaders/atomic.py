"""Atomic file writes: a temporary file beside the target, fsync, then rename.

An interrupted or failed write leaves the old file intact; a reader never sees
half a file. New files get the usual permissions (0666 less the umask), and a
replaced file keeps its own.

Only regular files are replaced that way. A target that is a device, a pipe or
a symlink (``-o /dev/null``, ``-o /dev/stdout``, a link the user made) is
written in place, as the shell's ``>`` would: renaming over it would put a
regular file where the device or link was. Temporary names are short whatever
the target's name (a 250-character name is valid; a temporary name 15 longer
is not), and temporary files a killed writer left beside the target are
removed by the next write once they are an hour old.
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
from pathlib import Path

__all__ = ["stage", "commit", "discard", "write_atomic", "clean_stale"]


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
    fd, tmp = tempfile.mkstemp(prefix=_tmp_prefix(path), suffix=".tmp", dir=path.parent)
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


def _tmp_prefix(path: Path) -> str:
    # At most 40 characters of the name: the temporary name stays far below the 255-byte limit.
    return f".{path.name[:40]}."


def _is_special(path: Path) -> bool:
    """A symlink, device, pipe or socket: something a rename must not replace."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    return not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)


def clean_stale(path: Path, older_than_s: float = 3600.0) -> None:
    """Remove temporary files of `path` that a killed writer left (older than an hour)."""
    prefix, now = _tmp_prefix(Path(path)), time.time()
    try:
        with os.scandir(Path(path).parent) as entries:
            for entry in entries:
                if entry.name.startswith(prefix) and entry.name.endswith(".tmp"):
                    try:
                        if now - entry.stat(follow_symlinks=False).st_mtime > older_than_s:
                            os.unlink(entry.path)
                    except OSError:
                        pass
    except OSError:
        pass


def write_atomic(path: Path, text: str, make_parents: bool = False) -> None:
    """Replace `path` with `text`, all or nothing; write a device, pipe or symlink in place."""
    path = Path(path)
    if _is_special(path):
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        return
    tmp = stage(path, text, make_parents)
    try:
        commit(tmp, path)
    except BaseException:
        discard(tmp)
        raise
    clean_stale(path)
