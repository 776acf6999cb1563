"""A search cut by its time or step budget never passes for a complete answer.

explain and fix run several searches (strict, lenient, closest, minimal conflict, workarounds,
each candidate change); when any of them stops at its bound, the answer says `complete = False`
and the text says the search was cut. An answer that says it is complete is the same answer an
unhurried search gives.
"""

from __future__ import annotations

import pytest

from gpulane.cli.render_explain import explain_text, fix_text
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.solver import Solver
from gpulane.graph.synthetic import generate
from gpulane.queries import run
from gpulane.queries.explain import explain
from gpulane.queries.fix import fix

UNHURRIED_S = 120.0
TINY_BUDGETS_S = (0.0, 1e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2)


@pytest.fixture(scope="module")
def kg():
    return KnowledgeGraph(generate(3000, seed=0))


def _plans(kg: KnowledgeGraph) -> list[str]:
    gpus = sorted(kg.by_layer["gpu"])[:4]
    return [f"gpu = {g}, app = app-{i % 2}, os = os-{i % 2}" for i, g in enumerate(gpus)]


def _explained(answer) -> tuple:
    path = answer.path and sorted((layer.value, v) for layer, v in answer.path.values.items())
    breaks = [(b.kind, b.edge.upper, b.edge.lower, [cf.id for cf in b.facts], b.candidates) for b in answer.breaks]
    conflict = answer.conflict and (answer.conflict.choices, [cf.id for cf in answer.conflict.facts])
    return (answer.verdict, path, breaks, conflict, [(w.fact.id, w.verified) for w in answer.workarounds])


def _fixed(answer) -> tuple:
    return (_explained(answer.before),
            [(f.changes, f.forces, sorted(f.path.values.items())) for f in answer.fixes])


def test_no_budget_is_never_complete(kg):
    for statement in _plans(kg):
        explained = explain(kg, run.compile_query(kg, "explain " + statement), budget_s=0.0)
        assert not explained.complete
        assert "stopped at its time bound" in explain_text(kg, explained)
        fixed = fix(kg, run.compile_query(kg, "fix " + statement), budget_s=0.0)
        assert not fixed.complete and fixed.cut


@pytest.mark.parametrize("budget_s", TINY_BUDGETS_S)
def test_a_complete_answer_under_a_tiny_budget_is_the_unhurried_answer(kg, budget_s):
    for statement in _plans(kg):
        plan = run.compile_query(kg, "explain " + statement)
        hurried = explain(kg, plan, budget_s=budget_s)
        if hurried.complete:
            assert _explained(hurried) == _explained(explain(kg, plan, budget_s=UNHURRIED_S)), statement
        fix_plan = run.compile_query(kg, "fix " + statement)
        hurried_fix = fix(kg, fix_plan, budget_s=budget_s)
        if hurried_fix.complete:
            assert _fixed(hurried_fix) == _fixed(fix(kg, fix_plan, budget_s=UNHURRIED_S)), statement


def test_closest_cut_by_its_step_bound_makes_explain_incomplete(kg, monkeypatch):
    """The lenient path is found, then the search for the one with the fewest gaps is cut: the
    verdict stands, but the answer may not show the best path, so it is not complete."""
    unknown = [s for s in _plans(kg)
               if explain(kg, run.compile_query(kg, "explain " + s), budget_s=UNHURRIED_S).verdict
               in ("unknown", "builds_only")]
    assert unknown, "the synthetic knowledge base has a plan with an unknown verdict"
    closest = Solver.closest

    def one_step(self, problem, deadline, max_steps=200_000, **kwargs):
        return closest(self, problem, deadline, max_steps=1, **kwargs)

    monkeypatch.setattr(Solver, "closest", one_step)
    answer = explain(kg, run.compile_query(kg, "explain " + unknown[0]), budget_s=UNHURRIED_S)
    assert answer.verdict in ("unknown", "builds_only")
    assert not answer.complete
    assert "stopped at its time bound" in explain_text(kg, answer)
    fixed = fix(kg, run.compile_query(kg, "fix " + unknown[0]), budget_s=UNHURRIED_S)
    assert not fixed.complete and fixed.cut
    assert "stopped" in fix_text(kg, fixed)
