"""Explain and fix on real situations, with exact-wording snapshots of the text."""

from __future__ import annotations

import json

import pytest
import yaml

from gpulane.cli.render_explain import explain_json, explain_text, fix_json, fix_text
from gpulane.queries import run
from gpulane.queries.explain import EXPLAIN_BUDGET_S, explain
from gpulane.queries.fix import FIX_BUDGET_S, fix
from tests.conftest import TESTS, graph_for, update_snapshots

SCENARIOS = yaml.safe_load((TESTS / "scenarios" / "scenarios.yaml").read_text())
SNAPSHOTS = TESTS / "scenarios" / "snapshots"
# Scenario answers must not depend on how busy the machine is: the searches get a budget
# far above what they need, so a clock never cuts them (the CLI keeps its own budgets).
UNHURRIED = 15


def _answer(case, shipped, mini):
    kg = graph_for(case["kb"], shipped, mini)
    plan = run.compile_query(kg, case["statement"])
    if plan.statement.verb == "fix":
        answer = fix(kg, plan, budget_s=FIX_BUDGET_S * UNHURRIED)
        return kg, answer.before, answer, fix_text(kg, answer), fix_json(kg, answer)
    answer = explain(kg, plan, budget_s=EXPLAIN_BUDGET_S * UNHURRIED)
    return kg, answer, None, explain_text(kg, answer), explain_json(kg, answer)


@pytest.mark.parametrize("case", SCENARIOS, ids=[c["name"] for c in SCENARIOS])
def test_scenario(case, shipped, mini):
    kg, answer, fixed, text, data = _answer(case, shipped, mini)
    if "verdict_not" in case:
        assert answer.verdict != case["verdict_not"]
    else:
        assert answer.verdict == case["verdict"]
        assert data.get("verdict", data.get("before", {}).get("verdict")) == case["verdict"]
    if "status" in case:
        assert answer.status == case["status"] and data["status"] == case["status"]
    for node, status in case.get("backends", {}).items():
        tried = {t.node: t for t in answer.backends}
        assert tried[node].status == status, (node, tried[node].status)
    for node, kind in case.get("backend_kinds", {}).items():
        reason = next(t.reason for t in answer.backends if t.node == node)
        assert (reason.kind or reason.verdict) == kind, (node, reason.kind)
    if "path_vendor" in case:
        vendors = {kg.compute_vendor(v) for v in answer.path.values.values() if v in kg.nodes} - {None}
        assert vendors == {case["path_vendor"]}, answer.path.values
    breaks = {tuple(b.edge.upper.value for _ in [0]) + (b.edge.lower.value,): b for b in answer.breaks}
    for expected in case.get("breaks", []):
        b = breaks.get(tuple(expected["edge"]))
        assert b is not None, f"no break on {expected['edge']}: {list(breaks)}"
        assert b.kind == expected["kind"]
        ids = {cf.id for cf in b.facts}
        for fid in expected["facts"]:
            assert fid in ids, (fid, sorted(ids)[:5])
    for expected in case.get("ok_edges", []):
        edge = next(e for e in answer.path.edges if [e.upper.value, e.lower.value] == expected["edge"])
        assert edge.verdict == "ok" and [cf.id for cf in edge.facts] == expected["facts"]
        assert bool(edge.caveats) == expected["caveat"]
    if "conflict" in case:
        assert [l.value for l in answer.conflict.choices] == case["conflict"]
    if case.get("workarounds") == []:
        assert not answer.workarounds, [w.fact.id for w in answer.workarounds]
    for w in case.get("workarounds", []):
        found = next(x for x in answer.workarounds if x.fact.id == w["fact"])
        assert found.fact.fact.action.startswith(w["action"])
        assert found.fact.fact.when["os"].platform.value == w["os_platform"]
    if "stale" in case:
        assert [cf.id for cf in answer.stale] == case["stale"]
    if fixed is not None:
        assert fixed.fixes, "fix found nothing"
        changed = {}
        for f in fixed.fixes:
            assert f.path.verdict == "supported"  # every fix is verified by solving again
            for layer, ids in f.changes.items():
                changed.setdefault(layer.value, set()).update(ids)
        for layer, ids in case.get("fixes_include", {}).items():
            assert set(ids) <= changed.get(layer, set()), (layer, changed.get(layer))
        for layer, ids in case.get("fixes_exclude", {}).items():
            assert not set(ids) & changed.get(layer, set())
    if "fix_first" in case:
        fixed = fix(kg, run.compile_query(kg, case["statement"].replace("explain", "fix", 1)))
        (layer, node), = case["fix_first"].items()
        first = fixed.fixes[0]
        assert layer in {l.value for l in first.changes} and next(iter(first.changes.values()))[0] == node
    json.dumps(data)  # the JSON twin serialises
    snapshot = SNAPSHOTS / f"{case['name']}.txt"
    if update_snapshots() or not snapshot.exists():
        snapshot.write_text(text + "\n")
    assert text + "\n" == snapshot.read_text()


def test_explain_json_has_the_documented_shape(shipped):
    plan = run.compile_query(shipped, 'explain gpu = "GTX 1050", os = "Ubuntu 24.04", framework = "torch 2.8.0+cu128"')
    data = explain_json(shipped, explain(shipped, plan))
    assert set(data) >= {"verdict", "path", "breaks", "workarounds", "stale"}
    b = data["breaks"][0]
    assert b["edge"] == ["framework", "arch"] and b["fact"] == "torch-2.8.0+cu128-kernels"
    assert b["kind"] == "not_listed"
    assert b["source"]["url"].startswith("https://github.com/pytorch/pytorch/blob/")
    assert b["source"]["reviewed"] == "2026-11-30"
    hop_layers = [h["layer"] for h in data["path"]]
    assert hop_layers == ["gpu", "arch", "os", "driver", "toolkit", "framework"]


def test_fix_json_has_the_documented_shape(shipped):
    plan = run.compile_query(shipped, 'fix gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM')
    data = fix_json(shipped, fix(shipped, plan))
    first = data["fixes"][0]
    assert set(first) >= {"changes", "forces", "verified", "path"}
    assert first["verified"] is True
    assert first["changes"]["app"]["from"] == "vLLM"
