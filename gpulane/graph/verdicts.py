"""The pair verdicts the engine computes, as a small derived RDF graph for SPARQL stores.

For every pair of layers (upper, lower) the solver decides each pair of nodes with
`Solver.edge`; those verdicts are what a path needs. This module asks the solver for
them, for the default evidence level (supported / deprecated), and writes them as
typed triples (docs/rdf.md, "The verdict graph"):

- required pairs (a path needs positive evidence): ``a gl:ok<Upper><Lower> b`` where
  the pair holds whatever the rest of the path is;
- other pairs (they hold unless a fact says no): ``a gl:fail<Upper><Lower> b`` where
  the pair fails whatever the rest of the path is;
- a pair whose verdict depends on other layers of the path (facts with ``when``
  conditions) gets *rows*: ``a gl:ok<Upper><Lower>On<Layers> r``, ``r gl:o b`` and,
  per layer the conditions read, ``r gl:c<Layer> T``; the pair holds where the path's
  node of each such layer is in the set ``T``. ``T gl:neg`` says whether ``T`` is the
  listed nodes (false) or every node but them (true); a layer that is out of scope or
  left out counts as a node no condition selects, which a ``neg`` set contains. Other
  pairs with such rows also carry ``a gl:mixed<Upper><Lower> b``: they fail where no
  row holds.
- ``gl:computeVendor`` per node (pairs of different GPU vendors never hold),
  ``gl:carriesToolkit`` (a build or app that ships the toolkit: the toolkit's OS pair
  is then not required), ``gl:bundlesToolkit`` (an app that ships the toolkit
  inside itself: the toolkit–architecture pair is not judged on that path),
  ``gl:cpuOnly`` (never a candidate unless named), and the driver requirement each
  node's applicable facts choose: ``x gl:driverIv i`` or rows ``x gl:driverOn<Layers> r``
  with ``r gl:iv i``; ``i gl:lo`` / ``gl:hi`` are keys as in the main export.
- ``T gl:has<Layer> x``: each set's members spelled out, per layer it is read for (for a ``neg``
  set every node of the layer but the listed ones, and ``gl:none``), and ``gl:anySet``, which has
  them all: the query tests membership by joins.

GPUs, and apps where no condition reads the app layer, are written as *classes*: nodes that no
triple tells apart share one resource carrying their triples (``x gl:gpuClass C``,
``x gl:appClass C``, ``C gl:classLayer gl:gpu``), so that a query joins ~100 GPU classes rather
than ~800 GPUs.

The graph is derived: the import never reads it, and it must come from the same
knowledge base as the query (node IRIs, driver keys).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

from gpulane.graph.kb import CompiledFact, KnowledgeGraph
from gpulane.graph.solver import REQUIRED_PAIRS, Solver
from gpulane.model import LAYER_ORDER, OFFICIAL_POSITIVE, Layer, Relation, Status

__all__ = ["PAIR_LAYERS", "pair_types", "pass_kinds", "predicate", "Verdicts", "verdict_triples", "read_layers",
           "row_layer_sets", "driver_row_layer_sets", "can_decide", "has_predicate", "CONDITIONAL_REQUIRED", "class_layers", "class_predicate"]

_RANK = {layer: i for i, layer in enumerate(LAYER_ORDER)}
PAIR_LAYERS = [l for l in LAYER_ORDER if l is not Layer.driver]
# Pairs whose need for positive evidence depends on the path: both kinds are written.
CONDITIONAL_REQUIRED = {(Layer.toolkit, Layer.os), (Layer.app, Layer.toolkit)}
_CAP = {"gpu": "Gpu", "arch": "Arch", "os": "Os", "driver": "Driver", "toolkit": "Toolkit",
        "framework": "Framework", "app": "App"}


def pair_types() -> list[tuple[Layer, Layer]]:
    """Every pair of non-driver layers, upper layer first."""
    ordered = sorted(PAIR_LAYERS, key=_RANK.get, reverse=True)
    return [(u, l) for i, u in enumerate(ordered) for l in ordered[i + 1:]]


def pass_kinds(upper: Layer, lower: Layer) -> tuple[str, ...]:
    """"ok" (a required pair), "pass" (an optional one), or both."""
    if (upper, lower) in CONDITIONAL_REQUIRED:
        return ("ok", "pass")
    return ("ok",) if (upper, lower) in REQUIRED_PAIRS else ("pass",)


def predicate(kind: str, upper: Layer, lower: Layer, layers: tuple[Layer, ...] = ()) -> str:
    """The local name of a verdict predicate: okToolkitArch, failAppGpu, okToolkitArchOnOs..."""
    stem = kind + _CAP[upper.value] + _CAP[lower.value]
    if layers:
        stem += "On" + "".join(_CAP[l.value] for l in layers)
    return stem


def can_decide(cf: CompiledFact, allow=OFFICIAL_POSITIVE) -> bool:
    """Whether a fact can change a pair's verdict at this evidence level. A positive fact whose
    status is not allowed only ever counts as a complete list (``Solver._edge``: a list that
    leaves the other node out, or names a release the knowledge base does not hold), or, where
    workarounds are allowed, as an override's build list; otherwise it is only reported."""
    return not cf.positive or cf.status in allow or cf.exhaustive or Status.workaround in allow


