"""Facts → an indexed graph.

The KnowledgeGraph holds every node and fact with their selectors expanded to
node sets (so queries never re-read attributes), a networkx MultiDiGraph of
subject → object edges for exploration, and the indices the solver walks:
facts by (subject, object layer) and positive pairs by layer pair.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain, repeat
from operator import le
from typing import Callable, Iterable, Optional, TypedDict, Union

from gpulane.graph.compat import build_target_kind, is_generic_target, runs_on
from gpulane.graph.names import NameIndex, NameKeyTables
from gpulane.made_on_use import MadeOnUse
from gpulane.model import KnowledgeBase, Origin
from gpulane.model import (ALWAYS_EXHAUSTIVE, OFFICIAL_POSITIVE, Fact, Layer, Node, Relation, Selector,
                           Source, Status)
from gpulane.versions import VersionRange, parse_version, spec_matcher

__all__ = ["KnowledgeGraph", "CompiledFact", "CompiledState", "Condition", "selector_key"]

# Layers whose nodes run on one GPU vendor's hardware (an OS or a driver range does not).
_VENDOR_LAYERS = frozenset({Layer.gpu, Layer.arch, Layer.toolkit, Layer.framework, Layer.app})
_BACKEND_VENDOR = {"cuda": "nvidia", "rocm": "amd"}


@dataclass(frozen=True)
class Condition:
    """A compiled `when` or object selector: node ids, or a driver version range."""

    layer: Layer
    ids: frozenset[str] | None = None
    drivers: VersionRange | None = None
    vendor: str | None = None
    # The version spec a driver range was read from (what a cache stores to make it again).
    spec: str | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of_ids(cls, layer: Layer, ids: frozenset[str], vendor: str | None = None) -> "Condition":
        """``Condition(layer, ids=ids, vendor=vendor)``, made without the frozen dataclass's
        guarded field-by-field set-up: reading stored compiled state makes tens of thousands."""
        made = object.__new__(cls)
        made.__dict__.update(layer=layer, ids=ids, drivers=None, vendor=vendor, spec=None)
        return made

    def holds_for(self, value: str | None) -> bool:
        if value is None:
            return False
        if self.ids is not None:
            return value in self.ids
        return self.drivers is not None and self.drivers.contains(value)


class CompiledFact:
    """A fact ready for the solver.

    What the solver reads of every fact (id, relation, status, runs_as, caveat, exhaustive) is held
    here as plain attributes; the Fact model itself (``fact``) may be made on first use, from a
    knowledge base read from the cache (whose ``facts`` read each fact when first asked for it):
    a query then reads as models only the facts it shows.
    """

    __slots__ = ("index", "_fact", "subject_layer", "subjects", "target", "when", "via", "domain", "names_known",
                 "id", "relation", "status", "runs_as", "caveat", "exhaustive", "positive", "is_build_list")

    def __init__(self, index: int, fact, subject_layer: Layer, subjects: frozenset[str], target: Condition,
                 when: tuple[Condition, ...], via: dict[str, tuple[str, str]], domain: Condition | None,
                 names_known: bool, fid: str, relation: Relation, status: Status, runs_as: str | None,
                 caveat: str | None, exhaustive: bool):
        """What the solver reads of fact ``index``; ``fact`` is its model, or (read back from
        stored compiled state) the knowledge base's fact list to take it from when first used."""
        self.index = index
        self._fact = fact
        self.subject_layer = subject_layer
        self.subjects = subjects
        self.target = target
        self.when = when
        # For build lists: arch id → the build target whose code runs there, and why.
        self.via = via
        # For exhaustive lists: the nodes the list is complete over (None: the whole layer).
        self.domain = domain
        # False when the object names no node the knowledge base has (a wheel built with a ROCm
        # release the KB does not hold): such a list is missing knowledge and restricts nothing.
        self.names_known = names_known
        self.id, self.relation, self.status, self.runs_as, self.caveat = fid, relation, status, runs_as, caveat
        self.exhaustive = bool(exhaustive or relation in ALWAYS_EXHAUSTIVE)
        self.positive = status is not Status.unsupported
        # A build list says "compiled for", never "supported" by itself.
        self.is_build_list = relation is Relation.ships_kernels_for

    @classmethod
    def of(cls, index: int, fact: Fact, subject_layer: Layer, subjects: frozenset[str], target: Condition,
           when: tuple[Condition, ...], via: dict[str, tuple[str, str]], domain: Condition | None,
           names_known: bool) -> "CompiledFact":
        """A fact model compiled: what the solver reads of it taken from the model."""
        return cls(index, fact, subject_layer, subjects, target, when, via, domain, names_known,
                   fact.id, fact.relation, fact.status, fact.runs_as, fact.caveat, fact.exhaustive)

    @property
    def fact(self) -> Fact:
        fact = self._fact
        if not isinstance(fact, Fact):
            fact = self._fact = fact[self.index]
        return fact

    def _fields(self) -> tuple:
        return (self.index, self.fact, self.subject_layer, self.subjects, self.target, self.when, self.via,
                self.domain, self.names_known)

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.index == other.index and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"CompiledFact(index={self.index!r}, id={self.id!r}, subject_layer={self.subject_layer!r}, "
                f"subjects={self.subjects!r}, target={self.target!r}, when={self.when!r})")

    def restricts(self, node_id: str) -> bool:
        """Whether this exhaustive fact's silence about node_id means "not listed"."""
        return self.exhaustive and self.names_known and (self.domain is None or self.domain.holds_for(node_id))

    def selects(self, node_id: str) -> bool:
        return self.target.holds_for(node_id)


def selector_key(sel: Selector) -> tuple:
    """A selector as a hashable tuple of plain values (strings, a tuple of ids, None)."""
    # (Enum values read as ``_value_``, the member's own attribute: every fact's selectors pass here.)
    return (sel.layer._value_ if sel.layer else None, None if sel.ids is None else tuple(sel.ids), sel.vendor,
            sel.family, sel.version, sel.platform._value_ if sel.platform else None, sel.compute_capability,
            sel.segment, sel.backend, sel.glibc)


def _matching(nodes: list[Node], sel: Selector) -> list[str]:
    """The ids of the nodes an attribute selector picks, of ``nodes`` (its layer's, and where it
    names a family that family's: ``KnowledgeGraph._family_index``), in the order given.

    Each attribute the selector names is a pass over the nodes still left, so that the selector
    is read once per attribute, not once per node (compiling expands hundreds of selectors over
    thousands of nodes). A node without the attribute a spec is on is never picked: an OS whose
    glibc the knowledge base does not hold is never selected by a glibc spec."""
    vendor = sel.vendor
    if vendor and vendor != "any":  # "any": every node
        nodes = [n for n in nodes if n.vendor == vendor]
    for attr in ("platform", "segment", "backend"):
        wanted = getattr(sel, attr)
        if wanted:
            nodes = [n for n in nodes if getattr(n, attr) == wanted]
    for attr in ("version", "compute_capability", "glibc"):
        spec = getattr(sel, attr)
        if spec:
            matches = spec_matcher(spec)
            nodes = [n for n in nodes if (value := getattr(n, attr)) and matches(value)]
    return [n.id for n in nodes]


