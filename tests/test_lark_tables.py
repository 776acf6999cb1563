"""The query parser's LALR tables shipped as JSON (gpulane/queries/grammar.tables.json): made
from the grammar, read without pickle, equal in behaviour to a parser built from the grammar,
and never used for another grammar or lark version (issue 18: start-up)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from lark import UnexpectedInput, __version__ as lark_version

from gpulane.queries import lark_tables
from gpulane.queries.lark_tables import TABLES, build_parser, load_parser, tables_text

TESTS = Path(__file__).parent

STATEMENTS = [
    'find gpu where vendor = AMD and app = vLLM and os = "Ubuntu 24.04"',
    "find gpu, toolkit where app = Ollama limit 5",
    "find gpu where vram >= 24 order by vram desc",
    'explain gpu = "GTX 1050", os = "Ubuntu 24.04", framework = "torch 2.8.0+cu128"',
    'fix gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM keep gpu',
    "why gpu = w7900, app = vllm",
    "paths gpu = gfx1100 to app = vLLM",
    "list gpu where vendor = nvidia",
    "show gfx1100",
    "find gpu where gpu in {a, b, c}",
    "find gpu where vendor AMD",
    "find gpu where",
    "fnd gpu",
    'find gpu where os = "Ubuntu',
    "find gpu where vram 24",
    "find gpu where x = @",
    "find gpu where a = b and",
    "",
]


def _statements() -> list[str]:
    out = list(STATEMENTS)
    for name in ("error_cases.yaml", "find_cases.yaml", "path_cases.yaml"):
        for case in yaml.safe_load((TESTS / "queries" / name).read_text()) or []:
            if isinstance(case, dict) and isinstance(case.get("query"), str):
                out.append(case["query"])
    return out


def _outcome(parser, text: str):
    try:
        return ("tree", parser.parse(text))
    except UnexpectedInput as exc:
        return ("error", type(exc).__name__, getattr(exc, "line", None), getattr(exc, "column", None),
                sorted(getattr(exc, "expected", None) or ()), sorted(getattr(exc, "accepts", None) or ()),
                str(getattr(exc, "token", "")))


def test_shipped_tables_are_what_the_grammar_gives():
    doc = json.loads(TABLES.read_text(encoding="utf-8"))
    if doc["lark"] != lark_version:
        pytest.skip(f"tables made with lark {doc['lark']}, lark {lark_version} installed: the parser is built "
                    "from the grammar instead (test_other_lark_version_builds_from_the_grammar); regenerate with "
                    "python -m gpulane.queries.lark_tables")
    assert TABLES.read_text(encoding="utf-8") == tables_text(), \
        "grammar.tables.json is stale: python -m gpulane.queries.lark_tables"


def test_tables_are_the_same_whatever_the_hash_seed():
    import subprocess
    import sys

    texts = {subprocess.run([sys.executable, "-c", "from gpulane.queries.lark_tables import tables_text;"
                             "print(tables_text(), end='')"], env={"PYTHONHASHSEED": seed, "PATH": ""},
                            capture_output=True, text=True, check=True, cwd=TESTS.parent).stdout
             for seed in ("1", "2")}
    assert len(texts) == 1


def test_parser_from_tables_answers_like_one_built_from_the_grammar():
    loaded = load_parser()
    if json.loads(TABLES.read_text(encoding="utf-8"))["lark"] == lark_version:
        assert loaded is not None
    else:
        pytest.skip("tables made with another lark version")
    built = build_parser()
    for text in _statements():
        assert _outcome(loaded, text) == _outcome(built, text), text


def test_tables_for_another_grammar_are_not_used(tmp_path, monkeypatch):
    grammar = tmp_path / "grammar.lark"
    grammar.write_text(lark_tables.GRAMMAR.read_text(encoding="utf-8") + "\n// edited\n", encoding="utf-8")
    monkeypatch.setattr(lark_tables, "GRAMMAR", grammar)
    assert load_parser() is None


def test_other_lark_version_builds_from_the_grammar(tmp_path, monkeypatch):
    doc = json.loads(TABLES.read_text(encoding="utf-8"))
    doc["lark"] = "0.0.1"
    other = tmp_path / "grammar.tables.json"
    other.write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setattr(lark_tables, "TABLES", other)
    assert load_parser() is None
    from gpulane.queries import parser

    parser._parser.cache_clear()
    try:
        assert parser.parse("find gpu where vendor = amd").verb == "find"
    finally:
        parser._parser.cache_clear()


@pytest.mark.parametrize("content", [b"", b"\x00\x01", b"[]", b'{"format": "gpulane-lark-tables-1"}',
                                     b"\x80\x04\x95 a pickle"])
def test_unreadable_tables_mean_build_instead(tmp_path, monkeypatch, content):
    bad = tmp_path / "grammar.tables.json"
    bad.write_bytes(content)
    monkeypatch.setattr(lark_tables, "TABLES", bad)
    assert load_parser() is None


def test_tampered_tables_mean_build_instead(tmp_path, monkeypatch):
    doc = json.loads(TABLES.read_text(encoding="utf-8"))
    doc["data"] = {"x": 1, "y": 2}  # not one tagged container
    bad = tmp_path / "grammar.tables.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setattr(lark_tables, "TABLES", bad)
    assert load_parser() is None
