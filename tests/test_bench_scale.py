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
