"""A `find` statement → one SPARQL SELECT over the RDF export.

The query applies the engine's path rules to the facts in the export (see
docs/rdf.md, "The generated query"):

- one variable per layer in scope; pins become VALUES;
- a layer may be "not used" / "bundled" (``gl:not_used``, ``gl:bundled``) when a
  node on the path declares it: each such *shape* is one UNION branch, so inside
  a branch every variable is either a node or a fixed pseudo value;
- every pair of nodes: no applicable ``unsupported`` fact, and no side with an
  applicable exhaustive fact over the other's layer unless an applicable
  allowed fact of that side selects it; required pairs also need an applicable
  allowed positive fact, either direction; toolkit–os only for a toolkit no
  build or app on the path carries (built_with / bundles);
- a fact applies when each of its ``when`` conditions selects the path's node
  of that layer (conditions on the driver or on layers out of scope never hold
  without a driver pin, as in the engine);
- the driver requirements of the path's nodes must intersect: the export ranks
  every driver bound, and the query looks for one point (a bound, or below all
  of them) that every node's chosen requirements contain.

``gl:link`` / ``gl:officialLink`` (positive facts between two nodes, either
direction) drive the joins; the rules above then decide on the facts.

Not translated (a SparqlUnsupportedError says so): statements that pin a
driver, and lenient statements (allow unknown).
"""

from __future__ import annotations

from itertools import product

from gpulane.errors import GpulaneError
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.rdf import GL, KB, PROV, node_iri
from gpulane.graph.solver import REQUIRED_PAIRS
from gpulane.model import LAYER_ORDER, OFFICIAL_POSITIVE, Layer
from gpulane.queries.plan import Plan

__all__ = ["to_sparql", "SparqlUnsupportedError", "answer_ids", "PSEUDO"]

PSEUDO = {"not_used": GL + "not_used", "bundled": GL + "bundled"}
_RANK = {layer: i for i, layer in enumerate(LAYER_ORDER)}
_SKIP_PROP = {"not_used": "gl:notUsedLayer", "bundled": "gl:bundledLayer"}
_PROPAGATED = [p for p in REQUIRED_PAIRS if p != (Layer.toolkit, Layer.os)]


class SparqlUnsupportedError(GpulaneError):
    """A statement the SPARQL translation does not cover."""


def _v(layer: Layer) -> str:
    return f"?{layer.value}"


def answer_ids(value: str) -> str:
    """A node id from a result IRI (what the differential tests compare)."""
    from urllib.parse import unquote

    return unquote(value.removeprefix(f"{KB}node/"))


def to_sparql(kg: KnowledgeGraph, plan: Plan) -> str:
    """The SPARQL SELECT whose rows are the answers of a `find` plan on the RDF export."""
    st = plan.statement
    problem = plan.problem
    if st.verb != "find" or not plan.project:
        raise SparqlUnsupportedError(f"only find statements are translated to SPARQL, not '{st.verb}'")
    if problem.driver is not None:
        raise SparqlUnsupportedError(
            "statements that name a driver are not translated to SPARQL: a driver version is not a node, "
            "and the engine's pin rules (exact versions, caveat relaxation) are not expressed; "
            "drop the driver filter, or ask gpulane")
    if getattr(problem, "lenient", False):
        raise SparqlUnsupportedError("lenient statements (unknown edges allowed) are not translated to SPARQL")
    layers = [l for l in problem.scope if l is not Layer.driver]
    allow = sorted(s.value for s in problem.allow)
    link = "gl:link" if problem.allow - OFFICIAL_POSITIVE else "gl:officialLink"
    branches = []
    for shape in _shapes(kg, plan, layers):
        body = _Branch(kg, plan, layers, shape, allow, link).render()
        if body is not None:
            branches.append(body)
    head = ["PREFIX gl: <%s>" % GL, "PREFIX prov: <%s>" % PROV, "",
            f"# gpulane: {st.text.strip()}",
            "SELECT DISTINCT " + " ".join(_v(l) for l in plan.project) + " WHERE {"]
    if not branches:
        return "\n".join(head + ["  FILTER(false)", "}", ""])
    return "\n".join(head + ["  {\n" + "\n  } UNION {\n".join(branches) + "\n  }", "}", ""])


def _shapes(kg: KnowledgeGraph, plan: Plan, layers: list[Layer]):
    """Each assignment of 'node' or a pseudo kind to the layers, where one is possible."""
    declared: dict[Layer, set[str]] = {}
    for node in kg.nodes.values():
        for layer, kind in node.layers.items():
            declared.setdefault(layer, set()).add(kind)
    options = []
    for layer in layers:
        opts = ["node"]
        if layer not in plan.problem.pins and layer not in plan.project:
            opts += sorted(declared.get(layer, ()))
        options.append(opts)
    for combo in product(*options):
        yield dict(zip(layers, combo))


