"""Run statements: text → plan → answers (as data).

This is the library face of the query language; the CLI calls it.
"""

from __future__ import annotations

import time
from dataclasses import replace

from gpulane.errors import QueryError
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.solver import Solver, is_pseudo
from gpulane.model import LAYER_ORDER, Layer
from gpulane.queries.parser import parse
from gpulane.queries.plan import Plan, plan
from gpulane.queries.results import DriverAnswer, FindResult, PathsResult, driver_minimum

__all__ = ["solver_for", "compile_query", "find", "paths", "DEFAULT_PATHS_LIMIT", "FIND_TIME_BUDGET_S"]

DEFAULT_PATHS_LIMIT = 20
FIND_TIME_BUDGET_S = 20.0


def solver_for(kg: KnowledgeGraph) -> Solver:
    """The graph's solver, built once per graph."""
    solver = getattr(kg, "_solver", None)
    if solver is None:
        solver = Solver(kg)
        kg._solver = solver  # type: ignore[attr-defined]
    return solver


def compile_query(kg: KnowledgeGraph, text: str) -> Plan:
    """Parse and resolve a statement."""
    return plan(kg, parse(text))


def find(kg: KnowledgeGraph, p: Plan) -> FindResult:
    """One witness path per answer of a find statement."""
    if not p.project:
        raise QueryError("find needs the layer(s) to list", p.statement.text, None,
                         "for example: find gpu where app = vLLM", code="no_projection")
    if Layer.driver in p.project:
        return _find_driver(kg, p)
    solver = solver_for(kg)
    deadline = time.perf_counter() + FIND_TIME_BUDGET_S
    answers = solver.find(p.problem, p.project, limit=p.limit, deadline=deadline)
    result = FindResult(p.project, answers, truncated=time.perf_counter() > deadline)
    if not answers:
        result.empty_reason = _why_empty(kg, p)
    return result


# Paths looked at per answer when searching for the lowest stated driver minimum.
DRIVER_PATHS_PER_ANSWER = 40
_OLDEST_FIRST = (Layer.toolkit, Layer.framework, Layer.app)


def _find_driver(kg: KnowledgeGraph, p: Plan) -> FindResult:
    """`find driver ...`: drivers are ranges, not nodes, so the answer is, per OS platform and
    GPU vendor (and per value of the other projected layers), the supported path whose facts
    state the lowest driver minimum, with those facts."""
    solver = solver_for(kg)
    deadline = time.perf_counter() + FIND_TIME_BUDGET_S
    rest = [layer for layer in p.project if layer is not Layer.driver]
    problem = p.problem
    if Layer.toolkit not in problem.scope:
        # Driver minimums are stated mostly by toolkits: a path up to the driver alone would
        # leave most of them out, so the search reaches the toolkit layer.
        scope = tuple(layer for layer in LAYER_ORDER if layer in problem.scope or layer is Layer.toolkit)
        problem = replace(problem, scope=scope)
    os_ids = problem.pins.get(Layer.os, frozenset(kg.by_layer[Layer.os]))
    gpu_ids = problem.pins.get(Layer.gpu, frozenset(kg.by_layer[Layer.gpu]))
    drivers: list[DriverAnswer] = []
    for platform, os_part in _split(kg, os_ids, lambda n: n.platform.value if n.platform else "other"):
        for vendor, gpu_part in _split(kg, gpu_ids, lambda n: n.vendor or "other"):
            pins = {**problem.pins, Layer.os: os_part, Layer.gpu: gpu_part}
            sub = replace(problem, pins=pins)
            combos = [c for c, _ in solver.find(sub, rest, limit=p.limit, deadline=deadline)] if rest else [()]
            for combo in combos:
                pinned = {**pins, **{layer: frozenset([v]) for layer, v in zip(rest, combo)}}
                best = _lowest_driver_path(solver, replace(sub, pins=pinned), deadline)
                if best is not None:
                    drivers.append(DriverAnswer(tuple(combo), platform, vendor, best))
    if not drivers and not problem.lenient:
        # The driver facts hold even where another edge of the path has no source (a toolkit
        # whose OS list the knowledge base lacks): answer from such paths, labelled unknown.
        relaxed = _find_driver(kg, replace(p, problem=replace(problem, lenient=True)))
        if relaxed.drivers:
            return relaxed
    answers = [(d.combo, d.path) for d in drivers]
    result = FindResult(p.project, answers, truncated=time.perf_counter() > deadline, drivers=drivers)
    if not drivers:
        result.empty_reason = _why_empty(kg, p)
    return result


def _split(kg: KnowledgeGraph, ids, key) -> list[tuple[str, frozenset[str]]]:
    """Node ids grouped by a key of their node, groups in key order."""
    groups: dict[str, set[str]] = {}
    for node_id in ids:
        groups.setdefault(key(kg.nodes[node_id]), set()).add(node_id)
    return [(k, frozenset(v)) for k, v in sorted(groups.items())]


