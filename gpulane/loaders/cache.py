"""A data-only cache of the validated knowledge base, so the CLI does not re-parse YAML.

Nothing read from the cache can run code: an entry is JSON text that the
caller's ``decode`` validates (pydantic models), never a pickle. A planted or
corrupt entry is at worst a cache miss. On top of that, as pip and Python's own
caches do, a cache folder that is not owned by this user or is writable by
others is not used at all (nothing is read from it or written to it), so
another account cannot feed this one forged answers either.

Entries are keyed by *slot* (which install of gpulane and which data folder)
so that two installs or two knowledge-base folders used in turn each stay
warm; the newest few entries are kept. The first line of an entry holds the
key (a hash of the code and every file's bytes): any edit rebuilds it; and the
SHA-256 of the payload, so an entry that is not exactly what we wrote under that
key is a miss before it is decoded. Only such an entry (in a folder of ours)
lets the caller skip work already done when it was written.

Writes go to a fresh temporary file (``O_EXCL``, mode 0600) that is renamed
over the entry: a rename replaces a symlink, never writes through it.
Temporary files left by a killed writer are removed once they are stale.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Callable, TypeVar

__all__ = ["cache_dir", "discard", "entry_path", "files_key", "load_cached", "slot_for", "usable_cache_dir", "MAX_ENTRIES",
           "MAX_ENTRY_BYTES"]

T = TypeVar("T")

_MAGIC = b"GPULANE-CACHE-3 "
# Entries kept per cache folder: enough for a few installs/data folders used in turn.
MAX_ENTRIES = 4
# The shipped knowledge base compiles to ~1.5 MB; anything far larger is not ours.
MAX_ENTRY_BYTES = 64 * 1024 * 1024
# A temporary file this old was left by a killed writer.
_STALE_TMP_S = 600.0
_PREFIX, _SUFFIX = "graph-", ".json"


def cache_dir() -> Path:
    """Where caches live: $GPULANE_CACHE_DIR, else $XDG_CACHE_HOME/gpulane, else ~/.cache/gpulane."""
    if env := os.environ.get("GPULANE_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gpulane"


def slot_for(*parts: object) -> str:
    """A short, stable file-name part for a cache entry: which install, which data folder."""
    return hashlib.sha256("\0".join(str(p) for p in parts).encode()).hexdigest()[:16]


def files_key(paths: list[Path], salt: str, max_file_bytes: int) -> str | None:
    """A hash of the salt and every file's name and content.

    None when a file is not a regular file or is larger than max_file_bytes: such a folder is
    loaded without the cache, and the loader names the file. Sizes are checked before any file is
    read, so a huge (or sparse) file costs a stat, not a read.
    """
    sizes = []
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_file_bytes:
            return None
        sizes.append(st.st_size)
    h = hashlib.sha256(salt.encode())
    for p, size in zip(paths, sizes):
        h.update(str(p.name).encode() + b"\0")
        try:
            with open(p, "rb") as fh:
                data = fh.read(max_file_bytes + 1)
        except OSError:
            return None
        if len(data) != size:
            return None  # changed while we read it: do not cache this state
        h.update(data)
        h.update(b"\0")
    return h.hexdigest()


def usable_cache_dir(directory: Path) -> bool:
    """Create the folder (0700) if needed; True when it is ours and not writable by others."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = directory.stat()
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        return False
    return os.name == "nt" or not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def entry_path(slot: str, directory: Path | None = None) -> Path:
    """The file that holds a slot's entry."""
    return (directory or cache_dir()) / f"{_PREFIX}{slot}{_SUFFIX}"


def discard(slot: str, directory: Path | None = None) -> None:
    """Remove a slot's entry (one found not to read back): the next load builds it again."""
    _unlink(str(entry_path(slot, directory)))


def load_cached(key: str | None, build: Callable[[], T], encode: Callable[[T], bytes],
                decode: Callable[[memoryview], T], slot: str = "default",
                directory: Path | None = None) -> tuple[T, str]:
    """The cached object for a key, or a freshly built (and stored) one.

    ``encode`` turns the object into bytes (JSON); ``decode`` turns them back (it is given a
    read-only view of the stored bytes, not a copy) and raises on anything it does not accept. Returns (object, how) where how is "hit", "built", "rebuilt"
    (an entry existed but was stale or unreadable) or "uncached" (no key, or a cache folder that
    is not safe to use).
    """
    directory = directory or cache_dir()
    if key is None or not usable_cache_dir(directory):
        return build(), "uncached"
    path = entry_path(slot, directory)
    how = "built"
    blob = _read_entry(path)
    if blob is not None:
        obj = _decode(blob, key, decode)
        if obj is not None:
            try:
                os.utime(path)  # most recently used: kept when older entries are pruned
            except OSError:
                pass
            return obj, "hit"
        how = "rebuilt"
    obj = build()
    try:
        _store(path, key, encode(obj))
        _prune(directory)
    except OSError:
        pass  # a read-only or full cache folder is no reason to fail a query
    return obj, how


def _read_entry(path: Path) -> bytes | None:
    """The bytes of a regular file of ours under the size cap, never following a symlink."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ENTRY_BYTES:
            return None
        if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(MAX_ENTRY_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def _decode(blob: bytes, key: str, decode: Callable[[memoryview], T]) -> T | None:
    prefix = _MAGIC + key.encode() + b" "
    end = len(prefix) + 64  # the header line: prefix, the payload's SHA-256 in hex, newline
    if not blob.startswith(prefix) or blob[end:end + 1] != b"\n":
        return None
    # A view, not a copy: the payload is most of an entry that may be tens of megabytes.
    payload = memoryview(blob)[end + 1:]
    # The header also holds the payload's digest: a truncated, damaged or foreign payload under
    # our key line is a miss before anything reads it.
    if blob[len(prefix):end] != hashlib.sha256(payload).hexdigest().encode():
        return None
    try:
        return decode(payload)
    except Exception:  # a corrupt entry is a miss; decode validates data and never runs it
        return None


def _store(path: Path, key: str, payload: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{_PREFIX}", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + key.encode() + b" " + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _prune(directory: Path) -> None:
    """Keep the newest MAX_ENTRIES entries; drop stale temporary files and old-format caches."""
    entries = []
    now = time.time()
    with os.scandir(directory) as it:
        for entry in it:
            name = entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if name.startswith(f".{_PREFIX}") and name.endswith(".tmp"):
                if now - st.st_mtime > _STALE_TMP_S:
                    _unlink(entry.path)
            elif name in ("graph.pickle", "grammar.lark.cache"):
                _unlink(entry.path)  # earlier versions' pickles: never read again
            elif name.startswith(_PREFIX) and name.endswith(_SUFFIX):
                entries.append((st.st_mtime, entry.path))
    for _, old in sorted(entries, reverse=True)[MAX_ENTRIES:]:
        _unlink(old)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