def _conditioned(cf: CompiledFact) -> bool:
    """Whether a fact's verdict may depend on the path (what ``Verdicts._conditional`` weighs):
    conditions, not an override, none on the driver (never holds without a driver pin)."""
    return bool(cf.when) and not cf.fact.runs_as and not any(c.layer is Layer.driver for c in cf.when)


def _row_memo(kg: KnowledgeGraph) -> dict:
    """Per pair of layers (and "driver"), the layer sets a row may name: per node, the layers
    the conditions of its facts over the other layer read (those ``Verdicts._conditional``
    weighs); a row of a pair of nodes reads some of the layers of the two nodes' facts."""
    memo = kg.__dict__.get("_verdict_row_layers")
    if memo is not None:
        return memo
    per_node: dict[tuple[Layer, Layer], dict[str, set[Layer]]] = {}
    for cf in kg.facts:
        if not _conditioned(cf) or not can_decide(cf):
            continue
        a, b = cf.subject_layer, cf.target.layer
        if b is Layer.driver:
            if not (cf.positive and cf.status in OFFICIAL_POSITIVE and cf.target.drivers is not None):
                continue
            key, own = "driver", (a,)
        else:
            key, own = ((a, b) if _RANK[a] > _RANK[b] else (b, a)), (a, b)
        read = {c.layer for c in cf.when if c.layer not in own}
        for s in cf.subjects:
            per_node.setdefault(key, {}).setdefault(s, set()).update(read)
    memo = {}
    for key, nodes in per_node.items():
        if key == "driver":
            tops = {frozenset(r) for r in nodes.values()}
        else:
            upper, lower = key
            sides = [{frozenset(r) for n, r in nodes.items() if n in kg.nodes and kg.nodes[n].layer is layer} | {frozenset()}
                     for layer in (upper, lower)]
            tops = {x | y for x in sides[0] for y in sides[1]}
        subsets = set()
        for top in tops:
            ordered = sorted(top, key=_RANK.get)
            for mask in range(1, 1 << len(ordered)):
                subsets.add(tuple(l for i, l in enumerate(ordered) if mask >> i & 1))
        memo[key] = sorted(subsets, key=lambda t: (len(t), [_RANK[l] for l in t]))
    kg.__dict__["_verdict_row_layers"] = memo
    return memo


def row_layer_sets(kg: KnowledgeGraph, upper: Layer, lower: Layer) -> list[tuple[Layer, ...]]:
    """The layer sets (each in layer order) that a row of this pair of layers may name in the
    verdict graph (``gl:ok<Upper><Lower>On<Layers>``...): the query reads only these."""
    return _row_memo(kg).get((upper, lower), [])


def driver_row_layer_sets(kg: KnowledgeGraph) -> list[tuple[Layer, ...]]:
    """The layer sets a driver row (``gl:driverOn<Layers>``) may name."""
    return _row_memo(kg).get("driver", [])


def read_layers(kg: KnowledgeGraph, upper: Layer, lower: Layer) -> tuple[Layer, ...]:
    """The layers (other than the pair's own and the driver) that a row of this pair of layers
    may read."""
    return tuple(sorted({l for t in row_layer_sets(kg, upper, lower) for l in t}, key=_RANK.get))


