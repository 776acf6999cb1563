"""A compiled cache of the knowledge graph, so the CLI does not re-parse YAML.

The key is a hash of gpulane's version and every file's name and bytes: any
edit rebuilds it. The payload carries its own hash and is verified before it is
unpickled, so a truncated or corrupt cache is ignored and rebuilt, never
trusted. Writes are atomic (temporary file, then rename).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Callable

__all__ = ["cache_dir", "files_key", "load_cached"]

_MAGIC = b"GPULANE-CACHE-1\n"


def cache_dir() -> Path:
    """Where caches live: $GPULANE_CACHE_DIR, else $XDG_CACHE_HOME/gpulane, else ~/.cache/gpulane."""
    if env := os.environ.get("GPULANE_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gpulane"


def files_key(paths: list[Path], salt: str) -> str:
    """A hash of the salt and every file's name and content."""
    h = hashlib.sha256(salt.encode())
    for p in paths:
        h.update(str(p.name).encode() + b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def load_cached(key: str, build: Callable[[], object], directory: Path | None = None) -> tuple[object, str]:
    """The cached object for a key, or a freshly built (and stored) one.

    Returns (object, how) where how is "hit", "built" or "rebuilt" (the cache
    file existed but was stale or corrupt).
    """
    directory = directory or cache_dir()
    path = directory / "graph.pickle"
    how = "built"
    try:
        blob = path.read_bytes()
    except OSError:
        blob = None
    if blob is not None:
        obj = _decode(blob, key)
        if obj is not None:
            return obj, "hit"
        how = "rebuilt"
    obj = build()
    try:
        _store(path, key, obj)
    except OSError:
        pass  # a read-only home is no reason to fail a query
    return obj, how


def _decode(blob: bytes, key: str) -> object | None:
    if not blob.startswith(_MAGIC):
        return None
    parts = blob[len(_MAGIC):].split(b"\n", 2)
    if len(parts) != 3:
        return None
    stored_key, digest, payload = parts
    if stored_key != key.encode() or hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    try:
        return pickle.loads(payload)  # noqa: S301 - verified against its own digest and key
    except Exception:  # a corrupt payload can raise almost anything
        return None


def _store(path: Path, key: str, obj: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    digest = hashlib.sha256(payload).hexdigest()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".graph-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + key.encode() + b"\n" + digest.encode() + b"\n" + payload)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
