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
- a toolkit the path's app ships inside itself (a positive ``bundles`` fact, whatever
  its conditions) is judged by the app's arch facts: on such a path the toolkit–arch
  pair is not checked. Where app, toolkit and arch are all nodes, a shape is two
  branches, one where the app bundles the toolkit (no toolkit–arch rules) and one
  where it does not (every rule);
- a fact applies when each of its ``when`` conditions selects the path's node
  of that layer (conditions on the driver or on layers out of scope never hold
  without a driver pin, as in the engine);
- the driver requirements of the path's nodes must intersect: the export ranks
  every driver bound, and the query looks for one point (a bound, or below all
  of them) that every node's chosen requirements contain.

``gl:link`` / ``gl:officialLink`` (positive facts between two nodes, either
direction) drive the joins; the rules above then decide on the facts.

Not translated (a SparqlUnsupportedError says so): statements that pin a
driver, lenient statements (allow unknown), and statements whose app candidates
include app releases (versioned app nodes): release facts hold over version ranges
whose expansion makes the uncorrelated sub-selects explode (minutes per query in
Oxigraph), and the engine weighs a release's build list against its support
statement ("builds only") and reads complete lists only over their `domain`, rules
this query does not express.
"""

from __future__ import annotations

import re
from itertools import product

from gpulane.errors import GpulaneError
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.rdf import GL, INF_KEY, KB, PROV, node_iri
from gpulane.graph.solver import REQUIRED_PAIRS
from gpulane.model import LAYER_ORDER, OFFICIAL_POSITIVE, Layer, Relation
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
    if Layer.app in problem.scope and not problem.allow <= OFFICIAL_POSITIVE:
        candidates = problem.pins.get(Layer.app) or kg.by_layer[Layer.app]
        releases = sorted(c for c in candidates if c in kg.nodes and kg.nodes[c].version)
        if releases:
            raise SparqlUnsupportedError(
                f"statements over app releases are not translated to SPARQL ({len(releases)} release(s) among the "
                f"app candidates, e.g. {kg.nodes[releases[0]].name}): the engine weighs a release's build list "
                "against its support statement and reads complete lists over their domain only, which the "
                "query does not express; ask gpulane")
    if problem.kernel is not None:
        raise SparqlUnsupportedError("statements that name a kernel are not translated to SPARQL: the kernel lists of "
                                     "toolkit statements are not in the export; drop the kernel filter, or ask gpulane")
    if problem.allow <= OFFICIAL_POSITIVE:
        return _verdict_query(kg, plan)
    layers = [l for l in problem.scope if l is not Layer.driver]
    allow = sorted(s.value for s in problem.allow)
    link = "gl:link" if problem.allow - OFFICIAL_POSITIVE else "gl:officialLink"
    branches = []
    any_bundles = _apps_bundle_toolkits(kg, problem.pins.get(Layer.app) or kg.by_layer[Layer.app])
    for shape in _shapes(kg, plan, layers):
        judged = all(shape.get(l) == "node" for l in (Layer.app, Layer.toolkit, Layer.arch))
        for bundled in ((False, True) if judged and any_bundles else (None,)):
            body = _Branch(kg, plan, layers, shape, allow, link, bundled).render()
            if body is not None:
                branches.append(body)
    head = ["PREFIX gl: <%s>" % GL, "PREFIX prov: <%s>" % PROV, "",
            *_comment_lines(st.text),
            "SELECT DISTINCT " + " ".join(_v(l) for l in plan.project) + " WHERE {"]
    if not branches:
        return "\n".join(head + ["  FILTER(false)", "}", ""])
    return "\n".join(head + ["  {\n" + "\n  } UNION {\n".join(branches) + "\n  }", "}", ""])


def _apps_bundle_toolkits(kg: KnowledgeGraph, apps) -> bool:
    """Whether one of these apps ships a toolkit node inside itself (a positive app → toolkit
    `bundles` fact) while it can pair with a toolkit node at all (it does not declare the
    toolkit layer bundled or not used)."""
    return any(cf.relation is Relation.bundles and cf.positive and cf.target.layer is Layer.toolkit
               for app in apps if app in kg.nodes and Layer.toolkit not in kg.nodes[app].layers
               for cf in kg.by_subject.get((app, Layer.toolkit), []))


def _shipped_toolkits(kg: KnowledgeGraph, apps) -> set[tuple[str, str]]:
    """(app, toolkit) for these apps: the app ships the toolkit inside itself (a positive
    ``bundles`` fact; the verdict graph's ``gl:bundlesToolkit``)."""
    return {(app, t) for app in apps for cf in kg.by_subject.get((app, Layer.toolkit), ())
            if cf.relation is Relation.bundles and cf.positive for t in cf.target.ids or ()}


# The app ships the toolkit (the engine's bundled_by_app: any positive bundles fact, its
# conditions not read).
_BUNDLES = ("?bf gl:subject ?app ; gl:relation gl:bundles ; gl:compiledLayer gl:toolkit ; gl:selects ?toolkit ; "
            "gl:status ?bs . FILTER(?bs != gl:unsupported)")


def _comment_lines(text: str) -> list[str]:
    """The statement as SPARQL comment lines: every line of it behind its own '#', so a
    multi-line statement cannot end the comment and become query text."""
    from gpulane.textsafe import visible

    lines = [visible(line, allow_newline=False) for line in text.strip().splitlines()] or [""]
    return [f"# gpulane: {lines[0]}", *(f"#          {line}" for line in lines[1:])]


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
    """One UNION branch: the path pattern and rules for one shape.

    Rules are joins, MINUS and OPTIONAL over uncorrelated sub-selects (triple
    stores evaluate those as hash joins; correlated FILTER EXISTS is slow in
    Oxigraph). Each level that may multiply rows is folded back with SELECT
    DISTINCT over the path variables.
    """

    def __init__(self, kg, plan, layers, shape, allow, link, bundled=None):
        self.kg = kg
        # None: the bundled-toolkit rule does not arise; True / False: the branch where the
        # path's app does / does not ship the path's toolkit.
        self.bundled = bundled
        self.problem = plan.problem
        self.project = plan.project
        self.layers = layers
        self.shape = shape
        self.real = [l for l in layers if shape[l] == "node"]
        self.allow = allow
        self.link = link
        self.lines: list[str] = []
        self._n = 0
        groups = {tuple(sorted(c.layer.value for c in cf.when)) for cf in kg.facts}
        real = {l.value for l in self.real}
        self.groups = sorted(g for g in groups if set(g) <= real)

    def add(self, text: str) -> None:
        self.lines.append("    " + text)

    def fresh(self, stem: str) -> str:
        self._n += 1
        return f"?{stem}{self._n}"

    def render(self) -> str | None:
        pins = self.problem.pins
        # Pins first: they are the selective part of most questions.
        for layer in sorted(self.real, key=lambda l: (l not in pins, len(pins.get(l, ())), _RANK[l])):
            if layer in pins:
                values = " ".join(f"<{node_iri(i)}>" for i in sorted(pins[layer]) if i in self.kg.nodes)
                self.add(f"VALUES {_v(layer)} {{ {values} }}")
        if self.bundled:
            self.add(f"{{ SELECT DISTINCT ?app ?toolkit WHERE {{ {_BUNDLES} }} }}")
        elif self.bundled is False:
            self.add(f"MINUS {{ {_BUNDLES} }}")
        for upper, lower in self._required_real_pairs():
            self.add(f"{_v(upper)} {self.link} {_v(lower)} .")
        for layer in self.real:
            if layer not in pins:
                self.add(f"{_v(layer)} gl:layer gl:{layer.value} .")
        if not self._pseudo_rules():
            return None
        for upper, lower in self._pairs():
            self._negative_rules(upper, lower)
        for upper, lower in self._pairs():
            self._pair_level(upper, lower)
        if Layer.driver in self.problem.scope:
            self._driver_level()
        for layer in self.layers:
            if self.shape[layer] != "node":
                self.add(f"BIND(<{PSEUDO[self.shape[layer]]}> AS {_v(layer)})")
        return "\n".join(self.lines)

    def _fold(self, rules: list[str], condition: str) -> None:
        """Wrap what is written so far with OPTIONAL rules and a FILTER, one row per path."""
        vars_ = " ".join(_v(l) for l in self.real)
        inner = "\n".join("  " + line for line in self.lines)
        self.lines = [f"    {{ SELECT DISTINCT {vars_} WHERE {{", inner]
        for rule in rules:
            self.add("  " + rule)
        self.add(f"  FILTER({condition})")
        self.add("} }")

    def _pairs(self) -> list[tuple[Layer, Layer]]:
        """The pairs of node layers the rules judge (upper, lower)."""
        ordered = sorted(self.real, key=_RANK.get, reverse=True)
        return [(u, l) for i, u in enumerate(ordered) for l in ordered[i + 1:]
                if not (self.bundled and (u, l) == (Layer.toolkit, Layer.arch))]

    def _required(self, upper: Layer, lower: Layer) -> bool:
        if (upper, lower) in REQUIRED_PAIRS:
            return True
        return (upper, lower) == (Layer.app, Layer.toolkit) and self.shape.get(Layer.framework, "node") != "node"

    def _required_real_pairs(self) -> list[tuple[Layer, Layer]]:
        return [(u, l) for u, l in self._pairs() if self._required(u, l) and (u, l) != (Layer.toolkit, Layer.os)]

    # -- facts that apply ----------------------------------------------------------------

    def _applies(self, f: str) -> tuple[str, list[str]]:
        """A pattern that holds when every `when` condition of ?f selects the path's node
        of its layer, and the path variables it binds."""
        alts, used = [], []
        for group in self.groups:
            parts = [f'{f} gl:whenLayers "{",".join(group)}" .']
            conds = []
            for layer in group:
                c = self.fresh("c")
                conds.append(c)
                parts.append(f"{f} gl:when {c} . {c} gl:compiledLayer gl:{layer} ; gl:selects ?{layer} .")
                if f"?{layer}" not in used:
                    used.append(f"?{layer}")
            if len(conds) > 1:
                parts.append("FILTER(" + " && ".join(f"{a} != {b}" for i, a in enumerate(conds)
                                                     for b in conds[i + 1:]) + ")")
            alts.append("{ " + " ".join(parts) + " }")
        return " UNION ".join(alts), used

    def _facts(self, subject: str, other: Layer, selects: str | None, status: str, extra: str = "",
               project: tuple[str, ...] = ()) -> tuple[str, str]:
        """An uncorrelated sub-select of the applicable facts of a subject over a layer, tagged."""
        f = self.fresh("f")
        tag = self.fresh("t")
        applies, used = self._applies(f)
        sel = f" ; gl:selects {selects}" if selects else ""
        body = f"{f} gl:subject {subject} ; gl:compiledLayer gl:{other.value}{sel} . {status.format(f=f)} {extra.format(f=f)} {applies}"
        keep = [subject] + ([selects] if selects else []) + [u for u in used if u not in (subject, selects)] + list(project)
        return f"{{ SELECT DISTINCT {' '.join(keep)} (1 AS {tag}) WHERE {{ {body} }} }}", tag

    def _allowed(self) -> str:
        return "{f} gl:status ?s{f_} . FILTER(?s{f_} IN (" + ", ".join("gl:" + s for s in self.allow) + "))"

    def _status(self, which: str) -> str:
        if which == "unsupported":
            return "{f} gl:status gl:unsupported ."
        if which == "positive":
            return "{f} gl:status ?s_{fx} . FILTER(?s_{fx} != gl:unsupported)"
        return "{f} gl:status ?s_{fx} . FILTER(?s_{fx} IN (" + ", ".join("gl:" + s for s in self.allow) + "))"

    def _fmt(self, template: str, f: str) -> str:
        return template.replace("{fx}", f[1:]).replace("{f}", f)

    # -- pseudo layers -------------------------------------------------------------

    def _pseudo_rules(self) -> bool:
        """Rules for not-used / bundled layers; False when the shape cannot occur."""
        for layer in self.layers:
            kind = self.shape[layer]
            if kind == "node":
                continue
            # Someone on the path must leave the layer out, in this way.
            # (Only the layers some node of which declares it so: the others never match.)
            declaring = {self.kg.nodes[n].layer for n in self.kg.nodes if self.kg.nodes[n].layers.get(layer) == kind}
            owners = [f"{_v(o)} {_SKIP_PROP[kind]} gl:{layer.value}" for o in self.real if o in declaring]
            if not owners:
                return False
            if len(owners) == 1:
                self.add(owners[0] + " .")  # every term bound: a join is the EXISTS
            else:
                self.add("FILTER EXISTS { " + " UNION ".join("{ " + o + " }" for o in owners) + " }")
            other = "bundled" if kind == "not_used" else "not_used"
            for upper in self.real:
                if _RANK[upper] > _RANK[layer]:
                    # A node that leaves the layer out in the other way contradicts this value.
                    self.add(f"MINUS {{ {_v(upper)} {_SKIP_PROP[other]} gl:{layer.value} }}")
                    if (upper, layer) in _PROPAGATED:
                        if not self._upper_domain_declares(upper, layer, kind):
                            return False
                        self.add(self._stands_behind(upper, layer, kind))
        return True

    def _stands_behind(self, upper: Layer, layer: Layer, kind: str) -> str:
        """A node of `upper` may stand behind a pseudo value of `layer` only if it declares the
        layer so, or links to some node of it (the engine's domain narrowing)."""
        x = self.fresh("x")
        return (f"{{ SELECT DISTINCT {_v(upper)} WHERE {{ {{ {_v(upper)} {_SKIP_PROP[kind]} "
                f"gl:{layer.value} }} UNION {{ {_v(upper)} {self.link} {x} . {x} gl:layer "
                f"gl:{layer.value} }} }} }}")

    def _upper_domain_declares(self, upper: Layer, lower: Layer, kind: str) -> bool:
        """Whether the upper layer's candidates could stand behind a pseudo lower value.

        Mirrors the engine's domain narrowing: a pseudo value survives only if the
        upper layer may itself be pseudo or some candidate declares it.
        """
        ids = self.problem.pins.get(upper)
        candidates = ids if ids is not None else self.kg.by_layer[upper]
        if ids is None and any(upper in n.layers for n in self.kg.nodes.values()):
            return True
        return any(self.kg.nodes[c].layers.get(lower) == kind for c in candidates if c in self.kg.nodes)

    # -- pairs of nodes ----------------------------------------------------------------

    def _pin_values(self, layer: Layer) -> str:
        """A VALUES clause for a pinned layer's variable, or nothing."""
        pins = self.problem.pins.get(layer)
        if pins is None:
            return ""
        return f"VALUES {_v(layer)} {{ " + " ".join(f"<{node_iri(i)}>" for i in sorted(pins) if i in self.kg.nodes) + " } "

    def _fact_query(self, subject: Layer, other: Layer, selects: bool, status: str, extra: str = ""):
        f = self.fresh("f")
        tag = self.fresh("t")
        applies, used = self._applies(f)
        sel = f" ; gl:selects {_v(other)}" if selects else ""
        # The pinned nodes inside the sub-select too: it is uncorrelated, and without them it
        # would gather the facts of every node of the layer before the join drops them.
        body = (self._pin_values(subject) + (self._pin_values(other) if selects else "") +
                f"{f} gl:subject {_v(subject)} ; gl:compiledLayer gl:{other.value}{sel} . "
                f"{self._fmt(self._status(status), f)} {self._fmt(extra, f)} {{ {applies} }}")
        keep = [_v(subject)] + ([_v(other)] if selects else [])
        keep += [u for u in used if u not in keep]
        return f"{{ SELECT DISTINCT {' '.join(keep)} (1 AS {tag}) WHERE {{ {body} }} }}", body, tag

    def _negative_rules(self, upper: Layer, lower: Layer) -> None:
        # A node that uses no node of the other layer cannot pair with one.
        self.add(f"MINUS {{ {_v(upper)} gl:notUsedLayer|gl:bundledLayer gl:{lower.value} }}")
        self.add(f"MINUS {{ {_v(lower)} gl:notUsedLayer|gl:bundledLayer gl:{upper.value} }}")
        for a, b in ((upper, lower), (lower, upper)):
            _, body, _ = self._fact_query(a, b, True, "unsupported")
            self.add(f"MINUS {{ {body} }}")

    def _pair_level(self, upper: Layer, lower: Layer) -> None:
        rules, conds, selected = [], [], []
        for a, b in ((upper, lower), (lower, upper)):
            ex, _, ex_tag = self._fact_query(a, b, False, "positive", "{f} gl:listsAll true .")
            sel, _, sel_tag = self._fact_query(a, b, True, "allowed")
            rules += [f"OPTIONAL {ex}", f"OPTIONAL {sel}"]
            conds.append(f"(!BOUND({ex_tag}) || BOUND({sel_tag}))")
            selected.append(f"BOUND({sel_tag})")
        if self._required(upper, lower):
            support = " || ".join(selected)
            if (upper, lower) == (Layer.toolkit, Layer.os):
                # A toolkit a build or app on the path carries answers to that build's OS facts.
                for carrier in self.real:
                    if carrier is Layer.toolkit:
                        continue
                    prov, _, prov_tag = self._fact_query(
                        carrier, Layer.toolkit, True, "positive",
                        "{f} gl:relation ?r_{fx} . FILTER(?r_{fx} IN (gl:built_with, gl:bundles))")
                    rules.append(f"OPTIONAL {prov}")
                    support += f" || BOUND({prov_tag})"
            conds.append(f"({support})")
        self._fold(rules, " && ".join(conds))

    # -- driver ----------------------------------------------------------------------

    def _driver_level(self) -> None:
        """The chosen driver requirements of the path's nodes intersect.

        Per node, the caveat-free requirements that apply, or else the caveated
        ones; one interval per node is picked by the join, and the picks
        intersect when every low key is below every high key.
        """
        rules, lows, highs = [], [], []
        for layer in self.real:
            picked = []
            for caveat in (False, True):
                f = self.fresh("f")
                lo, hi, iv = self.fresh("lo"), self.fresh("hi"), self.fresh("iv")
                applies, used = self._applies(f)
                has = "FILTER EXISTS" if caveat else "FILTER NOT EXISTS"
                body = (f"{f} gl:subject {_v(layer)} ; gl:constrainsDriver true ; gl:driverInterval {iv} . "
                        f"{iv} gl:lowKey {lo} ; gl:highKey {hi} . {self._fmt(self._status('allowed'), f)} "
                        f"{has} {{ {f} gl:caveat ?cv_{f[1:]} }} {{ {applies} }}")
                keep = [_v(layer), lo, hi] + [u for u in used if u != _v(layer)]
                rules.append(f"OPTIONAL {{ SELECT DISTINCT {' '.join(keep)} WHERE {{ {body} }} }}")
                picked.append((lo, hi))
            (plo, phi), (clo, chi) = picked
            lows.append(f"COALESCE({plo}, {clo}, -1)")
            highs.append(f"COALESCE({phi}, {chi}, {INF_KEY})")
        if not lows:
            return
        conds = [f"{lo} < {hi}" for lo in lows for hi in highs]
        self._fold(rules, "\n        && ".join(conds))


# -- the query over the verdict graph ----------------------------------------------------------

def _verdict_query(kg: KnowledgeGraph, plan: Plan) -> str:
    """The statement over the verdict graph (gpulane.graph.verdicts): the engine's pair
    verdicts, joined per pair of layers on the path."""
    st, problem = plan.statement, plan.problem
    layers = [l for l in problem.scope if l is not Layer.driver]
    from gpulane.graph.verdicts import class_layers, class_predicate

    link = "gl:officialLink"
    classes = class_layers(kg)
    branches = []
    any_bundles = _apps_bundle_toolkits(kg, problem.pins.get(Layer.app) or kg.by_layer[Layer.app])
    for shape in _shapes(kg, plan, layers):
        judged = all(shape.get(l) == "node" for l in (Layer.app, Layer.toolkit, Layer.arch))
        for bundled in ((False, True) if judged and any_bundles else (None,)):
            body = _VerdictBranch(kg, plan, layers, shape, [], link, bundled).render()
            if body is None:
                continue
            for layer in classes:
                if shape.get(layer) != "node":
                    continue
                # The layer's variable binds classes (gpulane.graph.verdicts: nodes that no
                # verdict tells apart); an answer names the members of its class, and only
                # the pinned ones where the layer is pinned.
                var = _v(layer)
                body = re.sub(rf"\{var}\b", f"{var}c", body)
                if layer in plan.project:
                    body += f"\n    {var} gl:{class_predicate(layer)} {var}c ."
                    if layer in problem.pins:
                        body += "\n    " + _values(kg, var, problem.pins[layer])
            branches.append(body)
    head = ["PREFIX gl: <%s>" % GL, "",
            *_comment_lines(st.text),
            "# Runs on the export together with its verdict graph (gpulane export --verdicts).",
            "SELECT DISTINCT " + " ".join(_v(l) for l in plan.project) + " WHERE {"]
    if not branches:
        return "\n".join(head + ["  FILTER(false)", "}", ""])
    return "\n".join(head + ["  {\n" + "\n  } UNION {\n".join(branches) + "\n  }", "}", ""])


def _values(kg: KnowledgeGraph, var: str, ids, keep_order: bool = False) -> str:
    """A VALUES clause binding `var` to these nodes (sorted, or in their order)."""
    return f"VALUES {var} {{ " + " ".join(f"<{node_iri(i)}>" for i in (ids if keep_order else sorted(ids))
                                          if i in kg.nodes) + " }"


def _pin_nodes(kg: KnowledgeGraph, layer: Layer, var: str, ids) -> str:
    """A pattern binding `var` to these nodes of `layer`: where they are exactly the layer's nodes
    of one family (`app = Ollama`: its 491 releases), the family lookup, else a VALUES clause.
    The pin is repeated in the query's branches and unions; as 491 IRIs it was 24 kB each time,
    which Oxigraph parses and evaluates each time."""
    family = _pin_family(kg, layer, ids)
    if family is not None:
        return f'{var} gl:family "{family}" ; gl:layer gl:{layer.value} .'
    return _values(kg, var, ids)


def _pin_family(kg: KnowledgeGraph, layer: Layer, ids) -> str | None:
    """The family whose nodes of `layer` are exactly these, if any (see _pin_nodes)."""
    present = {i for i in ids if i in kg.nodes}
    families = {kg.nodes[i].family for i in present}
    if len(families) == 1:
        family = next(iter(families))
        if family is not None and re.fullmatch(r"[A-Za-z0-9._+-]+", family) and present == {
                n for n in kg.by_layer[layer] if kg.nodes[n].family == family}:
            return family
    return None


_SMALL_PIN = 32  # pins with more values (vendor = AMD: every AMD GPU) are joined last
_TAIL_VALUES = 64  # a depth-first tail's layer with more nodes is read with gl:layer, unordered


def _nested_exists(levels: list[str]) -> str:
    """EXISTS { level 1 FILTER EXISTS { level 2 ... } }: each level's patterns are evaluated with
    the bindings of the levels above (see _VerdictBranch._row_holds)."""
    out = levels[-1]
    for level in reversed(levels[:-1]):
        out = f"{level} FILTER EXISTS {{ {out} }}"
    return f"EXISTS {{ {out} }}"


def _any(terms: list[str]) -> str:
    """The disjunction of boolean expressions, evaluated in this order and stopping at the first
    true one: IF(a, true, IF(b, true, c)). (Oxigraph 0.5 orders the operands of || and && by a hash
    of their text, so that a cheap test written first may run after an expensive EXISTS; it keeps
    IF's. The terms never raise errors here: EXISTS, BOUND, comparisons of bound keys.)"""
    out = terms[-1]
    for term in reversed(terms[:-1]):
        out = f"IF({term}, true, {out})"
    return out


def _all(terms: list[str]) -> str:
    """The conjunction of boolean expressions, in this order, stopping at the first false one
    (see _any)."""
    out = terms[-1]
    for term in reversed(terms[:-1]):
        out = f"IF({term}, {out}, false)"
    return out


def _path_vars(pattern: str, layers) -> set[str]:
    """The path variables (one per layer: ``?app``) a pattern reads."""
    return set(re.findall(r"\?[a-z]+\b", pattern)) & {_v(l) for l in layers}


def _cap(layer: Layer) -> str:
    return layer.value[0].upper() + layer.value[1:]


class _VerdictBranch(_Branch):
    """One UNION branch over the verdict graph: pins, then one join per required pair, the
    optional pairs as exclusions, the driver intervals."""

    def render(self) -> str | None:
        from gpulane.graph.verdicts import inventory, pass_kinds, predicate, read_layers

        self._pass_kinds, self._predicate, self._read_layers = pass_kinds, predicate, read_layers
        self.inv = inv = inventory(self.kg)
        from gpulane.graph.verdicts import class_layers

        self._classes = class_layers(self.kg)
        pins = self.problem.pins
        self.filters: list[str] = []
        if not self._possible():
            return None
        pinned = sorted((l for l in self.real if l in pins), key=self._ratio)
        small = {l for l in pinned if self._small(l)} or set(pinned[:1])
        self._start = small
        # Required pairs first, from the small pins outwards, each time the pair whose new
        # layer the bound one links to fewest nodes (from the compiled pair tables): written
        # in the order a nested-loop join should run them.
        required = [p for p in self._pairs() if self._kind(*p) == "ok"]
        start = set(small) or {min(self.real, key=lambda l: (len(pins.get(l, self.kg.by_layer[l])), _RANK[l]))}
        ordered = self._order(required, start)
        # The depth-first tail (_tail_pair): the free layer's join comes last, and is not a join.
        self._tail = None
        self._tail_sources: list[tuple[str, Layer, Layer]] = []
        tail = self._tail_pair(required, start)
        if tail is not None:
            ordered = self._order([p for p in required if p != tail[0]], start) + [tail[0]]
            self._tail = tail[1]
        # Each join is a stage: a sub-select folded with DISTINCT over the path variables bound
        # so far (and what a test still to come reads), so that the store runs them in this
        # order and the rows never multiply by profiles or rows; a row test is applied at the
        # first stage where the layers it reads are bound.
        # The small pins open the first join; a small pin of a later join is inside that join's
        # union (_ok_union), not beside the first one, where it would multiply its rows (the
        # AMD GPU classes by the vLLM app classes before any pair relates them).
        node_rules = self._node_rules()
        if node_rules is None:
            return None
        if self._tail is not None and any(_v(self._tail) in _path_vars(r, self.layers) for r in node_rules):
            self._tail = None  # a rule on the free layer's node: the joins as usual
            ordered = self._order(required, start)
        joined = {l for pair in ordered for l in pair}
        opening = {l for l in small if not ordered or l in ordered[0] or l not in joined}
        # A rule that reads one node of an opening pin (the shape's declarations: Ollama's
        # releases that ship their toolkit, or leave it out) narrows that pin before the joins:
        # after them, a branch no pinned node can take still enumerated its paths.
        early = {l: [r for r in node_rules if _path_vars(r, self.layers) == {_v(l)}] for l in opening}
        for layer in sorted(opening, key=lambda l: (len(pins[l]), _RANK[l])):
            if early[layer]:
                self.add(f"{{ SELECT DISTINCT {_v(layer)} WHERE {{ {self._pin_values(layer)}"
                         f"{' '.join(early[layer])} }} }}")
            else:
                self.add(self._pin_values(layer).strip())
        late = [r for r in node_rules if not any(r in e for e in early.values())]
        bound = set(opening)
        pending: list[tuple[str, set, list[str]]] = []
        bundles = {True: "?app gl:bundlesToolkit ?toolkit .", False: "MINUS { ?app gl:bundlesToolkit ?toolkit }",
                   None: None}[self.bundled]
        for upper, lower in (ordered[:-1] if self._tail else ordered):
            if (upper, lower) not in self.inv.linked:
                self.add("FILTER(false)")  # no fact can support this pair
                continue
            union, tests = self._ok_union(upper, lower, bound)
            self.add(union)
            pending += tests
            bound |= {upper, lower}
            for test in [t for t in pending if t[1] <= bound]:
                # One membership join per level: side by side, the store may join the sets'
                # members with each other before the paths.
                self._stage(bound, pending)
                self.add(test[0])
                pending.remove(test)
            if bundles and {Layer.app, Layer.toolkit} <= bound:
                # Whether the app ships the toolkit: a hash join, as soon as both are bound.
                self.add(bundles)
                bundles = None
            self._stage(bound, pending)
        # Lookups whose variables every row binds are joins (a triple) and MINUS (hash joins)
        # rather than a correlated FILTER [NOT] EXISTS, which Oxigraph evaluates row by row.
        for layer in sorted(set(self.real) & set(pins) - small, key=lambda l: _RANK[l]):
            self.add(self._pin_values(layer).strip())
        # Tests that read the free layer of a depth-first tail, as expressions on one of its nodes.
        self._tail_tests: list[str] = []
        for layer in self.real:
            if layer is self._tail:
                if layer in inv.cpu:
                    self._tail_tests.append(f"!EXISTS {{ {_v(layer)} gl:cpuOnly true }}")
            elif layer not in pins:
                if layer in bound:
                    pass  # a verdict join binds nodes of its own layers only
                elif layer in self._classes:
                    self.add(f"{_v(layer)} gl:classLayer gl:{layer.value} .")
                else:
                    self.add(f"{_v(layer)} gl:layer gl:{layer.value} .")
                if layer in inv.cpu:
                    self.add(f"MINUS {{ {_v(layer)} gl:cpuOnly true }}")
        # The set tests of layers no required pair binds, now that every layer is bound.
        everything = set(self.real) - {self._tail}
        for test in list(pending):
            if not test[1] <= everything:
                continue  # it reads the tail's layer: tested on its nodes (the set variable kept)
            self._stage(everything, pending)
            self.add(test[0])
            pending.remove(test)
        self._tail_tests += [f"EXISTS {{ {test[0]} }}" for test in pending]
        if bundles:  # (a MINUS after every variable it reads is bound)
            self.add(bundles)
        for rule in late:
            self.add(rule)
        for upper, lower in self._pairs():
            kind = self._kind(upper, lower)
            if kind == "pass":
                self._vendor_rule(upper, lower)
                if (upper, lower) in inv.spoken:
                    self.filters.append(self._pass_pair(upper, lower))
            elif kind == "toolkit-os":
                self._toolkit_os()
        if self._tail is not None:
            self._depth_first_tail(ordered[-1])
        else:
            if Layer.driver in self.problem.scope:
                self._drivers()
            for f in self.filters:
                self.add(f"FILTER({f})")
        for layer in self.layers:
            if self.shape[layer] != "node":
                self.add(f"BIND(<{PSEUDO[self.shape[layer]]}> AS {_v(layer)})")
        return "\n".join(self.lines)

    def _order(self, required: list[tuple[Layer, Layer]], bound: set) -> list[tuple[Layer, Layer]]:
        """The required pairs in join order: from the bound layers outwards, each time the pair
        whose new layer the bound one links to fewest nodes (from the compiled pair tables)."""
        required, bound, ordered = list(required), set(bound), []
        while required:
            nxt = min(required, key=lambda p: self._cost(p, bound))
            required.remove(nxt)
            ordered.append(nxt)
            bound |= set(nxt)
        return ordered

    def _node_rules(self) -> list[str] | None:
        """The shape's rules on the nodes themselves (who leaves a layer out, and how; a layer
        declared unused or bundled pairs with no node of it), or None where the shape cannot
        occur."""
        written, self.lines = self.lines, []
        try:
            if not self._pseudo_rules():
                return None
            for upper, lower in self._pairs():
                if (upper, lower) in self.inv.declared:
                    self.add(f"MINUS {{ {_v(upper)} gl:notUsedLayer|gl:bundledLayer gl:{lower.value} }}")
                if (lower, upper) in self.inv.declared:
                    self.add(f"MINUS {{ {_v(lower)} gl:notUsedLayer|gl:bundledLayer gl:{upper.value} }}")
            return [line.strip() for line in self.lines]
        finally:
            self.lines = written

    def _stands_behind(self, upper: Layer, layer: Layer, kind: str) -> str:
        """As the facts' query, but correlated: lookups from the bound node (nested, see
        _row_holds). The uncorrelated sub-select read every node's links (officialLink: every
        positive fact's pairs), about 25 ms in each branch of the shipped Ollama question, where the
        rule narrows its pin to a few app classes."""
        x = self.fresh("x")
        declares = f"EXISTS {{ {_v(upper)} {_SKIP_PROP[kind]} gl:{layer.value} }}"
        links = _nested_exists([f"{_v(upper)} {self.link} {x} .", f"{x} gl:layer gl:{layer.value} ."])
        return f"FILTER({_any([declares, links])})"

    def _stage(self, bound: set, pending: list) -> None:
        """Fold what is written so far into a sub-select: DISTINCT over the path variables bound
        and the set variables that membership joins still to come read."""
        keep = [_v(l) for l in self.real if l in bound] + [a for t in pending for a in t[2]]
        inner = ["  " + line for line in self.lines]
        self.lines = [f"    {{ SELECT DISTINCT {' '.join(keep)} WHERE {{", *inner, "    } }"]

    def _pin_values(self, layer: Layer) -> str:
        if layer in getattr(self, "_classes", ()) and layer in self.problem.pins:
            from gpulane.graph.verdicts import class_predicate

            var, node_var = _v(layer), f"{_v(layer)}Node"
            ids = self.problem.pins[layer]
            family = _pin_family(self.kg, layer, ids)
            if family is not None:
                # Only nodes of the layer have its class predicate: no gl:layer lookup (Ollama 211
                # -> 190 ms, vLLM 100 -> 94 ms). The family's nodes hash-joined with every node's
                # class (a sub-select: Oxigraph would look each node's class up in turn, 3.7 ms for
                # Ollama's 491 releases against 0.6 ms, in each of the pin's three reads a branch).
                nodes = (f'{node_var} gl:family "{family}" . '
                         f"{{ SELECT {node_var} {var} WHERE {{ {node_var} gl:{class_predicate(layer)} {var} }} }}")
            else:
                nodes = f"{_values(self.kg, node_var, ids)} {node_var} gl:{class_predicate(layer)} {var} ."
            return f"{{ SELECT DISTINCT {var} WHERE {{ {nodes} }} }} "
        return super()._pin_values(layer)

    def _ratio(self, layer: Layer) -> float:
        return len(self.problem.pins.get(layer, ())) / max(1, len(self.kg.by_layer[layer]))

    def _small(self, layer: Layer) -> bool:
        """A pin that narrows its layer enough to start the joins from (vendor = AMD, every AMD
        GPU, does not: it is joined last, unless no pin does better)."""
        pins = self.problem.pins.get(layer)
        if pins is None:
            return False
        return len(pins) <= _SMALL_PIN or self._ratio(layer) <= 0.4 or layer in getattr(self, "_start", ())

    def _possible(self) -> bool:
        """Whether the shape can have a path at all: a layer that is a node must not be declared
        unused / bundled by every candidate of a pinned layer, and a pseudo value needs a
        candidate on the path that declares it so. (Necessary conditions, on the nodes only.)"""
        pins, nodes = self.problem.pins, self.kg.nodes
        for layer in self.layers:
            kind = self.shape[layer]
            if kind == "node":
                for upper in self.real:
                    if upper is not layer and upper in pins and all(
                            layer in nodes[c].layers for c in pins[upper] if c in nodes):
                        return False
            else:
                if not any(nodes[c].layers.get(layer) == kind
                           for owner in self.real
                           for c in self._candidates(owner) if c in nodes):
                    return False
        if self.bundled is False and self._required(Layer.app, Layer.toolkit):
            # The branch where the app uses a toolkit it does not ship needs an official link from
            # a candidate app to a candidate toolkit that app does not ship (every Ollama release
            # ships each toolkit it names: that branch cost 45 ms to find no path).
            links = self.kg.official_pairs.get((Layer.app, Layer.toolkit), {})
            toolkits = set(self._candidates(Layer.toolkit))
            apps = list(self._candidates(Layer.app))
            ships = _shipped_toolkits(self.kg, apps)
            if not any(t in toolkits and (a, t) not in ships for a in apps for t in links.get(a, ())):
                return False
        return True

    def _candidates(self, layer: Layer):
        """The pins of a layer, or its nodes that an official positive fact links to some pin of
        every pinned layer it forms a required pair with (a path needs that link)."""
        pins = self.problem.pins
        if layer in pins:
            return pins[layer]
        table = self.kg.official_pairs
        out = None
        for other in self.real:
            if other is layer or other not in pins:
                continue
            pair = (layer, other) if _RANK[layer] > _RANK[other] else (other, layer)
            if pair == (Layer.toolkit, Layer.os) or not self._required(*pair) or (
                    self.bundled and pair == (Layer.toolkit, Layer.arch)):
                continue
            linked = set()
            for p in pins[other]:
                linked |= table.get((other, layer), {}).get(p, set())
            out = linked if out is None else out & linked
        return self.kg.by_layer[layer] if out is None else out

    def _cost(self, pair: tuple[Layer, Layer], bound: set[Layer]) -> tuple:
        """How many rows joining this pair next adds per row (both sides bound: it filters)."""
        upper, lower = pair
        if upper in bound and lower in bound:
            return (0, 0.0, _RANK[upper])
        table = self.kg.official_pairs
        if upper in bound or lower in bound:
            src, dst = (upper, lower) if upper in bound else (lower, upper)
            links = table.get((src, dst), {})
            fan = sum(len(v) for v in links.values()) / max(1, len(links))
            # A layer that conditions read is worth binding early: the rows that read it are
            # tested as soon as it is bound, instead of multiplying the rows until then.
            readers = sum(dst in self._read_layers(self.kg, u, l) for u, l in self._pairs())
            if self.bundled is not None and pair == (Layer.app, Layer.toolkit):
                # The branch's bundled-toolkit rule (a join or MINUS on the app's bundled
                # toolkits) follows this join: it narrows the paths before the OS multiplies them
                # (Ollama: 1.8 -> 1.4 s).
                return (1, 0.0, _RANK[upper])
            return (1, fan / (1 + readers), _RANK[upper])
        return (2, float(len(self.kg.by_layer[upper]) * len(self.kg.by_layer[lower])), _RANK[upper])

    def _vendor_rule(self, upper: Layer, lower: Layer) -> None:
        # A node has at most one vendor: each is looked up once (OPTIONAL joins, not a
        # correlated FILTER NOT EXISTS per path, which Oxigraph evaluates row by row).
        if upper in self.inv.vendors and lower in self.inv.vendors:
            if self._tail in (upper, lower):
                # On the tail's nodes: no two vendors that differ (lookups from bound nodes).
                va, vb = self.fresh("vendor"), self.fresh("vendor")
                self.filters.append("!" + _nested_exists([f"{_v(upper)} gl:computeVendor {va} .",
                                                          f"{_v(lower)} gl:computeVendor {vb} . FILTER({va} != {vb})"]))
                return
            va, vb = self._vendor_var(upper), self._vendor_var(lower)
            self.filters.append(f"(!BOUND({va}) || !BOUND({vb}) || {va} = {vb})")

    def _vendor_var(self, layer: Layer) -> str:
        known = self.__dict__.setdefault("_vendor_vars", {})
        if layer not in known:
            known[layer] = self.fresh("vendor")
            self.add(f"OPTIONAL {{ {_v(layer)} gl:computeVendor {known[layer]} }}")
        return known[layer]

    def _kind(self, upper: Layer, lower: Layer) -> str:
        if (upper, lower) == (Layer.toolkit, Layer.os):
            carriers = [l for l in self.real if l is not Layer.toolkit and l in self.inv.carriers]
            return "toolkit-os" if carriers else "ok"
        return "ok" if self._required(upper, lower) else "pass"

    def _member(self, layer: Layer, t: str) -> str:
        """A join that holds where the path's node of `layer` is in the set ?t (``gl:hasOs`` ...:
        the verdict graph spells each set's members out, per layer)."""
        from gpulane.graph.verdicts import has_predicate

        has = f"gl:{has_predicate(layer)}"
        if layer in self.real:
            pins = self.problem.pins.get(layer, ())
            if len(pins) == 1 and layer not in self._classes:
                # The layer is pinned to one node: a lookup of the sets that hold it (a join on
                # the variable would read every set's members).
                return f"{t} {has} <{node_iri(next(iter(pins)))}> ."
            return f"{t} {has} {_v(layer)} ."
        return f"{t} {has} gl:none ."  # out of scope, or left out: a node no condition selects

    def _subsets(self, upper: Layer, lower: Layer) -> list[tuple[Layer, ...]]:
        """The layer sets a row of this pair may name (only those: each is a union alternative,
        and each set it reads a membership join)."""
        from gpulane.graph.verdicts import row_layer_sets

        return row_layer_sets(self.kg, upper, lower)

    def _rows(self, kind: str, upper: Layer, lower: Layer, p: str, subset, shared: dict) -> tuple[str, list]:
        """A row pattern of a profile ?p over a read-layer subset, with the membership joins of
        the layers out of scope inside it, and the (layer, set variable) of the others, whose
        test waits until their layer is bound. The rows of one pair read each layer's set into
        one variable (`shared`): one membership join per layer, whatever the row."""
        r = self.fresh("r")
        parts = [f"{p} gl:{self._predicate(kind, upper, lower, subset)} {r} . {r} gl:o {_v(lower)} ."]
        waiting = []
        for layer in subset:
            if layer in self.real:
                t = shared.setdefault(layer, self.fresh("T"))
                waiting.append((layer, t))
                parts.append(f"{r} gl:c{_cap(layer)} {t} .")
            else:
                t = self.fresh("T")
                parts.append(f"{r} gl:c{_cap(layer)} {t} . {self._member(layer, t)}")
        return " ".join(parts), waiting

    def _ok_union(self, upper: Layer, lower: Layer, bound: set) -> tuple[str, list[tuple[str, set, list[str]]]]:
        """The pairs that hold: plain verdicts, or rows; and the membership joins of the rows'
        sets, each with the layer it reads and its set variable, written once that layer is
        bound (after the union: inside it, a join would list every member of every set). In
        an alternative that does not bind a set variable, it is ``gl:anySet`` (which has
        every node), so that the join holds there."""
        pins = "".join(self._pin_values(l) for l in (upper, lower) if self._small(l))
        p = self.fresh("p")
        via = f"{_v(upper)} gl:{self._predicate('okVia', upper, lower)} {p} ."
        alts = [(f"{pins}{via} {p} gl:{self._predicate('ok', upper, lower)} {_v(lower)}", [])]
        # A pin of a layer that earlier joins bound only narrows the union's output (the join
        # applies it): there it restricts the plain verdicts, which hold for most pairs, and not
        # the rows, which are few in any knowledge base (the pin's text and lookup cost more
        # than they save). A layer this union binds first keeps its pin in every alternative.
        row_pins = "".join(self._pin_values(l) for l in (upper, lower) if self._small(l) and l not in bound)
        shared: dict[Layer, str] = {}
        for subset in self._subsets(upper, lower):
            p = self.fresh("p")
            via = f"{_v(upper)} gl:{self._predicate('okVia', upper, lower)} {p} ."
            body, waiting = self._rows("ok", upper, lower, p, subset, shared)
            alts.append((f"{row_pins}{via} {body}", waiting))
        written = []
        for body, waiting in alts:
            own = {t for _, t in waiting}
            binds = "".join(f" BIND(gl:anySet AS {t})" for t in shared.values() if t not in own)
            written.append(f"{{ {body}{binds} }}")
        tests = [(self._member(layer, t), {layer}, [t]) for layer, t in shared.items()]
        return " UNION ".join(written), tests

    def _row_holds(self, kind: str, upper: Layer, lower: Layer, subset) -> str:
        """An EXISTS that holds where a row of the pair over these layers holds on the path (all
        of its variables bound).

        Written as nested EXISTS, one level per resource reached: Oxigraph (0.5) does not reorder
        the triples inside an EXISTS and evaluates them as a cartesian product, each triple with
        only the outer bindings (every row of the predicate, every member of every set); nested,
        each level is a lookup from a bound subject (the vLLM question: 60 ms of such tests, 10 ms
        nested)."""
        p, r = self.fresh("p"), self.fresh("r")
        row = [f"{r} gl:o {_v(lower)} ."]
        members = []
        for layer in subset:
            t = self.fresh("T")
            row.append(f"{r} gl:c{_cap(layer)} {t} .")
            members.append(f"FILTER EXISTS {{ {self._member(layer, t)} }}")
        return _nested_exists([f"{_v(upper)} gl:{self._predicate(kind + 'Via', upper, lower)} {p} .",
                               f"{p} gl:{self._predicate(kind, upper, lower, subset)} {r} .",
                               " ".join(row + members)])

    def _pass_pair(self, upper: Layer, lower: Layer) -> str:
        """An optional pair: never a stated failure; where it fails in some contexts, a row holds."""
        def via() -> tuple[str, str]:
            p = self.fresh("p")
            return p, f"{_v(upper)} gl:{self._predicate('passVia', upper, lower)} {p} ."

        if self._tail in (upper, lower):
            # A pair with the tail's layer: lookups on its node (the rows' tests as below).
            p, v = via()
            self.filters.append("!" + _nested_exists([v, f"{p} gl:{self._predicate('fail', upper, lower)} {_v(lower)} ."]))
            p, v = via()
            unmixed = "!" + _nested_exists([v, f"{p} gl:{self._predicate('mixed', upper, lower)} {_v(lower)} ."])
        else:
            # Both nodes are bound on every row: MINUS (a hash anti-join) is FILTER NOT EXISTS here,
            # and the mixed pairs are joined in once (OPTIONAL), so that only they test the rows.
            p, v = via()
            self.add(f"MINUS {{ {v} {p} gl:{self._predicate('fail', upper, lower)} {_v(lower)} }}")
            p, v = via()
            mixed = self.fresh("mixed")
            self.add(f"OPTIONAL {{ {v} {p} gl:{self._predicate('mixed', upper, lower)} {_v(lower)} BIND(true AS {mixed}) }}")
            unmixed = f"!BOUND({mixed})"
            subsets = self._subsets(upper, lower)
            if self._tail is not None and subsets and all(self._tail in subset for subset in subsets):
                # Where this pair is mixed, the tail's node is in one of its rows' sets.
                self._tail_sources.append((mixed, upper, lower))
        held = [unmixed] + [self._row_holds('pass', upper, lower, subset) for subset in self._subsets(upper, lower)]
        return _any(held)

    def _toolkit_os(self) -> None:
        """toolkit–os: required unless a build or app on the path carries the toolkit."""
        if self.bundled:
            # The path's app ships the toolkit (the branch joined gl:bundlesToolkit), so it
            # carries it: only the optional pair's rules apply.
            self._vendor_rule(Layer.toolkit, Layer.os)
            if (Layer.toolkit, Layer.os) in self.inv.spoken:
                self.filters.append(self._pass_pair(Layer.toolkit, Layer.os))
            return
        carried = []
        for layer in self.real:
            if layer is not Layer.toolkit and layer in self.inv.carriers:
                if self._tail in (layer, Layer.toolkit):
                    carried.append(f"EXISTS {{ {_v(layer)} gl:carriesToolkit ?toolkit }}")
                    continue
                flag = self.fresh("carries")
                self.add(f"OPTIONAL {{ {_v(layer)} gl:carriesToolkit ?toolkit BIND(true AS {flag}) }}")
                carried.append(f"BOUND({flag})")
        if not carried:
            raise AssertionError("toolkit–os without a carrier is a required pair")
        ok = self._pair_holds(Layer.toolkit, Layer.os)
        self._vendor_rule(Layer.toolkit, Layer.os)
        passing = self._pass_pair(Layer.toolkit, Layer.os) if (Layer.toolkit, Layer.os) in self.inv.spoken else "true"
        any_carried = _any(carried)
        self.filters.append(f"IF({any_carried}, {passing}, {ok})")

    # -- the depth-first tail ------------------------------------------------------------

    def _tail_pair(self, required: list[tuple[Layer, Layer]], start: set) -> tuple[tuple[Layer, Layer], Layer] | None:
        """The required pair and its free layer that the branch tests depth-first, or None.

        A layer that nothing pins or answers (the OS of `find gpu where app = Ollama`) multiplies
        the paths by its nodes (about 35 OSes per path there), and most rules read it, so they all
        ran on the multiplied rows. Where one required pair binds that layer, its join comes last
        and is not a join: every path of the other layers is kept if *some* node of the layer
        passes every rule that reads it (FILTER EXISTS, see _depth_first_tail), which the store
        answers at the first such node. Not where the layer is a class layer (answers are mapped
        from classes), where it decides the app's bundled toolkit, or where the other joins leave
        a layer unbound. Of two such layers, the one with more nodes."""
        candidates = []
        for layer in self.real:
            if (layer in self.problem.pins or layer in self.project or layer in self._classes
                    or (self.bundled is not None and layer in (Layer.app, Layer.toolkit))):
                continue
            pairs = [pair for pair in required if layer in pair]
            if len(pairs) != 1 or pairs[0] not in self.inv.linked:
                continue
            others = [pair for pair in required if pair != pairs[0]]
            covered = set(start).union(*others) if others else set(start)
            if set(self.real) - {layer} <= covered:
                candidates.append((len(self.kg.by_layer[layer]), -_RANK[layer], pairs[0], layer))
        if not candidates:
            return None
        _, _, pair, layer = max(candidates)
        return pair, layer

    def _depth_first_tail(self, pair: tuple[Layer, Layer]) -> None:
        """The rules of the branch once every layer but the tail's is joined: those that do not
        read the tail's layer as usual (joins, MINUS, OPTIONAL flags, FILTER), then one FILTER
        EXISTS that looks for a node of that layer, among those the required pair holds for, on
        which every rule that reads it passes, driver intervals included.

        Written for Oxigraph (0.5), which evaluates an EXISTS per row, lazily, without reordering
        its patterns (the joins inside one are hash joins of patterns each read with the outer
        row's bindings only): every level is a lookup from bound terms (nested FILTER EXISTS), and
        the tests that read the node are FILTERs on the level that binds it, so the store stops at
        the first node that passes. The paths are then folded to the answered layers."""
        tail = _v(self._tail)
        outside = [f for f in self.filters if tail not in _path_vars(f, self.layers)]
        inside = [f for f in self.filters if f not in outside]
        self.filters = []
        for f in outside:
            self.add(f"FILTER({f})")
        tests = self._tail_tests + inside
        if Layer.driver in self.problem.scope:
            chain = self._tail_drivers()
            if chain:
                tests.append(chain)
        # Cheap and selective first: set memberships, stated failures, then the rest.
        tests.sort(key=lambda t: 0 if t.startswith("EXISTS {") and t.count("EXISTS") == 1
                   else 1 if t.startswith("!EXISTS") else 2)
        # The pair that binds the layer first, then the rest: one FILTER, in this order (_all).
        passes = f"FILTER({_all([self._pair_holds(*pair)] + tests)})"
        # The layer's nodes, each tested: measured faster in Oxigraph than binding the node from
        # the pair's verdicts, which repeats the tests for its plain verdict and its rows.
        found = f"EXISTS {{ {self._tail_nodes()} {passes} }}"
        if self._tail_sources:
            # A pair whose rows all read the tail's layer and that is mixed on this path holds only
            # on the nodes of its rows' sets: there, look among those (a few) rather than among
            # all the layer's nodes, most of which fail that pair's rows after the others' tests.
            mixed, a, b = self._tail_sources[0]
            found = f"IF(BOUND({mixed}), {self._tail_in_rows(a, b, passes)}, {found})"
        # The rows folded to what the search reads and the answered layers keep, before it: no
        # fewer rows on the shipped questions (1,911 for Ollama: each variable bound here is
        # read), but narrower ones (10 of 23 variables), which the search is faster on. Side by
        # side, the shipped Ollama question 197 -> 180 and 218 -> 200 ms; the same sub-select
        # keeping all 23 variables 167 ms against 160 before and 142 so (the width, not DISTINCT).
        self._fold_for_tail(found)
        self.add(f"FILTER({found})")
        self._stage({l for l in self.real if l in self.project}, [])

    def _fold_for_tail(self, found: str) -> None:
        """Fold what is written so far into a sub-select: DISTINCT over the answered layers'
        variables and those the search ``found`` reads that are bound here (its own variables
        are fresh, and the tail's layer is not bound here)."""
        var = r"\?[A-Za-z_]\w*"
        written = re.findall(var, "\n".join(self.lines))
        read = set(re.findall(var, found))
        keep = [_v(l) for l in self.real if l in self.project]
        keep += [v for v in dict.fromkeys(written) if v in read and v not in keep]
        if not keep:
            return  # (a sub-select must project something; nothing to narrow)
        inner = ["  " + line for line in self.lines]
        self.lines = [f"    {{ SELECT DISTINCT {' '.join(keep)} WHERE {{", *inner, "    } }"]

    def _tail_nodes(self) -> str:
        """A pattern binding the tail's variable to each node of its layer: the most linked first
        (official links to other layers' nodes, from the compiled pair table), where the search
        stops soonest (the shipped Ollama question: 268 -> 225 ms, against ``gl:layer``'s
        order); ``gl:layer`` where the layer has too many nodes to list."""
        layer = self._tail
        nodes = self.kg.by_layer[layer]
        if len(nodes) > _TAIL_VALUES:
            return f"{_v(layer)} gl:layer gl:{layer.value} ."
        links = {n: 0 for n in nodes}
        for (a, _), table in self.kg.official_pairs.items():
            if a is layer:
                for n, linked in table.items():
                    if n in links:
                        links[n] += len(linked)
        return _values(self.kg, _v(layer), sorted(nodes, key=lambda n: (-links[n], n)), keep_order=True)

    def _pair_holds(self, upper: Layer, lower: Layer) -> str:
        """An expression: the required pair holds on the path (its plain verdict, or a row whose
        sets hold the path's nodes), every variable bound."""
        p = self.fresh("p")
        plain = _nested_exists([f"{_v(upper)} gl:{self._predicate('okVia', upper, lower)} {p} .",
                                f"{p} gl:{self._predicate('ok', upper, lower)} {_v(lower)} ."])
        return _any([plain] + [self._row_holds('ok', upper, lower, subset) for subset in self._subsets(upper, lower)])

    def _tail_in_rows(self, upper: Layer, lower: Layer, passes: str) -> str:
        """An expression: a node of the tail's layer in a set of this optional pair's rows (each
        row reads that layer) passes the FILTER ``passes``. Nested lookups from the pair's bound
        nodes to its rows, the rows' other sets tested, the last level binding the node from the
        set's members."""
        alts = []
        for subset in self._subsets(upper, lower):
            p, r = self.fresh("p"), self.fresh("r")
            sets, members, binding = [], [], ""
            for layer in subset:
                t = self.fresh("T")
                sets.append(f"{r} gl:c{_cap(layer)} {t} .")
                if layer is self._tail:
                    binding = self._member(layer, t)
                else:
                    members.append(f"FILTER EXISTS {{ {self._member(layer, t)} }}")
            alts.append(_nested_exists([f"{_v(upper)} gl:{self._predicate('passVia', upper, lower)} {p} .",
                                        f"{p} gl:{self._predicate('pass', upper, lower, subset)} {r} .",
                                        " ".join([f"{r} gl:o {_v(lower)} ."] + sets + members),
                                        f"{binding} {passes}"]))
        return _any(alts)

    def _tail_drivers(self) -> str | None:
        """Drivers with a depth-first tail: the layers whose requirements never depend on the path
        (plain ``gl:driverIv``), the tail's aside, are OPTIONAL lookups on the paths as usual; the
        others are an expression tested on the tail's node (_driver_chain), or None."""
        lo, hi = "-1", str(INF_KEY)
        inside = []
        for layer in self.real:
            if layer not in self.inv.drivers:
                continue
            if layer in self.inv.path_drivers or layer is self._tail:
                inside.append(layer)
                continue
            iv, l, h, new_lo, new_hi = (self.fresh(s) for s in ("iv", "lo", "hi", "lo", "hi"))
            self.add(f"OPTIONAL {{ {_v(layer)} gl:driverIv {iv} . {iv} gl:lo {l} ; gl:hi {h} . }}")
            self.add(f"BIND(IF(BOUND({l}) && {l} > {lo}, {l}, {lo}) AS {new_lo})")
            self.add(f"BIND(IF(BOUND({h}) && {h} < {hi}, {h}, {hi}) AS {new_hi})")
            lo, hi = new_lo, new_hi
        if lo != "-1":
            self.add(f"FILTER({lo} < {hi})")
        return self._driver_chain(inside, lo, hi) if inside else None

    def _driver_choices(self, layer: Layer):
        """Each way a node of this layer may require a driver interval: a function from the
        interval's variable to nested lookup levels that bind it (plain ``gl:driverIv``, or a
        row ``gl:driverOn<Layers>`` whose sets hold the path's nodes)."""
        from gpulane.graph.verdicts import driver_row_layer_sets

        node = _v(layer)

        def plain(iv: str) -> list[str]:
            return [f"{node} gl:driverIv {iv} ."]

        def row(subset):
            def levels(iv: str) -> list[str]:
                r = self.fresh("r")
                sets, members = [], []
                for l in subset:
                    t = self.fresh("T")
                    sets.append(f"{r} gl:c{_cap(l)} {t} .")
                    members.append(f"FILTER EXISTS {{ {self._member(l, t)} }}")
                return [f"{node} gl:driverOn{''.join(_cap(l) for l in subset)} {r} .",
                        " ".join([f"{r} gl:iv {iv} ."] + sets + members)]
            return levels

        if layer not in self.inv.path_drivers:
            return [plain]
        return [plain] + [row(subset) for subset in driver_row_layer_sets(self.kg)]

    def _driver_chain(self, layers: list[Layer], lo: str, hi: str) -> str:
        """An expression: each node of these layers either requires no interval that applies, or
        one of its applicable intervals keeps the running intersection [lo, hi) non-empty, the
        nodes after it choosing in turn (the same choice as the OPTIONAL stages of _drivers, as
        nested lookups: one level per node, each choice a branch)."""
        if not layers:
            return f"{lo} < {hi}"
        layer, later = layers[0], layers[1:]
        alts = []
        for choice in self._driver_choices(layer):
            iv, l, h, new_lo, new_hi = (self.fresh(s) for s in ("iv", "l", "h", "lo", "hi"))
            test = _all([f"{new_lo} < {new_hi}", self._driver_chain(later, new_lo, new_hi)]) if later \
                else f"{new_lo} < {new_hi}"
            last = (f"{iv} gl:lo {l} ; gl:hi {h} . BIND(IF({l} > {lo}, {l}, {lo}) AS {new_lo}) "
                    f"BIND(IF({h} < {hi}, {h}, {hi}) AS {new_hi}) FILTER({test})")
            alts.append(_nested_exists(choice(iv) + [last]))
        none = _any([_nested_exists(choice(self.fresh("iv"))) for choice in self._driver_choices(layer)])
        alts.append(f"IF({none}, false, {self._driver_chain(later, lo, hi)})")
        return _any(alts)

    def _drivers(self) -> None:
        """The driver intervals the path's nodes choose must intersect (one per node).

        A layer whose requirements never depend on the path (inventory ``path_drivers``) has
        plain ``gl:driverIv`` intervals: all such layers are one stage of OPTIONAL lookups. A
        layer whose requirements do is a stage of its own, over its unconditional intervals and
        the rows whose sets hold the path's nodes."""
        from gpulane.graph.verdicts import driver_read_layers, driver_row_layer_sets

        read = driver_read_layers(self.kg)
        subsets = driver_row_layer_sets(self.kg)
        plain, by_path = [], []
        for layer in self.real:
            if layer not in self.inv.drivers:
                continue
            iv, lo, hi = self.fresh("iv"), self.fresh("lo"), self.fresh("hi")
            if layer not in self.inv.path_drivers:
                plain.append((layer, f"OPTIONAL {{ {_v(layer)} gl:driverIv {iv} . {iv} gl:lo {lo} ; gl:hi {hi} . }}",
                              lo, hi))
                continue
            alts = [f"{{ {_v(layer)} gl:driverIv {iv} }}"]
            for subset in subsets:
                r = self.fresh("r")
                parts = [f"{_v(layer)} gl:driverOn{''.join(_cap(l) for l in subset)} {r} . "
                         f"{r} gl:iv {iv} ."]
                for l in subset:
                    t = self.fresh("T")
                    parts.append(f"{r} gl:c{_cap(l)} {t} . {self._member(l, t)}")
                alts.append("{ " + " ".join(parts) + " }")
            # The rows in a sub-select of their own: without it, Oxigraph starts from the interval
            # bounds and evaluates the rows per interval (50 ms a stage on the shipped export, 3 ms so).
            by_path.append((layer, f"OPTIONAL {{ {{ SELECT * WHERE {{ {' UNION '.join(alts)} }} }} "
                                   f"{iv} gl:lo {lo} ; gl:hi {hi} . }}", lo, hi))
        if not plain and not by_path:
            return
        # The running intersection (one interval per choice made so far), folded with DISTINCT
        # after each stage so that the choices never multiply. Every path rule has been applied
        # by now, so a stage keeps only what is still read: the answered layers, and the nodes
        # and condition layers of the stages to come (the paths that differ only in a node read
        # by nothing else fold into one row).
        stages = ([plain] if plain else []) + [[entry] for entry in by_path]
        keep = {l for l in self.real if l in self.project}
        read_here = {l for l in read if l in self.real}
        for f in self.filters:
            self.add(f"FILTER({f})")
        self.filters = []
        run_lo, run_hi = self.fresh("lo"), self.fresh("hi")
        self.add(f"BIND(-1 AS {run_lo}) BIND({INF_KEY} AS {run_hi})")
        for i, stage in enumerate(stages):
            later = set(keep)
            for entries in stages[i + 1:]:
                later |= {entry[0] for entry in entries} | read_here
            vars_ = " ".join(_v(l) for l in self.real if l in later)
            inner = ["  " + line for line in self.lines]
            self.lines = inner
            for layer, optional, lo, hi in stage:
                new_lo, new_hi = self.fresh("lo"), self.fresh("hi")
                self.add("  " + optional)
                self.add(f"  BIND(IF(BOUND({lo}) && {lo} > {run_lo}, {lo}, {run_lo}) AS {new_lo})")
                self.add(f"  BIND(IF(BOUND({hi}) && {hi} < {run_hi}, {hi}, {run_hi}) AS {new_hi})")
                run_lo, run_hi = new_lo, new_hi
            self.add(f"  FILTER({run_lo} < {run_hi})")
            self.lines = [f"    {{ SELECT DISTINCT {vars_} {run_lo} {run_hi} WHERE {{", *self.lines, "    } }"]