def driver_read_layers(kg: KnowledgeGraph) -> tuple[Layer, ...]:
    """The layers that a driver row may read."""
    return tuple(sorted({l for t in driver_row_layer_sets(kg) for l in t}, key=_RANK.get))


@dataclass
class Item:
    """The verdict of one pair (or one node's driver choice) over the contexts it depends on."""

    always: bool = False
    never: bool = False
    # Rows: (layers, per layer (neg, listed ids)); the item holds where one row holds.
    rows: list[tuple[tuple[Layer, ...], tuple[tuple[bool, frozenset[str]], ...]]] = field(default_factory=list)


class _Contexts:
    """Signatures of the nodes of a layer over a list of conditions."""

    def __init__(self, kg: KnowledgeGraph, layer: Layer, conds: list):
        self.layer = layer
        self.conds = conds
        members: dict[str, list[int]] = {}
        for i, c in enumerate(conds):
            for x in c.ids or ():
                if x in kg.nodes and kg.nodes[x].layer is layer:
                    members.setdefault(x, []).append(i)
        self.nodes_of: dict[tuple[int, ...], list[str]] = {(): []}
        for x, sig in members.items():
            self.nodes_of.setdefault(tuple(sig), []).append(x)
        self.sigs = sorted(self.nodes_of, key=lambda s: (len(s), s))

    def rep(self, sig: tuple[int, ...]) -> str | None:
        nodes = self.nodes_of[sig]
        return None if not sig else min(nodes)

    def node_set(self, sigs: frozenset) -> tuple[bool, frozenset[str]] | None:
        """The set of nodes with one of these signatures (None: every node), as (neg, listed)."""
        if len(sigs) == len(self.sigs):
            return None
        if () in sigs:
            return True, frozenset(x for s in self.sigs if s and s not in sigs for x in self.nodes_of[s])
        return False, frozenset(x for s in sigs for x in self.nodes_of[s])


def _cubes(passing: set[tuple], dims: int) -> list[list[frozenset]]:
    """Merge passing combinations (one signature per layer) into products of signature sets."""
    cubes = [[frozenset([s]) for s in combo] for combo in sorted(passing)]
    merged = True
    while merged and len(cubes) > 1:
        merged = False
        for d in range(dims):
            groups: dict[tuple, list[frozenset]] = {}
            order = []
            for cube in cubes:
                key = tuple(cube[:d] + cube[d + 1:])
                if key not in groups:
                    order.append(key)
                    groups[key] = []
                groups[key].append(cube[d])
            if len(order) < len(cubes):
                merged = True
                cubes = [list(key[:d]) + [frozenset().union(*groups[key])] + list(key[d:]) for key in order]
    return cubes


def _cube_sets(ctxs, cube) -> tuple[tuple[Layer, ...], tuple]:
    """The layers a cube of signatures restricts and the node set on each (a layer whose
    signatures cover all its nodes restricts nothing and is left out)."""
    layers, sets = [], []
    for ctx, sigs in zip(ctxs, cube):
        node_set = ctx.node_set(sigs)
        if node_set is not None:
            layers.append(ctx.layer)
            sets.append(node_set)
    return tuple(layers), tuple(sets)


