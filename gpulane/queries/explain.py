"""Explain a configuration: a verdict, the breaking edges with their facts, a
minimal conflict, documented workarounds and stale facts — as data.

Three verdicts, never two: ``supported`` (a complete supported path extends
the configuration), ``unknown`` (no path is ruled out by a fact, but every one
lacks evidence somewhere), ``not_supported`` (every completion breaks on a
stated "no" or on a list its source declares complete).
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field, replace

from gpulane.graph.check import STALE_AFTER_DAYS
from gpulane.graph.kb import CompiledFact, KnowledgeGraph
from gpulane.graph.solver import Edge, Path, Problem, is_pseudo
from gpulane.model import LAYER_ORDER, Layer, Status
from gpulane.queries.plan import Plan
from gpulane.queries.run import solver_for

__all__ = ["ExplainAnswer", "BackendTry", "Break", "Conflict", "Workaround", "explain", "EXPLAIN_BUDGET_S"]

EXPLAIN_BUDGET_S = 2.0
# The order in which user choices are given up first when looking for a minimal conflict,
# and the default cost of changing a layer in fix (cheapest first).
LAYER_COST: tuple[Layer, ...] = (Layer.app, Layer.framework, Layer.toolkit, Layer.driver, Layer.os, Layer.arch,
                                 Layer.gpu)


@dataclass
class Break:
    """One edge that does not hold, in layer terms, with the facts that say so."""

    edge: Edge
    kind: str  # "stated" | "not_listed" | "driver" | "kernel" | "unknown"
    facts: list[CompiledFact]
    candidates: list[str] = field(default_factory=list)  # the pinned nodes it covers, when a name meant several
    unmet: list[CompiledFact] = field(default_factory=list)


@dataclass
class Conflict:
    """User choices and facts that cannot all hold; dropping any one choice lifts it."""

    choices: list[Layer]
    facts: list[CompiledFact]


@dataclass
class Workaround:
    """An unofficial way through: a workaround or community fact, and whether it was verified."""

    fact: CompiledFact
    verified: bool  # re-solved with this evidence allowed and a path was found
    path: Path | None = None


@dataclass
class BackendTry:
    """One backend of a multi-backend app (Ollama's CUDA, ROCm and Vulkan builds), on its own."""

    node: str
    status: str  # the best status a path through this backend reaches
    path: Path | None
    reason: Edge | None = None  # the first edge that keeps it from "supported"


@dataclass
class ExplainAnswer:
    verdict: str
    plan: Plan
    path: Path | None
    breaks: list[Break]
    conflict: Conflict | None
    workarounds: list[Workaround]
    stale: list[CompiledFact]
    complete: bool = True  # False when a time or step bound cut the search
    today: dt.date = field(default_factory=dt.date.today)
    # For an app named by family with one node per backend: each backend's own outcome.
    backends: list[BackendTry] = field(default_factory=list)

    @property
    def status(self) -> str:
        """supported, workaround (supported via a documented workaround), community, builds_only,
        unknown or not_supported."""
        if self.verdict == "supported" and self.path is not None:
            return self.path.status
        return self.verdict

    @property
    def caveats(self) -> list[tuple[str, str]]:
        out, seen = [], set()
        if self.path:
            for e in self.path.edges:
                if e.verdict == "ok":
                    for cf in e.facts:
                        if cf.fact.caveat and cf.id not in seen:
                            seen.add(cf.id)
                            out.append((cf.id, cf.fact.caveat))
        return out


def explain(kg: KnowledgeGraph, plan: Plan, budget_s: float = EXPLAIN_BUDGET_S) -> ExplainAnswer:
    """Explain a planned configuration (explain/why statements).

    An app named by family whose nodes are one per backend (Ollama) is supported when any
    backend path is; the answer says which backend it used and what each other one reached."""
    answer = _explain(kg, plan, budget_s)
    apps = plan.problem.pins.get(Layer.app, frozenset())
    if len(apps) > 1 and all(kg.nodes[a].backend for a in apps):
        answer.backends, whole = _backend_tries(kg, plan, answer, budget_s / 4)
        answer.complete = answer.complete and whole
    return answer


def _backend_tries(kg: KnowledgeGraph, plan: Plan, answer: ExplainAnswer,
                   budget_s: float) -> tuple[list[BackendTry], bool]:
    """Each backend's outcome, and whether every search behind them ran to its end."""
    solver = solver_for(kg)
    used = answer.path.values.get(Layer.app) if answer.path else None
    # One try per backend: the releases of a backend (Ollama 0.12.4 (ROCm), 0.12.3 (ROCm), ...)
    # are tried together and reported under the versionless node, else the newest release.
    lines: dict[tuple, list[str]] = {}
    for n in plan.problem.pins[Layer.app]:
        lines.setdefault((kg.nodes[n].family, kg.nodes[n].backend), []).append(n)
    groups = {}
    for members in lines.values():
        versionless = [m for m in members if not kg.nodes[m].version]
        if used in members:
            head = used
        elif versionless:
            head = sorted(versionless)[0]
        else:
            head = max(members, key=lambda m: _release_key(kg.nodes[m].version))
        groups[head] = frozenset(members)
    tries = []
    complete = True
    for node in sorted(groups, key=lambda n: (n != used, kg.nodes[n].name)):
        if node == used and answer.path is not None:
            path = answer.path
        else:
            pins = dict(plan.problem.pins)
            pins[Layer.app] = groups[node]
            deadline = time.perf_counter() + budget_s / max(1, len(groups))
            # A supported path through any release of the backend first; else the head alone,
            # for the reason it breaks.
            path = next(solver.solutions(replace(plan.problem, pins=pins), deadline=deadline), None) \
                if len(groups[node]) > 1 else None
            pins[Layer.app] = frozenset({node})
            problem = replace(plan.problem, pins=pins)
            if path is None:
                path = next(solver.solutions(problem, deadline=deadline), None)
            if path is None:
                path = next(solver.solutions(replace(problem, lenient=True), deadline=deadline), None)
            if path is None:
                path, whole = solver.closest(problem, deadline)
                complete = complete and whole
            # A search cut by the clock proves nothing about this backend.
            complete = complete and (path is not None and path.verdict == "supported"
                                     or time.perf_counter() <= deadline)
        status = path.status if path is not None else "not_supported"
        reason = None
        if path is not None:
            order = {"no": 0, "unknown": 1, "builds_only": 2}
            bad = sorted((e for e in path.edges if e.verdict in order and Layer.app in (e.upper, e.lower)),
                         key=lambda e: order[e.verdict]) or \
                sorted((e for e in path.edges if e.verdict in order), key=lambda e: order[e.verdict])
            reason = bad[0] if bad else None
        tries.append(BackendTry(node, status, path, reason))
    return tries, complete


def _release_key(version: str):
    from gpulane.versions import parse_version

    try:
        return parse_version(version)
    except Exception:
        return parse_version("0")


def _explain(kg: KnowledgeGraph, plan: Plan, budget_s: float) -> ExplainAnswer:
    solver = solver_for(kg)
    problem = plan.problem
    # The budget is for searching: the pair tables every search propagates over are made once
    # per process (a second at 10^5 facts) before the clock starts.
    kg.official_pairs
    deadline = time.perf_counter() + budget_s

    # Every search below may be cut by the clock (or closest by its step bound); a cut search
    # proves nothing ("no path found" is then not "no path"), so any cut makes the answer
    # incomplete. `searched` says whether a search that found nothing ran to its end.
    def searched() -> bool:
        return time.perf_counter() <= deadline

    witness = next(solver.solutions(problem, deadline=deadline), None)
    if witness is not None:
        return ExplainAnswer("supported", plan, witness, [], None, _workarounds_used(witness),
                             _stale(kg, witness.facts_used()))
    complete = searched()  # a supported path may exist where the clock stopped the strict search

    # What the searches that ran to their end proved, the closest-path search need not: no
    # path is supported, and then (below) none is free of "not supported" edges.
    floor = (0, 0, 1) if complete else (0, 0, 0)
    lenient = next(solver.solutions(replace(problem, lenient=True), deadline=deadline), None)
    if lenient is not None:
        # Any completion without a "no" proves the verdict; show the one with the fewest gaps.
        closest, whole = solver.closest(problem, deadline, floor=floor)
        complete = complete and whole
        if closest is not None and closest.verdict in ("unknown", "builds_only"):
            lenient = closest
        # "builds_only" (a build list is the only evidence where a statement is silent) ranks
        # above "unknown"; closest prefers fewer unknown edges, then fewer build-only ones.
        breaks = [_break(kg, plan, lenient, e) for e in lenient.edges if e.verdict in ("unknown", "builds_only")]
        breaks.sort(key=lambda b: b.kind == "unknown")
        workarounds, whole = _workarounds(kg, plan, lenient, deadline + _made_once(kg))
        return ExplainAnswer(lenient.verdict, plan, lenient, breaks, None, workarounds,
                             _stale(kg, lenient.facts_used()), complete and whole)
    complete = complete and searched()

    closest, whole = solver.closest(problem, deadline, floor=(1, 0, 0) if complete else (0, 0, 0))
    complete = complete and whole
    if closest is None:
        return ExplainAnswer("not_supported", plan, None, [], None, [], [], complete)
    breaks = [_break(kg, plan, closest, e) for e in closest.edges if e.verdict != "ok"]
    breaks.sort(key=lambda b: (b.kind == "unknown", -LAYER_ORDER.index(b.edge.upper)))
    conflict, whole = _minimal_conflict(kg, plan, closest, deadline)
    complete = complete and whole
    stale = _stale(kg, [cf for b in breaks for cf in b.facts] + closest.facts_used())
    workarounds, whole = _workarounds(kg, plan, closest, deadline + _made_once(kg))
    return ExplainAnswer("not_supported", plan, closest, breaks, conflict, workarounds, stale, complete and whole)


def _made_once(kg: KnowledgeGraph) -> float:
    """Make the table of every positive pair (what the workaround search propagates over) if
    this process has not yet; the seconds it took, which the search's clock does not count."""
    start = time.perf_counter()
    kg.positive_pairs
    return time.perf_counter() - start


def _break(kg: KnowledgeGraph, plan: Plan, path: Path, e: Edge) -> Break:
    """A break, widened over every node a pinned name stood for."""
    solver = solver_for(kg)
    facts = list(e.facts)
    candidates: list[str] = []
    for layer, node in ((e.upper, e.upper_node), (e.lower, e.lower_node)):
        pins = plan.problem.pins.get(layer)
        if layer is Layer.app and pins and all(kg.nodes[p].backend for p in pins if not is_pseudo(p)):
            continue  # each backend is its own path; `backends` says why each one fails
        if pins and len(pins) > 1 and e.kind != "driver":
            for other in sorted(pins):
                if other == node or is_pseudo(other):
                    continue
                values = dict(path.values)
                values[layer] = other
                alt = solver.edge(e.upper, values[e.upper], e.lower, values[e.lower], values, plan.problem.allow,
                                  plan.problem.driver, False, e.required, kernel=plan.problem.kernel)
                # Only candidates that break the same way (an unknown pair is not a vendor mismatch).
                if alt is not None and alt.verdict != "ok" and (alt.kind or alt.verdict) == (e.kind or e.verdict):
                    facts.extend(cf for cf in alt.facts if cf not in facts)
                    candidates.append(other)
            if candidates:
                candidates.insert(0, node)
    kind = e.kind or e.verdict
    # The facts that would apply under other conditions, nearest first: a fact whose `when`
    # fails on fewer of this path's layers says more about this path (a Linux summary row on
    # an Ubuntu path before a WSL 2 list on it).
    unmet = sorted(e.unmet, key=lambda cf: _conditions_failing(cf, path.values))
    return Break(e, kind, facts, candidates, unmet)


def _conditions_failing(cf: CompiledFact, values: dict[Layer, str]) -> int:
    """How many of a fact's conditions on chosen layers the path's values do not meet."""
    return sum(1 for cond in cf.when if cond.layer is not Layer.driver and not cond.holds_for(values.get(cond.layer)))


def _minimal_conflict(kg: KnowledgeGraph, plan: Plan, closest: Path, deadline: float) -> tuple[Conflict | None, bool]:
    """Drop user choices one at a time (cheapest first) while the rest still cannot work.

    Returns (conflict, complete); complete is False when the clock cut a search (then there is
    no conflict: none is better than one that is not minimal)."""
    solver = solver_for(kg)
    choices = [l for l in LAYER_COST if l in plan.problem.pins or (l is Layer.driver and plan.problem.driver)]
    kept = list(choices)

    def blocked(layers: list[Layer]) -> bool | None:
        """True or False; None when the clock cut the search (which proves nothing)."""
        top = max((LAYER_ORDER.index(l) for l in layers), default=1)
        scope = tuple(l for l in LAYER_ORDER if LAYER_ORDER.index(l) <= max(top, 1))
        pins = {l: v for l, v in plan.problem.pins.items() if l in layers}
        driver = plan.problem.driver if Layer.driver in layers else None
        sub = Problem(pins, scope, plan.problem.allow, driver, lenient=True)
        found = next(solver.solutions(sub, deadline=deadline), None)
        if found is None and time.perf_counter() > deadline:
            return None
        return found is None

    for layer in choices:
        trial = [l for l in kept if l is not layer]
        if not trial:
            continue
        verdict = blocked(trial)
        if verdict is None:
            return None, False  # out of time: no conflict is better than one that is not minimal
        if verdict:
            kept = trial
    if not kept:
        return None, True
    # The facts: the breaks of the closest path that only involve the kept choices
    # (and the layers those choices force), the stated ones first.
    sub_top = max(LAYER_ORDER.index(l) for l in kept)
    facts: list[CompiledFact] = []
    for e in sorted(closest.edges, key=lambda e: e.kind != "stated"):
        if e.verdict == "no" and LAYER_ORDER.index(e.upper) <= max(sub_top, 1):
            for cf in e.facts:
                if cf not in facts:
                    facts.append(cf)
            break
    return Conflict(kept, facts), True


def _workarounds_used(path: Path) -> list[Workaround]:
    return [Workaround(cf, True, path) for cf in path.unofficial_used()]


def _workarounds(kg: KnowledgeGraph, plan: Plan, path: Path, deadline: float) -> tuple[list[Workaround], bool]:
    """Unofficial facts that make the plan run (verified by solving again), then
    documented ones that name the plan's GPU or architecture but were not verified.

    Returns (workarounds, complete); complete is False when the clock cut the verifying search."""
    solver = solver_for(kg)
    out: list[Workaround] = []
    seen: set[str] = set()
    complete = True
    if not (set(plan.problem.allow) >= {Status.workaround, Status.community}):
        wider = replace(plan.problem, allow=frozenset(plan.problem.allow | {Status.workaround, Status.community}))
        witness = next(solver.solutions(wider, deadline=deadline), None)
        complete = witness is not None or time.perf_counter() <= deadline
        if witness is not None:
            for cf in witness.unofficial_used():
                seen.add(cf.id)
                out.append(Workaround(cf, True, witness))
    hardware_breaks = any(e.verdict != "ok" and {e.upper, e.lower} & {Layer.arch, Layer.gpu} for e in path.edges)
    targets = {path.values.get(Layer.arch), path.values.get(Layer.gpu)} - {None} if hardware_breaks else set()
    on_path = set(path.values.values())
    for cf in solver.unofficial_facts_about(on_path):
        if cf.id in seen:
            continue
        # Only what the plan's own nodes document, and only where its conditions can hold
        # (a Linux-only override says nothing to a Windows plan).
        if not (cf.subjects & on_path) or solver._applies(cf, path.values, plan.problem.driver, True) is False:
            continue
        if cf.fact.runs_as and cf.fact.runs_as == path.values.get(Layer.arch):
            continue  # an override is never offered for the target it runs the GPU as
        if cf.target.ids is not None and cf.target.ids & targets and cf.target.layer in (Layer.arch, Layer.gpu):
            seen.add(cf.id)
            out.append(Workaround(cf, False))
    return out, complete


def _stale(kg: KnowledgeGraph, facts: list[CompiledFact], today: dt.date | None = None) -> list[CompiledFact]:
    today = today or dt.date.today()
    out, seen = [], set()
    for cf in facts:
        reviewed = kg.reviewed(cf)
        if reviewed and (today - reviewed).days > STALE_AFTER_DAYS and cf.id not in seen:
            seen.add(cf.id)
            out.append(cf)
    return out