# What ``KnowledgeGraph.compiled_state`` writes, with the types ``from_compiled`` reads it back
# in. Node ids are written as positions: in the graph's node table (``nodes``, in order), then in
# ``extra_ids`` (ids a fact names that are no node: `kb check` allows some). A condition: layer,
# node id positions or (for a driver range) the version spec it was read from, vendor.
_ConditionRow = tuple[Layer, Optional[list[int]], Optional[str], Optional[str]]


class _FactColumns(TypedDict):
    """The compiled facts, one list per field (a column reads several times faster than a row
    per fact at 10^5 facts: no per-row tuple, ints in place of repeated strings). A fact's
    subjects and ``when`` conditions are runs in one list each, ending where ``*_ends`` says;
    the fields most facts leave empty are (fact position, value) pairs for the others."""

    index: list[int]  # the fact's position in the knowledge base's facts
    subject_layer: list[Layer]
    subjects: list[int]  # id positions
    subject_ends: list[int]
    target: list[int]  # condition positions
    when: list[int]  # condition positions
    when_ends: list[int]
    via: list[tuple[int, dict[str, tuple[str, str]]]]  # build routes: arch -> (build target, why)
    domain: list[tuple[int, int]]  # (fact, condition)
    names_unknown: list[int]  # facts whose object names no node the KB has (names_known false)
    # What the solver reads of the fact itself.
    id: list[str]
    relation: list[Relation]
    status: list[Status]
    runs_as: list[tuple[int, str]]
    caveat: list[tuple[int, str]]
    exhaustive: list[int]  # facts that are exhaustive


class _SubjectIndex(TypedDict):
    """``by_subject`` (facts by subject and object layer): per key, its subject's id position and
    the layer, and the run of its facts' positions in the compiled facts (ending where ``ends``
    says). Read back by C-level passes, in place of a Python pass over every fact."""

    subjects: list[int]
    layers: list[Layer]
    ends: list[int]
    facts: list[int]


class _ReverseLinks(TypedDict):
    """The object → subject side of the official pair table (``_reverse_links``): its layer
    pairs in order, the objects of each (id positions, in runs ending where ``object_ends``
    says) and each object's subjects (id positions, in runs ending where ``subject_ends`` says)."""

    pairs: list[tuple[Layer, Layer]]
    objects: list[int]
    object_ends: list[int]
    subjects: list[int]
    subject_ends: list[int]


class _PairKeys(TypedDict):
    """(subject, object layer) keys: the subject's id position and the layer, side by side."""

    subjects: list[int]
    layers: list[Layer]


class CompiledState(TypedDict):
    """The compiled state of a knowledge graph as typed data (see ``compiled_state``)."""

    extra_ids: list[str]
    conditions: list[_ConditionRow]
    facts: _FactColumns
    by_subject: _SubjectIndex
    official_reverse: _ReverseLinks
    conditional: _PairKeys  # conditional_pairs
    generic_members: dict[str, frozenset[str]]
    names: NameKeyTables  # the rest of the name index copies node fields
    # Each layer's nodes in answer order (``layer_order``), as positions in ``by_layer``.
    orders: dict[Layer, list[int]]