def _lowest_driver_path(solver: Solver, problem, deadline: float):
    """Among the first supported paths (oldest toolkits and builds first, since older
    releases ask for older drivers), the one stating the lowest driver minimum; a path that
    states none only when no path looked at states one."""
    doms = solver.domains(problem)
    for layer in _OLDEST_FIRST:
        if layer in doms:
            real = [v for v in doms[layer] if not is_pseudo(v)]
            doms[layer] = list(reversed(real)) + [v for v in doms[layer] if is_pseudo(v)]
    # Arc consistency even for a lenient search: a path may lack a source for an edge,
    # never pair a GPU with an architecture or toolkit nothing links it to.
    doms = solver.propagate(replace(problem, lenient=False), doms)
    if any(not values for values in doms.values()):
        return None
    best = None
    best_key = None
    for i, path in enumerate(solver.solutions(problem, doms, deadline=deadline, propagate=False)):
        if i >= DRIVER_PATHS_PER_ANSWER:
            break
        low = driver_minimum(path)
        # Paths with a stated requirement win over paths without one; then the lowest minimum.
        key = (0, low) if path.driver_facts and low is not None else ((1, None) if not path.driver_facts else (0, None))
        if best is None or _before(key, best_key):
            best, best_key = path, key
    return best


def _before(a: tuple, b: tuple) -> bool:
    """Order of (has-no-requirement, minimum) keys: stated first, then lower (None lowest)."""
    if a[0] != b[0]:
        return a[0] < b[0]
    if a[1] is None or b[1] is None:
        return a[1] is None and b[1] is not None
    return a[1] < b[1]


def paths(kg: KnowledgeGraph, p: Plan) -> PathsResult:
    """Complete supported paths, streamed up to the limit, in the asked order."""
    solver = solver_for(kg)
    limit = p.limit if p.limit is not None else DEFAULT_PATHS_LIMIT
    domains = solver.domains(p.problem)
    first = None
    if p.order:
        first, direction = p.order
        if first in domains and direction == "asc":
            domains[first] = list(reversed(domains[first]))
    out = []
    more = False
    for path in solver.solutions(p.problem, domains, first=first,
                                 deadline=time.perf_counter() + FIND_TIME_BUDGET_S):
        if len(out) >= limit:
            more = True
            break
        out.append(path)
    result = PathsResult(out, limit, more)
    if not out:
        result.empty_reason = _why_empty(kg, p)
    return result


def _why_empty(kg: KnowledgeGraph, p: Plan) -> str:
    """Why nothing was found: missing knowledge (paths exist with unknown edges), or
    the filter that emptied the answer (filters added in the order written)."""
    solver = solver_for(kg)
    if not p.problem.lenient:
        project = [layer for layer in p.project if layer is not Layer.driver] or [Layer.gpu]
        lenient = replace(p.problem, lenient=True)
        found = solver.find(lenient, project, limit=50, deadline=time.perf_counter() + FIND_TIME_BUDGET_S / 4)
        if found:
            gaps: dict[str, int] = {}
            for _, path in found:
                for e in path.edges:
                    if e.verdict in ("unknown", "builds_only"):
                        key = f"{e.upper.value} {kg.nodes[e.upper_node].name} → {e.lower.value}"
                        gaps[key] = gaps.get(key, 0) + 1
            top = ", ".join(k for k, _ in sorted(gaps.items(), key=lambda kv: -kv[1])[:3])
            more = "50 or more" if len(found) >= 50 else str(len(found))
            builds = sum(path.status == "builds_only" for _, path in found)
            what = "blocked only by missing knowledge"
            if builds:
                what = (f"built for it but not stated supported ({builds} builds_only) or blocked only by missing "
                        f"knowledge")
            return (f"no path is fully backed by sources, but {more} candidate(s) are {what} ({top}); add "
                    f"'allow unknown' to list them, labelled")
    conds = p.statement.conditions
    project = [layer for layer in p.project if layer is not Layer.driver] or [Layer.gpu]
    previous = None
    for k in range(len(conds) + 1):
        st = replace(p.statement, conditions=conds[:k])
        sub = plan(kg, st)
        sub.problem = replace(sub.problem, scope=p.problem.scope, allow=p.problem.allow)
        has = bool(solver.find(sub.problem, project, limit=1,
                               deadline=time.perf_counter() + FIND_TIME_BUDGET_S / 4))
        if not has:
            if k == 0:
                return "the knowledge base has no complete supported path up to this layer"
            cond = conds[k - 1]
            written = cond.name + f" {cond.op} " + " | ".join(v.text for v in cond.values)
            if cond.version is not None:
                written += f" {cond.version_op or ''}{cond.version.text}"
            if k == 1:
                return f"no supported path has {written}"
            return f"no answer once '{written}' is added; with {previous} there are answers"
        if k:
            cond = conds[k - 1]
            previous = "the filters before it" if k > 1 else f"'{cond.name} {cond.op} " + \
                " | ".join(v.text for v in cond.values) + "'"
    return "the answer is empty only with every filter together"