class _Branch:
    """One UNION branch: the path pattern and rules for one shape."""

    def __init__(self, kg, plan, layers, shape, allow, link):
        self.kg = kg
        self.problem = plan.problem
        self.layers = layers
        self.shape = shape
        self.real = [l for l in layers if shape[l] == "node"]
        self.allow = allow
        self.link = link
        self.lines: list[str] = []

    def add(self, text: str) -> None:
        self.lines.append("    " + text)

    def render(self) -> str | None:
        pins = self.problem.pins
        # Pins first: they are the selective part of most questions.
        for layer in sorted(self.real, key=lambda l: (l not in pins, len(pins.get(l, ())), _RANK[l])):
            if layer in pins:
                values = " ".join(f"<{node_iri(i)}>" for i in sorted(pins[layer]) if i in self.kg.nodes)
                self.add(f"VALUES {_v(layer)} {{ {values} }}")
        for upper, lower in self._required_real_pairs():
            self.add(f"{_v(upper)} {self.link} {_v(lower)} .")
        for layer in self.real:
            if layer not in pins:
                self.add(f"{_v(layer)} gl:layer gl:{layer.value} .")
        for layer in self.layers:
            if self.shape[layer] != "node":
                self.add(f"BIND(<{PSEUDO[self.shape[layer]]}> AS {_v(layer)})")
        if not self._pseudo_rules():
            return None
        for upper, lower in self._pairs():
            self._pair_rules(upper, lower)
        if Layer.driver in self.problem.scope:
            self._driver_rule()
        return "\n".join(self.lines)

    def _pairs(self) -> list[tuple[Layer, Layer]]:
        ordered = sorted(self.real, key=_RANK.get, reverse=True)
        return [(u, l) for i, u in enumerate(ordered) for l in ordered[i + 1:]]

    def _required(self, upper: Layer, lower: Layer) -> bool:
        if (upper, lower) in REQUIRED_PAIRS:
            return True
        return (upper, lower) == (Layer.app, Layer.toolkit) and self.shape.get(Layer.framework, "node") != "node"

    def _required_real_pairs(self) -> list[tuple[Layer, Layer]]:
        return [(u, l) for u, l in self._pairs() if self._required(u, l) and (u, l) != (Layer.toolkit, Layer.os)]

    # -- pseudo layers -------------------------------------------------------------

    def _pseudo_rules(self) -> bool:
        """Rules for not-used / bundled layers; False when the shape cannot occur."""
        for layer in self.layers:
            kind = self.shape[layer]
            if kind == "node":
                continue
            # Someone on the path must leave the layer out, in this way.
            owners = " || ".join(f"EXISTS {{ {_v(o)} {_SKIP_PROP[kind]} gl:{layer.value} }}" for o in self.real)
            if not owners:
                return False
            self.add(f"FILTER({owners})")
            other = "bundled" if kind == "not_used" else "not_used"
            for upper in self.real:
                if _RANK[upper] > _RANK[layer]:
                    # A node that leaves the layer out in the other way contradicts this value.
                    self.add(f"FILTER NOT EXISTS {{ {_v(upper)} {_SKIP_PROP[other]} gl:{layer.value} }}")
                    if (upper, layer) in _PROPAGATED:
                        self.add(f"FILTER(EXISTS {{ {_v(upper)} {_SKIP_PROP[kind]} gl:{layer.value} }} || "
                                 f"EXISTS {{ {_v(upper)} {self.link} ?any_{layer.value} . "
                                 f"?any_{layer.value} gl:layer gl:{layer.value} }})")
                        if not self._upper_domain_declares(upper, layer, kind):
                            return False
        return True

    def _upper_domain_declares(self, upper: Layer, lower: Layer, kind: str) -> bool:
        """Whether the upper layer's candidates could stand behind a pseudo lower value.

        Mirrors the engine's domain narrowing: a pseudo value survives only if the
        upper layer may itself be pseudo or some candidate declares it.
        """
        pins = self.problem.pins
        ids = pins.get(upper)
        candidates = ids if ids is not None else self.kg.by_layer[upper]
        if ids is None and any(upper in n.layers for n in self.kg.nodes.values()):
            return True
        return any(self.kg.nodes[c].layers.get(lower) == kind for c in candidates if c in self.kg.nodes)

    # -- pairs of nodes ----------------------------------------------------------------

    def _applies(self, fact: str) -> str:
        """Every `when` condition of the fact selects the path's node of its layer."""
        alts = " UNION ".join(f"{{ ?c_{fact} gl:selects {_v(l)} }}" for l in self.real)
        if not alts:
            return f"FILTER NOT EXISTS {{ ?{fact} gl:when ?c_{fact} }}"
        return f"FILTER NOT EXISTS {{ ?{fact} gl:when ?c_{fact} . FILTER NOT EXISTS {{ {alts} }} }}"

    def _status_in(self, fact: str, statuses: list[str]) -> str:
        return f"?{fact} gl:status ?s_{fact} . FILTER(?s_{fact} IN ({', '.join('gl:' + s for s in statuses)}))"

    def _side(self, fact: str, subject: Layer, other: Layer, selects: bool = True) -> str:
        sel = f" ; gl:selects {_v(other)}" if selects else ""
        return f"?{fact} gl:subject {_v(subject)} ; gl:compiledLayer gl:{other.value}{sel} ."

    def _pair_rules(self, upper: Layer, lower: Layer) -> None:
        u, l = _v(upper), _v(lower)
        tag = f"{upper.value}_{lower.value}"
        # A node that uses no node of the other layer cannot pair with one.
        self.add(f"FILTER NOT EXISTS {{ {u} gl:notUsedLayer|gl:bundledLayer gl:{lower.value} }}")
        self.add(f"FILTER NOT EXISTS {{ {l} gl:notUsedLayer|gl:bundledLayer gl:{upper.value} }}")
        for side, (a, b) in enumerate(((upper, lower), (lower, upper))):
            f = f"n{side}_{tag}"
            self.add(f"FILTER NOT EXISTS {{ {self._side(f, a, b)} ?{f} gl:status gl:unsupported . "
                     f"{self._applies(f)} }}")
            x, y = f"x{side}_{tag}", f"y{side}_{tag}"
            self.add(f"FILTER(NOT EXISTS {{ {self._side(x, a, b, selects=False)} ?{x} gl:listsAll true . "
                     f"?{x} gl:status ?s_{x} . FILTER(?s_{x} != gl:unsupported) {self._applies(x)} }} || "
                     f"EXISTS {{ {self._side(y, a, b)} {self._status_in(y, self.allow)} {self._applies(y)} }})")
        if not self._required(upper, lower):
            return
        f = f"p_{tag}"
        support = (f"EXISTS {{ {{ {self._side(f, upper, lower)} }} UNION {{ {self._side(f, lower, upper)} }} "
                   f"{self._status_in(f, self.allow)} {self._applies(f)} }}")
        if (upper, lower) == (Layer.toolkit, Layer.os):
            # A toolkit a build or app on the path carries answers to that build's OS facts.
            carriers = ", ".join(_v(c) for c in self.real if c is not Layer.toolkit)
            provided = (f"EXISTS {{ ?b gl:subject ?carrier ; gl:compiledLayer gl:toolkit ; gl:selects {u} ; "
                        f"gl:relation ?rel ; gl:status ?bs . FILTER(?rel IN (gl:built_with, gl:bundles) && "
                        f"?bs != gl:unsupported && ?carrier IN ({carriers})) }}") if carriers else "false"
            self.add(f"FILTER({provided} || {support})")
        else:
            self.add(f"FILTER({support})")

    # -- driver ----------------------------------------------------------------------

    def _driver_fact(self, fact: str, node: str) -> str:
        return (f"?{fact} gl:subject {node} ; gl:constrainsDriver true . "
                f"{self._status_in(fact, self.allow)} {self._applies(fact)}")

    def _driver_rule(self) -> None:
        """Some driver point lies in every node's chosen requirements."""
        if not self.real:
            return
        nodes = ", ".join(_v(l) for l in self.real)
        checks = []
        for layer in self.real:
            n = _v(layer)
            d, e, i = f"d_{layer.value}", f"e_{layer.value}", f"i_{layer.value}"
            # Caveat-free requirements win; caveated ones count only when a node has no other.
            chosen = (f"(NOT EXISTS {{ ?{d} gl:caveat ?cv_{d} }} || NOT EXISTS {{ {self._driver_fact(e, n)} "
                      f"FILTER NOT EXISTS {{ ?{e} gl:caveat ?cv_{e} }} }})")
            checks.append(f"(NOT EXISTS {{ {self._driver_fact(d, n)} }} || EXISTS {{ {self._driver_fact(d, n)} "
                          f"FILTER{chosen} ?{d} gl:driverInterval ?{i} . ?{i} gl:lowKey ?lo_{i} ; "
                          f"gl:highKey ?hi_{i} . FILTER(?lo_{i} <= ?point && ?point < ?hi_{i}) }})")
        self.add("FILTER EXISTS { { BIND(-1 AS ?point) } UNION { ?dp gl:subject ?dn ; gl:constrainsDriver true ; "
                 f"gl:driverInterval ?dpi . ?dpi gl:lowKey ?point . FILTER(?dn IN ({nodes})) }}\n"
                 "      FILTER(" + "\n        && ".join(checks) + ") }")