class KnowledgeGraph:
    """The compiled, indexed knowledge base that every query runs on."""

    def __init__(self, kb: KnowledgeBase, selections: Iterable[tuple[tuple, str, list[str]]] = ()):
        """Index a knowledge base.

        ``selections`` are expansions a previous compile of the same knowledge base made
        (see ``selection_table``): given, they are reused instead of matched again.
        """
        self.kb = kb
        self._select_memo: dict[tuple, Condition] = {
            key: Condition(Layer(layer), ids=frozenset(ids)) for key, layer, ids in selections}
        self.sources: dict[str, Source] = {}
        self.nodes: dict[str, Node] = {}
        for s in kb.sources:
            self.sources.setdefault(s.id, s)
        for n in kb.nodes:
            self.nodes.setdefault(n.id, n)
        self.by_layer: dict[Layer, list[str]] = {layer: [] for layer in Layer}
        for n in self.nodes.values():
            self.by_layer[n.layer].append(n.id)
        self.names = NameIndex.build(list(self.nodes.values()))
        self.generic_members = self._generic_members(kb.facts)
        self.facts: list[CompiledFact] = []
        self.fact_by_id: dict[str, CompiledFact] = {}
        for i, fact in enumerate(kb.facts):
            compiled = self._compile(i, fact)
            if compiled is not None:
                self.facts.append(compiled)
                self.fact_by_id.setdefault(fact.id, compiled)
        self._index()
        self._index_overrides()

    # -- the compiled state as plain data (what a cache stores beside the knowledge base) --

    def compiled_state(self) -> dict:
        """What compiling the knowledge base computed, as JSON-ready data (lists, strings,
        numbers): each compiled fact's expanded subjects, target, conditions, domain and build
        routes, what the solver reads of each fact (id, relation, status, runs_as, caveat,
        exhaustive) and the name index. ``from_compiled`` rebuilds the same graph from it and the
        same knowledge base without matching a selector again or reading a fact model."""
        # (Written for speed: a cold start writes this once per knowledge base. Enum values are
        # read as ``_value_``, the member's own attribute, for ``value``'s descriptor call.)
        ids = list(self.nodes)
        position = {nid: i for i, nid in enumerate(ids)}
        at_position = position.__getitem__

        def positions(names: Iterable[str]) -> list[int]:
            ordered = sorted(names)
            try:
                return list(map(at_position, ordered))
            except KeyError:  # an id that is no node: numbered after the nodes, as first met
                for name in ordered:
                    if name not in position:
                        position[name] = len(ids)
                        ids.append(name)
                return list(map(at_position, ordered))

        conditions: list[list] = []
        numbered: dict[int, int] = {}

        def cond(c: Condition) -> int:
            at = numbered.get(id(c))
            if at is None:  # shared conditions (one per selector) are written once
                at = numbered[id(c)] = len(conditions)
                # A driver range is stored as the spec it was read from.
                conditions.append([c.layer._value_, None if c.ids is None else positions(c.ids), c.spec, c.vendor])
            return at

        facts = list(self.facts)
        # Subjects and conditions in one pass, fact by fact: ids that are no node, and conditions,
        # are numbered in the order this meets them.
        subjects: list[int] = []
        subject_ends: list[int] = []
        targets: list[int] = []
        whens: list[int] = []
        when_ends: list[int] = []
        domains: list[list[int]] = []
        subject_end = when_end = 0
        for at, cf in enumerate(facts):
            names = cf.subjects
            if len(names) == 1:
                (name,) = names
                subjects.append(position[name] if name in position else positions(names)[0])
            else:
                subjects += positions(names)
            subject_end += len(names)
            subject_ends.append(subject_end)
            targets.append(cond(cf.target))
            if cf.when:
                whens += [cond(w) for w in cf.when]
                when_end += len(cf.when)
            when_ends.append(when_end)
            if cf.domain is not None:
                domains.append([at, cond(cf.domain)])
        # In the order of _FactColumns.
        columns = {
            "index": [cf.index for cf in facts],
            "subject_layer": [cf.subject_layer._value_ for cf in facts],
            "subjects": subjects,
            "subject_ends": subject_ends,
            "target": targets,
            "when": whens,
            "when_ends": when_ends,
            "via": [[at, {arch: list(route) for arch, route in cf.via.items()}]
                    for at, cf in enumerate(facts) if cf.via],
            "domain": domains,
            "names_unknown": [at for at, cf in enumerate(facts) if not cf.names_known],
            "id": [cf.id for cf in facts],
            "relation": [cf.relation._value_ for cf in facts],
            "status": [cf.status._value_ for cf in facts],
            "runs_as": [[at, cf.runs_as] for at, cf in enumerate(facts) if cf.runs_as is not None],
            "caveat": [[at, cf.caveat] for at, cf in enumerate(facts) if cf.caveat is not None],
            "exhaustive": [at for at, cf in enumerate(facts) if cf.exhaustive],
        }
        at_fact = {id(cf): at for at, cf in enumerate(facts)}.__getitem__
        keys, of_keys = list(self.by_subject), list(self.by_subject.values())
        by_subject = {
            "subjects": [position[subject] if subject in position else positions((subject,))[0]
                         for subject, _ in keys],
            "layers": [layer._value_ for _, layer in keys],
            "ends": list(accumulate(map(len, of_keys))),
            "facts": list(map(at_fact, map(id, chain.from_iterable(of_keys)))),
        }
        conditional = sorted(self.conditional_pairs)  # subjects of facts: each has its position already
        reverse: dict[str, list] = {"pairs": [], "objects": [], "object_ends": [], "subjects": [], "subject_ends": []}
        objects, linked, linked_ends = reverse["objects"], reverse["subjects"], reverse["subject_ends"]
        for (a, b), back in self._reverse_links(OFFICIAL_POSITIVE).items():
            reverse["pairs"].append([a._value_, b._value_])
            for obj, of_obj in back.items():
                objects.append(position[obj] if obj in position else positions((obj,))[0])
                linked += positions(of_obj)
                linked_ends.append(len(linked))
            reverse["object_ends"].append(len(objects))
        return {
            "extra_ids": ids[len(self.nodes):],
            "conditions": conditions,
            "facts": columns,
            "by_subject": by_subject,
            # (Made in one pass over every fact: at 10^5 facts reading it is several times faster.)
            "official_reverse": reverse,
            "conditional": {"subjects": [position[s] for s, _ in conditional],
                            "layers": [layer.value for _, layer in conditional]},
            "generic_members": {k: sorted(v) for k, v in self.generic_members.items()},
            # (The pair tables are not stored: made from the compiled facts they take less time
            # than reading them, which are several times larger than the knowledge base.)
            "names": self.names.key_tables(),
            # Ranking parses every version (some 100 ms at 10^5 facts): stored, not redone.
            "orders": {layer.value: _positions(self.by_layer[layer], self.layer_order(layer)) for layer in Layer},
        }

    @classmethod
    def from_compiled(cls, kb: KnowledgeBase, state: CompiledState,
                      selections: Iterable[tuple[tuple, str, list[str]]] | Callable[[], Iterable] = ()
                      ) -> "KnowledgeGraph":
        """The graph of a knowledge base from ``compiled_state`` data made from that same
        knowledge base (a cache entry whose key names the files and the code), read back with
        the types ``CompiledState`` gives (enums, sets: a JSON reader checks them, see
        gpulane.loaders.stored): nothing is matched or expanded again, and no fact model is read
        (the knowledge base's ``facts`` may read each one when first used). The compiled facts,
        their conditions, ``by_subject`` and ``fact_by_id`` are made as they are first read
        (a find at 10^5 facts reads a few hundred facts); every stored part is checked here. ``selections`` may
        be a function giving them: it is called only when the table is asked for
        (``selection_table``); a query's own selectors are matched, which costs less than
        reading every stored expansion. Raises (KeyError, IndexError, TypeError, ValueError) on
        data that does not fit the knowledge base, which the cache reads as a miss."""
        kg = cls.__new__(cls)
        kg.kb = kb
        if callable(selections):
            kg._select_memo, kg._stored_selections = {}, selections
        else:
            kg._select_memo = {key: Condition(Layer(layer), ids=frozenset(ids)) for key, layer, ids in selections}
        kg.sources, kg.nodes = {}, {n.id: n for n in kb.nodes}
        for s in kb.sources:
            kg.sources.setdefault(s.id, s)
        if len(kg.nodes) != len(kb.nodes):  # a repeated id (which `kb check` reports) names its first node
            kg.nodes = {}
            for n in kb.nodes:
                kg.nodes.setdefault(n.id, n)
        kg.by_layer = {layer: [] for layer in Layer}
        for n in kg.nodes.values():
            kg.by_layer[n.layer].append(n.id)
        kg.names = NameIndex.of_key_tables(state["names"], kg.nodes.values())
        kg.generic_members = dict(state["generic_members"])
        node_count = len(kg.nodes)
        ids = [*kg.nodes, *state["extra_ids"]]  # the node ids themselves: their hashes are known
        conditions = _StoredConditions(state["conditions"], ids)
        kg.facts = _StoredFacts(state["facts"], kb.facts, ids, node_count, conditions)
        kg.fact_by_id = _FactsById(state["facts"]["id"], kg.facts)
        orders = {}
        for layer, positions in state["orders"].items():
            nodes = kg.by_layer[layer]
            if sorted(positions) != list(range(len(nodes))):
                raise ValueError(f"the stored order of layer {layer.value} is not one of its nodes")
            orders[layer] = [nodes[i] for i in positions]
        if orders.keys() != set(Layer):
            raise ValueError("a layer's stored order is missing")
        kg._layer_orders = orders
        kg.by_subject = _FactsBySubject(state["by_subject"], ids, kg.facts)
        kg._stored_official_reverse = _reverse_links_of(state["official_reverse"], ids)
        # Only a fact that runs as another target can be an override: read those alone.
        kg._index_overrides(map(kg.facts.__getitem__, sorted(at for at, _ in state["facts"]["runs_as"])))
        conditional = state["conditional"]
        if len(conditional["layers"]) != len(conditional["subjects"]):
            raise ValueError("the stored conditional pairs' columns differ in length")
        _check_positions(conditional["subjects"], len(ids), "a conditional pair's subject")
        kg._conditional_pairs = frozenset(zip(map(ids.__getitem__, conditional["subjects"]), conditional["layers"]))
        return kg

    # -- compiling selectors ------------------------------------------------------

    def select(self, sel: Selector, default_layer: Layer | None = None) -> Condition:
        """Expand a selector to the node ids (or driver range) it picks.

        default_layer stands in for a selector that names no layer (a `when` key names it).
        """
        if sel.layer is None and default_layer is not None:
            sel = sel.model_copy(update={"layer": default_layer})
        # Many facts share a selector ({layer: os, platform: linux}); each is expanded once.
        key = selector_key(sel)
        found = self._select_memo.get(key)
        if found is None:
            found = self._select_memo[key] = self._select(sel)
        return found

    def selection_table(self) -> list[tuple[tuple, str, list[str]]]:
        """The node-set expansions made so far, as plain data: (selector key, layer, sorted ids);
        those stored with the compiled state first (see ``from_compiled``)."""
        stored = self.__dict__.pop("_stored_selections", None)
        if stored is not None:
            made, self._select_memo = self._select_memo, {
                key: Condition(Layer(layer), ids=frozenset(ids)) for key, layer, ids in stored()}
            for key, cond in made.items():
                self._select_memo.setdefault(key, cond)
        return [(key, cond.layer.value, sorted(cond.ids)) for key, cond in self._select_memo.items()
                if cond.ids is not None and cond.drivers is None]

    def _select(self, sel: Selector) -> Condition:
        layer = sel.layer
        if sel.ids is not None:
            ids = [i for i in sel.ids if i in self.nodes]
            if layer is None and ids:
                layer = self.nodes[ids[0]].layer
            if layer is Layer.driver and sel.version:
                return Condition(layer, drivers=VersionRange.from_spec(sel.version), vendor=sel.vendor, spec=sel.version)
            return Condition(layer or Layer.arch, ids=frozenset(sel.ids))
        assert layer is not None
        if layer is Layer.driver and sel.version:
            return Condition(layer, drivers=VersionRange.from_spec(sel.version), vendor=sel.vendor, spec=sel.version)
        if sel.family:  # most selectors name a family: only that family's nodes are matched
            candidates = self._family_index().get((layer, sel.family.lower()), ())
        else:
            candidates = self.by_layer[layer]
        nodes = self.nodes
        return Condition(layer, ids=frozenset(_matching([nodes[nid] for nid in candidates], sel)))

    def _family_index(self) -> dict[tuple[Layer, str], list[str]]:
        """(layer, lower-case family) → node ids, made on first use."""
        index = self.__dict__.get("_by_family")
        if index is None:
            index = {}
            for layer, ids in self.by_layer.items():
                for nid in ids:
                    index.setdefault((layer, (self.nodes[nid].family or "").lower()), []).append(nid)
            self.__dict__["_by_family"] = index
        return index

    def subjects_of(self, fact: Fact) -> list[str]:
        """The subject node ids of a fact: its ids, or the nodes its subject selector picks
        (sorted, so that output built from them is stable)."""
        sel = fact.subject_selector
        if sel is None:
            return fact.subjects
        return sorted(self.select(sel).ids or ())

    def _compile(self, index: int, fact: Fact) -> CompiledFact | None:
        # (Every fact of a cold start passes here: plain loops and look-ups, no generators.)
        nodes = self.nodes
        selector = fact.subject_selector
        names = fact.subjects if selector is None else sorted(self.select(selector).ids or ())
        for name in names:
            if name in nodes:
                first = nodes[name]
                break
        else:
            return None  # a dangling subject: `kb check` reports it, and strict loading refuses it
        via: dict[str, tuple[str, str]] = {}
        obj = fact.object
        if fact.relation is Relation.ships_kernels_for and obj.ids is not None:
            target = self._expand_build_targets(obj.ids, via)
        else:
            target = self.select(obj)
        when = tuple([self.select(sel, layer) for layer, sel in fact.when.items()]) if fact.when else ()
        domain = None
        if fact.domain is not None:
            domain = self.select(fact.domain, target.layer)
        # An explicitly empty list ("ships no GPU kernels") is knowledge; a selector that names
        # only things the KB lacks is not.
        names_known = target.ids is None or obj.ids == [] or not nodes.keys().isdisjoint(target.ids)
        return CompiledFact.of(index, fact, first.layer, frozenset(names), target, when, via, domain, names_known)

    def _generic_members(self, facts: list[Fact]) -> dict[str, frozenset[str]]:
        """Generic target → the processors its code runs on (arch → arch `supports` facts)."""
        members: dict[str, set[str]] = {}
        for fact in facts:
            if fact.relation is not Relation.supports or fact.object.ids is None:
                continue
            for subject in fact.subjects:
                node = self.nodes.get(subject)
                if node is None or node.layer is not Layer.arch or not is_generic_target(subject):
                    continue
                objects = [o for o in fact.object.ids if o in self.nodes and self.nodes[o].layer is Layer.arch]
                members.setdefault(subject, set()).update(objects)
        return {k: frozenset(v) for k, v in members.items()}

    def _expand_build_targets(self, targets: list[str], via: dict[str, tuple[str, str]]) -> Condition:
        """Build-list ids, with NVIDIA binary and PTX compatibility and LLVM generic targets
        applied; ``via`` (empty) is filled with each arch's build target and why."""
        # Build lists repeat whole (one per release of a wheel): each list is expanded once, and
        # a repeat gets the same ids and routes (a condition and a route table of its own).
        memo = self.__dict__.setdefault("_build_lists", {})
        key = tuple(targets)
        made = memo.get(key)
        if made is None:
            routes: dict[str, tuple[str, str]] = {}
            made = memo[key] = (self._build_target_ids(targets, routes), routes)
        ids, routes = made
        via.update(routes)
        return Condition(Layer.arch, ids=ids)

    def _build_target_ids(self, targets: list[str], via: dict[str, tuple[str, str]]) -> frozenset[str]:
        """The arch ids a build list's code runs on (see ``_expand_build_targets``)."""
        ids: set[str] = set()
        # Build lists share targets: the archs each target's code runs on (and why) are judged
        # once, in arch order; a target that is no NVIDIA build target runs on none this way.
        runs_on_archs = self.__dict__.setdefault("_runs_on_archs", {})
        for target in targets:
            if target in self.nodes:
                ids.add(target)
                via.setdefault(target, (target, "exact target"))
            for member in sorted(self.generic_members.get(target, ())):
                ids.add(member)
                if member not in via or via[member][1] != "exact target":
                    via[member] = (target, f"{target} code objects run on {member} (LLVM generic target)")
            archs = runs_on_archs.get(target)
            if archs is None:
                archs = runs_on_archs[target] = [] if not build_target_kind(target) else [
                    (arch.id, why) for arch in map(self.nodes.__getitem__, self.by_layer[Layer.arch])
                    if arch.compute_capability is not None and (why := runs_on(target, arch))]
            for arch_id, why in archs:
                if arch_id not in via or via[arch_id][1] != "exact target":
                    ids.add(arch_id)
                    via[arch_id] = (target, why)
        return frozenset(ids)

    # -- indices -----------------------------------------------------------------

    def _index_overrides(self, facts: Iterable[CompiledFact] | None = None) -> None:
        """Override workarounds by subject (the pairs they may open: see ``positive_pairs``),
        from the facts given (in file order), or every fact."""
        self.overrides: dict[str, list[CompiledFact]] = {}
        for cf in self.facts if facts is None else facts:
            if cf.runs_as and cf.status is Status.workaround and cf.target.ids is not None:
                for s in cf.subjects:
                    self.overrides.setdefault(s, []).append(cf)

    def _open_override_pairs(self, table: dict[tuple[Layer, Layer], Links]) -> None:
        """Under an override, any toolkit or build that reaches the target it runs as may reach
        the overridden one: optimistic pairs, only ever used to keep values in propagation."""
        for cfs in self.overrides.values():
            for cf in cfs:
                targets = cf.target.ids
                for layer in (Layer.toolkit, Layer.framework, Layer.app):
                    fwd = table.setdefault((layer, Layer.arch), {})
                    back = table.setdefault((Layer.arch, layer), {})
                    # The nodes whose archs hold runs_as are the reverse table's entry for it (both
                    # directions are kept together): no walk over every node of the layer. (Adding
                    # the targets to those nodes gives runs_as to no other node, so this step's
                    # nodes are known before it starts.)
                    nodes = back.get(cf.runs_as)
                    if not nodes:
                        continue
                    nodes = frozenset(nodes)
                    for node in nodes:
                        _add_links(fwd, node, targets)
                    for x in targets:
                        _add_links(back, x, nodes)

    def _index(self) -> None:
        by_subject: dict[tuple[str, Layer], list[CompiledFact]] = {}
        get = by_subject.get
        for cf in self.facts:
            layer = cf.target.layer
            for s in cf.subjects:
                key = (s, layer)
                found = get(key)
                if found is None:
                    by_subject[key] = [cf]
                else:
                    found.append(cf)
        self.by_subject = by_subject

    @property
    def conditional_pairs(self) -> frozenset[tuple[str, Layer]]:
        """(subject, object layer) pairs that a fact with a `when` condition speaks of: their
        verdicts depend on the path, not on the two nodes alone (see the solver)."""
        found = self.__dict__.get("_conditional_pairs")
        if found is None:
            found = self.__dict__["_conditional_pairs"] = frozenset(
                (s, cf.target.layer) for cf in self.facts if cf.when for s in cf.subjects)
        return found

    @property
    def by_node(self) -> dict[str, list[CompiledFact]]:
        """Facts by every node they name (subject or object), in file order; made on first use
        (`show` and records read it, queries do not)."""
        table = self.__dict__.get("_by_node")
        if table is None:
            table = {}
            for cf in self.facts:
                for s in cf.subjects:
                    table.setdefault(s, []).append(cf)
                if cf.target.ids is not None:
                    for o in cf.target.ids:
                        table.setdefault(o, []).append(cf)
            self.__dict__["_by_node"] = table
        return table

    @property
    def positive_pairs(self) -> dict[tuple[Layer, Layer], Links]:
        """Positive pairs per layer pair, in both directions, for constraint propagation: facts
        of any positive status, bundled toolkits, and the pairs overrides may open. Made on first
        use (a query propagates over this table or the official one, seldom both)."""
        table = self.__dict__.get("_positive_pairs")
        if table is None:
            table = self._pair_table(None)
            self._open_override_pairs(table)
            self.__dict__["_positive_pairs"] = table
        return table

    @property
    def official_pairs(self) -> dict[tuple[Layer, Layer], Links]:
        """As ``positive_pairs``, from facts of official positive statuses only (no overrides)."""
        table = self.__dict__.get("_official_pairs")
        if table is None:
            table = self.__dict__["_official_pairs"] = self._pair_table(OFFICIAL_POSITIVE)
        return table

    def _pair_table(self, statuses) -> dict[tuple[Layer, Layer], Links]:
        """Layer pair (a, b) → node of a → the nodes of b that a positive fact (of `statuses`, or
        any) links it to, either way round.

        A fact's subject → object links are not copied here: that side is a `LazyLinks`, whose
        entry for a node is made from the node's own facts (``by_subject``) when first asked for;
        a query reads a few dozen of them. The object → subject side has no such index, so it is
        made in one pass over the facts (``_reverse_links``; for the official table a graph read
        from the cache has it stored), then handed to the table."""
        stored = self.__dict__.pop("_stored_official_reverse", None) if statuses is OFFICIAL_POSITIVE else None
        reverse = stored if stored is not None else self._reverse_links(statuses)
        table: dict[tuple[Layer, Layer], Links] = {}
        for pair in reverse:
            for side in (pair, pair[::-1]):
                if side not in table:
                    # A side that facts of its own direction fill is lazy; what the other
                    # direction's facts give it (arch -> arch facts fill both) is kept beside.
                    given = reverse.get(side[::-1], {})
                    table[side] = LazyLinks(self, side[0], side[1], statuses, given) if side in reverse else given
        self._link_bundled_toolkits(table, statuses)
        return table

    def _reverse_links(self, statuses) -> dict[tuple[Layer, Layer], dict[str, set[str]]]:
        """Layer pair (subject layer, object layer) → object → the subjects positive facts (of
        `statuses`, or any) link to it; pairs in the order the facts first name them."""
        reverse: dict[tuple[Layer, Layer], dict[str, set[str]]] = {}
        for cf in self.facts:
            objects = cf.target.ids
            if not cf.positive or objects is None or (statuses is not None and cf.status not in statuses):
                continue
            pair = (cf.subject_layer, cf.target.layer)
            back = reverse.get(pair)
            if back is None:
                back = reverse[pair] = {}
            subjects = cf.subjects
            for o in objects:
                have = back.get(o)
                if have is None:
                    back[o] = set(subjects)
                else:
                    have |= subjects
        return reverse

    def _link_bundled_toolkits(self, table: dict, statuses) -> None:
        """A toolkit an app bundles is judged by the app's arch facts on paths through that
        app (the solver skips the toolkit–arch pair there), so for propagation every such
        toolkit is linked to every arch the app has positive facts for (an optimistic
        superset, as the tables are)."""
        for app in self.by_layer[Layer.app]:
            toolkits: set[str] = set()
            archs: set[str] = set()
            for cf in self.by_subject.get((app, Layer.toolkit), []):
                if cf.relation is Relation.bundles and cf.positive and cf.target.ids is not None \
                        and (statuses is None or cf.status in statuses):
                    toolkits |= cf.target.ids
            if not toolkits:
                continue
            for cf in self.by_subject.get((app, Layer.arch), []):
                if cf.positive and cf.target.ids is not None and (statuses is None or cf.status in statuses):
                    archs |= cf.target.ids
            archs = frozenset(archs)
            fwd = table.setdefault((Layer.toolkit, Layer.arch), {})
            back = table.setdefault((Layer.arch, Layer.toolkit), {})
            for toolkit in toolkits:
                _add_links(fwd, toolkit, archs)
                for arch in archs:
                    _add_links(back, arch, (toolkit,))

    @property
    def graph(self):
        """The facts as a networkx MultiDiGraph (subject → object, one edge per fact).

        Built on first use and not cached with the graph: networkx is for
        exploration (neighbourhoods, reachability), the solver uses the indices.
        """
        if getattr(self, "_nx", None) is None:
            import networkx as nx

            g = nx.MultiDiGraph()
            for nid, node in self.nodes.items():
                g.add_node(nid, layer=node.layer.value)
            for cf in self.facts:
                for o in cf.target.ids or ():
                    for s in cf.subjects:
                        if s in self.nodes and o in self.nodes:
                            g.add_edge(s, o, key=cf.id, relation=cf.relation.value, status=cf.status.value)
            self._nx = g
        return self._nx

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_nx", None)
        state.pop("_by_pci", None)
        return state

    # -- lookups -----------------------------------------------------------------

    def node(self, node_id: str) -> Node:
        return self.nodes[node_id]

    def arch_of(self, gpu_id: str) -> list[str]:
        """The architectures a GPU's has_arch facts name."""
        out = []
        for cf in self.by_subject.get((gpu_id, Layer.arch), []):
            if cf.relation is Relation.has_arch and cf.target.ids:
                out.extend(a for a in sorted(cf.target.ids) if a not in out)  # sources that agree count once
        return out

    def layer_order(self, layer: Layer) -> list[str]:
        """A layer's nodes in the order answers list them (once per graph, kept with its compiled
        state): newest version first for toolkits and framework builds; Linux, then Ubuntu,
        then newest first for OSes; apps by name, each app's versionless node before its releases
        newest first; by name otherwise."""
        orders = self.__dict__.setdefault("_layer_orders", {})
        found = orders.get(layer)
        if found is None:
            found = orders[layer] = sorted(self.by_layer[layer], key=_order_key(self, layer))
        return found

    def compute_vendor(self, node_id: str) -> str | None:
        """The GPU vendor whose hardware a node runs on: a GPU's or architecture's vendor, a
        toolkit's or framework build's vendor, an app node's backend (cuda → nvidia, rocm → amd).
        None when unknown or vendor-neutral (Vulkan, an OS)."""
        cache = self.__dict__.setdefault("_compute_vendor", {})
        if node_id not in cache:
            node = self.nodes.get(node_id)
            vendor = None
            if node is not None and node.layer in _VENDOR_LAYERS:
                vendor = _BACKEND_VENDOR.get(node.backend or "") or node.vendor
                if vendor not in ("amd", "nvidia", "intel"):
                    vendor = None
            cache[node_id] = vendor
        return cache[node_id]

    def gpus_with_pci_id(self, pci_id: str) -> list[str]:
        """The GPU nodes that list a PCI id ("10de:2684"); see gpulane.graph.pci for tool formats."""
        if not hasattr(self, "_by_pci"):
            by_pci: dict[str, list[str]] = {}
            for gid in self.by_layer[Layer.gpu]:
                for pci in self.nodes[gid].pci_ids:
                    by_pci.setdefault(pci.lower(), []).append(gid)
            self._by_pci = by_pci
        return sorted(self._by_pci.get(pci_id.lower(), []))

    def attribute(self, node_id: str, name: str):
        """A node attribute; GPUs answer arch attributes (family) through their arch."""
        node = self.nodes[node_id]
        value = getattr(node, name, None)
        if value is None and node.layer is Layer.gpu and name in ("family", "llvm_target", "compute_capability"):
            for arch in self.arch_of(node_id):
                value = getattr(self.nodes[arch], name, None) if arch in self.nodes else None
                if value is not None:
                    break
        return value

    def source_of(self, cf: CompiledFact) -> Source | None:
        return self.sources.get(cf.fact.source or "")

    def reviewed(self, cf: CompiledFact) -> dt.date | None:
        if cf.fact.reviewed:
            return cf.fact.reviewed
        src = self.source_of(cf)
        return src.reviewed if src else None

    def origin_of_fact(self, cf: CompiledFact) -> Origin | None:
        return self.kb.origin("facts", cf.index)

    def facts_about(self, node_id: str) -> list[CompiledFact]:
        """Every fact whose subject or object is this node, in file order."""
        seen, out = set(), []
        for cf in self.by_node.get(node_id, []):
            if cf.index not in seen:
                seen.add(cf.index)
                out.append(cf)
        return sorted(out, key=lambda c: c.index)

    def stats(self) -> dict:
        """Counts per layer, facts and sources (what `kb stats` prints)."""
        return {
            "nodes": {layer.value: len(ids) for layer, ids in self.by_layer.items()},
            "facts": len(self.facts),
            "sources": len(self.sources),
            "facts_by_status": _count(cf.status.value for cf in self.facts),
            "facts_by_relation": _count(cf.relation.value for cf in self.facts),
            "official_facts": sum(1 for cf in self.facts if cf.status in OFFICIAL_POSITIVE),
            "files": len(self.kb.files),
        }


