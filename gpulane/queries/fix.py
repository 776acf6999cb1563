"""Fix a blocked plan: the smallest changes that make it supported, each verified.

Every proposal is found by solving again with the changed choice, so each one
comes with a complete supported path. One changed layer is tried before two,
in a cost order (app < framework < toolkit < driver < OS < arch < GPU) that
``keep`` narrows; equivalent alternatives are grouped, and what else a change
forces (the toolkit and driver floor the new path needs) is reported.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations, product

from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.solver import Path, Problem, is_pseudo
from gpulane.model import LAYER_ORDER, Layer
from gpulane.queries.explain import EXPLAIN_BUDGET_S, LAYER_COST, ExplainAnswer, explain
from gpulane.queries.plan import Plan
from gpulane.queries.run import solver_for

__all__ = ["Fix", "FixAnswer", "fix", "FIX_BUDGET_S", "MAX_FIXES"]

FIX_BUDGET_S = 3.0
MAX_FIXES = 8
MAX_PER_CHANGE = 3  # groups shown per changed layer (or pair), so every layer gets a say
MAX_ALTERNATIVES = 12


@dataclass
class Fix:
    """One verified change: layer → replacement(s), the path it opens, what it forces."""

    changes: dict[Layer, list[str]]  # layer → equivalent replacement node ids (grouped)
    path: Path
    forces: dict[Layer, str] = field(default_factory=dict)
    unofficial: bool = False

    @property
    def size(self) -> int:
        return len(self.changes)


@dataclass
class FixAnswer:
    plan: Plan
    before: ExplainAnswer
    fixes: list[Fix]
    complete: bool  # False when the time or count bound cut the search
    tried: list[tuple[Layer, ...]]
    cut: bool = False  # True when the clock (or a step bound) stopped a search; complete is then False


def fix(kg: KnowledgeGraph, plan: Plan, budget_s: float = FIX_BUDGET_S) -> FixAnswer:
    """The smallest verified changes for a fix statement."""
    # The explanation gets the same share of a larger budget (tests pass one so that a busy
    # machine cannot cut the searches short).
    before = explain(kg, plan, budget_s=EXPLAIN_BUDGET_S * budget_s / FIX_BUDGET_S)
    if before.verdict == "supported":
        return FixAnswer(plan, before, [], True, [])
    deadline = time.perf_counter() + budget_s
    problem = plan.problem
    changeable = [l for l in LAYER_COST
                  if (l in problem.pins or (l is Layer.driver and problem.driver)) and l not in plan.keep]
    fixes: list[Fix] = []
    tried: list[tuple[Layer, ...]] = []
    # How far each replacement is from the user's choice: the same for every set of layers tried.
    distances = {l: _Distance(kg, problem.pins.get(l, frozenset())) for l in changeable}
    cut = not before.complete  # a cut explanation may hide part of what needs fixing
    complete = not cut
    for size in (1, 2):
        if fixes:
            break
        for layers in combinations(changeable, size):
            if time.perf_counter() > deadline or len(fixes) >= MAX_FIXES:
                cut = cut or time.perf_counter() > deadline
                complete = False
                break
            tried.append(layers)
            found, stopped, more = _try_change(kg, plan, layers, deadline, distances)
            cut = cut or stopped
            complete = complete and not stopped and not more
            fixes.extend(found)
    # Stable sort: within one layer, groups keep their closeness order from _try_change.
    fixes.sort(key=lambda f: (f.size, f.unofficial, sum(LAYER_COST.index(l) for l in f.changes)))
    if len(fixes) > MAX_FIXES:
        fixes, complete = fixes[:MAX_FIXES], False
    return FixAnswer(plan, before, fixes, complete, tried, cut)


def _try_change(kg: KnowledgeGraph, plan: Plan, layers: tuple[Layer, ...], deadline: float,
                distances: dict[Layer, _Distance] | None = None) -> tuple[list[Fix], bool, bool]:
    """Free the given layers, solve, and group the replacements that work: the first
    MAX_PER_CHANGE groups by closeness to the user's choice, each with up to MAX_ALTERNATIVES
    replacements.

    Candidates are tried closest first and only as far as what is shown needs: once more
    groups are known than are shown, a candidate whose group (read from the node, or from the
    pair tables for a GPU's architecture) is not shown, or is full, is not solved. Returns
    (fixes, cut, more): whether the clock cut the search, and whether more groups exist.
    `distances` holds a `_Distance` from the user's choice per layer (made here where absent)."""
    solver = solver_for(kg)
    problem = plan.problem
    pins = {l: v for l, v in problem.pins.items() if l not in layers}
    originals = {l: problem.pins.get(l, frozenset()) for l in layers}
    distances = {l: (distances or {}).get(l) or _Distance(kg, originals[l]) for l in layers}
    if Layer.app in layers:
        pins[Layer.app] = _app_candidates(kg, originals[Layer.app], distances[Layer.app])
    driver = None if Layer.driver in layers else problem.driver
    freed = Problem(pins, problem.scope, problem.allow, driver)
    project = [l for l in layers if l is not Layer.driver]
    if not project:
        # Only the driver changes: any path at all, with the driver range it needs.
        witness = next(solver.solutions(freed, deadline=deadline), None)
        if witness is None:
            return [], time.perf_counter() > deadline, False
        return [Fix({Layer.driver: []}, witness, _forces(kg, plan, witness, layers))], False, False
    base = solver.find_domains(freed)
    if base is None:
        return [], False, False
    # A replacement of no family the originals have is as far as any (`_Distance`): its key is
    # known without weighing versions.
    families = {l: {kg.nodes[o].family for o in originals[l] if o in kg.nodes} - {None} for l in project}

    def distance(layer: Layer, value: str) -> tuple:
        if kg.nodes[value].family not in families[layer]:
            return _FAR
        return distances[layer](value)

    def closeness(combo) -> tuple:
        return tuple(distance(l, c) for l, c in zip(project, combo))

    if len(project) == 1:
        pinned = problem.pins.get(project[0]) or ()
        candidates = [(c,) for c in base[project[0]] if c[:1] != "~" and c not in pinned]
    else:
        candidates = [combo for combo in product(*(base[l] for l in project))
                      if not any(is_pseudo(c) for c in combo)
                      and not all(problem.pins.get(l) and c in problem.pins[l] for l, c in zip(project, combo))]
    # Stable: candidates equally close keep the solver's order (newest first). Where no original
    # has a family (GPUs), every candidate is as far as any: the order is already the sorted one.
    if any(families[l] for l in project):
        candidates.sort(key=closeness)
    predict = _KeyPredictor(kg, base, project)
    # Group → (members in closeness order, each layer's distinct replacements); insertion order
    # is display order, since candidates come closest first. A group is full once every layer
    # has MAX_ALTERNATIVES replacements; groups only grow, so both are kept as they change.
    groups: dict[tuple, tuple[list, list[dict]]] = {}
    full: set[tuple] = set()
    shown: list[tuple] = []  # the first MAX_PER_CHANGE groups

    cut = False
    classes: dict = {}  # candidates no fact tells apart share one search (Solver.witness)
    for combo in candidates:
        if time.perf_counter() > deadline:
            cut = True
            break
        predicted = predict(combo)
        if len(groups) > MAX_PER_CHANGE:
            if all(k in full for k in shown):
                break  # nothing later can change what is shown, and more groups are known to exist
            if predicted is not None and (predicted not in shown or predicted in full):
                continue
        elif predicted is not None and predicted in full:
            continue
        path = solver.witness(freed, project, base, combo, deadline, classes)
        if path is None:
            if time.perf_counter() > deadline:
                cut = True
                break
            continue
        key = tuple(_equivalence_key(kg, l, c, path) for l, c in zip(project, combo))
        if key not in groups and len(shown) < MAX_PER_CHANGE:
            shown.append(key)
        members, seen = groups.setdefault(key, ([], [{} for _ in project]))
        members.append((combo, path))
        for i, c in enumerate(combo):
            seen[i].setdefault(c, None)
        if all(len(s) >= MAX_ALTERNATIVES for s in seen):
            full.add(key)
    fixes = []
    for key in list(groups)[:MAX_PER_CHANGE]:
        members, seen = groups[key]
        path = members[0][1]
        changes = {l: list(seen[i])[:MAX_ALTERNATIVES] for i, l in enumerate(project)}
        if Layer.driver in layers:
            changes[Layer.driver] = []
        fixes.append(Fix(changes, path, _forces(kg, plan, path, layers), bool(path.unofficial_used())))
    return fixes, cut, len(groups) > MAX_PER_CHANGE


class _KeyPredictor:
    """The group `_equivalence_key` will give a candidate, where the node alone decides it; None
    where only the path can tell (a GPU that positive facts link to more than one architecture).

    Made once per change tried: each value's part is worked out once (a value recurs in many
    combinations of two layers), and the architectures left in `base` are a set."""

    def __init__(self, kg: KnowledgeGraph, base: dict[Layer, list[str]], project: list[Layer]):
        self.kg = kg
        self.project = project
        self.base_archs = base.get(Layer.arch, ())
        self.base_arch_set = frozenset(self.base_archs)
        self.gpu_archs = kg.positive_pairs.get((Layer.gpu, Layer.arch), {})
        self.parts: dict[tuple[Layer, str], tuple | None] = {}

    def __call__(self, combo: tuple[str, ...]) -> tuple | None:
        key = []
        for layer, value in zip(self.project, combo):
            part = self.parts.get((layer, value), _MISSING)
            if part is _MISSING:
                part = self.parts[layer, value] = self._part(layer, value)
            if part is None:
                return None
            key.append(part)
        return tuple(key)

    def _part(self, layer: Layer, value: str) -> tuple | None:
        if layer is not Layer.gpu:
            return _equivalence_key(self.kg, layer, value, None)
        linked = self.gpu_archs.get(value, set())
        if len(linked) == 1:
            archs = [a for a in linked if a in self.base_arch_set]
        else:
            archs = [a for a in self.base_archs if a in linked]
        return (layer.value, archs[0]) if len(archs) == 1 else None


_MISSING = object()


RELEASES_PER_LINE = 12
SMALL_LINE = 40  # release lines this short are tried whole
OTHER_APP_RELEASES = 3


def _app_candidates(kg: KnowledgeGraph, originals: frozenset[str],
                    distance: _Distance | None = None) -> frozenset[str]:
    """The apps a changed app may become: every versionless app; of each release line
    (family and backend) of the app the user named, the releases nearest to it (one per
    distinct set of facts) and the newest ones; of other apps' lines, the newest few.

    Hundreds of releases would each need a verified path; the nearest ones answer
    "0.12.4 → 0.12.3", the newest ones "upgrade", and the rest add nothing a reader needs.
    `distance` is `_Distance(kg, originals)`, where the caller has one.
    """
    distance = distance or _Distance(kg, originals)
    signatures: dict[int, tuple] = {}  # a fact about many releases is read once (`_fact_signature`)
    lines: dict[tuple, list[str]] = {}
    out: set[str] = set()
    for node_id in kg.by_layer[Layer.app]:
        node = kg.nodes[node_id]
        if not node.version:
            out.add(node_id)
            continue
        lines.setdefault((node.family, node.backend), []).append(node_id)
    families = {kg.nodes[o].family for o in originals if o in kg.nodes}
    for (family, _backend), members in lines.items():
        newest = sorted(members, key=lambda m: _version_key(kg.nodes[m].version), reverse=True)
        if family not in families:
            out.update(newest[:OTHER_APP_RELEASES])  # another app: its newest releases stand for it
            continue
        if len(members) <= SMALL_LINE:
            out.update(members)
            continue
        out.update(_nearest_distinct(kg, distance, members, signatures), newest[:RELEASES_PER_LINE])
    return frozenset(out)


def _nearest_distinct(kg: KnowledgeGraph, distance: _Distance, members: list[str],
                      signatures: dict[int, tuple] | None = None) -> list[str]:
    """The releases nearest to the named one, one for each distinct set of facts about them.

    Neighbouring releases mostly say the same (vLLM 0.8.0 to 0.8.5 all pin torch 2.6.0): trying
    each would spend the candidate budget on one answer and miss the release a few steps away
    whose facts differ (vLLM 0.9.0's torch 2.7.0 pin and documented GPU floor).
    """
    picked: list[str] = []
    seen: set[frozenset] = set()
    for member in sorted(members, key=distance):
        signature = _fact_signature(kg, member, signatures)
        if signature in seen:
            continue
        seen.add(signature)
        picked.append(member)
        if len(picked) == RELEASES_PER_LINE:
            break
    return picked


def _fact_signature(kg: KnowledgeGraph, node_id: str, known: dict[int, tuple] | None = None) -> frozenset:
    """What the facts about a release say, without their ids and sources: two releases with
    equal signatures answer every question alike. `known` keeps each fact's part by its index
    (most facts about a release are about its neighbours too: Ollama's 418 releases read 59)."""
    known = {} if known is None else known
    parts = []
    for cf in kg.facts_about(node_id):
        if node_id not in cf.subjects:
            continue
        part = known.get(cf.index)
        if part is None:
            part = known[cf.index] = (cf.fact.relation, repr(cf.fact.object), repr(cf.fact.when), cf.fact.status,
                                      cf.fact.exhaustive, repr(cf.fact.domain))
        parts.append(part)
    return frozenset(parts)


def _version_key(version: str):
    from gpulane.versions import parse_version

    try:
        return parse_version(version)
    except Exception:
        return parse_version("0")


_FAR = (1, (1 << 20,), 1)  # what `_Distance` gives a replacement of no family the originals have


class _Distance:
    """How far a replacement is from what the user asked for (the originals): same family
    first, then the nearest version (newer before older on a tie). Ties keep the solver's order.

    The distance reads only the family and version of each node, so originals alike in both
    are weighed once (an app named by family pins every release of every backend: Ollama's
    491 nodes have 200 versions), their versions are parsed once, and replacements alike in
    both share one answer."""

    def __init__(self, kg: KnowledgeGraph, originals: frozenset[str]):
        self.kg = kg
        alike: dict[tuple, None] = {}
        for orig_id in originals:
            orig = kg.nodes.get(orig_id)
            if orig is not None:
                alike.setdefault((orig.family, orig.version), None)
        self.originals = [(family, version, _release(version) if version else None) for family, version in alike]
        # Releases of the originals, by family as `_nearest` compares families: a replacement
        # that is one of them (padded with zeros) is as near as any can be.
        self.releases = {((family or ""), release) for family, version, release in self.originals
                         if family is not None and version and release is not None}
        self.known: dict[tuple, tuple] = {}

    def __call__(self, value: str) -> tuple:
        node = self.kg.nodes[value]
        key = (node.family, node.version)
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = self._nearest(node.family, node.version)
        return found

    def _nearest(self, family: str | None, version: str | None) -> tuple:
        best: tuple = _FAR
        release = _release(version) if version else None
        if release is not None and self._is_original(family or "", release):
            # Equal padded releases give zero differences, as wide as `release` where the
            # original's is no longer: no other original's tuple is smaller.
            return (0, (0,) * len(release), 0)
        for orig_family, orig_version, orig_release in self.originals:
            same_family = (orig_family or "") == (family or "") and orig_family is not None
            if same_family and orig_version and version:
                if orig_release is None or release is None:
                    cand = (0, (1 << 19,), 1)  # a version that does not parse
                else:
                    a, b = orig_release, release
                    width = max(len(a), len(b))
                    a, b = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
                    cand = (0, tuple(abs(x - y) for x, y in zip(a, b)), 0 if b >= a else 1)
            else:
                cand = (0 if same_family else 1, (1 << 20,), 1)
            best = min(best, cand)
        return best

    def _is_original(self, family: str, release: tuple[int, ...]) -> bool:
        """Whether an original of the family has this release, or a prefix of it that the
        zeros after it pad out (2.6 for 2.6.0)."""
        for k in range(len(release), 0, -1):
            if (family, release[:k]) in self.releases:
                return True
            if release[k - 1] != 0:
                return False
        return False


def _release(version: str) -> tuple[int, ...] | None:
    """The release numbers of a version, or None where it does not parse."""
    from gpulane.versions import parse_version

    try:
        return parse_version(version).release
    except Exception:
        return None


def _equivalence_key(kg: KnowledgeGraph, layer: Layer, value: str, path: Path) -> tuple:
    """Replacements with the same key are shown as one alternative ("A | B | C")."""
    if layer is Layer.gpu:
        return (layer.value, path.values.get(Layer.arch))
    if layer is Layer.os:
        node = kg.nodes[value]
        return (layer.value, node.platform.value if node.platform else None)
    node = kg.nodes[value]
    if layer is Layer.app and node.backend not in (None, "cuda"):
        # "Ollama (ROCm)" and "(Vulkan)" apart from the CUDA releases and the versionless node.
        return (layer.value, node.family or value, node.backend)
    return (layer.value, node.family or value)


def _forces(kg: KnowledgeGraph, plan: Plan, path: Path, changed: tuple[Layer, ...]) -> dict[Layer, str]:
    """What the new path needs at layers the user did not choose (toolkit, framework, driver)."""
    out: dict[Layer, str] = {}
    for layer in LAYER_ORDER:
        if layer in plan.problem.pins or layer in changed or layer in (Layer.gpu, Layer.arch):
            continue
        if layer is Layer.driver:
            if path.driver_facts and path.driver_range is not None:
                out[layer] = path.driver_range.describe()
            continue
        value = path.values.get(layer)
        if value is None:
            continue
        if is_pseudo(value):
            owner = path.skipped_by.get(layer)
            out[layer] = ("not used by " if value.endswith("not_used") else "bundled by ") + \
                (kg.nodes[owner].name if owner else "?")
        else:
            out[layer] = kg.nodes[value].name
    return out
