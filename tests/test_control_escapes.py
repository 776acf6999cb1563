"""Control characters are refused in knowledge-base text whether written raw or made by a YAML
escape; the loader looks at the values only when the text could hold one (issue 18: cold start)."""

from __future__ import annotations

import pytest

from gpulane.loaders.kbfiles import read_kb_file


def _problems(tmp_path, name_yaml: str) -> str:
    path = tmp_path / "esc.yaml"
    path.write_text(f"nodes:\n  - {{id: gpu-esc, layer: gpu, name: {name_yaml}, vendor: amd}}\n", encoding="utf-8")
    _, _, problems = read_kb_file(path)
    return " ".join(str(p) for p in problems)


@pytest.mark.parametrize("escape", ["\\0", "\\a", "\\b", "\\v", "\\f", "\\r", "\\e", "\\N", "\\L", "\\P",
                                    "\\x1b", "\\x85", "\\u001b", "\\u202e", "\\u2066", "\\U0000001b"])
def test_an_escape_that_makes_a_control_character_is_refused(tmp_path, escape):
    assert "control characters" in _problems(tmp_path, f'"Evil{escape}[31m"')


@pytest.mark.parametrize("escape", ["\\t", "\\n", "\\\\", '\\"', "\\/", "\\_", "\\x41", "\\u00e9"])
def test_escapes_that_make_allowed_characters_pass(tmp_path, escape):
    assert _problems(tmp_path, f'"Fine{escape}name"') == ""


def test_raw_control_characters_are_refused(tmp_path):
    assert "control characters" in _problems(tmp_path, '"Evil\u202ename"')