def _driver_condition(layer: Layer, positions: list[int] | None, spec: str | None, vendor: str | None) -> Condition:
    """A stored driver-range condition (one that is neither ids nor a range raises)."""
    if positions is not None or spec is None:
        raise ValueError("a stored condition is neither node ids nor a driver range")
    return Condition(layer, drivers=VersionRange.from_spec(spec), vendor=vendor, spec=spec)


def _check_positions(positions: list[int], size: int, what: str) -> None:
    """Stored positions must point into a table of ``size`` (a negative one would read from
    the end)."""
    if positions and (min(positions) < 0 or max(positions) >= size):
        raise IndexError(f"{what} position is outside its table of {size}")


def _runs(flat: list, ends: list[int]) -> list[list]:
    """``flat`` cut into the runs ``ends`` mark (raises where the ends go backwards or do not end
    exactly at its length)."""
    _runs_ends(ends, len(flat))
    return [flat[start:end] for start, end in zip([0, *ends[:-1]], ends)]


def _check_fact_columns(columns: _FactColumns, fact_count: int, ids: list[str], node_count: int,
                        condition_count: int) -> None:
    """Raises where the stored fact columns (``_FactColumns``) do not fit the knowledge base's
    facts, its id table or its conditions: all of it is checked before any fact is made from
    them, so that a damaged entry is a miss, never an error in the middle of a query."""
    count = len(columns["index"])
    if any(len(columns[name]) != count for name in ("subject_layer", "subject_ends", "target", "when_ends",
                                                     "id", "relation", "status")):
        raise ValueError("the stored fact columns differ in length")
    _check_positions(columns["index"], fact_count, "a fact")
    _check_positions(columns["subjects"], len(ids), "a subject")
    _check_positions(columns["target"], condition_count, "a target condition")
    _check_positions(columns["when"], condition_count, "a when condition")
    _runs_ends(columns["when_ends"], len(columns["when"]))
    subjects, ends = columns["subjects"], columns["subject_ends"]
    if ends == list(range(1, count + 1)):  # one subject each: the common case, checked at C speed
        if subjects and max(subjects) >= node_count:
            raise ValueError("a stored fact's subject is no node")
    elif not all(any(p < node_count for p in run) for run in _runs(subjects, ends)):
        raise ValueError("a stored fact has no subject node")
    for name in ("via", "domain", "runs_as", "caveat"):
        _check_positions([at for at, _ in columns[name]], count, f"a fact's {name}")
    _check_positions([condition for _, condition in columns["domain"]], condition_count, "a domain condition")
    _check_positions(columns["names_unknown"], count, "a fact's names_unknown")
    _check_positions(columns["exhaustive"], count, "a fact's exhaustive")


