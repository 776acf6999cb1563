"""The peers in benchmarks/bench_scale.py answer the benchmark question exactly as gpulane does
(the semi-join over the compiled tables, the hand-written SPARQL on Oxigraph), so that the
ratios it prints compare equal work. Times are not checked here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.synthetic import generate

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scale.py"
_spec = importlib.util.spec_from_file_location("bench_scale", _PATH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


@pytest.mark.parametrize("n,seed", [(300, 0), (1000, 0), (1000, 4)])
def test_semi_join_and_hand_sparql_agree_with_gpulane(n, seed):
    pytest.importorskip("pyoxigraph")
    kg = KnowledgeGraph(generate(n, seed=seed))
    _, engine = bench.in_process_find(kg, 1)
    assert engine, "the benchmark question has answers at every size"
    assert bench.semi_join(kg) == engine
    _, ((_, generated), (_, hand)) = bench.oxigraph(kg, [bench.BENCH_QUESTION], 1, bench.hand_sparql())
    assert generated == engine
    assert hand == engine


def test_growth_exponent():
    assert bench.exponent((1_000, 0.01), (100_000, 1.0)) == pytest.approx(1.0)


def test_explain_and_fix_are_timed_on_blocked_plans():
    """The fix figure times a search at every size: none of the six plans is supported (fix of a
    supported plan returns after its explanation)."""
    from gpulane.queries import run
    from gpulane.queries.explain import explain

    kg = KnowledgeGraph(generate(1000, seed=0))
    plans = bench.blocked_plans(kg)
    assert len(plans) == 2 * bench.PLANS_PER_APP
    for statement in plans:
        assert explain(kg, run.compile_query(kg, "explain " + statement)).verdict != "supported"
