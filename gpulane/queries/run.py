"""Run statements: text → plan → answers (as data).

This is the library face of the query language; the CLI calls it.
"""

from __future__ import annotations

import time
from dataclasses import replace

from gpulane.errors import QueryError
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.solver import Solver
from gpulane.model import Layer
from gpulane.queries.parser import parse
from gpulane.queries.plan import Plan, plan
from gpulane.queries.results import FindResult, PathsResult

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
    solver = solver_for(kg)
    deadline = time.perf_counter() + FIND_TIME_BUDGET_S
    answers = solver.find(p.problem, p.project, limit=p.limit, deadline=deadline)
    result = FindResult(p.project, answers, truncated=time.perf_counter() > deadline)
    if not answers:
        result.empty_reason = _why_empty(kg, p)
    return result


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
        project = p.project or [Layer.gpu]
        lenient = replace(p.problem, lenient=True)
        found = solver.find(lenient, project, limit=50, deadline=time.perf_counter() + FIND_TIME_BUDGET_S / 4)
        if found:
            gaps: dict[str, int] = {}
            for _, path in found:
                for e in path.edges:
                    if e.verdict == "unknown":
                        key = f"{e.upper.value} {kg.nodes[e.upper_node].name} → {e.lower.value}"
                        gaps[key] = gaps.get(key, 0) + 1
            top = ", ".join(k for k, _ in sorted(gaps.items(), key=lambda kv: -kv[1])[:3])
            more = "50 or more" if len(found) >= 50 else str(len(found))
            return (f"no path is fully backed by sources, but {more} candidate(s) are blocked only by missing "
                    f"knowledge ({top}); add 'allow unknown' to list them, labelled")
    conds = p.statement.conditions
    project = p.project or [Layer.gpu]
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