def _facts_of_columns(columns: _FactColumns, facts, ids: list[str], conditions: Sequence[Condition]
                      ) -> list[CompiledFact]:
    """Every compiled fact from columns ``_check_fact_columns`` passed. Each field is made as a
    whole column, then the facts from the columns side by side (``map``: no Python loop per
    fact)."""
    count = len(columns["index"])
    subjects, ends = columns["subjects"], columns["subject_ends"]
    single = list(map(frozenset, zip(ids)))  # most facts have one subject: one set per node, shared
    if ends == list(range(1, count + 1)):
        subject_sets = list(map(single.__getitem__, subjects))
    else:
        subject_sets = [single[run[0]] if len(run) == 1 else frozenset(map(ids.__getitem__, run))
                        for run in _runs(subjects, ends)]
    whens = list(map(tuple, _runs(list(map(conditions.__getitem__, columns["when"])), columns["when_ends"])))
    via = [{} for _ in range(count)]  # its own (empty) table per fact, as compiling makes them
    for at, routes in columns["via"]:
        via[at] = routes
    domain: list[Condition | None] = [None] * count
    for at, condition in columns["domain"]:
        domain[at] = conditions[condition]
    runs_as, caveat = [None] * count, [None] * count
    for at, text in columns["runs_as"]:
        runs_as[at] = text
    for at, text in columns["caveat"]:
        caveat[at] = text
    names_known, exhaustive = [True] * count, [False] * count
    for at in columns["names_unknown"]:
        names_known[at] = False
    for at in columns["exhaustive"]:
        exhaustive[at] = True
    return list(map(CompiledFact, columns["index"], repeat(facts), columns["subject_layer"], subject_sets,
                    list(map(conditions.__getitem__, columns["target"])), whens, via, domain, names_known,
                    columns["id"], columns["relation"], columns["status"], runs_as, caveat, exhaustive))


