"""Set-up steps for a configuration, as data: the cited commands that put a machine on a path.

For a supported configuration, gpulane takes the best supported path whose layers its
knowledge base can also say how to set up (the solver's order: newest first), and lists,
layer by layer (driver, toolkit, framework, app), the steps whose ``applies_to`` selects
that path. A layer no step covers is a *gap*, never a guessed command; a layer that
another node of the path brings (a toolkit fixed by the framework build, a runtime an app
bundles) needs no step of its own. Workaround settings appear only under
``allow workaround``, from the path's own workaround facts, labelled.

An unsupported (or unknown) configuration gets no steps: only its explanation and the
smallest verified fixes.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from gpulane.errors import QueryError
from gpulane.graph.kb import Condition, CompiledFact, KnowledgeGraph
from gpulane.graph.solver import NOT_USED, Path, is_pseudo, provided_by
from gpulane.model import SETUP_LAYERS, Layer, Status, Step
from gpulane.queries.explain import ExplainAnswer, explain
from gpulane.queries.fix import FixAnswer, fix
from gpulane.queries.plan import Plan
from gpulane.queries.run import solver_for

__all__ = ["SetupAnswer", "PlannedStep", "LayerNote", "setup", "steps_for", "METHODS", "SETUP_BUDGET_S",
           "fill_placeholders"]

SETUP_BUDGET_S = 4.0
# How many supported paths to weigh before settling for the one with the fewest gaps.
MAX_PATHS_WEIGHED = 400
# `using WORD` → the kind of install the steps are for.
METHODS = {"native": "native", "container": "container", "docker": "container", "podman": "container"}
_PLACEHOLDER = re.compile(r"(?<!\$)\{(\w+)\.(\w+)\}")
_ENV_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=\S+$")


@dataclass
class PlannedStep:
    """A step chosen for the path, its command with the path's values filled in."""

    step: Step
    command: str | None
    alternatives: list["PlannedStep"] = field(default_factory=list)

    @property
    def layer(self) -> Layer:
        return self.step.layer


@dataclass
class WorkaroundSetting:
    """An environment setting the path's workaround fact documents (only under allow workaround)."""

    fact: CompiledFact
    setting: str  # the fact's action, as written
    is_assignment: bool  # NAME=value, printable as an export


@dataclass
class LayerNote:
    """A layer of the path that gets no step of its own, and why."""

    layer: Layer
    node: str | None  # node id on the path (None for the driver)
    kind: str  # "gap" | "bundled" | "not_used" | "provided" | "covered"
    by: str | None = None  # the node (or step) that brings or covers it
    detail: str = ""


@dataclass
class SetupAnswer:
    plan: Plan
    method: str
    explanation: ExplainAnswer
    fixes: FixAnswer | None = None
    path: Path | None = None
    steps: list[PlannedStep] = field(default_factory=list)
    notes: list[LayerNote] = field(default_factory=list)
    workarounds: list[WorkaroundSetting] = field(default_factory=list)
    # The solver's first supported path, when the chosen one differs (it had more gaps).
    first_path: Path | None = None
    first_gaps: list[LayerNote] = field(default_factory=list)
    complete: bool = True  # False when the time bound cut the weighing of paths

    @property
    def supported(self) -> bool:
        return self.path is not None

    @property
    def gaps(self) -> list[LayerNote]:
        return [n for n in self.notes if n.kind == "gap"]


def setup(kg: KnowledgeGraph, plan: Plan, budget_s: float = SETUP_BUDGET_S) -> SetupAnswer:
    """The set-up steps of a planned configuration (setup statements)."""
    method = _method(plan)
    answer = explain(kg, plan)
    if answer.verdict != "supported":
        return SetupAnswer(plan, method, answer, fixes=fix(kg, plan))
    allow = plan.problem.allow
    deadline = time.perf_counter() + budget_s
    first = best = None
    complete = True
    for count, path in enumerate(solver_for(kg).solutions(plan.problem, deadline=deadline)):
        steps, notes = steps_for(kg, path, method, allow)
        gaps = sum(n.kind == "gap" for n in notes)
        if first is None:
            first = (path, steps, notes, gaps)
        if best is None or gaps < best[3]:
            best = (path, steps, notes, gaps)
        if gaps == 0:
            break
        if count + 1 >= MAX_PATHS_WEIGHED or time.perf_counter() > deadline:
            complete = False
            break
    if best is None:  # explain found a witness, so the clock cut this search: use that witness
        path = answer.path
        steps, notes = steps_for(kg, path, method, allow)
        best = first = (path, steps, notes, sum(n.kind == "gap" for n in notes))
        complete = False
    path, steps, notes, _ = best
    result = SetupAnswer(plan, method, answer, path=path, steps=steps, notes=notes,
                         workarounds=_workaround_settings(path), complete=complete)
    if first[0] is not path:
        result.first_path, result.first_gaps = first[0], [n for n in first[2] if n.kind == "gap"]
    return result


