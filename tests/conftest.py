"""Shared fixtures: the shipped knowledge base, the mini fixture KB, and helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpulane.api import build_graph

TESTS = Path(__file__).resolve().parent
MINI = TESTS / "fixtures" / "kb" / "mini"
# ../shared beside the project root: present in CI, read-only. Tests that need it say so.
SHARED = TESTS.parent.parent / "shared"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own cache folder, so no test sees another's cache."""
    monkeypatch.setenv("GPULANE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.delenv("GPULANE_DATA", raising=False)


@pytest.fixture(scope="session")
def shipped():
    """The knowledge base shipped in gpulane/data, compiled once."""
    return build_graph()


@pytest.fixture(scope="session")
def mini():
    """The small invented knowledge base of tests/fixtures/kb/mini."""
    return build_graph(MINI)


def graph_for(name: str, shipped, mini):
    return {"shipped": shipped, "mini": mini}[name]


def write_kb(folder: Path, files: dict[str, str]) -> Path:
    """Write knowledge-base files into a folder and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def update_snapshots() -> bool:
    return os.environ.get("GPULANE_UPDATE_SNAPSHOTS") == "1"