class _StoredConditions(MadeOnUse):
    """The conditions of a graph read back from a cache (``_ConditionRow``): each made when
    first read, then kept (facts share them). Every row is checked when this is made; driver
    ranges, which parse a version spec, are made then too."""

    __slots__ = ("_rows", "_ids")

    def __init__(self, rows: list, ids: list[str]):
        id_lists = [positions for _, positions, _, _ in rows if positions]
        if id_lists and (min(map(min, id_lists)) < 0 or max(map(max, id_lists)) >= len(ids)):
            raise IndexError("a stored condition names an id outside the id table")
        super().__init__(len(rows))
        self._rows, self._ids = rows, ids
        self._made = [
            None if spec is None and positions is not None else _driver_condition(layer, positions, spec, vendor)
            for layer, positions, spec, vendor in rows]

    def _make(self, at: int) -> Condition:
        layer, positions, _, vendor = self._rows[at]
        return Condition.of_ids(layer, frozenset(map(self._ids.__getitem__, positions)), vendor)


class _StoredFacts(MadeOnUse):
    """The compiled facts of a graph read back from a cache: fact i is made from the stored
    columns when first read, then kept (a query reads a few hundred of 10^5); iterating makes
    every one not yet made, all at once. The columns are checked when this is made."""

    __slots__ = ("_columns", "_facts", "_ids", "_conditions", "_complete", "_sparse")

    def __init__(self, columns: _FactColumns, facts, ids: list[str], node_count: int,
                 conditions: _StoredConditions):
        _check_fact_columns(columns, len(facts), ids, node_count, len(conditions))
        super().__init__(len(columns["index"]))
        self._columns, self._facts, self._ids, self._conditions = columns, facts, ids, conditions
        self._complete = False
        self._sparse = None  # the fields most facts leave empty, by fact position (made when first needed)

    def __iter__(self):
        if not self._complete:
            every = _facts_of_columns(self._columns, self._facts, self._ids, self._conditions)
            for at, made in enumerate(self._made):
                if made is not None:
                    every[at] = made  # one object per fact, whichever way it was first read
            self._made, self._complete = every, True
        return iter(self._made)

    def _make(self, at: int) -> CompiledFact:
        c, ids, conditions = self._columns, self._ids, self._conditions
        if self._sparse is None:
            self._sparse = (dict(c["via"]), dict(c["domain"]), dict(c["runs_as"]), dict(c["caveat"]),
                            frozenset(c["names_unknown"]), frozenset(c["exhaustive"]))
        via, domain, runs_as, caveat, names_unknown, exhaustive = self._sparse
        ends, when_ends = c["subject_ends"], c["when_ends"]
        subjects = c["subjects"][ends[at - 1] if at else 0:ends[at]]
        when = c["when"][when_ends[at - 1] if at else 0:when_ends[at]]
        return CompiledFact(c["index"][at], self._facts, c["subject_layer"][at],
                            frozenset(map(ids.__getitem__, subjects)), conditions[c["target"][at]],
                            tuple(map(conditions.__getitem__, when)), via[at] if at in via else {},
                            conditions[domain[at]] if at in domain else None, at not in names_unknown,
                            c["id"][at], c["relation"][at], c["status"][at], runs_as.get(at), caveat.get(at),
                            at in exhaustive)