class Verdicts:
    """The engine's verdicts, pair by pair, for one evidence level."""

    def __init__(self, kg: KnowledgeGraph, allow=OFFICIAL_POSITIVE):
        self.kg = kg
        self.allow = frozenset(allow)
        self.solver = Solver(kg)

    # -- contexts ----------------------------------------------------------------------

    def _conditional(self, facts: list[CompiledFact], fixed: dict[Layer, str]) -> dict[Layer, list]:
        """The conditions, per layer read, of the facts whose verdict depends on the path."""
        by_layer: dict[Layer, dict] = {}
        for cf in facts:
            if not _conditioned(cf) or not can_decide(cf, self.allow):
                continue  # (a condition on the driver never holds without a driver pin)
            if any(c.layer in fixed and not c.holds_for(fixed[c.layer]) for c in cf.when):
                continue  # a condition on the pair's own node that fails: never applies
            for c in cf.when:
                if c.layer not in fixed:
                    by_layer.setdefault(c.layer, {})[frozenset(c.ids or ())] = c
        return {l: list(v.values()) for l, v in sorted(by_layer.items(), key=lambda kv: _RANK[kv[0]])}

    def _item(self, facts: list[CompiledFact], fixed: dict[Layer, str], decide) -> Item:
        conds = self._conditional(facts, fixed)
        if not conds:
            ok = decide(dict(fixed))
            return Item(always=ok, never=not ok)
        ctxs = [_Contexts(self.kg, layer, cs) for layer, cs in conds.items()]
        passing = set()
        total = 0
        for combo in product(*(c.sigs for c in ctxs)):
            total += 1
            values = dict(fixed)
            for ctx, sig in zip(ctxs, combo):
                rep = ctx.rep(sig)
                if rep is not None:
                    values[ctx.layer] = rep
            if decide(values):
                passing.add(combo)
        if len(passing) == total:
            return Item(always=True)
        if not passing:
            return Item(never=True)
        item = Item()
        for cube in _cubes(passing, len(ctxs)):
            layers, sets = _cube_sets(ctxs, cube)
            if not layers:
                return Item(always=True)
            item.rows.append((layers, sets))
        return item

    # -- pairs -------------------------------------------------------------------------

    def _facts(self, node: str, layer: Layer) -> list[CompiledFact]:
        return list(self.kg.by_subject.get((node, layer), ()))

    def pair(self, upper: Layer, a: str, lower: Layer, b: str, required: bool) -> Item:
        solver = self.solver
        facts = self._facts(a, lower) + self._facts(b, upper)

        def decide(values):
            e = solver.edge(upper, a, lower, b, values, self.allow, None, False, required)
            return e.verdict == "ok" if e is not None else not required
        return self._item(facts, {upper: a, lower: b}, decide)

    def _skip(self, a: str, upper: Layer, b: str, lower: Layer) -> bool:
        """Pairs the query decides itself: declared layers, different GPU vendors."""
        nodes = self.kg.nodes
        if lower in nodes[a].layers or upper in nodes[b].layers:
            return True
        va, vb = self.kg.compute_vendor(a), self.kg.compute_vendor(b)
        return va is not None and vb is not None and va != vb

    def ok_items(self, upper: Layer, lower: Layer):
        """(a, b, item) for a required pair type: the pairs an allowed positive fact selects."""
        kg = self.kg
        seen: set[tuple[str, str]] = set()
        for cf in kg.facts:
            if not cf.positive or cf.target.ids is None or cf.status not in self.allow:
                continue
            if {cf.subject_layer, cf.target.layer} != {upper, lower} or upper is lower:
                continue
            for s in cf.subjects:
                if s not in kg.nodes:
                    continue
                for o in cf.target.ids:
                    if o not in kg.nodes:
                        continue
                    a, b = (s, o) if cf.subject_layer is upper else (o, s)
                    if kg.nodes[a].layer is not upper or kg.nodes[b].layer is not lower or (a, b) in seen:
                        continue
                    seen.add((a, b))
                    if self._skip(a, upper, b, lower):
                        continue
                    item = self.pair(upper, a, lower, b, True)
                    if not item.never:
                        yield a, b, item

    def pass_items(self, upper: Layer, lower: Layer):
        """(a, b, item) for an optional pair type: the pairs that fail somewhere. Pairs no
        fact speaks about hold; a node with facts on the other layer is weighed against every
        node of that layer (a complete list rules out the rest), nodes that its facts and the
        other's own facts cannot tell apart once."""
        kg = self.kg
        done: set[tuple[str, str]] = set()
        for side, other in ((upper, lower), (lower, upper)):
            for x in kg.by_layer[side]:
                facts = kg.by_subject.get((x, other))
                if not facts:
                    continue
                if any(cf.exhaustive for cf in facts if cf.positive):
                    candidates = kg.by_layer[other]
                else:
                    candidates = sorted({y for cf in facts for y in (cf.target.ids or ()) if y in kg.nodes
                                         and kg.nodes[y].layer is other})
                classes: dict[tuple, Item] = {}
                for y in candidates:
                    a, b = (x, y) if side is upper else (y, x)
                    if (a, b) in done or self._skip(a, upper, b, lower):
                        continue
                    done.add((a, b))
                    key = None
                    if (y, side) not in kg.by_subject and y not in kg.overrides:
                        key = (kg.compute_vendor(y),) + tuple(
                            (cf.selects(y), cf.restricts(y), tuple(c.holds_for(y) for c in cf.when if c.layer is other))
                            for cf in facts)
                        if key in classes:
                            item = classes[key]
                            if not item.always:
                                yield a, b, item
                            continue
                    item = self.pair(upper, a, lower, b, False)
                    if key is not None:
                        classes[key] = item
                    if not item.always:
                        yield a, b, item

    # -- drivers -----------------------------------------------------------------------

    def driver_items(self, keys):
        """(node, [(layers, sets, intervals)]): the driver intervals each node's facts choose, per
        context (an empty list of rows: nothing applies anywhere)."""
        kg = self.kg
        for x in sorted(n for n in kg.nodes if (n, Layer.driver) in kg.by_subject):
            layer = kg.nodes[x].layer
            group = [cf for cf in kg.by_subject[(x, Layer.driver)]
                     if cf.target.drivers is not None and cf.positive and cf.status in self.allow]
            if not group:
                continue
            conds = self._conditional(group, {layer: x})
            ctxs = [_Contexts(kg, l, cs) for l, cs in conds.items()]
            outcomes: dict[tuple, set] = {}
            combos = list(product(*(c.sigs for c in ctxs)))
            for combo in combos:
                values = {layer: x}
                for ctx, sig in zip(ctxs, combo):
                    rep = ctx.rep(sig)
                    if rep is not None:
                        values[ctx.layer] = rep
                applying = [cf for cf in group if self.solver._applies(cf, values, None, False)]
                plain = [cf for cf in applying if not cf.fact.caveat]
                chosen = plain or applying
                ivs = tuple(sorted({k for cf in chosen for k in (keys.interval_keys(cf.target.drivers)
                                                                  or [(keys.INF, -1)])}))
                outcomes.setdefault(ivs, set()).add(combo)
            rows = []
            for ivs, passing in outcomes.items():
                if not ivs:
                    continue
                if len(passing) == len(combos):
                    rows.append(((), (), ivs))
                    continue
                for cube in _cubes(passing, len(ctxs)):
                    rows.append((*_cube_sets(ctxs, cube), ivs))
            if rows:
                yield x, rows


