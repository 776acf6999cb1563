"""Paths through the layers: edge verdicts, constraint propagation, witness search.

A *path* gives every layer in scope a node, or marks it "not used by" /
"bundled by" a node on the path. Scope runs from the GPU up to the highest layer
a question names. A path is supported when every required pair of layers is
backed by an applicable positive fact, no applicable fact says no, and the
driver requirements of its nodes intersect (and hold the driver asked for).

The search is propagation then depth-first search: domains are first narrowed
with pairwise positive-evidence tables (arc consistency, optimistic about
``when`` conditions), then each witness is built by DFS with forward checks and
confirmed by a strict evaluation of the complete path.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import product
from typing import Iterable, Iterator

from gpulane.graph.kb import CompiledFact, KnowledgeGraph
from gpulane.model import LAYER_ORDER, OFFICIAL_POSITIVE, Layer, Relation, Status
from gpulane.versions import VersionRange, kernel_matches

__all__ = ["Problem", "DriverPin", "Edge", "Path", "Solver", "REQUIRED_PAIRS", "NOT_USED", "BUNDLED", "is_pseudo"]

NOT_USED = "~not_used"
BUNDLED = "~bundled"

# Pairs that need positive evidence on a supported path (upper layer first).
REQUIRED_PAIRS: tuple[tuple[Layer, Layer], ...] = (
    (Layer.arch, Layer.gpu),
    (Layer.toolkit, Layer.arch),
    (Layer.toolkit, Layer.os),
    (Layer.framework, Layer.toolkit),
    (Layer.framework, Layer.arch),
    (Layer.framework, Layer.os),
    (Layer.app, Layer.framework),
    (Layer.app, Layer.arch),
    (Layer.app, Layer.os),
)
_RANK = {layer: i for i, layer in enumerate(LAYER_ORDER)}
_PAIR_RANK = {pair: i for i, pair in enumerate(REQUIRED_PAIRS)}
# Edge and path verdicts a lenient search accepts (missing or partial evidence, no "no").
_LENIENT_VERDICTS = ("unknown", "builds_only")
_VENDOR_NAMES = {"amd": "AMD", "nvidia": "NVIDIA", "intel": "Intel"}
_MISSING = object()
# How long a lenient witness search looks for a witness with fewer unknown edges (seconds).
LENIENT_WITNESS_S = 0.05
# Relations that fix the node of another layer (`_forcing_index`), and those by which a build
# provides a toolkit or framework (`provided_by`).
_FORCING_RELATIONS = frozenset({Relation.has_arch, Relation.built_with, Relation.bundles})
_PROVIDING_RELATIONS = frozenset({Relation.built_with, Relation.bundles})
# What `Solver._bounded_cost` gives a value that cannot beat the bound: above every cost.
_BEYOND = (1 << 40, 0, 0)


def is_pseudo(value: str | None) -> bool:
    return value is not None and value.startswith("~")


@dataclass(frozen=True)
class DriverPin:
    """The driver a question asks about: one version, or a range."""

    text: str
    range: VersionRange
    exact: str | None = None


@dataclass(frozen=True)
class Problem:
    """What to solve: candidate nodes per pinned layer, scope, evidence allowed."""

    pins: dict[Layer, frozenset[str]]
    scope: tuple[Layer, ...]
    allow: frozenset[Status] = OFFICIAL_POSITIVE
    driver: DriverPin | None = None
    # Accept paths whose only gaps are "unknown" edges (used to tell unknown from not supported).
    lenient: bool = False
    # The running Linux kernel asked about ("6.11.0-21-generic"): checked against the kernels a
    # toolkit -> os fact lists for that OS.
    kernel: str | None = None


@dataclass
class Edge:
    """The verdict on one pair of layers of a path, with the facts behind it."""

    upper: Layer
    lower: Layer
    upper_node: str
    lower_node: str
    verdict: str  # "ok" | "no" | "unknown" | "builds_only"
    # for "no": "stated" | "not_listed" | "driver" | "vendor"; "unknown"; "builds_only"
    kind: str | None = None
    facts: list[CompiledFact] = field(default_factory=list)
    unmet: list[CompiledFact] = field(default_factory=list)  # would say yes, but a condition fails
    unofficial: list[CompiledFact] = field(default_factory=list)  # workaround/community evidence
    required: bool = True
    detail: str | None = None
    # Build lists that contain the object: for "builds_only", the only evidence there is.
    builds: list[CompiledFact] = field(default_factory=list)

    @property
    def caveats(self) -> list[str]:
        return [cf.caveat for cf in self.facts if cf.caveat and self.verdict == "ok"]


@dataclass
class Path:
    """A complete assignment with its evaluation."""

    values: dict[Layer, str]
    skipped_by: dict[Layer, str]
    driver_range: VersionRange | None
    driver_facts: list[CompiledFact]
    edges: list[Edge]
    driver_pin: str | None = None

    @property
    def verdict(self) -> str:
        """not_supported, unknown, builds_only (only a build list speaks for some pair where a
        support statement is silent), or supported."""
        verdicts = {e.verdict for e in self.edges}  # one pass: a find reads this per answer
        if "no" in verdicts:
            return "not_supported"
        if "unknown" in verdicts:
            return "unknown"
        if "builds_only" in verdicts:
            return "builds_only"
        return "supported"

    @property
    def status(self) -> str:
        """The answer status: supported, workaround (supported via a documented workaround),
        community, builds_only, unknown or not_supported."""
        verdict = self.verdict
        if verdict != "supported":
            return verdict
        used = {cf.status for cf in self.unofficial_used()}
        if Status.workaround in used:
            return "workaround"
        if Status.community in used:
            return "community"
        return "supported"

    @property
    def caveats(self) -> list[str]:
        """Every caveat of the facts the path uses, once each, and what a weaker status means."""
        out: list[str] = []
        for e in self.edges:
            if e.verdict == "builds_only":
                names = ", ".join(cf.id for cf in e.facts)
                out.append(f"{e.upper.value} → {e.lower.value}: compiled for, not stated supported ({names} "
                           f"does not list it)")
        for cf in self.facts_used():
            if cf.caveat and cf.caveat not in out:
                out.append(cf.caveat)
        return out

    def facts_used(self) -> list[CompiledFact]:
        seen, out = set(), []
        for e in self.edges:
            if e.verdict == "ok":
                for cf in e.facts:
                    if cf.index not in seen:
                        seen.add(cf.index)
                        out.append(cf)
        for cf in self.driver_facts:
            if cf.index not in seen:
                seen.add(cf.index)
                out.append(cf)
        return out

    def unofficial_used(self) -> list[CompiledFact]:
        return [cf for cf in self.facts_used() if cf.status not in OFFICIAL_POSITIVE]


class Solver:
    """Answers questions about paths on one knowledge graph."""

    def __init__(self, kg: KnowledgeGraph):
        self.kg = kg
        # Verdicts of pairs whose facts carry no `when` depend on the two nodes alone.
        self._conditional = set(kg.conditional_pairs)
        # An override's verdict on a GPU depends on the path too (its OS condition).
        self._conditional |= {(s, layer) for s in kg.overrides for layer in (Layer.arch, Layer.gpu)}
        self._edge_memo: dict[tuple, Edge | None] = {}
        # Verdicts of conditional pairs, keyed also by the path values their conditions read.
        self._conditional_memo: dict[tuple, Edge | None] = {}
        self._conditioned_memo: dict[tuple[str, Layer], tuple[CompiledFact, ...]] = {}
        self._condition_layers_memo: dict[tuple[str, Layer], tuple[Layer, ...]] = {}
        self._applies_memo: dict[tuple, Edge | None] = {}
        self._ranks: dict[Layer, dict[str, int]] = {}
        # Pairs that are "no" / cannot be "no" whatever the path (see `_surely_no`).
        self._surely_memo: dict[tuple[str, str], bool] = {}
        self._surely_not_memo: dict[tuple[str, str], bool] = {}

    # -- edge evaluation -----------------------------------------------------------

    def _applies(self, cf: CompiledFact, values: dict[Layer, str], driver: DriverPin | None,
                 partial: bool) -> bool | None:
        """True, False, or None (a condition names a layer not yet chosen)."""
        maybe = False
        for cond in cf.when:
            if cond.layer is Layer.driver:
                if driver is None or driver.exact is None:
                    if partial:
                        maybe = True
                        continue
                    return False
                if not cond.holds_for(driver.exact):
                    return False
                continue
            value = values.get(cond.layer)
            if value is None:
                if partial:
                    maybe = True
                    continue
                return False
            if is_pseudo(value) or not cond.holds_for(value):
                return False
        return None if maybe else True

    def edge(self, upper: Layer, a: str, lower: Layer, b: str, values: dict[Layer, str],
             allow: frozenset[Status], driver: DriverPin | None = None, partial: bool = False,
             required: bool = True, kernel: str | None = None) -> Edge | None:
        """The verdict on the pair (a in upper, b in lower); None if nothing constrains it."""
        if (upper, lower) != (Layer.toolkit, Layer.os):
            kernel = None  # only toolkit -> os statements list kernels
        if (a, lower) in self._conditional or (b, upper) in self._conditional:
            # The verdict depends on the nodes and on whether each conditional fact weighed (and
            # each of the overrides consulted) applies on this path, nothing else. Remembered by
            # the path values those conditions read (cheap to look up) and, behind that, by
            # which of them apply: paths that differ only where no condition holds share one.
            read = self._condition_layers(a, lower) + self._condition_layers(b, upper)
            key = (upper, a, lower, b, allow, required, kernel, partial, tuple(values.get(l) for l in read),
                   (driver.text, driver.exact) if driver is not None and Layer.driver in read else None)
            memo = self._conditional_memo
            found = memo.get(key, _MISSING)
            if found is _MISSING:
                applies = self._applies
                by_verdicts = (upper, a, lower, b, allow, required, kernel, partial,
                               tuple(applies(cf, values, driver, partial) for cf in self._conditioned_facts(a, lower)),
                               tuple(applies(cf, values, driver, partial) for cf in self._conditioned_facts(b, upper)))
                shared = self._applies_memo
                found = shared.get(by_verdicts, _MISSING)
                if found is _MISSING:
                    if len(shared) > 200_000:
                        shared.clear()
                    found = shared[by_verdicts] = self._edge(upper, a, lower, b, values, allow, driver, partial,
                                                             required, kernel)
                if len(memo) > 200_000:
                    memo.clear()
                memo[key] = found
            return found
        if not required and (a, lower) not in self.kg.by_subject and (b, upper) not in self.kg.by_subject \
                and a not in self.kg.overrides and b not in self.kg.overrides and not self._vendor_mismatch(a, b):
            return None  # what `_edge` says of a pair no fact speaks about, where it is not required
        key = (upper, a, lower, b, allow, required, kernel)
        if key not in self._edge_memo:
            if len(self._edge_memo) > 200_000:
                self._edge_memo.clear()
            self._edge_memo[key] = self._edge(upper, a, lower, b, values, allow, driver, partial, required, kernel)
        return self._edge_memo[key]

    def _condition_layers(self, node: str, layer: Layer) -> tuple[Layer, ...]:
        """The layers that the conditions of `_conditioned_facts` read."""
        memo_key = (node, layer)
        found = self._condition_layers_memo.get(memo_key)
        if found is None:
            named = {cond.layer for cf in self._conditioned_facts(node, layer) for cond in cf.when}
            found = self._condition_layers_memo[memo_key] = tuple(l for l in LAYER_ORDER if l in named)
        return found

    def _conditioned_facts(self, node: str, layer: Layer) -> tuple[CompiledFact, ...]:
        """The facts with a `when` whose verdict `_edge` may read for `node`'s side of a pair
        with `layer`: its facts there and, for a node with overrides, its overrides and its own
        statements on architectures and GPUs (which decide whether an override is needed). Any
        new dependency of `_edge` on the path must be added here."""
        memo_key = (node, layer)
        found = self._conditioned_memo.get(memo_key)
        if found is None:
            by_subject = self.kg.by_subject
            facts = list(by_subject.get(memo_key, ()))
            if node in self.kg.overrides:
                facts += self.kg.overrides[node]
                facts += [*by_subject.get((node, Layer.arch), ()), *by_subject.get((node, Layer.gpu), ())]
            found = self._conditioned_memo[memo_key] = tuple(cf for cf in facts if cf.when)
        return found

    def _edge(self, upper: Layer, a: str, lower: Layer, b: str, values: dict[Layer, str],
              allow: frozenset[Status], driver: DriverPin | None, partial: bool, required: bool,
              kernel: str | None = None) -> Edge | None:
        kg = self.kg
        mismatch = self._vendor_mismatch(a, b)
        if mismatch:
            return Edge(upper, lower, a, b, "no", "vendor", [], required=required, detail=mismatch)
        sides = ((kg.by_subject.get((a, lower), []), b), (kg.by_subject.get((b, upper), []), a))
        overrides = (self.override(a, b, values, allow, driver, partial), self.override(b, a, values, allow, driver, partial))
        if not sides[0][0] and not sides[1][0] and overrides == (None, None):
            return Edge(upper, lower, a, b, "unknown", "unknown", required=True) if required else None
        # Statements (supports, runs_on, requires, ...) and build lists are weighed apart: a
        # build list is necessary for a binary to run, never sufficient where a statement speaks.
        positive, caveated, builds, negative, unmet, unofficial = [], [], [], [], [], []
        silent: list[CompiledFact] = []  # complete statements that do not list the object
        missing_build: list[CompiledFact] = []  # complete build lists that do not contain it
        maybe_positive = False
        beyond_kb: list[CompiledFact] = []  # built with / bundles a node the KB does not hold
        for (facts, other), override in zip(sides, overrides):
            # An exhaustive list restricts its own subject: facts from the other side
            # cannot add to it (ROCm's "PyTorch 2.5" does not widen what a
            # torch 2.5.1+rocm6.2 wheel was built with).
            side_silent, side_stated, side_no_build, side_built = [], False, [], False
            if override is not None:
                # The runtime runs the target as override.runs_as: the override is the statement,
                # and a build list with code for runs_as has code that runs here.
                side_stated = True
                if override not in positive:
                    positive.append(override)
            for cf in facts:
                if cf.runs_as and cf is not override:
                    continue  # an override speaks only through `override` (where it is needed)
                applies = self._applies(cf, values, driver, partial)
                selects = cf.selects(other)
                if applies is False:
                    if selects and cf.positive:
                        unmet.append(cf)
                    continue
                if not cf.positive:
                    if selects and applies:
                        negative.append(cf)
                    continue
                if applies and not cf.names_known and cf.exhaustive and not cf.is_build_list:
                    beyond_kb.append(cf)
                    continue
                if override is not None and cf.is_build_list and applies and cf.selects(override.runs_as):
                    side_built = True
                    builds.append(cf)
                    continue
                if applies and cf.restricts(other):
                    (side_no_build if cf.is_build_list else side_silent).append(cf)
                if not selects or cf is override:
                    continue
                if cf.status not in allow:
                    unofficial.append(cf)
                    continue
                # A fact that may still apply (partial path) keeps the lists open, optimistically.
                if cf.is_build_list:
                    side_built = True
                else:
                    side_stated = True
                if applies is None:
                    maybe_positive = True
                elif cf.is_build_list:
                    builds.append(cf)
                else:
                    (caveated if cf.caveat else positive).append(cf)
            if side_no_build and not side_built:
                missing_build.extend(side_no_build)
            if side_silent and not side_stated:
                silent.extend(side_silent)
        if negative:
            return Edge(upper, lower, a, b, "no", "stated", negative, unmet, unofficial, required)
        if beyond_kb:
            # The build names a toolkit the knowledge base does not hold (torch +rocm5.7): which
            # one it is is known, so no other node stands in for it; the pair is unknown.
            return Edge(upper, lower, a, b, "unknown", "unknown", beyond_kb, unmet, unofficial, required,
                        detail="built with a release the knowledge base does not hold")
        if missing_build:
            return Edge(upper, lower, a, b, "no", "not_listed", missing_build, unmet, unofficial, required)
        if silent:
            if builds or (maybe_positive and partial):
                return Edge(upper, lower, a, b, "builds_only", "builds_only", silent, unmet, unofficial, required,
                            builds=builds)
            return Edge(upper, lower, a, b, "no", "not_listed", silent, unmet, unofficial, required)
        if kernel is not None:
            # A statement that lists kernels decides for the kernel asked about; one that names
            # none says nothing about kernels and cannot outvote it.
            listing = [cf for cf in positive + caveated if cf.fact.kernels]
            if listing and not any(kernel_matches(kernel, k) for cf in listing for k in cf.fact.kernels):
                listed = ", ".join(dict.fromkeys(k for cf in listing for k in cf.fact.kernels))
                return Edge(upper, lower, a, b, "no", "kernel", listing, unmet, unofficial, required,
                            detail=f"kernel {kernel} is not among the kernels listed for {self.kg.nodes[b].name}: {listed}")
        if positive or caveated:
            return Edge(upper, lower, a, b, "ok", None, positive or caveated, unmet, unofficial, required,
                        builds=builds)
        if builds:
            return Edge(upper, lower, a, b, "ok", None, builds, unmet, unofficial, required)
        if maybe_positive:
            return Edge(upper, lower, a, b, "ok", "pending", [], unmet, unofficial, required)
        if required:
            return Edge(upper, lower, a, b, "unknown", "unknown", [], unmet, unofficial, required)
        return None

    def override(self, subject: str, other: str, values: dict[Layer, str], allow: frozenset[Status],
                 driver: DriverPin | None = None, partial: bool = False, own: bool = True) -> CompiledFact | None:
        """The override workaround of `subject` that lets it run on `other` (an arch, or a GPU
        through its arch), when the query allows workarounds and its conditions can hold.

        Never for the target it runs as, and (for the subject's own edge, `own`) never where the
        subject officially supports the target: a documented override is used only where needed.
        For another node's edge (the ROCm toolkit under llama.cpp's override) that edge already
        failed, so the target is not officially supported there."""
        kg = self.kg
        candidates = kg.overrides.get(subject)
        if not candidates or Status.workaround not in allow or other not in kg.nodes:
            return None
        layer = kg.nodes[other].layer
        archs = [other] if layer is Layer.arch else kg.arch_of(other) if layer is Layer.gpu else []
        for cf in candidates:
            if cf.runs_as in archs or not any(cf.selects(x) for x in archs):
                continue
            if self._applies(cf, values, driver, partial) is False:
                continue
            if own and self.officially_supports(subject, [other, *archs], values, driver, partial):
                return None
            return cf
        return None

    def officially_supports(self, subject: str, targets: list[str], values: dict[Layer, str],
                            driver: DriverPin | None = None, partial: bool = False) -> bool:
        """Whether an official support statement of `subject` names one of the targets."""
        for layer in {self.kg.nodes[t].layer for t in targets if t in self.kg.nodes}:
            for cf in self.kg.by_subject.get((subject, layer), []):
                if cf.status in OFFICIAL_POSITIVE and not cf.is_build_list and \
                        any(cf.selects(t) for t in targets) and self._applies(cf, values, driver, partial) is not False:
                    return True
        return False

    def unofficial_facts_about(self, nodes) -> list[CompiledFact]:
        """The workaround and community facts (positive, not official) whose subjects include
        one of `nodes`, in the knowledge base's order (an index made once per solver)."""
        index = getattr(self, "_unofficial_index", None)
        if index is None:
            index = {}
            for cf in self.kg.facts:
                if cf.status not in OFFICIAL_POSITIVE and cf.status is not Status.unsupported:
                    for s in cf.subjects:
                        index.setdefault(s, []).append(cf)
            self._unofficial_index = index
        found = {cf.index: cf for n in nodes for cf in index.get(n, ())}
        return [found[i] for i in sorted(found)]

    def _vendor_mismatch(self, a: str, b: str) -> str | None:
        """Why a pair is impossible by vendor (a CUDA build on an AMD target), or None."""
        va, vb = self.kg.compute_vendor(a), self.kg.compute_vendor(b)
        if va is None or vb is None or va == vb:
            return None
        na, nb = self.kg.nodes[a], self.kg.nodes[b]
        return f"{na.name} is for {_VENDOR_NAMES.get(va, va)} GPUs; {nb.name} is {_VENDOR_NAMES.get(vb, vb)}"

    # -- scope and domains ---------------------------------------------------------

    def _pairs_in(self, scope: tuple[Layer, ...]) -> tuple[tuple[Layer, Layer], ...]:
        """Every pair of non-driver layers in scope, upper layer first (once per scope)."""
        memo = self.__dict__.setdefault("_pairs_memo", {})
        found = memo.get(scope)
        if found is None:
            layers = [l for l in scope if l is not Layer.driver]
            layers.sort(key=_RANK.get, reverse=True)
            found = memo[scope] = tuple((u, l) for i, u in enumerate(layers) for l in layers[i + 1:])
        return found

    def _required(self, upper: Layer, lower: Layer, values: dict[Layer, str], partial: bool = False,
                  scope: tuple[Layer, ...] = LAYER_ORDER) -> bool:
        """Whether the pair needs positive evidence on this path."""
        if (upper, lower) in _PAIR_RANK and (upper, lower) != (Layer.toolkit, Layer.os):
            return True  # a required pair (REQUIRED_PAIRS) other than toolkit -> os
        if (upper, lower) == (Layer.toolkit, Layer.os):
            # A toolkit that ships inside a framework build or an app (a +cu128 wheel)
            # answers to that build's OS facts; one the user installs needs its own.
            if partial and any(l in scope and values.get(l) is None for l in (Layer.framework, Layer.app)):
                return False  # a framework or app that carries the toolkit may still be chosen
            return not provided_by(self.kg, Layer.toolkit, values)
        if (upper, lower) in REQUIRED_PAIRS:
            return True
        # An app that uses no framework answers to the toolkit instead.
        if (upper, lower) == (Layer.app, Layer.toolkit):
            fw = values.get(Layer.framework)
            return is_pseudo(fw) if not (partial and fw is None and Layer.framework in scope) else False
        return False

    def domains(self, problem: Problem, against_pins: bool | None = None) -> dict[Layer, list[str]]:
        """Candidate values per layer in scope, pseudo values included where declared."""
        kg = self.kg
        out: dict[Layer, list[str]] = {}
        declared: dict[Layer, set[str]] = {}
        for layer in problem.scope:
            if layer is Layer.driver:
                continue
            ids = problem.pins.get(layer)
            if ids is not None:
                values = list(ids)
            else:
                values = None
            out[layer] = values
        for layer, values in out.items():
            for v in (values if values is not None else self._declaring_in(layer)):
                node = kg.nodes.get(v)
                if node is not None:
                    for skipped, kind in node.layers.items():
                        declared.setdefault(skipped, set()).add(NOT_USED if kind == "not_used" else BUNDLED)
        for layer, values in out.items():
            if values is None:
                # Every value of the layer, in the solver's order, then the declared pseudo values
                # (which `_order` puts last, by name).
                out[layer] = self._ordered_layer(layer) + sorted(declared.get(layer, ()))
            else:
                out[layer] = self._order(layer, values)
        # Strict searches propagate (which covers the pins); lenient ones cannot, so they filter here.
        if against_pins is None:
            against_pins = problem.lenient
        return self._against_pins(problem, out) if against_pins else out

    def _ordered_layer(self, layer: Layer) -> list[str]:
        """A layer's candidate nodes in the solver's order, computed once per solver. Every path
        starts at a GPU, so a CPU-only build is never a candidate; it is answered only when the
        question names it (and then fails at framework -> arch)."""
        cache = self.__dict__.setdefault("_ordered_layers", {})
        found = cache.get(layer)
        if found is None:
            kg = self.kg
            found = cache[layer] = self._order(layer, [v for v in kg.by_layer[layer] if kg.nodes[v].backend != "cpu"])
        return list(found)

    def _declaring_in(self, layer: Layer) -> list[str]:
        """The candidate nodes of a layer that declare another layer unused or bundled (once per
        solver)."""
        cache = self.__dict__.setdefault("_declaring_in_memo", {})
        found = cache.get(layer)
        if found is None:
            declaring = self._declaring_nodes()
            found = cache[layer] = tuple(v for v in self.kg.by_layer[layer]
                                         if v in declaring and self.kg.nodes[v].backend != "cpu")
        return list(found)

    def _layer_set(self, layer: Layer) -> frozenset[str]:
        """The set of `_ordered_layer` (once per solver)."""
        cache = self.__dict__.setdefault("_layer_sets", {})
        found = cache.get(layer)
        if found is None:
            found = cache[layer] = frozenset(self._ordered_layer(layer))
        return found

    def propagated_domains(self, problem: Problem, probe: Layer | None = None) -> dict[Layer, list[str]]:
        """`propagate(problem, domains(problem))` for a strict problem, computed by semi-joins
        over the pair tables from the selective side, in sets, and ordered once at the end.

        Arc consistency has one fixpoint whatever the order of revisions, and each revision
        here keeps exactly the values `_revise` keeps: a value with a positive link to some
        value of the other layer (the tables hold each pair in both directions, so the values
        below that some value above links to are the union of what those values link to), a
        value that declares the other layer unused or bundled when that pseudo value is there,
        and pseudo values as `_revise` keeps them. The work is what the selective layers link
        to, not the size of the large ones: a pin (app = X) narrows the layers next to it
        first. Where some layer empties, the lists returned hold an empty one (as `propagate`,
        whose other lists are then not a fixpoint either).

        With `probe`, each value of that layer is then tried alone (`_probed`)."""
        kg = self.kg
        table = kg.positive_pairs if (problem.allow - OFFICIAL_POSITIVE) else kg.official_pairs
        real: dict[Layer, frozenset[str] | set[str]] = {}
        pseudo: dict[Layer, set[str]] = {}
        declared: dict[Layer, set[str]] = {}
        layers = [l for l in problem.scope if l is not Layer.driver]
        declaring = self._declaring_nodes()
        for layer in layers:
            ids = problem.pins.get(layer)
            for v in (declaring.intersection(ids) if ids is not None else self._declaring_in(layer)):
                node = kg.nodes.get(v)
                if node is not None and node.layers:
                    for skipped, kind in node.layers.items():
                        declared.setdefault(skipped, set()).add(_pseudo_for(kind))
        for layer in layers:
            ids = problem.pins.get(layer)
            if ids is None:
                real[layer] = self._layer_set(layer)
                pseudo[layer] = set(declared.get(layer, ()))
            else:
                pseudo[layer] = {v for v in (NOT_USED, BUNDLED) if v in ids}
                real[layer] = frozenset(ids) - pseudo[layer] if pseudo[layer] else frozenset(ids)
        empty = not self._arc_sets(real, pseudo, table, None)
        if not empty and probe is not None:
            empty = not self._probed(probe, real, pseudo, table)
        if not empty:
            empty = not self._narrow_leaves(real, pseudo, table)
        out = {}
        for layer in layers:
            values = [*real[layer], *pseudo[layer]]
            out[layer] = self._order(layer, values) if not empty else values
        return out

    def _arc_sets(self, real: dict, pseudo: dict, table, changed: set[Layer] | None) -> bool:
        """Arc consistency over the required pairs (as `propagate`) on sets, in place: False
        where some layer empties.

        A leaf layer (`_arc_pairs`: one pair touches it, from above) is left as it is, for
        `_narrow_leaves`: its neighbour is revised against it once, and no later revision
        changes that, since every value of the neighbour that stays keeps a linked leaf value
        that links to it. Narrowing the leaf once at the end, against the neighbour's last
        values, gives the fixpoint's leaf, without the leaf's walks as the neighbour shrinks
        (the GPUs of every architecture an app, an OS and a vendor leave, before the probe
        leaves a few)."""
        pairs, touching, leaf_pairs = self._arc_pairs(frozenset(real))
        revised_leaves = set()
        sizes = {layer: len(real[layer]) + len(pseudo[layer]) for layer in touching}

        def cost(pair: tuple[Layer, Layer]) -> int:
            """About what revising the pair walks: the links of its smaller side (up to the size
            of the larger one), so that a pin with few links (app = X) goes before one that
            links to a whole layer (an OS every build runs on)."""
            upper, lower = pair
            small, big = (upper, lower) if sizes[upper] <= sizes[lower] else (lower, upper)
            cap = sizes[big]
            if sizes[small] > 64:
                return cap
            links = table.get((small, big), {})
            total = 0
            for v in real[small]:
                total += len(links.get(v, ()))
                if total >= cap:
                    return cap
            return total

        if changed is None:
            queued = set(pairs)
        else:
            queued = {pair for layer in changed for pair in touching.get(layer, ())}
        while queued:
            if len(queued) == 1:
                pair = queued.pop()
            else:
                # The least (smaller side, cost, rank): the cost is walked only among the pairs
                # whose smaller side is the smallest.
                smallest, tied = None, []
                for p in queued:
                    side = min(sizes[p[0]], sizes[p[1]])
                    if smallest is None or side < smallest:
                        smallest, tied = side, [p]
                    elif side == smallest:
                        tied.append(p)
                pair = tied[0] if len(tied) == 1 else min(tied, key=lambda p: (cost(p), _PAIR_RANK[p]))
                queued.discard(pair)
            upper, lower = pair
            if pair in leaf_pairs:
                if pair in revised_leaves:
                    continue  # the leaf has not changed: the neighbour's values keep their links
                revised_leaves.add(pair)
                self._revise_sets(upper, lower, real, pseudo, table, narrow_lower=False)
            else:
                self._revise_sets(upper, lower, real, pseudo, table)
            for layer in pair:
                n = len(real[layer]) + len(pseudo[layer])
                if not n:
                    return False
                if n != sizes[layer]:
                    sizes[layer] = n
                    queued.update(touching[layer])
            queued.discard(pair)  # consistent now: a revision leaves its own pair consistent
        return True

    def _arc_pairs(self, layers: frozenset[Layer]) -> tuple[tuple[tuple[Layer, Layer], ...], dict, frozenset]:
        """The required pairs `_arc_sets` revises among `layers` (toolkit -> os aside, see
        `propagate`), the pairs touching each layer, and the leaf pairs: those whose lower layer
        no other pair touches (the GPUs below the architectures). Once per set of layers."""
        memo = self.__dict__.setdefault("_arc_pairs_memo", {})
        found = memo.get(layers)
        if found is None:
            pairs = tuple((u, l) for (u, l) in REQUIRED_PAIRS
                          if u in layers and l in layers and (u, l) != (Layer.toolkit, Layer.os))
            touching: dict[Layer, tuple[tuple[Layer, Layer], ...]] = {}
            for pair in pairs:
                for layer in pair:
                    touching[layer] = touching.get(layer, ()) + (pair,)
            leaf_pairs = frozenset(pair for pair in pairs if touching[pair[1]] == (pair,))
            found = memo[layers] = (pairs, touching, leaf_pairs)
        return found

    # Probe each value of a layer when it has at most this many (and the GPU layer more).
    PROBE_AT_MOST = 64

    def _probed(self, layer: Layer, real: dict, pseudo: dict, table) -> bool:
        """Drop the values of `layer` through which no supported path can pass, then what only
        they linked to (singleton arc consistency on that layer), in place; False where the
        layer empties.

        Arc consistency checks the layer pairs one at a time: an architecture stays when some
        build ships kernels for it and some toolkit supports it, though no build of a toolkit
        that supports it does. Fixing the value and propagating again weighs the pairs
        together; where a layer then empties, no supported path (for any GPU) uses that value,
        so leaving it out removes no answer and changes no witness (a search meets the values
        it keeps in the same order). It pays where many GPUs share few architectures: each GPU
        no longer costs a search, only the architectures do."""
        values = real.get(layer)
        if values is None or len(values) < 2 or len(values) > self.PROBE_AT_MOST \
                or self._leaf_size(Layer.gpu, real, pseudo, table, len(values)) <= len(values):
            return True
        # A layer that only one pair touches (the GPUs, below the architectures) cannot empty
        # another in a trial: starting from a fixpoint, each value it supports keeps a linked
        # value of it, which the revision keeps. The trials leave such layers out.
        _, touching, _ = self._arc_pairs(frozenset(real))
        leaves = {l for l, ps in touching.items() if len(ps) == 1 and l is not layer}
        trial_base = {l: vals for l, vals in real.items() if l not in leaves}
        trial_pseudo_base = {l: vals for l, vals in pseudo.items() if l not in leaves}
        kept = set()
        for v in values:
            trial_real = {**trial_base, layer: {v}}
            trial_pseudo = {**trial_pseudo_base, layer: set()}
            if self._arc_sets(trial_real, trial_pseudo, table, {layer}):
                kept.add(v)
        if len(kept) == len(values):
            return True
        real[layer] = kept
        return bool(kept or pseudo[layer]) and self._arc_sets(real, pseudo, table, {layer})

    def _leaf_size(self, layer: Layer, real: dict, pseudo: dict, table, cap: int) -> int:
        """How many real values `layer` holds once `_narrow_leaves` has narrowed it (where it is
        a leaf), counted up to cap + 1."""
        values = real.get(layer, ())
        if len(values) <= cap:
            return len(values)
        _, _, leaf_pairs = self._arc_pairs(frozenset(real))
        upper = next((u for u, l in leaf_pairs if l is layer), None)
        if upper is None or pseudo[upper]:
            return len(values)
        links, seen = table.get((upper, layer), {}), set()
        for x in real[upper]:
            for y in links.get(x, ()):
                if y in values:
                    seen.add(y)
            if len(seen) > cap:
                break
        return len(seen)

    def _revise_sets(self, upper: Layer, lower: Layer, real: dict, pseudo: dict, table,
                     narrow_lower: bool = True) -> None:
        """`_revise` on sets, in place: each side joined from whichever side costs less to walk
        (the lower side only with `narrow_lower`)."""
        nodes = self.kg.nodes
        fwd, back = table.get((upper, lower), {}), table.get((lower, upper), {})
        us, ls = real[upper], real[lower]
        decl = self._declaring_layer(upper, lower)
        decl_here = (us & decl) if decl else ()
        plain = (us - decl_here) if decl_here else us
        kept = _linked(plain, ls, fwd, back)
        if decl_here:
            kept = set(kept)
            lower_pseudo = pseudo[lower]
            kept.update(x for x in decl_here if _pseudo_for(nodes[x].layers[lower]) in lower_pseudo)
        real[upper] = kept
        if narrow_lower:
            self._narrow_lower(upper, lower, real, pseudo, table)

    def _narrow_lower(self, upper: Layer, lower: Layer, real: dict, pseudo: dict, table) -> None:
        """The lower half of `_revise_sets`, in place: the values of `lower` that a value of
        `upper` links to, and the pseudo values one of them declares."""
        if pseudo[upper]:
            return  # a pseudo value above supports every value below (it is always kept)
        us = real[upper]
        decl = self._declaring_layer(upper, lower)
        decl_here = (us & decl) if decl else ()
        nodes = self.kg.nodes
        declared = {_pseudo_for(nodes[x].layers[lower]) for x in decl_here} if decl_here else set()
        pseudo[lower] = {y for y in pseudo[lower] if y in declared}
        real[lower] = _linked(real[lower], us, table.get((lower, upper), {}), table.get((upper, lower), {}))

    def _narrow_leaves(self, real: dict, pseudo: dict, table) -> bool:
        """Narrow the leaf layers that `_arc_sets` leaves for last against their one neighbour
        (in place, once): False where one empties."""
        _, _, leaf_pairs = self._arc_pairs(frozenset(real))
        for upper, lower in leaf_pairs:
            self._narrow_lower(upper, lower, real, pseudo, table)
            if not real[lower] and not pseudo[lower]:
                return False
        return True

    def _against_pins(self, problem: Problem, doms: dict[Layer, list[str]]) -> dict[Layer, list[str]]:
        """Drop values that an applicable fact rules out against every pinned value of another
        layer. Only facts whose conditions are already decided count, so it never removes a
        value that a path without a "not supported" edge could use; `closest`, which looks at
        broken paths on purpose, does not use it."""
        pinned = [(l, [v for v in vals if not is_pseudo(v)]) for l, vals in problem.pins.items() if l in doms]
        if not pinned:
            return doms
        # The pinned layers first, each against the other pins (vLLM's releases against a pinned
        # Windows leave few or none); then every other layer against what is left of them: a
        # pinned value that no such path can use allows nothing.
        out = {layer: self._weighed(layer, doms[layer], pinned, problem) for layer, _ in pinned}
        left = [(layer, [v for v in out[layer] if not is_pseudo(v)]) for layer, _ in pinned]
        return {layer: out[layer] if layer in out else self._weighed(layer, values, left, problem)
                for layer, values in doms.items()}

    def _weighed(self, layer: Layer, values: list[str], pinned: list[tuple[Layer, list[str]]],
                 problem: Problem) -> list[str]:
        """The values that every other pinned layer has a value for that does not rule them out
        (as sets, so that what declared layers and vendors decide is settled for the whole layer
        at once). Pseudo values stay; a pin with no real value weighs nothing."""
        alive = set(values)
        alive.difference_update((NOT_USED, BUNDLED))
        for pl, pvals in pinned:
            if pl is layer or not pvals:
                continue
            passing: set[str] = set()
            for p in pvals:
                passing |= self._pin_passes(layer, alive - passing, pl, p, problem)
            alive = passing
        return [x for x in values if x in alive or x[:1] == "~"]

    def _pin_passes(self, layer: Layer, candidates: set[str], pinned_layer: Layer, p: str,
                    problem: Problem) -> set[str]:
        """The candidates (real nodes of `layer`) that the pinned value p does not rule out
        (`_pin_allows`). Where one node declares the other's layer unused or their vendors
        differ the pair is "no" (`_pair_verdict`), decided here by set; the toolkit–arch pair
        is exempt, since an app that bundles the toolkit decides it first."""
        upper, lower = (layer, pinned_layer) if _RANK[layer] > _RANK[pinned_layer] else (pinned_layer, layer)
        if (upper, lower) != (Layer.toolkit, Layer.arch):
            if layer in self.kg.nodes[p].layers:
                return set()
            candidates = candidates - self._declaring_layer(layer, pinned_layer) - \
                self._other_vendor(layer, self.kg.compute_vendor(p))
            if self._cannot_deny_layer(p, layer) and not (problem.kernel and {upper, lower} == {Layer.toolkit, Layer.os}):
                # Neither p's facts on this layer nor any fact of a candidate that has none on
                # p's layer can make the pair "no" (`_edge`): only the others are weighed.
                speaking = self._speaking_about(layer, pinned_layer)
                weighed = candidates & speaking
                return (candidates - weighed) | self._pin_allowing(layer, weighed, pinned_layer, p, problem)
        return self._pin_allowing(layer, candidates, pinned_layer, p, problem)

    def _pin_allowing(self, layer: Layer, candidates: set[str], pinned_layer: Layer, p: str,
                      problem: Problem) -> set[str]:
        """The candidates that `_pin_allows` keeps against p, remembered per pinned value and
        what the verdict reads of the problem (evidence, driver, kernel, scope): each candidate
        is weighed against p alone, so a later query with the same pin weighs only the
        candidates it has not met."""
        memo = self.__dict__.setdefault("_pin_allowing_memo", {})
        driver = problem.driver
        key = (layer, pinned_layer, p, problem.allow, problem.kernel, problem.scope,
               None if driver is None else (driver.text, driver.exact, str(driver.range)))
        found = memo.get(key)
        if found is None:
            if len(memo) > 256:
                memo.clear()
            found = memo[key] = (set(), set())
        checked, passing = found
        for x in candidates - checked if checked else candidates:
            if self._pin_allows(layer, x, pinned_layer, p, problem):
                passing.add(x)
            checked.add(x)
        return candidates & passing

    def _cannot_deny_layer(self, p: str, layer: Layer) -> bool:
        """Whether no fact of p on `layer` can make a pair "no" in `_edge`, whatever the node
        of that layer: no negative fact, no complete list, no override (`_cannot_deny` for
        every node at once). Positive incomplete facts only add evidence."""
        memo = self.__dict__.setdefault("_cannot_deny_layer_memo", {})
        key = (p, layer)
        found = memo.get(key)
        if found is None:
            found = memo[key] = p not in self.kg.overrides and all(
                cf.positive and not cf.exhaustive for cf in self.kg.by_subject.get(key, ()))
        return found

    def _declaring_layer(self, layer: Layer, declared: Layer) -> frozenset[str]:
        """Nodes of `layer` that declare the layer `declared` unused or bundled."""
        memo = self.__dict__.setdefault("_declaring_layer_memo", {})
        found = memo.get((layer, declared))
        if found is None:
            # Walks the few declaring nodes, not the layer (16,666 GPUs at 10^5 facts).
            nodes = self.kg.nodes
            found = memo[(layer, declared)] = frozenset(
                v for v in self._declaring_nodes() if nodes[v].layer is layer and declared in nodes[v].layers)
        return found

    def _other_vendor(self, layer: Layer, vendor: str | None) -> frozenset[str]:
        """Nodes of `layer` whose GPU vendor is known and is not `vendor` (none if it is None)."""
        if vendor is None:
            return frozenset()
        memo = self.__dict__.setdefault("_other_vendor_memo", {})
        found = memo.get((layer, vendor))
        if found is None:
            found = memo[(layer, vendor)] = frozenset(
                v for v in self.kg.by_layer[layer] if self.kg.compute_vendor(v) not in (None, vendor))
        return found

    def _pin_allows(self, layer: Layer, x: str, pinned_layer: Layer, p: str, problem: Problem) -> bool:
        if self._surely_no(x, layer, p, pinned_layer):
            return False
        if self._surely_not_no(x, layer, p, pinned_layer):
            return True
        upper, lower = (layer, pinned_layer) if _RANK[layer] > _RANK[pinned_layer] else (pinned_layer, layer)
        values = {layer: x, pinned_layer: p}
        return self._pair_verdict(upper, lower, values, problem) != "no"

    def _order(self, layer: Layer, values: list[str]) -> list[str]:
        """In the graph's answer order (``KnowledgeGraph.layer_order``: newest first for versioned
        layers, Linux and Ubuntu first for OSes, by name otherwise); pseudo values last."""
        ranks = self._ranks.get(layer)
        if ranks is None:
            ranks = self._ranks[layer] = {v: i for i, v in enumerate(self.kg.layer_order(layer))}
        # Ranked values have distinct ranks, so they sort by rank alone (a key in C, no tuple per
        # value: domains of thousands are ordered on every propagation); the rest (pseudo
        # values) follow by name.
        unique = dict.fromkeys(values)
        ordered = [v for v in unique if v in ranks]
        ordered.sort(key=ranks.__getitem__)
        if len(ordered) < len(unique):
            ordered.extend(sorted(v for v in unique if v not in ranks))
        return ordered

    def propagate(self, problem: Problem, domains: dict[Layer, list[str]],
                  changed: set[Layer] | None = None) -> dict[Layer, list[str]]:
        """Arc consistency (AC-3) over the required pairs, with positive-evidence tables.

        Optimistic about ``when`` conditions and negative facts: it only removes
        values that no positive fact links to any remaining value of the other
        layer. With ``changed``, only pairs touching those layers start the worklist.
        """
        table = self.kg.positive_pairs if (problem.allow - OFFICIAL_POSITIVE) else self.kg.official_pairs
        # toolkit–os is required only for a toolkit no build on the path carries,
        # which is not known until the path is complete; it is not propagated.
        pairs = [(u, l) for (u, l) in REQUIRED_PAIRS if u in domains and l in domains
                 and (u, l) != (Layer.toolkit, Layer.os)]
        doms = {k: list(v) for k, v in domains.items()}
        touching: dict[Layer, list[tuple[Layer, Layer]]] = {}
        for pair in pairs:
            for layer in pair:
                touching.setdefault(layer, []).append(pair)
        # The fixpoint does not depend on the order in which pairs are revised (each revision
        # only removes values, monotonically), the cost does: the pair with the smallest domain
        # goes first, so pinned layers narrow their neighbours before the large pairs
        # (GPU–architecture, build–toolkit) are scanned, and those are scanned already small.
        queued = {p for p in pairs if changed is None or p[0] in changed or p[1] in changed}
        while queued:
            upper, lower = pair = min(queued, key=lambda p: (min(len(doms[p[0]]), len(doms[p[1]])),
                                                             len(doms[p[0]]) + len(doms[p[1]]), _PAIR_RANK[p]))
            queued.discard(pair)
            keep_upper, keep_lower = self._revise(upper, lower, doms[upper], doms[lower], table)
            shrunk = [l for l, keep in ((upper, keep_upper), (lower, keep_lower)) if len(keep) != len(doms[l])]
            doms[upper], doms[lower] = keep_upper, keep_lower
            if not keep_upper or not keep_lower:
                return doms
            for layer in shrunk:
                for other in touching[layer]:
                    if other != pair:
                        queued.add(other)
        return doms

    def _revise(self, upper: Layer, lower: Layer, uppers: list[str], lowers: list[str],
                table) -> tuple[list[str], list[str]]:
        """One arc revision: the values of each side with support on the other (upper side
        first, then the lower side against what the upper keeps). The same rules as
        `_has_support` / `_has_support_rev`, inlined with set tests, since propagation runs
        them over whole layers."""
        nodes = self.kg.nodes
        declaring = self._declaring_nodes()
        fwd, back = table.get((upper, lower), {}), table.get((lower, upper), {})
        lower_set = set(lowers)
        keep_upper = []
        for x in uppers:
            if x[:1] == "~":
                keep_upper.append(x)
            elif x in declaring and lower in nodes[x].layers:
                if _pseudo_for(nodes[x].layers[lower]) in lower_set:
                    keep_upper.append(x)
            else:
                linked = fwd.get(x)
                if linked and not linked.isdisjoint(lower_set):
                    keep_upper.append(x)
        upper_set = set(keep_upper)
        if any(x[:1] == "~" for x in keep_upper):
            # A pseudo value above supports every value below (as in `_has_support_rev`).
            return keep_upper, list(lowers)
        declared = {_pseudo_for(nodes[x].layers[lower]) for x in upper_set & declaring if lower in nodes[x].layers}
        keep_lower = []
        for y in lowers:
            if y[:1] == "~":
                if y in declared:
                    keep_lower.append(y)
            else:
                linked = back.get(y)
                if linked and not linked.isdisjoint(upper_set):
                    keep_lower.append(y)
        return keep_upper, keep_lower

    def _declaring_nodes(self) -> frozenset[str]:
        """Nodes that declare a layer unused or bundled (node.layers)."""
        found = getattr(self, "_declaring", None)
        if found is None:
            found = self._declaring = frozenset(k for k, n in self.kg.nodes.items() if n.layers)
        return found

    def _has_support(self, upper: Layer, x: str, lower: Layer, lowers: set[str], table) -> bool:
        if is_pseudo(x):
            return True
        node = self.kg.nodes[x]
        if lower in node.layers:
            return _pseudo_for(node.layers[lower]) in lowers
        return _meets(table.get((upper, lower), {}).get(x), lowers)

    def _has_support_rev(self, upper: Layer, uppers: set[str], any_pseudo_upper: bool, lower: Layer, y: str,
                         table) -> bool:
        if is_pseudo(y):
            return any(is_pseudo(x) or _declares(self.kg.nodes[x], lower, y) for x in uppers)
        if any_pseudo_upper:
            return True
        return _meets(table.get((lower, upper), {}).get(y), uppers)

    # -- evaluating a complete path --------------------------------------------------

    def evaluate(self, values: dict[Layer, str], problem: Problem, partial: bool = False,
                 like: Path | None = None, changed: Layer | None = None) -> Path:
        """Every edge verdict of a (complete) path, and its driver range.

        `like`: a path of the same problem whose values differ from these only at layer
        `changed`, whose nodes no fact tells apart (`_gpu_class`): its edges between the other
        layers are taken over, and only the changed layer's pairs and the driver are judged."""
        if like is not None:
            return self._evaluate_like(values, problem, partial, like, changed)
        edges: list[Edge] = []
        skipped_by: dict[Layer, str] = {}
        for layer, v in values.items():
            if v[:1] == "~":
                owner = next((o for o in values.values() if not is_pseudo(o)
                              and self.kg.nodes[o].layers.get(layer) == ("not_used" if v == NOT_USED else "bundled")),
                             None)
                if owner is None:
                    edges.append(Edge(layer, layer, v, v, "no", "stated", detail="no node on the path leaves this layer out"))
                else:
                    skipped_by[layer] = owner
        for upper, lower in self._pairs_in(problem.scope):
            a, b = values.get(upper), values.get(lower)
            if a is None or b is None or a[:1] == "~" or b[:1] == "~":
                continue
            e = self._judge_pair(upper, a, lower, b, values, problem, partial)
            if e is not None:
                edges.append(e)
        drange, dfacts, dedges = self._driver(values, problem)
        edges.extend(dedges)
        return Path(dict(values), skipped_by, drange, dfacts, edges,
                    problem.driver.text if problem.driver else None)

    def _judge_pair(self, upper: Layer, a: str, lower: Layer, b: str, values: dict[Layer, str], problem: Problem,
                    partial: bool) -> Edge | None:
        """The edge of one pair of (non-pseudo) nodes of a path, or None where the path does not
        weigh the pair (a toolkit the path's app ships is judged by the app's facts)."""
        if upper is Layer.toolkit and lower is Layer.arch and a in self._app_bundled_toolkits() \
                and self._bundled_here(values):
            return None
        nodes = self.kg.nodes
        node_a = nodes[a]
        if lower in node_a.layers or upper in nodes[b].layers:
            return Edge(upper, lower, a, b, "no", "stated",
                        detail=f"{node_a.name} does not use a {lower.value} node" if lower in node_a.layers else None)
        e = self.edge(upper, a, lower, b, values, problem.allow, problem.driver, partial,
                      kernel=problem.kernel, required=self._required(upper, lower, values, partial, problem.scope))
        if e is not None and e.kind in ("not_listed", "unknown") and upper in (Layer.toolkit, Layer.framework) \
                and lower in (Layer.arch, Layer.gpu):
            e = self._under_path(e, values, problem, partial)
        return e

    def _evaluate_like(self, values: dict[Layer, str], problem: Problem, partial: bool, like: Path,
                       changed: Layer) -> Path:
        """`evaluate` for a path that differs from `like` only at layer `changed`, in the same
        class (see `evaluate`): `like`'s pseudo-layer edges, its edges between other layers and,
        where the changed node states no driver requirement, its driver range are taken over;
        the changed node's own pairs are judged, but for those nothing can speak about
        (`_silent_pair`). The steps are worked out once per `like`."""
        found = like.__dict__.get("_like_steps")
        if found is None:
            kept = {(e.upper, e.lower): e for e in like.edges if e.upper is not e.lower and e.lower is not Layer.driver}
            # In evaluate's order: runs of edges to take over, each followed by a pair to judge
            # (None after the last run).
            segments: list[tuple[list[Edge], tuple[Layer, Layer] | None]] = []
            run: list[Edge] = []
            for upper, lower in self._pairs_in(problem.scope):
                a, b = like.values.get(upper), like.values.get(lower)
                if a is None or b is None or a[:1] == "~" or b[:1] == "~":
                    continue
                if upper is changed or lower is changed:
                    if (upper, lower) not in kept and self._silent_pair(upper, a, lower, b, like.values, problem, partial):
                        continue  # no fact speaks about the pair, for any node of the class
                    segments.append((run, (upper, lower)))
                    run = []
                elif (upper, lower) in kept:
                    run.append(kept[(upper, lower)])
            segments.append((run, None))
            found = like.__dict__["_like_steps"] = (
                [e for e in like.edges if e.upper is e.lower],  # pseudo layers: the same owners
                segments, [e for e in like.edges if e.lower is Layer.driver])
        pseudo_edges, segments, driver_edges = found
        edges = list(pseudo_edges)
        for run, judged in segments:
            edges += run
            if judged is not None:
                upper, lower = judged
                e = self._judge_pair(upper, values[upper], lower, values[lower], values, problem, partial)
                if e is not None:
                    edges.append(e)
        if (values[changed], Layer.driver) not in self.kg.by_subject:
            # The changed node states no driver requirement of its own, and no fact tells it
            # from `like`'s: the other nodes' requirements apply alike, so the range is the same.
            drange, dfacts = like.driver_range, like.driver_facts
            edges.extend(driver_edges)
        else:
            drange, dfacts, dedges = self._driver(values, problem)
            edges.extend(dedges)
        return Path(dict(values), dict(like.skipped_by), drange, dfacts, edges,
                    problem.driver.text if problem.driver else None)

    def _silent_pair(self, upper: Layer, a: str, lower: Layer, b: str, values: dict[Layer, str], problem: Problem,
                     partial: bool) -> bool:
        """Whether `_judge_pair` gives no edge for (a, b) because nothing can speak about the
        pair: it is not required, neither node declares the other's layer unused, no fact of
        either node on the other's layer (conditional or not) and no override exists, and the
        vendors do not clash. Everything read here is the same for every GPU of a class
        (`_gpu_class`: no declared layers, only own `has_arch` facts, the same compute vendor,
        the same roles in the facts that name it), so a class member's pair with the same other
        node is silent too and `_evaluate_like` need not judge it."""
        if upper is Layer.toolkit and lower is Layer.arch:
            return False  # judged by the path's app where it bundles the toolkit
        nodes, kg = self.kg.nodes, self.kg
        if lower in nodes[a].layers or upper in nodes[b].layers:
            return False
        if self._required(upper, lower, values, partial, problem.scope):
            return False
        if (a, lower) in self._conditional or (b, upper) in self._conditional:
            return False
        return (a, lower) not in kg.by_subject and (b, upper) not in kg.by_subject \
            and a not in kg.overrides and b not in kg.overrides and not self._vendor_mismatch(a, b)

    def _driver(self, values: dict[Layer, str], problem: Problem):
        """Intersect the driver requirements of the path's nodes; check the pinned driver."""
        if Layer.driver not in problem.scope:
            return None, [], []
        total = VersionRange.everything()
        used: list[CompiledFact] = []
        edges: list[Edge] = []
        for layer, node_id in values.items():
            if is_pseudo(node_id):
                continue
            group = [cf for cf in self.kg.by_subject.get((node_id, Layer.driver), [])
                     if cf.target.drivers is not None and cf.positive and cf.status in problem.allow
                     and self._applies(cf, values, problem.driver, False)]
            if not group:
                continue
            plain = [cf for cf in group if not cf.caveat]
            chosen = plain or group
            allowed = _union(cf.target.drivers for cf in chosen)
            pin = problem.driver
            if pin is not None and not _pin_inside(pin, allowed):
                relaxed = _union(cf.target.drivers for cf in group)
                if plain and len(group) > len(plain) and _pin_inside(pin, relaxed):
                    chosen = [cf for cf in group if cf.caveat and _pin_inside(pin, cf.target.drivers)]
                    allowed = _union(cf.target.drivers for cf in chosen)
                else:
                    edges.append(Edge(layer, Layer.driver, node_id, pin.text, "no", "driver", chosen,
                                      detail=f"needs driver {allowed.describe()}"))
                    continue
            narrowed = total.intersect(allowed)
            if narrowed.is_empty():
                edges.append(Edge(layer, Layer.driver, node_id, "driver", "no", "driver", chosen + used,
                                  detail=f"needs driver {allowed.describe()}, which no driver allowed by the "
                                         f"rest of the path ({total.describe()}) meets"))
                continue
            total = narrowed
            used.extend(chosen)
            edges.append(Edge(layer, Layer.driver, node_id, pin.text if pin else "driver", "ok", None, chosen,
                              required=False, detail=f"driver {allowed.describe()}"))
        if problem.driver is not None:
            total = total.intersect(problem.driver.range) if not problem.driver.exact else total
        return total, used, edges

    # -- search --------------------------------------------------------------------

    def solutions(self, problem: Problem, domains: dict[Layer, list[str]] | None = None,
                  first: Layer | None = None, deadline: float | None = None,
                  propagate: bool = True) -> Iterator[Path]:
        """Supported paths, streamed in domain order (newest versions first)."""
        if not domains and propagate and not problem.lenient:
            doms = self.propagated_domains(problem)
        else:
            doms = domains or self.domains(problem)
            if propagate and not problem.lenient:
                doms = self.propagate(problem, doms)
        if any(not v for v in doms.values()):
            return
        # The toolkit goes after the layers that usually fix it (a framework build is built
        # with one, an app bundles one): choosing it first would try every toolkit against
        # every release before the release's own facts rule most of them out.
        late_toolkit = Layer.toolkit not in problem.pins and (Layer.app in doms or Layer.framework in doms)
        order = sorted(doms, key=lambda l: (l is not first, late_toolkit and l is Layer.toolkit and len(doms[l]) > 1,
                                            len(doms[l]), _RANK[l]))
        pairs_by_layer: dict[Layer, list[tuple[Layer, Layer]]] = {l: [] for l in order}
        placed: list[Layer] = []
        for layer in order:
            for other in placed:
                pair = (layer, other) if _RANK[layer] > _RANK[other] else (other, layer)
                pairs_by_layer[layer].append(pair)
            placed.append(layer)
        values: dict[Layer, str] = {}
        yield from self._dfs(problem, doms, order, 0, values, pairs_by_layer, deadline)

    def _dfs(self, problem, doms, order, depth, values, pairs_by_layer, deadline) -> Iterator[Path]:
        if deadline is not None and time.perf_counter() > deadline:
            return
        if depth == len(order):
            path = self.evaluate(values, problem)
            if path.verdict == "supported" or (problem.lenient and path.verdict in _LENIENT_VERDICTS):
                yield path
            return
        layer = order[depth]
        for v in self._not_ruled_out(layer, doms[layer], values):
            values[layer] = v
            if self._consistent(values, problem, pairs_by_layer[layer]):
                yield from self._dfs(problem, doms, order, depth + 1, values, pairs_by_layer, deadline)
            del values[layer]

    def _not_ruled_out(self, layer: Layer, candidates: list[str], values: dict[Layer, str]) -> list[str]:
        """The candidates, in their order, less those that a chosen node's unconditional complete
        list already rules out (`_allowed_by`): each of those would fail the forward check on
        that pair ("not listed"), so skipping it changes nothing but the time (a framework
        build's `built_with` leaves one toolkit of hundreds)."""
        allowed = None
        for other_layer, x in values.items():
            if x[:1] == "~":
                continue
            upper, lower = (layer, other_layer) if _RANK[layer] > _RANK[other_layer] else (other_layer, layer)
            if upper in (Layer.toolkit, Layer.framework) and lower in (Layer.arch, Layer.gpu):
                continue  # such a pair may still be rescued by the path (`_under_path`)
            keep = self._allowed_by(x, other_layer, layer)
            if keep is not None:
                allowed = keep if allowed is None else allowed & keep
        if allowed is None:
            return candidates
        if len(allowed) * 8 < len(candidates):
            # Few kept of many: by their positions in the list, not by a walk over it.
            cache = self.__dict__.setdefault("_positions", {})
            found = cache.get(layer)
            if found is None or found[0] is not candidates:
                found = cache[layer] = (candidates, {v: i for i, v in enumerate(candidates)})
            pos = found[1]
            kept = [v for v in allowed if v in pos]
            kept.extend(v for v in (NOT_USED, BUNDLED) if v in pos)
            kept.sort(key=pos.__getitem__)
            return kept
        return [v for v in candidates if v in allowed or v[:1] == "~"]

    def _surely_no_test(self, layer: Layer, chosen: list[tuple[Layer, str]]):
        """A test equal to `any(self._surely_no(x, l, v, layer) for l, x in chosen)` for a value
        v of `layer`, with what does not depend on v settled once: the layer a chosen node
        declares unused, the sets of nodes that declare a chosen node's layer unused or run on
        another vendor, and the complete lists of the chosen nodes; only the lists of v itself
        are read per value."""
        deny: list[frozenset[str]] = []
        allow: list[frozenset[str]] = []
        reverse: list[tuple[Layer, str]] = []
        for l, x in chosen:
            part = self._surely_no_part(layer, l, x)
            if part is None:
                continue
            if part is True:
                return lambda v: v[:1] != "~"
            deny.extend(part[0])
            allow.extend(part[1])
            if part[2]:
                reverse.append((l, x))
        allowed_by = self._allowed_by

        def test(v: str) -> bool:
            if v[:1] == "~":
                return False
            for d in deny:
                if v in d:
                    return True
            for a in allow:
                if v not in a:
                    return True
            for l, x in reverse:
                a = allowed_by(v, layer, l)
                if a is not None and x not in a:
                    return True
            return False
        return test

    def _surely_no_part(self, layer: Layer, l: Layer, x: str):
        """What one chosen node x (of layer l) adds to `_surely_no_test`: None (nothing), True
        (every real value), or (sets a value must not be in, sets it must be in, whether the
        values' own lists are read), remembered per node."""
        memo = self.__dict__.setdefault("_surely_no_parts", {})
        key = (layer, x)
        found = memo.get(key, _MISSING)
        if found is not _MISSING:
            return found
        upper, lower = (layer, l) if _RANK[layer] > _RANK[l] else (l, layer)
        if (upper, lower) == (Layer.toolkit, Layer.arch):
            found = None
        elif layer in self.kg.nodes[x].layers:
            found = True
        else:
            deny, allow = [], []
            declaring = self._declaring_layer(layer, l)
            if declaring:
                deny.append(declaring)
            vendor = self.kg.compute_vendor(x)
            if vendor is not None:
                other = self._other_vendor(layer, vendor)
                if other:
                    deny.append(other)
            reverse = False
            if not (upper in (Layer.toolkit, Layer.framework) and lower in (Layer.arch, Layer.gpu)):
                allowed = self._allowed_by(x, l, layer)
                if allowed is not None:
                    allow.append(allowed)
                reverse = self._lists_about(layer, l)
            found = (tuple(deny), tuple(allow), reverse)
        if len(memo) > 100_000:
            memo.clear()
        memo[key] = found
        return found

    def _lists_about(self, layer: Layer, about: Layer) -> bool:
        """Whether some node of `layer` has complete unconditional lists on `about`
        (`_allowed_by` not None), once per solver."""
        memo = self.__dict__.setdefault("_lists_about_memo", {})
        found = memo.get((layer, about))
        if found is None:
            found = memo[(layer, about)] = any(
                self._allowed_by(v, layer, about) is not None for v in self.kg.by_layer[layer]
                if (v, about) in self.kg.by_subject)
        return found

    def _surely_no(self, x: str, x_layer: Layer, v: str, v_layer: Layer) -> bool:
        """`_surely_no_for`, remembered per pair (a node id names its layer)."""
        memo = self._surely_memo
        key = (x, v)
        found = memo.get(key)
        if found is None:
            if len(memo) > 400_000:
                memo.clear()
            found = memo[key] = self._surely_no_for(x, x_layer, v, v_layer)
        return found

    def _surely_no_for(self, x: str, x_layer: Layer, v: str, v_layer: Layer) -> bool:
        """Whether `_pair_verdict` says "no" for the pair (x, v) whatever else the path holds:
        one node declares the other's layer unused or bundled, their vendors differ, or an
        unconditional complete list of one leaves the other out (`_allowed_by`). False where
        unsure: it only ever saves work."""
        if x[:1] == "~" or v[:1] == "~":
            return False
        upper, lower = (x_layer, v_layer) if _RANK[x_layer] > _RANK[v_layer] else (v_layer, x_layer)
        if (upper, lower) == (Layer.toolkit, Layer.arch):
            return False  # an app that bundles the toolkit may decide this pair
        nodes = self.kg.nodes
        if v_layer in nodes[x].layers or x_layer in nodes[v].layers:
            return True
        vx, vv = self.kg.compute_vendor(x), self.kg.compute_vendor(v)
        if vx is not None and vv is not None and vx != vv:
            return True
        if upper in (Layer.toolkit, Layer.framework) and lower in (Layer.arch, Layer.gpu):
            return False  # a "not listed" there may be rescued by the path (`_under_path`)
        allowed = self._allowed_by(x, x_layer, v_layer)
        if allowed is not None and v not in allowed:
            return True
        allowed = self._allowed_by(v, v_layer, x_layer)
        return allowed is not None and x not in allowed

    def _surely_not_no(self, x: str, x_layer: Layer, v: str, v_layer: Layer) -> bool:
        """`_surely_not_no_for`, remembered per pair (a node id names its layer)."""
        memo = self._surely_not_memo
        key = (x, v)
        found = memo.get(key)
        if found is None:
            if len(memo) > 400_000:
                memo.clear()
            found = memo[key] = self._surely_not_no_for(x, x_layer, v, v_layer)
        return found

    def _surely_not_no_for(self, x: str, x_layer: Layer, v: str, v_layer: Layer) -> bool:
        """Whether `_pair_verdict` cannot say "no" for the pair (x, v), whatever else the path
        holds: neither declares the other's layer unused, their vendors agree, and neither one's
        facts on the other's layer can say no about it (`_cannot_deny`). Such a pair
        is "ok", "unknown" or silent; the path above it can only improve that. Not for
        toolkit -> os, where a kernel list can say no. False where unsure."""
        if x[:1] == "~" or v[:1] == "~":
            return False
        if {x_layer, v_layer} == {Layer.toolkit, Layer.os}:
            return False
        nodes = self.kg.nodes
        if v_layer in nodes[x].layers or x_layer in nodes[v].layers:
            return False
        vx, vv = self.kg.compute_vendor(x), self.kg.compute_vendor(v)
        if vx is not None and vv is not None and vx != vv:
            return False
        return self._cannot_deny(x, v_layer, v) and self._cannot_deny(v, x_layer, x)

    def _cannot_deny(self, x: str, layer: Layer, other: str) -> bool:
        """Whether no fact of x on `layer` can make the pair with `other` "no" in `_edge`: no
        negative fact names `other`, no complete list covers it (a list that leaves it out, or
        whose statement does not apply, or whose status is not allowed, leaves it "not
        listed"), no complete list names a release the knowledge base lacks, and x has no
        override. Positive incomplete facts only add evidence."""
        if x in self.kg.overrides:
            return False
        for cf in self.kg.by_subject.get((x, layer), ()):
            if not cf.positive:
                if cf.selects(other):
                    return False
            elif cf.exhaustive and (not cf.names_known or cf.restricts(other)):
                return False
        return True

    def _allowed_by(self, x: str, x_layer: Layer, layer: Layer) -> frozenset[str] | None:
        """The nodes of `layer` that x's facts on it do not rule out; None when they rule out
        none for certain.

        x's facts there must all be unconditional statements (no build list, no override, no
        list naming a release the knowledge base lacks) with at least one complete list over
        the whole layer. A node v that no fact of x names is then "not listed" on the pair,
        unless v has facts of its own about x's layer or an override (which can state, build or
        widen), see `_edge`: those stay, with every node some fact of x names."""
        memo = self.__dict__.setdefault("_allowed_by_memo", {})
        key = (x, layer)
        if key in memo:
            return memo[key]
        kg = self.kg
        facts = kg.by_subject.get((x, layer), ())
        found = None
        if facts and x not in kg.overrides and all(
                not cf.when and not cf.is_build_list and not cf.runs_as and cf.target.ids is not None
                and not (cf.positive and cf.exhaustive and not cf.names_known) for cf in facts):
            restricting = [cf for cf in facts if cf.positive and cf.exhaustive]
            if restricting and all(cf.domain is None for cf in restricting):
                named = set().union(*(cf.target.ids for cf in facts))
                found = frozenset(named | self._speaking_about(layer, x_layer))
        memo[key] = found
        return found

    def _speaking_about(self, layer: Layer, about: Layer) -> frozenset[str]:
        """Nodes of `layer` with facts of their own on layer `about`, or an override."""
        memo = self.__dict__.setdefault("_speaking_memo", {})
        found = memo.get((layer, about))
        if found is None:
            kg = self.kg
            found = memo[(layer, about)] = frozenset(
                v for v in kg.by_layer[layer] if (v, about) in kg.by_subject or v in kg.overrides)
        return found

    def _app_bundled_toolkits(self) -> frozenset[str]:
        """Toolkits some app ships inside itself (see bundled_by_app)."""
        found = getattr(self, "_bundled_toolkits", None)
        if found is None:
            by_app: dict[str, set[str]] = {}
            kg = self.kg
            # From each app node's facts on the toolkit layer, not a walk over every fact (a path's
            # app, the only one looked up, is a node; every fact has a node among its subjects).
            for app in kg.by_layer[Layer.app]:
                for cf in kg.by_subject.get((app, Layer.toolkit), ()):
                    if cf.relation is Relation.bundles and cf.positive and cf.subject_layer is Layer.app:
                        by_app.setdefault(app, set()).update(cf.target.ids or ())
            self._bundles_of = {app: frozenset(t) for app, t in by_app.items()}
            found = self._bundled_toolkits = frozenset(t for ts in by_app.values() for t in ts)
        return found

    def _bundled_here(self, values: dict[Layer, str]) -> bool:
        """Whether the path's app ships the path's toolkit (bundled_by_app, from a table)."""
        self._app_bundled_toolkits()
        app = values.get(Layer.app)
        return app is not None and values.get(Layer.toolkit) in self._bundles_of.get(app, ())

    def _forcing_index(self) -> dict[tuple[str, Layer], frozenset[str]]:
        """(node, layer) → the nodes an unconditional has_arch / built_with / bundles fact allows there.

        Only unconditional facts force a layer (vLLM's CUDA wheels say nothing about ROCm)."""
        index = getattr(self, "_forcing", None)
        if index is None:
            found: dict[tuple[str, Layer], set[str]] = {}
            for cf in self.kg.facts:
                if cf.positive and not cf.when and cf.target.ids is not None and \
                        cf.relation in _FORCING_RELATIONS:
                    for sub in cf.subjects:
                        found.setdefault((sub, cf.target.layer), set()).update(cf.target.ids)
            index = self._forcing = {k: frozenset(v) for k, v in found.items()}
            self._forced_layers: dict[Layer, set[Layer]] = {}
            for (sub, target_layer) in found:
                self._forced_layers.setdefault(self.kg.nodes[sub].layer, set()).add(target_layer)
        return index

    def _builds_index_for(self, layer: Layer, candidates: list[str], forcing) -> tuple:
        """`_builds_index`, remembered per candidate list (a layer nothing narrows has the same
        list in every search)."""
        memo = self.__dict__.setdefault("_builds_index_memo", {})
        key = (layer, tuple(candidates))
        found = memo.get(key)
        if found is None:
            if len(memo) > 64:
                memo.clear()
            found = memo[key] = self._builds_index(layer, candidates, forcing)
        return found

    def _builds_index(self, layer: Layer, candidates: list[str], forcing) -> tuple:
        """For `_not_contradicting_builds` on one candidate list: each candidate's position and,
        per layer the candidates force, which of them allow a given node there (or force nothing)."""
        rank = {v: i for i, v in enumerate(candidates)}
        free: dict[Layer, frozenset[str]] = {}
        allowing: dict[Layer, dict[str, set[str]]] = {}
        for t in self._forced_layers.get(layer, ()):
            unforced, to = set(), {}
            for v in candidates:
                fixed = None if is_pseudo(v) else forcing.get((v, t))
                if fixed is None:
                    unforced.add(v)
                else:
                    for chosen in fixed:
                        to.setdefault(chosen, set()).add(v)
            free[t], allowing[t] = frozenset(unforced), to
        return rank, free, allowing

    def _not_contradicting_builds(self, layer: Layer, candidates: list[str], values: dict[Layer, str],
                                  forcing, index: tuple | None = None) -> list[str]:
        """Candidates that agree with what chosen nodes fix (a wheel's toolkit, a GPU's arch), both
        ways; all of them if none would be left. Used by `closest`, where a path that pairs a
        wheel with a toolkit it was not built with would be a useless explanation.

        Works on sets from `_builds_index` (pass one built for these candidates to reuse it), so
        a call costs what it keeps, not the whole layer."""
        rank, free, allowing = index or self._builds_index(layer, candidates, forcing)
        kept = None
        for chosen in values.values():
            fixed = forcing.get((chosen, layer))
            if fixed is not None:
                kept = rank.keys() & fixed if kept is None else kept & fixed
        for t in self._forced_layers.get(layer, ()):
            chosen = values.get(t)
            if chosen is None or is_pseudo(chosen):
                continue
            passing = free[t] | allowing[t].get(chosen, frozenset())
            kept = passing if kept is None else kept & passing
        if kept is None:
            return candidates
        return sorted(kept, key=rank.__getitem__) or candidates

    def _pair_verdict(self, upper: Layer, lower: Layer, values: dict[Layer, str], problem: Problem) -> str | None:
        """'no', 'unknown', or None (holds, or nothing to say) for a pair whose layers are both chosen."""
        a, b = values[upper], values[lower]
        if (upper, lower) == (Layer.toolkit, Layer.arch) and a in self._app_bundled_toolkits() and (
                Layer.app not in values and Layer.app in problem.scope or self._bundled_here(values)):
            return None  # judged by the app that ships it (decided once the app is chosen)
        if is_pseudo(a) or is_pseudo(b):
            if is_pseudo(b) and not is_pseudo(a):
                node = self.kg.nodes[a]
                if lower in node.layers and not _declares(node, lower, b):
                    return "no"
            return None
        if lower in self.kg.nodes[a].layers or upper in self.kg.nodes[b].layers:
            return "no"  # a real node where the other declares the layer unused
        carried = upper in (Layer.toolkit, Layer.framework) and lower in (Layer.arch, Layer.gpu)
        deferred = carried and any(l in problem.scope and values.get(l) is None
                                   for l in (Layer.framework, Layer.app) if l is not upper)
        if deferred and self._says_only_ok_or_silent(a, lower, values) and \
                self._says_only_ok_or_silent(b, upper, values) and not self._vendor_mismatch(a, b):
            # The edge can only be "ok", "not listed" or "unknown", each of which waits for
            # the build or app chosen later (below): nothing to weigh yet.
            return None
        e = self.edge(upper, a, lower, b, values, problem.allow, problem.driver, True,
                      self._required(upper, lower, values, True, problem.scope), kernel=problem.kernel)
        if e is not None and e.kind in ("not_listed", "unknown") and carried:
            if deferred:
                return None  # a build or app chosen later may carry this layer to the target
            e = self._under_path(e, values, problem, True)
        return None if e is None or e.verdict == "ok" else e.verdict

    def _says_only_ok_or_silent(self, node: str, layer: Layer, values: dict[Layer, str]) -> bool:
        """Whether `_edge` can weigh node's facts on `layer` only into "ok", "not listed" or
        "unknown" on this partial path: no negative fact, no build list, no override, and
        every condition on a layer already chosen (an undecided one could make the pair
        "builds only" for now)."""
        memo = self.__dict__.setdefault("_plain_lists_memo", {})
        key = (node, layer)
        read = memo.get(key, _MISSING)
        if read is _MISSING:
            read = frozenset()
            if node in self.kg.overrides:
                read = None
            else:
                for cf in self.kg.by_subject.get(key, ()):
                    if not cf.positive or cf.is_build_list or cf.fact.runs_as or \
                            any(cond.layer is Layer.driver for cond in cf.when):
                        read = None
                        break
                    read = read | {cond.layer for cond in cf.when}
            memo[key] = read
        return read is not None and all(values.get(l) is not None for l in read)

    def _under_path(self, e: Edge, values: dict[Layer, str], problem: Problem, partial: bool) -> Edge:
        """A toolkit or build that leaves the target out, rescued by what is above it on the
        path: an app's documented override, or (toolkits) a build that carries it."""
        app = values.get(Layer.app)
        if app is not None and not is_pseudo(app):
            ov = self.override(app, e.lower_node, values, problem.allow, problem.driver, partial, own=False)
            if ov is not None:
                alt = dict(values)
                alt[Layer.arch] = ov.runs_as
                ran = self.edge(e.upper, e.upper_node, Layer.arch, ov.runs_as, alt, problem.allow,
                                problem.driver, partial, True)
                if ran is not None and ran.verdict == "ok":
                    return Edge(e.upper, e.lower, e.upper_node, e.lower_node, "ok", "override", [ov] + ran.facts,
                                e.unmet, e.unofficial, e.required,
                                detail=f"run as {ov.runs_as} under {ov.fact.action or ov.id}")
        if e.upper is Layer.toolkit:
            return self._carried(e, values, problem, partial)
        return e

    def _carried(self, e: Edge, values: dict[Layer, str], problem: Problem, partial: bool) -> Edge:
        """A toolkit whose list leaves the target out (or that no source covers for it), carried by
        a build on the path that ships kernels for the target's architecture (torch +rocm wheels
        for gfx1102): builds_only.

        The toolkit's silence stays on the edge; the build list is the evidence."""
        provider = provided_by(self.kg, Layer.toolkit, values)
        arch = values.get(Layer.arch)
        if provider is None or arch is None or is_pseudo(arch):
            return e
        layer = self.kg.nodes[provider].layer
        build = self.edge(layer, provider, Layer.arch, arch, values, problem.allow, problem.driver, partial, True)
        if build is None or build.verdict != "ok" or not build.facts or not all(cf.is_build_list for cf in build.facts):
            return e
        return Edge(e.upper, e.lower, e.upper_node, e.lower_node, "builds_only", "builds_only", e.facts, e.unmet,
                    e.unofficial, e.required, builds=build.facts,
                    detail=f"carried by {self.kg.nodes[provider].name}, which ships kernels for it")

    def _consistent(self, values: dict[Layer, str], problem: Problem, pairs) -> bool:
        """Forward check: no pair among the chosen layers breaks, and the pinned driver still fits."""
        lenient = problem.lenient
        for i, (upper, lower) in enumerate(pairs):
            if lenient and self._surely_not_no(values[upper], upper, values[lower], lower):
                continue  # a lenient search refuses only "no"
            verdict = self._pair_verdict(upper, lower, values, problem)
            if verdict == "no" or (verdict in _LENIENT_VERDICTS and not problem.lenient):
                if i and isinstance(pairs, list):
                    # Fail first: the pair that just broke is checked first next time. Only the
                    # cost depends on the order; every pair must hold either way.
                    pairs.insert(0, pairs.pop(i))
                return False
        return not self._driver_conflict(values, problem)

    def _driver_conflict(self, values: dict[Layer, str], problem: Problem) -> bool:
        """Whether a chosen node's driver requirements already exclude the pinned driver.

        Decided only when every requirement of that node is decidable on the
        values chosen so far; a requirement whose condition is still open could
        widen what is allowed, so it never prunes.
        """
        pin = problem.driver
        if pin is None:
            return False
        for node_id in values.values():
            if is_pseudo(node_id):
                continue
            group = [cf for cf in self.kg.by_subject.get((node_id, Layer.driver), [])
                     if cf.target.drivers is not None and cf.positive and cf.status in problem.allow]
            if not group:
                continue
            applying = []
            for cf in group:
                applies = self._applies(cf, values, pin, True)
                if applies is None:
                    break
                if applies:
                    applying.append(cf)
            else:
                if applying and not _pin_inside(pin, _union(cf.target.drivers for cf in applying)):
                    return True
        return False

    def _hardware_narrowed(self, problem: Problem, doms: dict[Layer, list[str]]) -> dict[Layer, list[str]]:
        """What a pinned node fixes is not a choice: a GPU's architecture, the toolkit a
        build was compiled with or bundles. Narrow those layers so that explanations
        break on the user's choices, never on hardware or on what a wheel contains."""
        doms = dict(doms)
        forcing = self._forcing_index()
        for ids in problem.pins.values():
            for layer in doms:
                if layer in problem.pins:
                    continue
                allowed = set().union(*(forcing.get((node_id, layer), ()) for node_id in ids))
                if allowed:
                    doms[layer] = [v for v in doms[layer] if v in allowed] or doms[layer]
        if Layer.arch in problem.pins and Layer.gpu in doms and Layer.gpu not in problem.pins:
            arch_pins = problem.pins[Layer.arch]
            doms = dict(doms)
            doms[Layer.gpu] = [g for g in doms[Layer.gpu] if set(self.kg.arch_of(g)) & arch_pins] or doms[Layer.gpu]
        return doms

    def _few_releases(self, doms: dict[Layer, list[str]], per_line: int = 3) -> dict[Layer, list[str]]:
        """For the closest-path search: of an app named by family ("Ollama", every release),
        the versionless node and the newest few releases of each line (family and backend).
        The closest path is one example; branch and bound over hundreds of releases that
        break the same way would spend the whole time budget proving it."""
        values = doms.get(Layer.app)
        if not values or len(values) <= 8 * per_line:
            return doms
        kept, seen = [], {}
        for v in values:  # already newest first
            node = self.kg.nodes.get(v)
            if node is None or not node.version:
                kept.append(v)
                continue
            line = (node.family, node.backend)
            if seen.get(line, 0) < per_line:
                seen[line] = seen.get(line, 0) + 1
                kept.append(v)
        return {**doms, Layer.app: kept}

    def _partial_cost(self, values: dict[Layer, str], problem: Problem, pairs) -> tuple[int, int, int]:
        """Definite (not supported, unknown, builds only) edges among the pairs, all of whose
        layers are chosen."""
        no = unknown = builds = 0
        for upper, lower in pairs:
            verdict = self._pair_verdict(upper, lower, values, problem)
            no += verdict == "no"
            unknown += verdict == "unknown"
            builds += verdict == "builds_only"
        if problem.driver is not None and pairs and self._driver_conflict(values, problem):
            no += 1
        return no, unknown, builds

    def _bounded_cost(self, values: dict[Layer, str], problem: Problem, pairs, cost: tuple[int, int, int],
                      bound: tuple[int, int, int]) -> tuple[int, int, int]:
        """`_partial_cost`, or `_BEYOND` as soon as `cost` plus what the pairs weighed so far
        reaches `bound`: each pair only adds, so the value can no longer beat the bound, and
        `closest` never descends into it (see there why its place among the others does not
        matter)."""
        no = unknown = builds = 0
        c0, c1, c2 = cost
        for i, (upper, lower) in enumerate(pairs):
            verdict = self._pair_verdict(upper, lower, values, problem)
            if verdict == "no":
                no += 1
            elif verdict == "unknown":
                unknown += 1
            elif verdict == "builds_only":
                builds += 1
            else:
                continue
            if (c0 + no, c1 + unknown, c2 + builds) >= bound:
                if i and isinstance(pairs, list):
                    # Fail first: the pair that reached the bound is weighed first next time
                    # (the sum does not depend on the order).
                    pairs.insert(0, pairs.pop(i))
                return _BEYOND
        if problem.driver is not None and pairs and self._driver_conflict(values, problem):
            no += 1
        return no, unknown, builds

    def closest(self, problem: Problem, deadline: float, max_steps: int = 200_000,
                max_no: int | None = None, domains: dict[Layer, list[str]] | None = None,
                floor: tuple[int, int, int] = (0, 0, 0)) -> tuple[Path | None, bool]:
        """The complete path with the fewest "not supported" then "unknown" edges.

        Branch and bound, pinned layers first, each level trying the values
        that break least so far first. Returns (path, complete) where complete
        is False when the step or time budget cut the search.

        `floor` is what the caller knows no path beats (no supported path: (0, 0, 1); none
        without a "not supported" edge: (1, 0, 0)): the search stops on reaching it, as it
        stops on a supported path, since nothing later could replace what it holds.

        A value whose partial cost already reaches the best cost so far is scored only that
        far (`_bounded_cost`) and sorted last: the loop stops at the first value whose cost
        reaches the bound, and the bound only falls, so such a value is never tried, and
        every value tried is tried in the same order as with its full cost. (Where values
        that are surely "no" wait, they join once a scored value costs a "no" or more; one
        scored only that far costs at least the bound, whose first count is then at least
        one, or stops the loop, as its full cost would.)
        """
        doms = self._few_releases(self._hardware_narrowed(problem, domains or self.domains(problem, against_pins=False)))
        if any(not v for v in doms.values()):
            return None, True
        order = sorted(doms, key=lambda l: (l not in problem.pins and len(doms[l]) > 1, len(doms[l]), _RANK[l]))
        pairs_by_layer: dict[Layer, list[tuple[Layer, Layer]]] = {l: [] for l in order}
        for i, layer in enumerate(order):
            for other in order[:i]:
                pairs_by_layer[layer].append((layer, other) if _RANK[layer] > _RANK[other] else (other, layer))
        # With max_no, paths with more "not supported" edges are never explored.
        forcing = self._forcing_index()
        best: list = [None, (1 << 30, 1 << 30, 1 << 30) if max_no is None else (max_no + 1, -1, -1)]
        steps = [0]
        cut = [False]
        values: dict[Layer, str] = {}
        # What a layer keeps depends only on the chosen values of the layers that force it or
        # that it forces: filter once per such choice, not at every search node.
        forced = self._forced_layers
        deciders = {layer: tuple(l for l in order if l is not layer and (
            layer in forced.get(l, ()) or l in forced.get(layer, ()))) for layer in order}
        kept_memo: dict[tuple, list[str]] = {}
        indexes: dict[Layer, tuple] = {}

        def not_contradicting(layer: Layer) -> list[str]:
            key = (layer, tuple(values.get(l) for l in deciders[layer]))
            kept = kept_memo.get(key)
            if kept is None:
                if layer not in indexes:
                    indexes[layer] = self._builds_index_for(layer, doms[layer], forcing)
                kept = kept_memo[key] = self._not_contradicting_builds(layer, doms[layer], values, forcing,
                                                                       indexes[layer])
            return kept

        def dfs(depth: int, cost: tuple[int, int]) -> None:
            if cost >= best[1]:
                return
            if depth == len(order):
                path = self.evaluate(values, problem)
                full = tuple(sum(e.verdict == v for e in path.edges) for v in ("no", "unknown", "builds_only"))
                if full < best[1]:
                    best[0], best[1] = path, full
                return
            layer = order[depth]
            # Values are tried by their partial cost (ties in candidate order). A value with a
            # pair that is "no" whatever the rest of the path (`_surely_no`) costs at least one
            # "no": it is scored only once the values left all cost that much and `best` still
            # allows one more "no"; otherwise the loop stops where it would have stopped at
            # the first of them, after the same steps.
            candidates = not_contradicting(layer)
            chosen = [(l, x) for l, x in values.items() if x[:1] != "~"]
            surely_no = self._surely_no_test(layer, chosen)
            scored, pending = [], []
            for i, v in enumerate(candidates):
                if surely_no(v):
                    pending.append((i, v))
                    continue
                values[layer] = v
                scored.append((self._bounded_cost(values, problem, pairs_by_layer[layer], cost, best[1]), i, v))
            values.pop(layer, None)
            scored.sort(key=lambda t: (t[0], t[1]))
            k = 0
            while k < len(scored) or pending:
                if pending and (k == len(scored) or scored[k][0][0] >= 1):
                    if cost[0] + 1 > best[1][0]:
                        steps[0] += 1
                        if steps[0] > max_steps or time.perf_counter() > deadline:
                            cut[0] = True
                            return
                        break  # every value left costs one "no" more than `best` allows
                    rest = scored[k:]
                    for i, v in pending:
                        values[layer] = v
                        rest.append((self._bounded_cost(values, problem, pairs_by_layer[layer], cost, best[1]), i, v))
                    values.pop(layer, None)
                    rest.sort(key=lambda t: (t[0], t[1]))
                    scored, k, pending = rest, 0, []
                    continue
                c, _, v = scored[k]
                k += 1
                steps[0] += 1
                if steps[0] > max_steps or time.perf_counter() > deadline:
                    cut[0] = True
                    return
                nxt = (cost[0] + c[0], cost[1] + c[1], cost[2] + c[2])
                if nxt >= best[1]:
                    break  # sorted: no later value can do better
                values[layer] = v
                dfs(depth + 1, nxt)
                del values[layer]
                if best[1] <= floor or cut[0]:
                    return

        dfs(0, (0, 0, 0))
        return best[0], not cut[0]

    def find_domains(self, problem: Problem) -> dict[Layer, list[str]] | None:
        """The candidate values per layer that `find` starts from (propagated for a strict
        problem), or None when some layer has none left."""
        base = self.domains(problem) if problem.lenient else self.propagated_domains(problem, probe=Layer.arch)
        return None if any(not v for v in base.values()) else base

    def witness(self, problem: Problem, project: list[Layer], base: dict[Layer, list[str]], combo: tuple[str, ...],
                deadline: float | None = None, classes: dict | None = None) -> Path | None:
        """The witness `find` gives for one value per projected layer (None: no supported path).

        `base` comes from `find_domains`; callers that want only some answers, in their own
        order, call this per candidate instead of `find`. `classes` (a dict the caller keeps for
        one problem and one `base`) lets candidates that no fact tells apart share one search
        (see `_gpu_class`): a later member gets the first member's outcome, its witness
        re-evaluated with its own node (and searched for in full should that ever fail)."""
        key = None
        if classes is not None and not problem.lenient:
            found = classes.get(None)
            if found is None:
                # Only facts about a node that can be on a path are ever weighed.
                on_path = frozenset(v for values in base.values() for v in values)
                found = classes[None] = (on_path, *self._gpu_keys(on_path))
            key = self._combo_class(project, combo, *found)
            first = classes.get(key, _MISSING)
            if first is not _MISSING:
                if first is None:
                    return None
                values = dict(first.values)
                values.update(zip(project, combo))
                # Only the GPU differs from the first member's path (the key keeps the other
                # projected values as they are): its pairs and the driver are judged again.
                path = self.evaluate(values, problem, like=first, changed=Layer.gpu)
                if path.verdict == "supported":
                    return path
                key = None  # not the same after all: search for this candidate on its own
        path = self._witness(problem, project, base, combo, deadline)
        # A search the clock cut proves nothing, so its outcome is not shared.
        if key is not None and (path is not None or deadline is None or time.perf_counter() <= deadline):
            classes[key] = path
        return path

    def _gpu_keys(self, on_path: frozenset[str]) -> tuple[dict[str, object], dict[str, list[CompiledFact]]]:
        """GPU → its class key (`_combo_class`) among the facts `on_path` can weigh, filled as
        GPUs are met, and the facts that name GPUs in a condition among those
        (`_named_on_path`). Remembered per set of nodes that can be on a path (the same for a
        question asked again), so a GPU's roles are worked out once for it."""
        remembered = self.__dict__.setdefault("_gpu_keys_memo", {})
        found = remembered.get(on_path)
        if found is None:
            if len(remembered) >= 8:  # a long-lived process (gpulane serve) keeps the newest few
                del remembered[next(iter(remembered))]
            found = remembered[on_path] = ({}, self._named_on_path(on_path))
        return found

    def _named_on_path(self, on_path: frozenset[str]) -> dict[str, list[CompiledFact]]:
        """GPU → the facts that name it in their object, a `when` or a `domain` (`_gpu_conditions`),
        at least those whose subject is on_path (the only ones a class key weighs), in file order.

        Read from the facts of the nodes on_path (``by_subject``) where those are fewer than all
        facts: a find's domains hold a few hundred nodes, whose facts are some thousand of the
        10^5 that `_gpu_conditions` walks."""
        kg = self.kg
        if len(on_path) * len(Layer) >= len(kg.facts):
            return self._gpu_conditions()
        facts: dict[int, CompiledFact] = {}
        by_subject = kg.by_subject
        for v in on_path:
            for layer in Layer:
                for cf in by_subject.get((v, layer), ()):
                    facts[cf.index] = cf
        return _named_gpus(facts[i] for i in sorted(facts))

    def _combo_class(self, project: list[Layer], combo: tuple[str, ...], on_path: frozenset[str],
                     keys: dict[str, object], conditions: dict[str, list[CompiledFact]]) -> tuple:
        """A combination with each GPU replaced by its class (`_gpu_class`) among the facts whose
        subject can be on a path (`on_path`: every value of the search's domains; `keys` and
        `conditions` are `_gpu_keys(on_path)`); the search never weighs a fact about any other node."""
        key = []
        for layer, c in zip(project, combo):
            if layer is Layer.gpu:
                found = keys.get(c)
                if found is None:
                    own, named = self._gpu_class(c)
                    if own[0] != "class":
                        found = c
                    else:
                        # The facts naming it: in a condition, or as one of several subjects.
                        by_index = {cf.index: cf for cf in conditions.get(c, ())}
                        by_index.update((cf.index, cf) for cf in named)
                        found = (own, tuple(_role(cf, c) for i in sorted(by_index)
                                            if not (cf := by_index[i]).subjects.isdisjoint(on_path)))
                    keys[c] = found
                c = found
            key.append(c)
        return tuple(key)

    def _gpu_class(self, gpu: str) -> tuple[tuple, tuple[CompiledFact, ...]]:
        """GPUs that no fact and no attribute the search reads tells apart get the same key.

        The search reads of a GPU: its vendor (vendor mismatches), its declared layers, the
        facts whose subject it is, and the facts that name it (object, `when`, `domain`). Two
        GPUs are interchangeable when their own facts are all plain unconditional `has_arch`
        facts with equal content, and every other fact that can be weighed names both or
        neither: every table, verdict and search step is then the same with one swapped for the
        other. Returns (key of the GPU alone, the other facts that name it, in file order; how
        each names it is `_role`); a GPU with any other kind of own fact is its own class
        ("node", id). The facts naming it in a condition are added per search (`_combo_class`):
        only those about a node that can be on its paths count there."""
        memo = self.__dict__.setdefault("_gpu_classes", {})
        found = memo.get(gpu)
        if found is not None:
            return found
        kg = self.kg
        node = kg.nodes.get(gpu)
        own, named = [], {}
        plain = node is not None and not node.layers
        # Its own facts (subject); those it shares with other subjects are facts naming it.
        subject_of = [cf for layer in Layer for cf in kg.by_subject.get((gpu, layer), ())] if plain else []
        for cf in subject_of:
            if cf.subjects == {gpu}:
                f = cf.fact
                if f.relation.value != "has_arch" or cf.when or cf.domain is not None or f.runs_as or f.kernels \
                        or cf.target.ids is None:
                    plain = False
                    break
                own.append((cf.status.value, cf.target.ids, f.caveat, cf.names_known, cf.exhaustive))
            else:
                named[cf.index] = cf
        if plain:
            # How each names it (`_role`) is worked out per search, for the facts it can weigh.
            found = (("class", kg.compute_vendor(gpu), node.vendor, node.backend, tuple(sorted(own, key=repr))),
                     tuple(named[i] for i in sorted(named)))
        else:
            found = (("node", gpu), ())
        memo[gpu] = found
        return found

    def _gpu_conditions(self) -> dict[str, list[CompiledFact]]:
        """GPU id → the facts that name it in their object, a `when` or a `domain` (one pass
        over the facts, once per solver; only GPU-layer id sets are walked)."""
        found = getattr(self, "_gpu_named_by_condition", None)
        if found is None:
            found = self._gpu_named_by_condition = _named_gpus(self.kg.facts)
        return found

    def _witness(self, problem: Problem, project: list[Layer], base: dict[Layer, list[str]], combo: tuple[str, ...],
                 deadline: float | None = None) -> Path | None:
        among = [(u, l) for i, u in enumerate(project) for l in project[i + 1:]]
        among = [(u, l) if _RANK[u] > _RANK[l] else (l, u) for u, l in among]
        # A cheap look at the candidate alone (its own edges, the pinned driver) first.
        if len(project) > 1 or problem.driver is not None:
            if not self._consistent(dict(zip(project, combo)), problem, among):
                return None
        doms = dict(base)
        for l, c in zip(project, combo):
            doms[l] = [c]
        # The base domains are consistent already: only what the candidate changes is revisited.
        if not problem.lenient:
            doms = self.propagate(problem, doms, changed=set(project))
            if any(not v for v in doms.values()):
                return None
        witness = next(self.solutions(problem, doms, deadline=deadline, propagate=False), None)
        if problem.lenient and witness is not None and _gaps(witness) > 1:
            # Look briefly for a witness with fewer unknown edges (none not supported).
            soon = time.perf_counter() + LENIENT_WITNESS_S
            better, _ = self.closest(problem, min(deadline, soon) if deadline else soon,
                                     max_steps=500, max_no=0, domains=doms)
            if better is not None and _gaps(better) < _gaps(witness):
                witness = better
        return witness

    def find(self, problem: Problem, project: list[Layer], limit: int | None = None,
             deadline: float | None = None) -> list[tuple[tuple[str, ...], Path]]:
        """One witness path per distinct value of the projected layers."""
        base = self.find_domains(problem)
        if base is None:
            return []
        answers = []
        classes: dict = {}
        # Combinations with a pseudo value are no answers: left out of the product.
        for combo in product(*([v for v in base[l] if v[:1] != "~"] for l in project)):
            if deadline is not None and time.perf_counter() > deadline:
                break
            witness = self.witness(problem, project, base, combo, deadline, classes)
            if witness is not None:
                answers.append((combo, witness))
                if limit is not None and len(answers) >= limit:
                    break
        return answers