class _FactsBySubject(Mapping):
    """``by_subject`` read back from a cache (``_SubjectIndex``): a key's list of facts is made
    when first asked for. Checked when made: positions inside their tables, runs that fit, no
    key given twice."""

    __slots__ = ("_runs", "_positions", "_facts", "_made")

    def __init__(self, stored: _SubjectIndex, ids: list[str], facts: _StoredFacts):
        count = len(stored["subjects"])
        if len(stored["layers"]) != count or len(stored["ends"]) != count:
            raise ValueError("the stored subject index's columns differ in length")
        _check_positions(stored["subjects"], len(ids), "a subject index key")
        _check_positions(stored["facts"], len(facts), "a subject index fact")
        ends = _runs_ends(stored["ends"], len(stored["facts"]))
        keys = zip(map(ids.__getitem__, stored["subjects"]), stored["layers"])
        self._runs = dict(zip(keys, zip([0, *ends[:-1]], ends)))
        if len(self._runs) != count:
            raise ValueError("the stored subject index names a key twice")
        self._positions, self._facts = stored["facts"], facts
        self._made: dict[tuple[str, Layer], list[CompiledFact]] = {}

    def get(self, key, default=None):
        made = self._made.get(key)
        if made is None:
            run = self._runs.get(key)
            if run is None:
                return default
            made = self._made[key] = list(map(self._facts.__getitem__, self._positions[run[0]:run[1]]))
        return made

    def __getitem__(self, key) -> list[CompiledFact]:
        made = self.get(key)
        if made is None:
            raise KeyError(key)
        return made

    def __contains__(self, key) -> bool:
        return key in self._runs

    def __iter__(self):
        return iter(self._runs)

    def __len__(self) -> int:
        return len(self._runs)


class _FactsById(Mapping):
    """``fact_by_id`` of a graph read back from a cache: the table of ids is made when first
    used (a find asks for none); a repeated id (which `kb check` reports) names its first fact."""

    __slots__ = ("_ids", "_facts", "_table")

    def __init__(self, ids: list[str], facts: _StoredFacts):
        self._ids, self._facts, self._table = ids, facts, None

    def _positions(self) -> dict[str, int]:
        if self._table is None:
            table = dict(zip(self._ids, range(len(self._ids))))
            if len(table) != len(self._ids):
                table = {}
                for at, fid in enumerate(self._ids):
                    table.setdefault(fid, at)
            self._table = table
        return self._table

    def __getitem__(self, fid: str) -> CompiledFact:
        return self._facts[self._positions()[fid]]

    def __iter__(self):
        return iter(self._positions())

    def __len__(self) -> int:
        return len(self._positions())


def _reverse_links_of(stored: _ReverseLinks, ids: list[str]) -> dict[tuple[Layer, Layer], "StoredLinks"]:
    """``_reverse_links`` from its stored form (``_ReverseLinks``), each object's subjects made
    into a set when first asked for (``StoredLinks``); raises on positions outside the id table,
    runs that do not fit, or a pair or an object of a pair given twice."""
    _check_positions(stored["objects"], len(ids), "a reverse link's object")
    _check_positions(stored["subjects"], len(ids), "a reverse link's subject")
    subject_ends = _runs_ends(stored["subject_ends"], len(stored["subjects"]))
    if len(subject_ends) != len(stored["objects"]) or len(stored["pairs"]) != len(stored["object_ends"]):
        raise ValueError("the stored reverse links' columns differ in length")
    subject_starts = [0, *subject_ends[:-1]]
    objects = list(map(ids.__getitem__, stored["objects"]))
    reverse, start = {}, 0
    for pair, end in zip(stored["pairs"], _runs_ends(stored["object_ends"], len(objects))):
        runs = dict(zip(objects[start:end], zip(subject_starts[start:end], subject_ends[start:end])))
        if len(runs) != end - start:
            raise ValueError("the stored reverse links name an object twice")
        reverse[pair] = StoredLinks(runs, stored["subjects"], ids)
        start = end
    if len(reverse) != len(stored["pairs"]):
        raise ValueError("the stored reverse links name a layer pair twice")
    return reverse