def verdict_triples(kg: KnowledgeGraph):
    """The verdict graph as N-Triples terms (s, p, o)."""
    from gpulane.graph.rdf import GL, INF_KEY, KB, XSD, DriverKeys, node_iri

    v = Verdicts(kg)
    keys = DriverKeys(kg)
    keys.INF = INF_KEY
    out: list[tuple[str, str, str]] = []
    node = {n: f"<{node_iri(n)}>" for n in kg.nodes}
    sets: dict[tuple, str] = {}
    t_true, t_false = f'"true"^^<{XSD}boolean>', f'"false"^^<{XSD}boolean>'
    counter = [0]

    def set_iri(neg: bool, listed: frozenset[str]) -> str:
        key = (neg, listed)
        found = sets.get(key)
        if found is None:
            found = sets[key] = f"<{KB}v/s{len(sets)}>"
            out.append((found, f"<{GL}neg>", t_true if neg else t_false))
            for x in sorted(listed):
                out.append((found, f"<{GL}in>", node[x]))
        return found

    # Each upper node points to its *profile* over the lower layer (every pair verdict it
    # has there); nodes with the same verdicts (the releases of one app line) share one.
    profiles: dict[tuple, str] = {}
    for upper, lower in pair_types():
        for kind in pass_kinds(upper, lower):
            by_upper: dict[str, list[tuple[str, Item]]] = {}
            items = v.ok_items(upper, lower) if kind == "ok" else v.pass_items(upper, lower)
            for a, b, item in items:
                by_upper.setdefault(a, []).append((b, item))
            link = f"<{GL}{predicate(kind + 'Via', upper, lower)}>"
            for a in sorted(by_upper):
                plain, grouped = [], {}
                for b, item in by_upper[a]:
                    if item.always or item.never:
                        plain.append(b)
                    else:
                        for row in item.rows:
                            grouped.setdefault(row, []).append(b)
                key = (kind, upper, lower, tuple(sorted(plain)),
                       tuple(sorted((row, tuple(sorted(bs))) for row, bs in grouped.items())))
                p = profiles.get(key)
                if p is None:
                    p = profiles[key] = f"<{KB}v/p{len(profiles)}>"
                    flat = f"<{GL}{predicate('ok' if kind == 'ok' else 'fail', upper, lower)}>"
                    for b in key[3]:
                        out.append((p, flat, node[b]))
                    for (layers, sets_), bs in key[4]:
                        counter[0] += 1
                        r = f"<{KB}v/r{counter[0]}>"
                        out.append((p, f"<{GL}{predicate(kind, upper, lower, layers)}>", r))
                        for b in bs:
                            out.append((r, f"<{GL}o>", node[b]))
                            if kind == "pass":
                                out.append((p, f"<{GL}{predicate('mixed', upper, lower)}>", node[b]))
                        for layer, (neg, listed) in zip(layers, sets_):
                            out.append((r, f"<{GL}c{_CAP[layer.value]}>", set_iri(neg, listed)))
                out.append((node[a], link, p))
    for n in sorted(kg.nodes):
        vendor = kg.compute_vendor(n)
        if vendor is not None:
            out.append((node[n], f"<{GL}computeVendor>", f'"{vendor}"'))
        if kg.nodes[n].backend == "cpu":
            out.append((node[n], f"<{GL}cpuOnly>", t_true))
    carried: set[tuple[str, str, str]] = set()
    for cf in kg.facts:
        rel = cf.fact.relation
        if rel in (Relation.built_with, Relation.bundles) and cf.positive and cf.target.layer is Layer.toolkit:
            for s in cf.subjects:
                for t in cf.target.ids or ():
                    if s in kg.nodes and t in kg.nodes:
                        carried.add((s, "carriesToolkit", t))
                        if rel is Relation.bundles and cf.subject_layer is Layer.app:
                            carried.add((s, "bundlesToolkit", t))
    for s, p, t in sorted(carried):
        out.append((node[s], f"<{GL}{p}>", node[t]))
    ivs: set[tuple[int, int]] = set()

    def iv_iri(low: int, high: int) -> str:
        ivs.add((low, high))
        return f"<{KB}v/i{low}_{high}>"

    # Driver rows are named by their content, so that nodes with the same requirements point to
    # the same rows (and can share a class below).
    driver_rows: dict[tuple, str] = {}
    for x, drows in v.driver_items(keys):
        for layers, sets_, intervals in drows:
            if not layers:
                for low, high in intervals:
                    out.append((node[x], f"<{GL}driverIv>", iv_iri(low, high)))
                continue
            row_key = (layers, sets_, intervals)
            r = driver_rows.get(row_key)
            if r is None:
                counter[0] += 1
                r = driver_rows[row_key] = f"<{KB}v/r{counter[0]}>"
                for low, high in intervals:
                    out.append((r, f"<{GL}iv>", iv_iri(low, high)))
                for layer, (neg, listed) in zip(layers, sets_):
                    out.append((r, f"<{GL}c{_CAP[layer.value]}>", set_iri(neg, listed)))
            out.append((node[x], f"<{GL}driverOn{''.join(_CAP[l.value] for l in layers)}>", r))
    for low, high in sorted(ivs):
        i = f"<{KB}v/i{low}_{high}>"
        out.append((i, f"<{GL}lo>", f'"{low}"^^<{XSD}integer>'))
        out.append((i, f"<{GL}hi>", f'"{high}"^^<{XSD}integer>'))
    for layer in class_layers(kg):
        out = _classes(kg, out, node, layer)
    return _members(kg, out, node)


