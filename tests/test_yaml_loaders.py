"""The libyaml-backed knowledge-base loader reads what the pure-Python one reads: the same data,
the same recorded lines, and for bad input the same error at the same line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpulane.loaders import kbfiles
from gpulane.loaders.kbfiles import default_data_dir, read_kb_file

pytestmark = pytest.mark.skipif(len(kbfiles._LOADERS) < 2, reason="PyYAML is built without libyaml here")


def _shape(value):
    """Data with the lines each mapping and key was read from."""
    if isinstance(value, dict):
        return ("map", value.line, dict(value.key_lines), {k: _shape(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return (type(value).__name__, value)


@pytest.mark.parametrize("path", sorted(default_data_dir().glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_files_read_the_same_with_lines(path):
    text = path.read_text(encoding="utf-8")
    fast = yaml.load(text, Loader=kbfiles._LOADERS[1])  # noqa: S506 - the safe line loader under test
    pure = yaml.load(text, Loader=kbfiles._LineLoader)  # noqa: S506
    assert _shape(fast) == _shape(pure)


BAD = {
    "alias": "sources:\n  - &a {id: s, url: 'https://x.org'}\nnodes:\n  - *a\n",
    "duplicate key": "sources: []\nnodes: []\nnodes: []\n",
    "deep": "facts: " + "[" * 40 + "]" * 40 + "\n",
    "syntax": "facts:\n  - id: x\n   relation: supports\n",
    "tab": "facts:\n\t- id: x\n",
    "control": "sources: []\nnodes: [\x07]\n",
    "unclosed quote": "nodes:\n  - id: 'abc\n",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_fails_in_the_same_words_at_the_same_line(tmp_path: Path, name):
    path = tmp_path / "bad.yaml"
    path.write_text(BAD[name], encoding="utf-8")
    _, _, problems = read_kb_file(path, "bad.yaml")
    assert problems
    only_pure = kbfiles._LOADERS
    try:
        kbfiles._LOADERS = (kbfiles._LineLoader,)
        _, _, expected = read_kb_file(path, "bad.yaml")
    finally:
        kbfiles._LOADERS = only_pure
    assert [str(p) for p in problems] == [str(p) for p in expected]