def _runs_ends(ends: list[int], length: int) -> list[int]:
    """``ends`` checked to rise and to end exactly at ``length``."""
    if (ends[-1] if ends else 0) != length or not all(map(le, [0, *ends[:-1]], ends)):
        raise ValueError("stored runs do not fit their list")
    return ends


def _add_links(side: Links, node: str, objects: Iterable[str]) -> None:
    """Link a node to more nodes on one side of a pair table (a plain dict, a `LazyLinks` or a
    `StoredLinks`)."""
    if isinstance(side, LazyLinks):
        side.add(node, objects)
        return
    have = side.get(node)
    if have is None:
        side[node] = set(objects)
    else:
        have.update(objects)


_UNMADE = object()


class LazyLinks(Mapping):
    """One side of a layer pair's positive links, subject layer → object layer: node → the nodes
    its facts (of the table's statuses) link it to. A node's entry is made from its own facts
    (``by_subject``) when first asked for, then kept; links given beside the facts (the other
    direction's, bundled toolkits, override pairs) are added to it. Read-only for its users:
    an entry may be a fact's own frozenset. Iterating it, or its length, makes every entry."""

    __slots__ = ("_kg", "_subject_layer", "_object_layer", "_statuses", "_given", "_made", "_complete")

    def __init__(self, kg: "KnowledgeGraph", subject_layer: Layer, object_layer: Layer, statuses,
                 given: dict[str, set[str]]):
        self._kg = kg
        self._subject_layer = subject_layer
        self._object_layer = object_layer
        self._statuses = statuses
        self._given = given
        self._made: dict[str, frozenset[str] | set[str] | None] = {}  # None: no link
        self._complete = False

    def get(self, node, default=None):
        found = self._made.get(node, _UNMADE)
        if found is _UNMADE:
            found = self._made[node] = self._make(node)
        return default if found is None else found

    def _make(self, node: str) -> frozenset[str] | set[str] | None:
        linked = None
        layer, statuses = self._subject_layer, self._statuses
        for cf in self._kg.by_subject.get((node, self._object_layer), ()):
            ids = cf.target.ids
            if cf.positive and ids is not None and cf.subject_layer is layer \
                    and (statuses is None or cf.status in statuses):
                if linked is None:
                    linked = ids  # the fact's own set: no copy where one fact links the node
                elif linked.__class__ is frozenset:
                    linked = set(linked).union(ids)
                else:
                    linked |= ids
        given = self._given.get(node)
        if given is not None:
            linked = set(given) if linked is None else given.union(linked)
        return linked

    def add(self, node: str, objects: Iterable[str]) -> None:
        """Link `node` to `objects` too (kept beside the facts' links)."""
        given = self._given.get(node)
        if given is None:
            given = self._given[node] = set()
        given.update(objects)
        self._made.pop(node, None)
        self._complete = False

    def _all(self) -> dict[str, frozenset[str] | set[str] | None]:
        """Every entry made: each subject of the layer's facts on the object layer, and each given."""
        if not self._complete:
            layer, get = self._object_layer, self.get
            for node, on in self._kg.by_subject:
                if on is layer:
                    get(node)
            for node in self._given:
                get(node)
            self._complete = True
        return self._made

    def __getitem__(self, node):
        found = self.get(node)
        if found is None:
            raise KeyError(node)
        return found

    def __contains__(self, node) -> bool:
        return self.get(node) is not None

    def __iter__(self):
        # A list: a `get` for another node while its user iterates would change `_made`.
        return iter([node for node, linked in self._all().items() if linked is not None])

    def __len__(self) -> int:
        return sum(linked is not None for linked in self._all().values())

    def __repr__(self) -> str:
        return f"LazyLinks({self._subject_layer.value} -> {self._object_layer.value}, {dict(self.items())!r})"


class StoredLinks(MutableMapping):
    """One side of a pair table read back from a cache: node → the nodes linked to it, each set
    made from its stored run of id positions when first asked for, then kept (and open to the
    links added beside the facts', as a plain dict side is)."""

    __slots__ = ("_runs", "_positions", "_ids", "_made")

    def __init__(self, runs: dict[str, tuple[int, int] | None], positions: list[int], ids: list[str]):
        self._runs = runs  # node → (start, end) in `positions`; None: added here, not stored
        self._positions = positions
        self._ids = ids
        self._made: dict[str, set[str]] = {}

    def __getitem__(self, node: str) -> set[str]:
        made = self._made.get(node)
        if made is None:
            start, end = self._runs[node] or (0, 0)  # KeyError for a node with no links
            made = self._made[node] = set(map(self._ids.__getitem__, self._positions[start:end]))
        return made

    def get(self, node, default=None):
        made = self._made.get(node)
        if made is not None:
            return made
        return self[node] if node in self._runs else default

    def __contains__(self, node) -> bool:
        return node in self._runs

    def __setitem__(self, node: str, linked: set[str]) -> None:
        self._runs.setdefault(node, None)
        self._made[node] = linked

    def __delitem__(self, node: str) -> None:
        del self._runs[node]
        self._made.pop(node, None)

    def __iter__(self):
        return iter(list(self._runs))

    def __len__(self) -> int:
        return len(self._runs)

    def __repr__(self) -> str:
        return f"StoredLinks({dict(self.items())!r})"


# One side of a pair table: node → linked nodes.
Links = Union[dict[str, set[str]], LazyLinks, StoredLinks]


def _order_key(kg: KnowledgeGraph, layer: Layer) -> Callable[[str], tuple]:
    """The sort key of ``layer_order``."""
    def key(v: str) -> tuple:
        if v.startswith("~"):  # a pseudo value (not a node): last, by name
            return (2, v)
        node = kg.nodes[v]
        if layer is Layer.os:
            platform_rank = {"linux": 0, "windows": 1, "wsl2": 2}.get(node.platform.value if node.platform else "", 3)
            family_rank = (node.family or "") != "ubuntu"
            try:
                ver = _Desc(parse_version(node.version or "0"))
            except Exception:
                ver = _Desc(parse_version("0"))
            return (0, platform_rank, family_rank, node.family or "", ver, v)
        if layer in (Layer.toolkit, Layer.framework) and node.version:
            try:
                return (0, _Desc(parse_version(node.version)), node.family or "", v)
            except Exception:
                pass
        if layer is Layer.app and node.version:
            # Releases of an app newest first, apps by name.
            try:
                return (1, (node.family or node.name).lower(), _Desc(parse_version(node.version)), v)
            except Exception:
                pass
        if layer is Layer.app:
            # A versionless node (what the project's current docs say) before its releases.
            return (1, (node.family or node.name).lower(), _Desc(parse_version("999999")), v)
        return (1, node.name.lower())
    return key


class _Desc:
    """Sorts versions newest first."""

    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __lt__(self, other: "_Desc") -> bool:
        return self.v > other.v

    def __eq__(self, other) -> bool:
        return self.v == other.v


def _positions(nodes: list[str], ordered: list[str]) -> list[int]:
    """Where each of ``ordered`` stands in ``nodes``."""
    where = {v: i for i, v in enumerate(nodes)}
    return [where[v] for v in ordered]


def _count(values: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))
