"""fix solves candidate changes closest first and stops once what it shows is decided: the
groups it returns are those a full enumeration (every candidate solved) would show."""

from __future__ import annotations

from itertools import combinations, product

import pytest

from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.solver import Problem, is_pseudo
from gpulane.graph.synthetic import generate
from gpulane.model import Layer
from gpulane.queries import run
from gpulane.queries.fix import MAX_ALTERNATIVES, MAX_PER_CHANGE, _Distance, _equivalence_key, _try_change

UNHURRIED = 1e12


def _reference(kg, plan, layers):
    """Every candidate solved (Solver.find); groups ordered by their closest member, ties by the
    solver's order of that member; each group's replacements closest first."""
    problem = plan.problem
    freed = Problem({l: v for l, v in problem.pins.items() if l not in layers}, problem.scope, problem.allow,
                    None if Layer.driver in layers else problem.driver)
    project = [l for l in layers if l is not Layer.driver]
    solver = run.solver_for(kg)
    originals = {l: problem.pins.get(l, frozenset()) for l in project}
    base = solver.find_domains(freed)
    order = {combo: i for i, combo in enumerate(product(*(base[l] for l in project)))} if base else {}
    answers = [(c, p) for c, p in solver.find(freed, project)
               if not all(problem.pins.get(l) and x in problem.pins[l] for l, x in zip(project, c))]

    distances = {l: _Distance(kg, originals[l]) for l in project}

    def closeness(combo):
        return tuple(distances[l](x) for l, x in zip(project, combo))

    groups: dict = {}
    for combo, path in answers:
        groups.setdefault(tuple(_equivalence_key(kg, l, x, path) for l, x in zip(project, combo)), []).append(combo)
    ranked = sorted(groups.values(), key=lambda members: min((closeness(c), order[c]) for c in members))
    shown = []
    for members in ranked[:MAX_PER_CHANGE]:
        members = sorted(members, key=lambda c: (closeness(c), order[c]))
        shown.append({l: list(dict.fromkeys(c[i] for c in members))[:MAX_ALTERNATIVES]
                      for i, l in enumerate(project)})
    return shown, len(groups) > MAX_PER_CHANGE


@pytest.mark.parametrize("n,seed", [(1000, 1), (1200, 2)])
def test_early_stop_shows_what_full_enumeration_shows(n, seed):
    kg = KnowledgeGraph(generate(n, seed=seed))
    gpus = sorted(kg.by_layer[Layer.gpu])[:5]
    statements = [f"gpu = {g}, app = app-{i % 3}, os = os-{i % 2}" for i, g in enumerate(gpus)]
    statements += [f"gpu = {g}, framework = fw-{i}, os = os-1" for i, g in enumerate(gpus[:3])]
    checked = 0
    for statement in statements:
        plan = run.compile_query(kg, "fix " + statement)
        changeable = [l for l in (Layer.app, Layer.framework, Layer.os, Layer.gpu) if l in plan.problem.pins]
        for size in (1, 2):
            for layers in combinations(changeable, size):
                fixes, cut, more = _try_change(kg, plan, layers, UNHURRIED)
                expected, expected_more = _reference(kg, plan, layers)
                assert not cut
                assert [{l: ids for l, ids in f.changes.items() if l is not Layer.driver} for f in fixes] == expected, \
                    (statement, layers)
                assert more == expected_more
                checked += bool(expected)
    assert checked > 5
