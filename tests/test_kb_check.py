"""`gpulane kb check`: one line per problem, from small broken knowledge bases."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import pytest
import yaml

from gpulane.api import build_graph
from gpulane.graph.check import check_graph
from tests.conftest import TESTS, write_kb

CASES = yaml.safe_load((TESTS / "fixtures" / "kb_check" / "cases.yaml").read_text())["cases"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_kb_check_case(tmp_path, name, monkeypatch):
    case = CASES[name]
    folder = write_kb(tmp_path / name, case["files"])
    monkeypatch.chdir(folder)
    kg = build_graph(folder, strict=False)
    lines = [str(p) for p in check_graph(kg)]
    days = (dt.date.today() - dt.date(2024, 1, 2)).days
    expected = [line.replace("DAYS", str(days)) for line in case["problems"]]
    assert lines == expected


def test_cli_exit_codes(tmp_path):
    clean = write_kb(tmp_path / "clean", CASES["clean"]["files"])
    broken = write_kb(tmp_path / "broken", CASES["dangling_reference"]["files"])
    ok = subprocess.run([sys.executable, "-m", "gpulane", "--data", str(clean), "kb", "check"],
                        capture_output=True, text=True)
    assert ok.returncode == 0 and "0 error(s), 0 warning(s)" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "gpulane", "--data", str(broken), "kb", "check", "--json"],
                         capture_output=True, text=True)
    assert bad.returncode == 1
    problems = json.loads(bad.stdout)
    assert [p["message"] for p in problems] == ["fact 'f1': object 'gfx9999' is not a node",
                                                 "fact 'f2': subject 'nobody' is not a node"]


def test_queries_refuse_an_invalid_knowledge_base(tmp_path):
    broken = write_kb(tmp_path / "broken", CASES["dangling_reference"]["files"])
    out = subprocess.run([sys.executable, "-m", "gpulane", "--data", str(broken), "find", "gpu"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "run 'gpulane kb check'" in out.stderr


def test_shipped_knowledge_base_is_clean(shipped):
    errors = [str(p) for p in check_graph(shipped) if p.severity == "error"]
    assert errors == []
    for cf in shipped.facts:
        src = shipped.source_of(cf)
        assert src is not None and src.url.startswith("https://") and shipped.reviewed(cf) is not None, cf.id


def test_shipped_knowledge_base_has_no_warnings(shipped):
    """`kb check` on the shipped data prints nothing: a fact whose selector picks no node is
    either a typo or a thing not modelled yet, and both are fixed in the data (or the importer
    that wrote it), never listed away."""
    problems = [str(p) for p in check_graph(shipped)]
    assert problems == [], "kb check problems on the shipped data:\n" + "\n".join(problems)
