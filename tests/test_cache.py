"""The compiled cache: reused when fresh, rebuilt after a change, never trusted when corrupt,
and never able to run code whatever its bytes (issue 17 items 1-2; issue 15 item 7)."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import time

import pytest

from gpulane.api import load_graph
from gpulane.loaders.cache import MAX_ENTRIES, cache_dir, load_cached, slot_for
from tests.conftest import MINI


def _copy_mini(tmp_path, name="kb"):
    folder = tmp_path / name
    shutil.copytree(MINI, folder)
    return folder


def _json_cache(key, build, directory, slot="s"):
    return load_cached(key, build, lambda o: json.dumps(o).encode(), lambda b: json.loads(bytes(b)), slot, directory)


def _entries(directory):
    return sorted(p.name for p in directory.glob("graph-*.json"))


class _Boom:
    """Unpickling this writes a marker file: proof that a pickle was loaded."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def test_second_load_is_a_cache_hit(tmp_path):
    calls = []

    def build():
        calls.append(1)
        return {"answer": 42}

    assert _json_cache("k1", build, tmp_path) == ({"answer": 42}, "built")
    assert _json_cache("k1", build, tmp_path) == ({"answer": 42}, "hit")
    assert len(calls) == 1


def test_changed_key_rebuilds(tmp_path):
    _json_cache("k1", lambda: 1, tmp_path)
    assert _json_cache("k2", lambda: 2, tmp_path) == (2, "rebuilt")


def test_corrupt_or_truncated_cache_is_ignored_and_rebuilt(tmp_path):
    _json_cache("k1", lambda: [1, 2, 3], tmp_path)
    (path,) = tmp_path.glob("graph-*.json")
    blob = path.read_bytes()
    path.write_bytes(blob[:-3])  # truncated JSON
    assert _json_cache("k1", lambda: "fresh", tmp_path) == ("fresh", "rebuilt")
    path.write_bytes(b"garbage that is not a cache at all")
    assert _json_cache("k1", lambda: "again", tmp_path) == ("again", "rebuilt")


def _old_format_key(folder):
    """The key the pickle cache of earlier versions used: computable by anyone."""
    import hashlib

    from gpulane import __version__, api

    salt = f"{api.CACHE_SALT}:{__version__}:{folder.resolve()}:{api._code_stamp()}"
    h = hashlib.sha256(salt.encode())
    for p in sorted(folder.glob("*.yaml")):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def test_planted_pickles_are_never_loaded(tmp_path):
    """Item 1: a pickle in the cache folder, well-formed for any format gpulane used, runs nothing."""
    import hashlib

    folder = _copy_mini(tmp_path)
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Boom(marker))
    key = _old_format_key(folder)
    planted = b"GPULANE-CACHE-1\n" + key.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    slot = slot_for(os.path.dirname(os.path.abspath(__import__("gpulane").__file__)), folder.resolve())
    for name in ("graph.pickle", f"graph-{slot}.json"):
        (cache / name).write_bytes(planted)
    kg = load_graph(folder)
    assert kg.stats()["facts"] == 30
    assert not marker.exists()


def test_lark_grammar_cache_is_not_used(tmp_path, monkeypatch):
    """Item 2: the parser is built in process; lark's pickle cache is neither read nor written."""
    from gpulane.queries import parser

    marker = tmp_path / "pwned"
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    # lark reads a hash line, then unpickles before comparing it.
    (cache / "grammar.lark.cache").write_bytes(b"0\n" + pickle.dumps(_Boom(marker)))
    parser._parser.cache_clear()
    parser.parse("find gpu where vendor = amd")
    assert not marker.exists()
    # A symlink where lark wrote its cache: the target is left alone.
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (cache / "grammar.lark.cache").unlink()
    (cache / "grammar.lark.cache").symlink_to(victim)
    parser._parser.cache_clear()
    parser.parse("find gpu where vendor = amd")
    assert victim.read_text() == "precious"
    empty = tmp_path / "empty-cache"
    monkeypatch.setenv("GPULANE_CACHE_DIR", str(empty))
    parser._parser.cache_clear()
    parser.parse("find gpu where vendor = amd")
    assert not empty.exists() or not list(empty.iterdir())


def test_writes_replace_a_symlink_instead_of_following_it(tmp_path):
    """Item 2: a symlink planted where an entry goes is replaced, its target left alone."""
    target = tmp_path / "victim.txt"
    target.write_text("precious")
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    (cache / "graph-s.json").symlink_to(target)
    assert _json_cache("k1", lambda: {"a": 1}, cache)[0] == {"a": 1}
    assert target.read_text() == "precious"
    assert not (cache / "graph-s.json").is_symlink()


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_a_cache_folder_writable_by_others_is_not_used(tmp_path):
    cache = tmp_path / "shared-cache"
    cache.mkdir()
    os.chmod(cache, 0o777)
    calls = []
    assert _json_cache("k1", lambda: calls.append(1) or "v", cache) == ("v", "uncached")
    assert _json_cache("k1", lambda: calls.append(1) or "v", cache) == ("v", "uncached")
    assert calls == [1, 1] and not list(cache.iterdir())


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_a_cache_folder_owned_by_someone_else_is_not_used(tmp_path):
    cache = tmp_path / "theirs"
    cache.mkdir(mode=0o700)
    os.chown(cache, 65534, 65534)
    assert _json_cache("k1", lambda: "v", cache) == ("v", "uncached")
    assert not list(cache.iterdir())