def _named_gpus(facts: Iterable[CompiledFact]) -> dict[str, list[CompiledFact]]:
    """GPU → the facts (of `facts`, in their order) that name it in their object, a `when` or a
    `domain`."""
    found: dict[str, list[CompiledFact]] = {}
    gpu = Layer.gpu
    for cf in facts:
        target, when, domain = cf.target, cf.when, cf.domain
        if target.layer is not gpu and not when and (domain is None or domain.layer is not gpu):
            continue  # most facts name no GPU: no tuple made for them
        for cond in (target, *when, domain):
            if cond is not None and cond.layer is gpu and cond.ids:
                for g in cond.ids:
                    named = found.setdefault(g, [])
                    if not named or named[-1] is not cf:
                        named.append(cf)
    return found


def _role(cf: CompiledFact, gpu: str) -> tuple:
    """How a fact names a GPU: its index, and whether as a subject, in the object, in which
    `when` conditions, in the domain (part of a GPU's class key, see Solver._gpu_class)."""
    return (cf.index, gpu in cf.subjects, gpu in (cf.target.ids or ()),
            tuple(j for j, cond in enumerate(cf.when) if gpu in (cond.ids or ())),
            cf.domain is not None and gpu in (cf.domain.ids or ()))


def provided_by(kg: KnowledgeGraph, layer: Layer, values: dict[Layer, str]) -> str | None:
    """The node on the path whose build fixes this layer's node (built_with / bundles)."""
    value = values.get(layer)
    if value is None or is_pseudo(value):
        return None
    for other_layer, other in values.items():
        if other_layer is layer or is_pseudo(other):
            continue
        for cf in kg.by_subject.get((other, layer), []):
            if cf.relation in _PROVIDING_RELATIONS and cf.positive and cf.selects(value):
                return other
    return None