def _members(kg: KnowledgeGraph, out: list, node: dict) -> list:
    """Each condition set's members spelled out: ``T gl:has<Layer> x`` for every node (or class) of
    each layer it is read for that the set contains (for a ``neg`` set, every one not listed, and
    ``gl:none``: a layer out of scope or left out), and ``gl:anySet``, which has every node and
    class and ``gl:none``. The query tests membership by joins on these
    (a correlated ``EXISTS`` per path is slow in triple stores)."""
    from gpulane.graph.rdf import GL

    by_cap = {_CAP[l.value]: l for l in PAIR_LAYERS}
    read: dict[str, set[Layer]] = {}
    neg: dict[str, bool] = {}
    listed: dict[str, set[str]] = {}
    classes: dict[Layer, set[str]] = {}
    for s, p, o in out:
        name = p[len(GL) + 1:-1]
        if name == "neg":
            neg[s] = o.startswith('"true')
        elif name == "in":
            listed.setdefault(s, set()).add(o)
        elif name == "classLayer":
            classes.setdefault(Layer(o[len(GL) + 1:-1]), set()).add(s)
        elif len(name) > 1 and name[0] == "c" and name[1:] in by_cap:
            read.setdefault(o, set()).add(by_cap[name[1:]])
    resources = {layer: classes.get(layer) or {node[x] for x in kg.by_layer[layer]} for layer in PAIR_LAYERS}
    none = f"<{GL}none>"
    has = {layer: f"<{GL}{has_predicate(layer)}>" for layer in PAIR_LAYERS}
    for t in sorted(read):
        for layer in sorted(read[t], key=_RANK.get):
            pool = resources[layer]
            inside = pool - listed.get(t, set()) | {none} if neg[t] else listed.get(t, set()) & pool
            out.extend((t, has[layer], x) for x in sorted(inside))
    # (Every layer: the query reads a layer's rows, and binds gl:anySet, by the facts' conditions,
    # whether or not a row of that layer was written.)
    any_set = f"<{GL}anySet>"
    for layer in PAIR_LAYERS:
        out.extend((any_set, has[layer], x) for x in sorted(resources[layer] | {none}))
    return out


