"""The compiled cache: reused when fresh, rebuilt after a change, never trusted when corrupt."""

from __future__ import annotations

import shutil

from gpulane.api import load_graph
from gpulane.loaders.cache import cache_dir, load_cached
from tests.conftest import MINI


def _copy_mini(tmp_path):
    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    return folder


def test_second_load_is_a_cache_hit(tmp_path):
    calls = []

    def build():
        calls.append(1)
        return {"answer": 42}

    assert load_cached("k1", build, tmp_path) == ({"answer": 42}, "built")
    assert load_cached("k1", build, tmp_path) == ({"answer": 42}, "hit")
    assert len(calls) == 1


def test_changed_key_rebuilds(tmp_path):
    load_cached("k1", lambda: 1, tmp_path)
    assert load_cached("k2", lambda: 2, tmp_path) == (2, "rebuilt")


def test_corrupt_or_truncated_cache_is_ignored_and_rebuilt(tmp_path):
    load_cached("k1", lambda: [1, 2, 3], tmp_path)
    path = tmp_path / "graph.pickle"
    blob = path.read_bytes()
    path.write_bytes(blob[:-7])  # truncated payload: digest no longer matches
    assert load_cached("k1", lambda: "fresh", tmp_path) == ("fresh", "rebuilt")
    path.write_bytes(b"garbage that is not a cache at all")
    assert load_cached("k1", lambda: "again", tmp_path) == ("again", "rebuilt")
    # A payload whose digest matches but that does not unpickle is rebuilt too.
    import hashlib

    payload = b"\x80\x05not a pickle"
    path.write_bytes(b"GPULANE-CACHE-1\n" + b"k1" + b"\n" + hashlib.sha256(payload).hexdigest().encode()
                     + b"\n" + payload)
    assert load_cached("k1", lambda: "third", tmp_path)[0] == "third"


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
    assert (cache_dir() / "graph.pickle").exists()


def test_graph_cache_survives_corruption(tmp_path):
    folder = _copy_mini(tmp_path)
    load_graph(folder)
    (cache_dir() / "graph.pickle").write_bytes(b"\x00" * 100)
    kg = load_graph(folder)
    assert kg.stats()["facts"] == 30