def bundled_by_app(kg: KnowledgeGraph, values: dict[Layer, str]) -> str | None:
    """The app on the path that ships the path's toolkit inside itself, if any.

    Such a toolkit (Ollama's ROCm runtime, built for the targets of Ollama's own build
    list) answers to the app's architecture facts, not to the toolkit's own support
    matrix: the toolkit–arch pair is not judged on that path.
    """
    app, toolkit = values.get(Layer.app), values.get(Layer.toolkit)
    if app is None or toolkit is None or is_pseudo(app) or is_pseudo(toolkit):
        return None
    for cf in kg.by_subject.get((app, Layer.toolkit), []):
        if cf.relation is Relation.bundles and cf.positive and cf.selects(toolkit):
            return app
    return None


def _gaps(path: Path) -> int:
    return sum(e.verdict in _LENIENT_VERDICTS for e in path.edges)


# About how many links `_linked` gathers (set unions in C) for the cost of walking one value
# (a Python step with a lookup and a set test).
_GATHER_PER_WALK = 4


def _linked(values, others, links, back) -> set[str] | frozenset[str]:
    """The values with a link (in `links`, whose reverse is `back`) to one of `others`: walked
    from `values` or gathered from `others`' reverse links, whichever is cheaper (a link
    gathered costs a set operation in C, a value walked a step of Python: `_GATHER_PER_WALK`)."""
    if not values or not others:
        return frozenset()
    budget = len(values) * _GATHER_PER_WALK
    if len(others) < len(values):
        total = 0
        for y in others:
            total += len(back.get(y, ()))
            if total >= budget:
                break
        else:
            reached: set[str] = set()
            for y in others:
                found = back.get(y)
                if found:
                    reached |= found
            return reached & values if len(reached) < len(values) else values & reached
    out = set()
    for x in values:
        linked = links.get(x)
        if linked and not linked.isdisjoint(others):
            out.add(x)
    return out


def _pseudo_for(kind: str) -> str:
    return NOT_USED if kind == "not_used" else BUNDLED


def _declares(node, layer: Layer, pseudo: str) -> bool:
    kind = node.layers.get(layer)
    return kind is not None and _pseudo_for(kind) == pseudo


def _meets(linked: set[str] | None, candidates: set[str]) -> bool:
    if not linked:
        return False
    small, big = (linked, candidates) if len(linked) < len(candidates) else (candidates, linked)
    return any(v in big for v in small)


def _union(ranges) -> VersionRange:
    out: list = []
    for r in ranges:
        out.extend(r.intervals)
    return VersionRange(tuple(out))


def _pin_inside(pin: DriverPin, allowed: VersionRange) -> bool:
    if pin.exact is not None:
        return allowed.contains(pin.exact)
    return allowed.overlaps(pin.range)