def has_predicate(layer: Layer) -> str:
    """The local name of a set's membership predicate over one layer: hasGpu, hasOs... (one per
    layer, so that a membership join reads that layer's members only)."""
    return "has" + _CAP[layer.value]


def app_classes(kg: KnowledgeGraph) -> bool:
    """Whether app nodes are written as classes: no condition reads the app layer (then no node
    refers to an app, and apps with the same verdicts are interchangeable on every path)."""
    return not any(c.layer is Layer.app for cf in kg.facts for c in cf.when)


def class_layers(kg: KnowledgeGraph) -> tuple[Layer, ...]:
    """The layers whose nodes the verdict graph writes as classes (``x gl:<layer>Class C``) and
    the query joins as classes: GPUs always (the sets of rows that list GPUs list their
    classes), apps where no condition reads the app layer."""
    return (Layer.gpu, Layer.app) if app_classes(kg) else (Layer.gpu,)


def class_predicate(layer: Layer) -> str:
    """The local name of the predicate from a node to its class: gpuClass, appClass."""
    return layer.value + "Class"


_CLASS_PREFIX = {Layer.app: "c", Layer.gpu: "g"}  # the layers class_layers may give
# Layers whose gl:officialLink the query reads (the upper layer of a required pair, in the rule
# for a layer left out): a class of such a layer carries its members' links.
_LINK_READERS = {upper for upper, _ in REQUIRED_PAIRS}