def _method(plan: Plan) -> str:
    using = plan.statement.using
    if using is None:
        return "native"
    word, span = using
    if word.lower() not in METHODS:
        import difflib

        close = difflib.get_close_matches(word.lower(), list(METHODS), n=1)
        raise QueryError(f"unknown set-up method '{word}'", plan.statement.text, span,
                         f"did you mean '{close[0]}'?" if close else "write: using native, or using container",
                         code="unknown_method")
    return METHODS[word.lower()]


def steps_for(kg: KnowledgeGraph, path: Path, method: str = "native",
              allow: frozenset[Status] = frozenset({Status.supported, Status.deprecated})
              ) -> tuple[list[PlannedStep], list[LayerNote]]:
    """The steps that apply to a path, in set-up order, and a note for every layer without one."""
    conditions = _compiled_conditions(kg)
    chosen: list[tuple[int, Step]] = []
    alternatives: dict[str, list[Step]] = {}
    for index, step in enumerate(kg.kb.steps):
        if step.status not in allow or step.method not in (method, "any"):
            continue
        if not all(_holds(path, cond) for cond in conditions[index]):
            continue
        if step.alternative_to:
            alternatives.setdefault(step.alternative_to, []).append(step)
        else:
            chosen.append((index, step))
    chosen.sort(key=lambda item: (SETUP_LAYERS.index(item[1].layer), item[1].order, item[0]))
    planned = [PlannedStep(step, fill_placeholders(kg, step.command, path),
                           [PlannedStep(alt, fill_placeholders(kg, alt.command, path))
                            for alt in alternatives.get(step.id, [])])
               for _, step in chosen]
    covered = {layer: step.id for _, step in reversed(chosen) for layer in (step.layer, *step.also_sets_up)}
    notes = [note for layer in SETUP_LAYERS if (note := _note(kg, path, layer, covered)) is not None]
    return planned, notes


def _note(kg: KnowledgeGraph, path: Path, layer: Layer, covered: dict[Layer, str]) -> LayerNote | None:
    """Why a layer of the path has no step of its own (None when a step sets it up itself)."""
    if layer is Layer.driver:
        if path.driver_range is None:
            return None  # the driver is outside this question's scope
        if layer in covered:
            return None
        return LayerNote(layer, None, "gap", detail="no source in the knowledge base says how to install this driver "
                                                    "on this operating system")
    value = path.values.get(layer)
    if value is None:
        return None
    if is_pseudo(value):
        owner = path.skipped_by.get(layer)
        return LayerNote(layer, None, "not_used" if value == NOT_USED else "bundled", by=owner)
    step_id = covered.get(layer)
    if step_id is not None:
        own = next((s for s in kg.kb.steps if s.id == step_id), None)
        if own is not None and own.layer is layer:
            return None
        return LayerNote(layer, value, "covered", by=step_id)
    provider = provided_by(kg, layer, path.values)
    if provider is not None:
        return LayerNote(layer, value, "provided", by=provider)
    return LayerNote(layer, value, "gap", detail="no source in the knowledge base says how to install it here")


def _compiled_conditions(kg: KnowledgeGraph) -> list[tuple[Condition, ...]]:
    """Each step's applies_to selectors as node sets, compiled once per graph."""
    cached = getattr(kg, "_step_conditions", None)
    if cached is None or len(cached) != len(kg.kb.steps):
        cached = [tuple(kg.select(sel.model_copy(update={"layer": sel.layer or layer}))
                        for layer, sel in step.applies_to.items())
                  for step in kg.kb.steps]
        kg._step_conditions = cached  # type: ignore[attr-defined]
    return cached


def _holds(path: Path, cond: Condition) -> bool:
    return cond.holds_for(path.values.get(cond.layer))


def fill_placeholders(kg: KnowledgeGraph, command: str | None, path: Path) -> str | None:
    """`{arch.llvm_target}`, `{framework.local}`, `{framework.public}` → the path's values."""
    if command is None:
        return None

    def value(match: re.Match) -> str:
        layer_name, attr = match.group(1), match.group(2)
        node_id = path.values.get(Layer(layer_name)) if layer_name in Layer.__members__ else None
        if node_id is None or is_pseudo(node_id):
            return match.group(0)
        node = kg.nodes[node_id]
        if attr in ("local", "public"):
            public, _, local = (node.version or "").partition("+")
            return (local if attr == "local" else public) or match.group(0)
        return str(getattr(node, attr, None) or match.group(0))

    return _PLACEHOLDER.sub(value, command)


def _workaround_settings(path: Path) -> list[WorkaroundSetting]:
    """The settings the path's workaround facts say to make (present only when allowed)."""
    out = []
    for cf in path.unofficial_used():
        if cf.status is Status.workaround and cf.fact.action:
            action = cf.fact.action.strip()
            out.append(WorkaroundSetting(cf, action, bool(_ENV_ASSIGNMENT.match(action))))
    return out
