"""Knowledge-base checks: what `gpulane kb check` reports, one line each."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from gpulane.graph.compat import build_target_kind
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.names import normalise
from gpulane.model import Origin
from gpulane.model import ALWAYS_EXHAUSTIVE, OFFICIAL_POSITIVE, Layer, Relation, Status

__all__ = ["Problem", "check_graph", "STALE_AFTER_DAYS"]

STALE_AFTER_DAYS = 365


@dataclass(frozen=True)
class Problem:
    """One problem: an error blocks loading, a warning does not."""

    severity: str  # "error" | "warning"
    origin: Origin | None
    message: str

    def __str__(self) -> str:
        where = f"{self.origin}: " if self.origin else ""
        return f"{self.severity}: {where}{self.message}"


def check_graph(kg: KnowledgeGraph, today: dt.date | None = None) -> list[Problem]:
    """Every problem of a knowledge base, errors first, in file order."""
    today = today or dt.date.today()
    kb = kg.kb
    problems: list[Problem] = []

    def add(severity: str, kind: str, index: int, message: str) -> None:
        problems.append(Problem(severity, kb.origin(kind, index), message))

    # Duplicate ids, per kind.
    for kind, items in (("sources", kb.sources), ("nodes", kb.nodes), ("facts", kb.facts)):
        written = [item.id for item in items]
        if len(set(written)) == len(written):  # none repeated (the usual case): no pass item by item
            continue
        first: dict[str, int] = {}
        word = kind[:-1]
        for i, item in enumerate(items):
            if item.id in first:
                add("error", kind, i, f"{word} '{item.id}': duplicate id (first defined at {kb.origin(kind, first[item.id])})")
            else:
                first[item.id] = i

    # Nodes: sources and alias collisions within a layer.
    seen_keys: dict[tuple[Layer, str], str] = {}
    for i, node in enumerate(kb.nodes):
        if not node.source:
            add("error", "nodes", i, f"node '{node.id}': no source")
        elif node.source not in kg.sources:
            add("error", "nodes", i, f"node '{node.id}': source '{node.source}' is not defined")
        for attr, src_id in node.attribute_sources.items():
            if src_id not in kg.sources:
                add("error", "nodes", i, f"node '{node.id}': source '{src_id}' of {attr} is not defined")
            if not hasattr(node, attr) or getattr(node, attr) in (None, [], {}):
                add("error", "nodes", i, f"node '{node.id}': attribute_sources names {attr}, which the node does not set")
        if node.generic_name and (node.vram_gb is not None or node.vram_sizes_gb):
            add("error", "nodes", i, f"node '{node.id}': generic_name (a family name, no single product) "
                                     "cannot state a memory size")
        if node.generic_name and node.layer is not Layer.gpu:
            add("error", "nodes", i, f"node '{node.id}': generic_name is for GPU nodes only")
        for name in {node.name, *node.aliases}:
            key = (node.layer, normalise(name))
            other = seen_keys.get(key)
            if other and other != node.id:
                add("error", "nodes", i, f"node '{node.id}': name or alias '{name}' is also used by '{other}'")
            else:
                seen_keys[key] = node.id

    for i, src in enumerate(kb.sources):
        if src.reviewed is None:
            add("error", "sources", i, f"source '{src.id}': no reviewed date")

    # Facts: references, layers, sources, dates. (Each fact's selectors are checked with set and
    # list passes, the messages made only for a problem: a cold start checks every fact.)
    nodes, sources = kg.nodes, kg.sources
    # Reviewed more than STALE_AFTER_DAYS days before today (dates count whole days).
    stale_before = today - dt.timedelta(days=STALE_AFTER_DAYS)
    for i, fact in enumerate(kb.facts):
        subjects = kg.subjects_of(fact)
        if not subjects and fact.subject_selector is not None:
            add("error", "facts", i, f"fact '{fact.id}': subject selector matches no node")
        if len(subjects) != 1 or subjects[0] not in nodes:  # (one subject that is a node: nothing to say)
            subject_layers = {nodes[s].layer for s in subjects if s in nodes}
            for s in subjects:
                if s not in nodes:
                    add("error", "facts", i, f"fact '{fact.id}': subject '{s}' is not a node")
            if len(subject_layers) > 1:
                add("error", "facts", i, f"fact '{fact.id}': subjects are in different layers "
                                         f"({', '.join(sorted(l.value for l in subject_layers))})")
        obj = fact.object
        ids = obj.ids
        # A selector by attributes names no id and (for the object) one layer at most; one id
        # that is a node of the selector's layer, if it names one, is fine too.
        if ids is not None and not (len(ids) == 1 and ids[0] in nodes
                                    and (not obj.layer or obj.layer is nodes[ids[0]].layer)):
            for message in _selector_problems(nodes, fact, obj, None):
                add("error", "facts", i, message)
        for key, sel in fact.when.items():
            if sel.ids is not None or (sel.layer and sel.layer is not key):
                for message in _selector_problems(nodes, fact, sel, key):
                    add("error", "facts", i, message)
        if fact.relation is Relation.has_arch:
            obj_layer = kg.fact_by_id.get(fact.id)
            if obj_layer is not None and obj_layer.target.layer is not Layer.arch:
                add("error", "facts", i, f"fact '{fact.id}': has_arch must point at an arch")
        source = sources.get(fact.source)
        if not fact.source:
            add("error", "facts", i, f"fact '{fact.id}': no source")
        elif source is None:
            add("error", "facts", i, f"fact '{fact.id}': source '{fact.source}' is not defined")
        reviewed = fact.reviewed or (source.reviewed if source is not None else None)
        if source is not None and reviewed is None:
            add("error", "facts", i, f"fact '{fact.id}': no review date (neither the fact nor its source has one)")
        elif reviewed and reviewed < stale_before:
            add("warning", "facts", i, f"fact '{fact.id}': reviewed {reviewed}, {(today - reviewed).days} days ago")

    problems.extend(_step_problems(kg, today))

    # Selectors that pick nothing are almost always typos.
    # A version spec that picks no release of a family the knowledge base has is a gap in
    # coverage (vLLM 0.4.3 pins torch 2.3.0, which has no node yet), not a typo.
    # (Only a fact whose object names no node the knowledge base has, names_known false, can be
    # one: the others are passed over without reading their fact.)
    for cf in kg.facts:
        if cf.names_known:
            continue
        if cf.target.ids is not None and not (cf.target.ids & kg.nodes.keys()) and cf.fact.object.ids is None:
            unversioned = cf.fact.object.model_copy(update={"version": None}) if cf.fact.object.version else None
            if unversioned is not None and cf.fact.object.family and kg.select(unversioned).ids:
                continue
            add("warning", "facts", cf.index, f"fact '{cf.id}': object selector matches no node")

    problems.extend(_scope_problems(kg))
    problems.extend(_listed_names(kg))
    problems.extend(_contradictions(kg))
    order = {"error": 0, "warning": 1}
    return sorted(problems, key=lambda p: (order[p.severity], str(p.origin or "")))


def _selector_problems(nodes: dict, fact, sel, key: Layer | None) -> list[str]:
    """What is wrong with a fact's object selector (``key`` None) or its `when` selector of layer
    ``key``: an id that is no node (a build list may name NVIDIA build targets, and a build or
    support list AMD LLVM targets the knowledge base has no arch node for), and layers mixed
    (the ids' layers, the selector's own and the `when` key's)."""
    ids = sel.ids or ()
    found = [nodes[ref].layer for ref in ids if ref in nodes]
    where = "object" if key is None else f"when.{key.value}"
    out = []
    if len(found) != len(ids):
        for ref in ids:
            if ref not in nodes \
                    and not (key is None and fact.relation is Relation.ships_kernels_for and build_target_kind(ref)) \
                    and not (key is None and _unmodelled_llvm_target(fact, ref)):
                out.append(f"fact '{fact.id}': {where} '{ref}' is not a node")
    layers = set(found)
    if key is not None:
        layers.add(key)  # a `when` key names the layer it conditions
    if sel.layer:
        layers.add(sel.layer)
    if len(layers) > 1:
        out.append(f"fact '{fact.id}': {where} mixes layers ({', '.join(sorted(l.value for l in layers))})")
    return out


def _scope_problems(kg: KnowledgeGraph) -> list[Problem]:
    """Evidence whose reach is not stated: a complete list that does not say what it is complete
    over, a build list where its subject has support statements none of which covers the
    build's scope, and a GPU without an architecture."""
    out: list[Problem] = []

    def err(cf, message: str) -> None:
        out.append(Problem("error", kg.origin_of_fact(cf), f"fact '{cf.id}': {message}"))

    # (Read from the compiled facts, the fact models only where needed: a compiled fact is
    # exhaustive when its fact says so or its relation always is, and has a domain exactly when
    # its fact states one.)
    for cf in kg.facts:
        if cf.exhaustive and cf.relation not in ALWAYS_EXHAUSTIVE:  # the fact's own `exhaustive: true`
            if cf.fact.domain is None:
                err(cf, "a complete list (exhaustive: true) must state its domain, the nodes it is complete "
                        "over (e.g. domain: {layer: gpu, vendor: amd, segment: consumer})")
            elif cf.domain is not None and cf.domain.layer is not cf.target.layer:
                err(cf, f"domain is in layer {cf.domain.layer.value}, the object in {cf.target.layer.value}")
        elif cf.domain is not None and not cf.exhaustive:
            err(cf, "domain is only meaningful on a complete list (exhaustive: true)")

    # Build lists and the support statements beside them.
    statements: dict[str, list] = {}
    builds: dict[str, list] = {}
    for cf in kg.facts:
        if cf.target.layer not in (Layer.arch, Layer.gpu) or cf.status not in OFFICIAL_POSITIVE:
            continue
        table = builds if cf.is_build_list else statements if cf.relation is Relation.supports else None
        if table is not None and cf.subject_layer is not Layer.gpu:
            for s in cf.subjects:
                table.setdefault(s, []).append(cf)
    for subject, build_facts in builds.items():
        own = statements.get(subject, [])
        for cf in build_facts:
            # Where the subject's publisher states support, a build list outside every
            # statement's scope would read "compiled for" as "supported".
            if own and not any(_scopes_meet(cf, st) for st in own):
                err(cf, f"build list of {subject} with no support statement of {subject} in its scope "
                        f"(statements: {', '.join(st.id for st in own[:3])})")

    has_arch = {s for cf in kg.facts if cf.relation is Relation.has_arch for s in cf.subjects}
    for i, node in enumerate(kg.kb.nodes):
        if node.layer is Layer.gpu and node.id not in has_arch:
            out.append(Problem("error", kg.kb.origin("nodes", i),
                               f"node '{node.id}': a GPU without an architecture (add a has_arch fact)"))
    return out


def _scopes_meet(a, b) -> bool:
    """Whether two facts' `when` conditions can hold together (same layers pick common nodes)."""
    by_layer = {c.layer: c for c in a.when}
    for c in b.when:
        other = by_layer.get(c.layer)
        if other is not None and other.ids is not None and c.ids is not None and not (other.ids & c.ids):
            return False
    return True


# `{layer.attribute}` in a step's command, and the attributes a command may name.
STEP_PLACEHOLDER = re.compile(r"(?<!\$)\{(\w+)\.(\w+)\}")
STEP_PLACEHOLDERS = {("arch", "llvm_target"), ("framework", "local"), ("framework", "public")}


def _step_problems(kg: KnowledgeGraph, today: dt.date) -> list[Problem]:
    """Set-up steps: ids, sources, selectors, alternatives and command placeholders."""
    kb = kg.kb
    out: list[Problem] = []
    ids = {step.id for step in kb.steps}
    first: dict[str, int] = {}
    for i, step in enumerate(kb.steps):
        label = f"step '{step.id}'"

        def add(severity: str, message: str) -> None:
            out.append(Problem(severity, kb.origin("steps", i), f"{label}: {message}"))

        if step.id in first:
            add("error", f"duplicate id (first defined at {kb.origin('steps', first[step.id])})")
        else:
            first[step.id] = i
        if not step.source:
            add("error", "no source")
        elif step.source not in kg.sources:
            add("error", f"source '{step.source}' is not defined")
        else:
            reviewed = step.reviewed or kg.sources[step.source].reviewed
            if reviewed is None:
                add("error", "no review date (neither the step nor its source has one)")
            elif (today - reviewed).days > STALE_AFTER_DAYS:
                add("warning", f"reviewed {reviewed}, {(today - reviewed).days} days ago")
        for layer, sel in step.applies_to.items():
            for ref in sel.ids or []:
                if ref not in kg.nodes:
                    add("error", f"applies_to.{layer.value} '{ref}' is not a node")
                elif kg.nodes[ref].layer is not layer:
                    add("error", f"applies_to.{layer.value} '{ref}' is a {kg.nodes[ref].layer.value} node")
        if step.alternative_to is not None and step.alternative_to not in ids:
            add("error", f"alternative_to '{step.alternative_to}' is not a step")
        for match in STEP_PLACEHOLDER.finditer(step.command or ""):
            if (match.group(1), match.group(2)) not in STEP_PLACEHOLDERS:
                add("error", f"placeholder '{match.group(0)}' is not one of "
                             + ", ".join(f"{{{a}.{b}}}" for a, b in sorted(STEP_PLACEHOLDERS)))
    return out


_SELECTOR_ATTRS = ("vendor", "family", "version", "platform", "compute_capability", "segment", "backend", "glibc")


def _narrows(narrow, broad) -> bool:
    """Whether attribute selector `narrow` keeps every attribute of `broad` and adds one."""
    if narrow.ids is not None or broad.ids is not None or narrow.layer != broad.layer:
        return False
    kept = all(getattr(broad, a) is None or getattr(narrow, a) == getattr(broad, a) for a in _SELECTOR_ATTRS)
    added = any(getattr(narrow, a) is not None and getattr(broad, a) is None for a in _SELECTOR_ATTRS)
    return kept and added


# An AMD LLVM target as a build or support list writes it (gfx1010): the list is read
# whole from its source, and a target the knowledge base has no arch node for yet simply
# matches nothing until one is added.
_LLVM_TARGET = re.compile(r"gfx\d{3,4}[a-f]?")


def _unmodelled_llvm_target(fact, ref: str) -> bool:
    return fact.relation in (Relation.ships_kernels_for, Relation.supports) and bool(_LLVM_TARGET.fullmatch(ref))


def _contradictions(kg: KnowledgeGraph) -> list[Problem]:
    """The same edge stated both supported and unsupported under the same conditions."""
    def polarity(cf) -> str | None:
        if cf.target.ids is None:
            return None
        return "no" if cf.status is Status.unsupported else ("yes" if cf.status in OFFICIAL_POSITIVE else None)

    def when_key(cf) -> tuple:
        if not cf.when:
            return ()
        return tuple(sorted((c.layer.value, tuple(sorted(c.ids or ()))) for c in cf.when))

    # Only an edge an unsupported fact states can be contradicted: those edges are indexed
    # first (per subject and conditions), so the positive facts' many pairs are intersected
    # with them as sets instead of each being recorded (a third of a cold start otherwise).
    denied: dict[tuple, set[str]] = {}
    for cf in kg.facts:
        if polarity(cf) == "no":
            wk = when_key(cf)
            for s in cf.subjects:
                denied.setdefault((s, wk), set()).update(cf.target.ids)
    if not denied:
        return []
    stated: dict[tuple, list] = {}
    denied_subjects = {s for s, _ in denied}
    for cf in kg.facts:
        if denied_subjects.isdisjoint(cf.subjects):  # (most facts: no edge of theirs is denied)
            continue
        pol = polarity(cf)
        if pol is None:
            continue
        wk = when_key(cf)
        for s in cf.subjects:
            objects = denied.get((s, wk))
            if objects:
                for o in sorted(objects & cf.target.ids):
                    stated.setdefault((s, o, wk), []).append((pol, cf))
    out = []
    for (s, o, _), entries in stated.items():
        no = [cf for pol, cf in entries if pol == "no"]
        # a broad statement with a narrower exception ("runs on Linux" but not where glibc < 2.28)
        yes = [cf for pol, cf in entries if pol == "yes" and not any(_narrows(n.fact.object, cf.fact.object) for n in no)]
        if yes and no:
            out.append(Problem("error", kg.origin_of_fact(no[0]),
                               f"fact '{no[0].id}' says {s} → {o} is unsupported, but fact '{yes[0].id}' says it is supported"))
    return out


def _gpus_named(kg: KnowledgeGraph, name: str) -> set[str]:
    """The GPU nodes a listed name stands for (a leading vendor word may be dropped)."""
    for text in (name, *(name[len(w):] for w in ("AMD ", "NVIDIA ") if name.startswith(w))):
        ids = {i for r in kg.names.resolve(text, Layer.gpu) for i in r.ids}
        if ids:
            return ids
    return set()


def _listed_names(kg: KnowledgeGraph) -> list[Problem]:
    """Each name a GPU list gives must name a GPU in the fact's object; names said to be
    missing from the catalogue must still be missing."""
    out = []
    for cf in kg.facts:
        fact = cf.fact
        if not fact.listed and not fact.unmatched:  # most facts
            continue
        targets = cf.target.ids or frozenset()
        for name in fact.listed:
            ids = _gpus_named(kg, name)
            if not ids:
                out.append(Problem("error", kg.origin_of_fact(cf),
                                   f"fact '{cf.id}': listed name '{name}' names no GPU in the knowledge base"))
            elif not ids & targets:
                out.append(Problem("error", kg.origin_of_fact(cf),
                                   f"fact '{cf.id}': listed name '{name}' names {', '.join(sorted(ids))}, "
                                   "which the object leaves out"))
        for name in fact.unmatched:
            ids = _gpus_named(kg, name)
            if ids:
                out.append(Problem("error", kg.origin_of_fact(cf),
                                   f"fact '{cf.id}': '{name}' is said to match no GPU but names "
                                   f"{', '.join(sorted(ids))}; list it and add it to the object"))
    return out