def test_new_cache_folder_and_entries_are_private(tmp_path):
    cache = tmp_path / "new" / "cache"
    _json_cache("k1", lambda: 1, cache)
    assert cache.stat().st_mode & 0o777 == 0o700
    (entry,) = cache.glob("graph-*.json")
    assert entry.stat().st_mode & 0o077 == 0


def test_graph_cache_follows_file_edits(tmp_path):
    folder = _copy_mini(tmp_path)
    first = load_graph(folder)
    assert "gpu-a" in first.nodes
    again = load_graph(folder)
    assert again.stats() == first.stats()
    text = (folder / "mini.yaml").read_text()
    (folder / "mini.yaml").write_text(text.replace("name: Alpha 100,", "name: Alpha 100 Renamed,"))
    edited = load_graph(folder)
    assert edited.nodes["gpu-a"].name == "Alpha 100 Renamed"
    assert len(_entries(cache_dir())) == 1


def test_graph_cache_survives_corruption(tmp_path):
    folder = _copy_mini(tmp_path)
    load_graph(folder)
    (entry,) = cache_dir().glob("graph-*.json")
    entry.write_bytes(b"\x00" * 100)
    kg = load_graph(folder)
    assert kg.stats()["facts"] == 30


def test_cached_graph_answers_like_a_fresh_one(tmp_path):
    """A warm start (decoded entry) gives the same knowledge base, origins and answers as a cold one."""
    from gpulane.api import build_graph
    from gpulane.queries import run

    folder = _copy_mini(tmp_path)
    cold = build_graph(folder)
    load_graph(folder)
    warm = load_graph(folder)
    assert warm.kb.facts == cold.kb.facts and warm.kb.nodes == cold.kb.nodes and warm.kb.sources == cold.kb.sources
    assert warm.kb.origins == cold.kb.origins and warm.kb.files == cold.kb.files
    assert [f.model_fields_set for f in warm.kb.facts] == [f.model_fields_set for f in cold.kb.facts]
    assert [(c.target, c.when, c.domain) for c in warm.facts] == [(c.target, c.when, c.domain) for c in cold.facts]
    query = "find gpu, toolkit where app = AppX"
    warm_answers = run.find(warm, run.compile_query(warm, query)).answers
    cold_answers = run.find(cold, run.compile_query(cold, query)).answers
    # (frozensets print in an order that depends on how they were built; compare values instead)
    assert [(key, path.values) for key, path in warm_answers] == [(key, path.values) for key, path in cold_answers]


def test_two_data_folders_alternating_stay_warm(tmp_path, monkeypatch):
    """Issue 15 item 7: one entry per install and data folder; alternating folders are both hits."""
    import gpulane.loaders.cache as cache_mod

    hows = []
    real = cache_mod.load_cached

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        hows.append(result[1])
        return result

    monkeypatch.setattr("gpulane.api.load_cached", spy)
    a, b = _copy_mini(tmp_path, "a"), _copy_mini(tmp_path, "b")
    for folder in (a, b, a, b, a, b):
        load_graph(folder)
    assert hows == ["built", "built", "hit", "hit", "hit", "hit"]
    assert len(_entries(cache_dir())) == 2


def test_two_installs_get_two_entries(tmp_path):
    cache = tmp_path / "c"
    _json_cache("k-install-1", lambda: 1, cache, slot=slot_for("/site-a/gpulane", "/data"))
    _json_cache("k-install-2", lambda: 2, cache, slot=slot_for("/site-b/gpulane", "/data"))
    assert _json_cache("k-install-1", lambda: 0, cache, slot=slot_for("/site-a/gpulane", "/data")) == (1, "hit")
    assert _json_cache("k-install-2", lambda: 0, cache, slot=slot_for("/site-b/gpulane", "/data")) == (2, "hit")


def test_only_a_few_entries_are_kept_and_stale_temporaries_go(tmp_path):
    cache = tmp_path / "c"
    cache.mkdir(mode=0o700)
    stale = cache / ".graph-dead.tmp"
    stale.write_bytes(b"left by a kill")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    fresh_tmp = cache / ".graph-busy.tmp"
    fresh_tmp.write_bytes(b"another process is writing this")
    for i in range(MAX_ENTRIES + 3):
        _json_cache(f"k{i}", lambda: i, cache, slot=f"slot{i}")
        t = time.time() - 100 + i
        os.utime(cache / f"graph-slot{i}.json", (t, t))
    names = _entries(cache)
    assert len(names) == MAX_ENTRIES
    assert "graph-slot0.json" not in names and f"graph-slot{MAX_ENTRIES + 2}.json" in names
    assert not stale.exists() and fresh_tmp.exists()


def test_oversized_data_file_is_not_read_for_the_key(tmp_path):
    """Item 8: a huge (sparse) file costs a stat, not a read, and loading names it."""
    from gpulane.errors import KBLoadError

    folder = _copy_mini(tmp_path)
    huge = folder / "huge.yaml"
    with open(huge, "wb") as fh:
        fh.truncate(3 * 1024**3)  # sparse: 3 GB that take no disk
    start = time.monotonic()
    with pytest.raises(KBLoadError) as err:
        load_graph(folder)
    assert time.monotonic() - start < 5
    assert "huge.yaml" in str(err.value)
