"""Reading files that someone else may have written: regular files only, and only so much.

``/dev/zero``, a FIFO or a symlink to either would make a plain ``read_bytes()``
run out of memory or wait forever. The file is opened without blocking, checked
to be a regular file, and read up to a cap; anything else is refused with a
reason the caller puts next to the file's name.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["UnreadableFile", "read_regular_file"]


class UnreadableFile(Exception):
    """A file that was not read, and why (in words that follow the file's name)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def read_regular_file(path: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most max_bytes; UnreadableFile otherwise.

    Symlinks are followed (a data folder may link its files), but what they point at must be a
    regular file too. The size is checked before reading and again while reading (a file that
    grows in between is refused, not read without end).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        if os.path.islink(path):
            raise UnreadableFile("is a symlink to nothing (dangling)") from None
        raise UnreadableFile("does not exist") from None
    except IsADirectoryError:
        raise UnreadableFile("is a folder, not a file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnreadableFile("is a symlink loop") from None
        raise UnreadableFile(f"cannot be opened ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UnreadableFile("is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableFile("is not a regular file (a device, pipe or socket)")
        if st.st_size > max_bytes:
            raise UnreadableFile(f"is larger than {_size(max_bytes)} ({_size(st.st_size)})")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise UnreadableFile(f"is larger than {_size(max_bytes)}")
        return b"".join(chunks)
    except OSError as exc:
        raise UnreadableFile(f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _size(n: int) -> str:
    for unit, factor in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= factor:
            return f"{n / factor:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"