def _classes(kg: KnowledgeGraph, out: list, node: dict, layer: Layer) -> list:
    """Nodes of `layer` that no triple tells apart become one class resource carrying their
    triples: the same verdict triples from them and to them (a GPU is the lower node of its
    pairs and a member of the condition sets that list it), the same declared layers and,
    where the query reads them, the same official links. The releases of one app line mostly
    share a class; GPUs of one architecture that no fact names apart do. Each node gets
    ``x gl:<layer>Class C``, the class ``C gl:classLayer gl:<layer>``; the query joins classes
    and maps the answers back to their members."""
    from gpulane.graph.rdf import GL, KB, node_iri

    members = {node[x]: x for x in kg.by_layer[layer]}
    own: dict[str, list[tuple[str, str]]] = {}
    into: dict[str, list[tuple[str, str]]] = {}
    rest = []
    for s, p, o in out:
        if s in members:
            own.setdefault(s, []).append((p, o))
        elif o in members:
            into.setdefault(o, []).append((s, p))
        else:
            rest.append((s, p, o))
    # The query reads a class's official links only as "links to some node of layer L" (the
    # rule for a layer left out): per member, one linked node per layer (the first by id).
    links: dict[str, dict[Layer, str]] = {}
    if layer in _LINK_READERS:
        for cf in kg.facts:
            if not cf.positive or cf.status not in OFFICIAL_POSITIVE or cf.target.ids is None:
                continue
            if cf.subject_layer is layer:
                pairs = [(a, o) for a in cf.subjects for o in cf.target.ids]
            elif cf.target.layer is layer:
                pairs = [(a, x) for a in cf.target.ids for x in cf.subjects]
            else:
                continue
            for a, o in pairs:
                if o in kg.nodes and kg.nodes[o].layer is not layer:
                    known = links.setdefault(a, {})
                    o_layer = kg.nodes[o].layer
                    if o_layer not in known or o < known[o_layer]:
                        known[o_layer] = o
    classes: dict[tuple, str] = {}
    for iri, a in sorted(members.items()):
        n = kg.nodes[a]
        key = (tuple(sorted(set(own.get(iri, ())))), tuple(sorted(set(into.get(iri, ())))),
               tuple(sorted((k.value, v) for k, v in n.layers.items())),
               tuple(sorted(l.value for l in links.get(a, {}))))
        c = classes.get(key)
        if c is None:
            c = classes[key] = f"<{KB}v/{_CLASS_PREFIX[layer]}{len(classes)}>"
            rest.append((c, f"<{GL}classLayer>", f"<{GL}{layer.value}>"))
            rest += [(c, p, o) for p, o in key[0]]
            rest += [(s, p, c) for s, p in key[1]]
            for declared, kind in key[2]:
                prop = "notUsedLayer" if kind == "not_used" else "bundledLayer"
                rest.append((c, f"<{GL}{prop}>", f"<{GL}{declared}>"))
            for o in sorted(links.get(a, {}).values()):
                rest.append((c, f"<{GL}officialLink>", f"<{node_iri(o)}>"))
        rest.append((iri, f"<{GL}{class_predicate(layer)}>", c))
    return rest


def ntriples(kg: KnowledgeGraph) -> str:
    """The verdict graph as N-Triples text."""
    return "".join(f"{s} {p} {o} .\n" for s, p, o in verdict_triples(kg))


@dataclass(frozen=True)
class Inventory:
    """What kinds of verdict triples a knowledge base can have (from its facts and nodes, without
    computing a verdict): the query emits only the rules that these can trigger."""

    linked: frozenset  # (upper, lower): an official positive fact relates nodes of the two layers
    spoken: frozenset  # (upper, lower): a node of one layer has facts on the other
    declared: frozenset  # (layer of a node, layer it declares unused or bundled)
    carriers: frozenset  # layers whose nodes have built_with / bundles facts on toolkits
    drivers: frozenset  # layers whose nodes have driver requirements
    # layers whose nodes' driver requirements may depend on the path (a condition on another
    # layer): only their nodes can have gl:driverOn<Layers> rows; the others have gl:driverIv only
    path_drivers: frozenset
    cpu: frozenset  # layers with CPU-only nodes
    vendors: frozenset  # layers with nodes of a known GPU vendor


def inventory(kg: KnowledgeGraph) -> Inventory:
    found = kg.__dict__.get("_verdict_inventory")
    if found is not None:
        return found
    linked, spoken, carriers, drivers, path_drivers = set(), set(), set(), set(), set()
    for cf in kg.facts:
        a, b = cf.subject_layer, cf.target.layer
        key = (a, b) if _RANK[a] > _RANK[b] else (b, a)
        spoken.add(key)
        if cf.positive and cf.status in OFFICIAL_POSITIVE and cf.target.ids is not None:
            linked.add(key)
        if b is Layer.toolkit and cf.fact.relation in (Relation.built_with, Relation.bundles) and cf.positive:
            carriers.add(a)
        if b is Layer.driver and cf.positive and cf.status in OFFICIAL_POSITIVE and cf.target.drivers is not None:
            drivers.add(a)
            if any(c.layer not in (a, Layer.driver) for c in cf.when):
                path_drivers.add(a)
    declared, cpu, vendors = set(), set(), set()
    for n in kg.nodes.values():
        for layer in n.layers:
            declared.add((n.layer, layer))
        if n.backend == "cpu":
            cpu.add(n.layer)
        if kg.compute_vendor(n.id) is not None:
            vendors.add(n.layer)
    found = kg.__dict__["_verdict_inventory"] = Inventory(
        frozenset(linked), frozenset(spoken), frozenset(declared), frozenset(carriers), frozenset(drivers),
        frozenset(path_drivers), frozenset(cpu), frozenset(vendors))
    return found
