"""Words for explanations and fixes (text and JSON), from the answer data."""

from __future__ import annotations


from gpulane.cli.render_kb import describe_selector, source_citation
from gpulane.graph.kb import CompiledFact, KnowledgeGraph
from gpulane.graph.solver import Edge
from gpulane.model import LAYER_ORDER, Layer, Relation
from gpulane.queries.explain import Break, ExplainAnswer
from gpulane.queries.fix import FixAnswer
from gpulane.queries.results import hop_list

__all__ = ["explain_text", "explain_json", "fix_text", "fix_json", "break_reason"]

_VERDICT = {"supported": "✓ supported", "not_supported": "✗ not supported", "unknown": "? unknown",
            "builds_only": "~ builds for, not stated supported", "workaround": "✓ supported via workaround",
            "community": "✓ supported on community evidence"}
_MARK = {"ok": "✓", "no": "✗", "unknown": "?", "builds_only": "~"}
# Shared with the record renderer, so every verdict and edge mark has one wording.
VERDICT_WORDS, EDGE_MARKS = _VERDICT, _MARK
_KIND_WORDS = {"not_listed": "not listed in a list its source declares complete",
               "stated": "stated unsupported", "driver": "below the stated driver requirement",
               "vendor": "a build for another GPU vendor: known impossible",
               "builds_only": "compiled for, not stated supported: only a build list names it",
               "kernel": "the kernel asked about is not one the source lists",
               "unknown": "unknown: missing knowledge, not a known incompatibility"}
_COLUMN = 62


def _name(kg: KnowledgeGraph, node_id: str) -> str:
    node = kg.nodes.get(node_id)
    return node.name if node else node_id


def _headline(kg: KnowledgeGraph, answer: ExplainAnswer) -> str:
    plan = answer.plan
    parts = []
    for layer in LAYER_ORDER:
        if layer in plan.labels:
            pins = plan.problem.pins.get(layer)
            if pins and len(pins) == 1:
                parts.append(_name(kg, next(iter(pins))))
            elif layer is Layer.driver:
                parts.append(f"driver {plan.labels[layer]}")
            else:
                parts.append(plan.labels[layer])
    return " · ".join(parts)


citation = source_citation


def break_reason(kg: KnowledgeGraph, e: Edge, facts: list[CompiledFact], kind: str) -> str:
    """The break in layer terms, in plain words."""
    a, b = _name(kg, e.upper_node), _name(kg, e.lower_node)
    if e.detail and kind in ("driver", "stated", "vendor") and not facts:
        return e.detail
    if kind == "builds_only":
        lists = ", ".join(dict.fromkeys(cf.id for cf in e.builds[:2]))
        if e.detail:  # a toolkit carried by a build
            return f"{a} is {e.detail} ({lists}); no statement of {a} lists {b}"
        return f"{a} is compiled for {b} ({lists}), but the support statement does not list it"
    if kind == "kernel":
        return f"{a} on {b}: {e.detail}"
    if kind == "driver":
        return f"{a} {e.detail}; the plan has driver {e.lower_node}" if e.lower_node != "driver" else f"{a} {e.detail}"
    if kind == "unknown":
        if facts and e.detail:
            return f"{a}: {e.detail} ({describe_selector(kg, facts[0].fact.object)})"
        return f"no source in the knowledge base covers {a} with {b}"
    if not facts:
        return e.detail or "does not hold"
    cf = facts[0]
    subject_is_upper = e.upper_node in cf.subjects
    subj, other = (a, b) if subject_is_upper else (b, a)
    rel = cf.fact.relation
    if kind == "stated":
        verb = {Relation.runs_on: "does not run on", Relation.ships_kernels_for: "ships no kernels for"}.get(
            rel, "does not support")
        glibc = cf.fact.object.glibc
        other_node = kg.nodes.get(e.lower_node if subject_is_upper else e.upper_node)
        if glibc and glibc.startswith("<") and not glibc.startswith("<=") and other_node is not None and other_node.glibc:
            # say why: the statement is about the OS's C library, not the OS by name
            return f"{subj} {verb} {other} (it needs glibc {glibc.lstrip('<')} or newer; {other} has {other_node.glibc})"
        return f"{subj} {verb} {other}"
    if rel is Relation.ships_kernels_for:
        return f"{subj} ships no kernels for {other}"
    if rel is Relation.requires:
        return f"{subj} requires {describe_selector(kg, cf.fact.object)}"
    if rel in (Relation.built_with, Relation.bundles):
        return f"{subj} is built with {describe_selector(kg, cf.fact.object)}, not {other}"
    if rel is Relation.has_arch:
        return f"{subj} is {describe_selector(kg, cf.fact.object)}, not {other}"
    if cf.fact.object.ids is None:
        return f"{subj} is listed only with {describe_selector(kg, cf.fact.object)}, not {other}"
    return f"{other} is not in {subj}'s list"


def _grouped_citations(kg: KnowledgeGraph, facts: list[CompiledFact]) -> list[tuple[str, str | None, list[str]]]:
    """Facts grouped by the citation they share (one list in one document is one citation)."""
    groups: dict[str, tuple[str | None, list[str]]] = {}
    for cf in facts:
        cite = citation(kg, cf)
        src = kg.source_of(cf)
        groups.setdefault(cite, (src.url if src else None, []))[1].append(cf.id)
    return [(cite, url, ids) for cite, (url, ids) in groups.items()]


def _edge_label(kg: KnowledgeGraph, e: Edge) -> str:
    if (e.upper, e.lower) == (Layer.arch, Layer.gpu):
        return f"gpu {_name(kg, e.lower_node)} → arch {_name(kg, e.upper_node)}"
    if e.lower is Layer.driver:
        return f"{e.upper.value} {_name(kg, e.upper_node)} → driver"
    return f"{e.upper.value} {_name(kg, e.upper_node)} → {e.lower.value} {_name(kg, e.lower_node)}"


def _pad(left: str, right: str) -> str:
    return f"{left:<{_COLUMN}} {right}" if len(left) < _COLUMN else f"{left}  {right}"


def explain_text(kg: KnowledgeGraph, answer: ExplainAnswer) -> str:
    lines = [f"{_VERDICT[answer.status]}: {_headline(kg, answer)}"]
    path = answer.path
    broken = {(b.edge.upper, b.edge.lower): b for b in answer.breaks}
    shown_caveats: set[str] = set()  # each caveat is printed once, where it first applies
    if path is not None:
        chosen = set(answer.plan.labels)
        for e in sorted(path.edges, key=lambda e: (LAYER_ORDER.index(e.upper), LAYER_ORDER.index(e.lower))):
            if e.verdict == "ok" and not e.facts:
                continue
            b = broken.get((e.upper, e.lower))
            label = "  " + _edge_label(kg, e)
            if e.verdict == "ok":
                ids = ", ".join(cf.id for cf in e.facts[:2]) + (f" (+{len(e.facts) - 2})" if len(e.facts) > 2 else "")
                lines.append(_pad(label, f"✓ {ids}"))
                for c in [c for c in e.caveats if c not in shown_caveats][:1]:
                    shown_caveats.add(c)
                    lines.append(f"      caveat: {c}")
                continue
            assert b is not None
            lines.append(_pad(label, f"{_MARK[e.verdict]} {break_reason(kg, e, b.facts, b.kind)}"))
            if b.candidates:
                from gpulane.cli.render import limit

                n = limit(8, len(b.candidates))
                more = f" and {len(b.candidates) - n} more" if n < len(b.candidates) else ""
                lines.append(f"      (so for every one of {', '.join(_name(kg, c) for c in b.candidates[:n])}{more})")
            for cite, url, ids in _grouped_citations(kg, b.facts)[:2]:
                if b.kind == "not_listed" and len(ids) > 1:
                    head = f"a list of {len(ids)} entries ({ids[0]}, …)"
                else:
                    head = ids[0] if len(ids) == 1 else f"{ids[0]} and {len(ids) - 1} more"
                lines.append(f"      {head}: {cite}")
                if url:
                    lines.append(f"      {url}")
            lines.append(f"      ({_KIND_WORDS[b.kind]})")
            for cf in b.unmet[:1]:
                empty = [k for k, v in cf.fact.when.items() if v.ids is not None and not v.ids]
                if empty:
                    # a statement scoped to no node of a layer (a target list that names no card)
                    lines.append(f"      note: {cf.id} names the target, not any {empty[0].value}: it decides no "
                                 f"{empty[0].value}, and no statement naming this one is held")
                    continue
                when = "; ".join(f"{k.value} {describe_selector(kg, v)}" for k, v in cf.fact.when.items())
                lines.append(f"      note: {cf.id} would allow it only when {when}")
        unchosen = [h for h in hop_list(kg, path) if h["layer"] != "driver" and Layer(h["layer"]) not in chosen]
        if unchosen:
            lines.append("  path used: " + " · ".join(f"{h['layer']} {h['name']}" for h in hop_list(kg, path)))
            lines.append("    (layers you did not name are one example; `paths where ...` lists others)")
    for t in answer.backends:
        word = _VERDICT[t.status].split(":")[0]
        why = ""
        if t.reason is not None and t.status != "supported":
            why = f" — {_edge_label(kg, t.reason).strip()}: {break_reason(kg, t.reason, t.reason.facts, t.reason.kind or t.reason.verdict)}"
            if t.reason.facts:
                why += f" [{t.reason.facts[0].id}]"
        used = " (used above)" if answer.path is not None and t.path is answer.path else ""
        lines.append(f"  backend {_name(kg, t.node)}{used}: {word}{why}")
    if answer.verdict in ("supported", "builds_only"):
        for fid, text in [(fid, text) for fid, text in answer.caveats if text not in shown_caveats][:4]:
            shown_caveats.add(text)
            lines.append(f"  caveat ({fid}): {text}")
    if answer.conflict:
        words = " and ".join(f"{l.value} = {answer.plan.labels.get(l, '?')}" for l in answer.conflict.choices)
        cf_ids = [cf.id for cf in answer.conflict.facts]
        ids = (", ".join(cf_ids[:2]) + (f" and {len(cf_ids) - 2} more" if len(cf_ids) > 2 else "")) or "the breaks above"
        lines.append(f"  minimal conflict: {words} cannot hold together ({ids})")
    for w in answer.workarounds[:4]:
        cf = w.fact
        action = f"{cf.fact.action} — " if cf.fact.action else ""
        cond = "; ".join(f"{k.value} {describe_selector(kg, v)}" for k, v in cf.fact.when.items())
        cond = f" · only when {cond}" if cond else ""
        state = "makes this plan run" if w.verified else "not verified for this plan"
        subject = ", ".join(_name(kg, s) for s in sorted(cf.subjects)[:2])
        lines.append(f"  {'unofficial' if w.verified else 'also documented'} ({state}): {action}{subject}"
                     f" · {citation(kg, cf)}{cond} [{cf.id}]")
    for cf in answer.stale:
        lines.append(f"  stale: {cf.id} was reviewed {kg.reviewed(cf)} (over a year ago); check the source again")
    if not answer.complete:
        lines.append("  (the search stopped at its time bound; the answer may be incomplete)")
    if answer.verdict == "not_supported":
        lines.append("  next: gpulane fix ... for the smallest verified changes")
    return "\n".join(lines)


def _source_json(kg: KnowledgeGraph, cf: CompiledFact) -> dict:
    src = kg.source_of(cf)
    reviewed = kg.reviewed(cf)
    return {"id": cf.fact.source, "url": src.url if src else None, "title": src.title if src else None,
            "section": cf.fact.section, "version": src.version if src else None,
            "reviewed": reviewed.isoformat() if reviewed else None}


def _break_json(kg: KnowledgeGraph, b: Break) -> dict:
    e = b.edge
    first = b.facts[0] if b.facts else None
    out = {"edge": [e.upper.value, e.lower.value], "from": e.upper_node, "to": e.lower_node,
           "fact": first.id if first else None, "facts": [cf.id for cf in b.facts],
           "kind": "stated" if b.kind == "driver" else b.kind,
           "reason": break_reason(kg, e, b.facts, b.kind),
           "status": first.status.value if first else None,
           "source": _source_json(kg, first) if first else None}
    if b.kind == "driver":
        out["driver_requirement"] = True
    if b.kind == "builds_only":
        out["builds"] = [cf.id for cf in e.builds]
    if b.candidates:
        out["candidates"] = b.candidates
    return out


def explain_json(kg: KnowledgeGraph, answer: ExplainAnswer) -> dict:
    out = {"verdict": answer.verdict,
           "status": answer.status,
           "configuration": {l.value: answer.plan.labels[l] for l in LAYER_ORDER if l in answer.plan.labels},
           "path": hop_list(kg, answer.path) if answer.path else [],
           "edges": [{"edge": [e.upper.value, e.lower.value], "from": e.upper_node, "to": e.lower_node,
                      "verdict": e.verdict, "kind": e.kind, "facts": [cf.id for cf in e.facts]}
                     for e in (answer.path.edges if answer.path else [])],
           "breaks": [_break_json(kg, b) for b in answer.breaks],
           "conflict": ({"choices": [l.value for l in answer.conflict.choices],
                         "facts": [cf.id for cf in answer.conflict.facts]} if answer.conflict else None),
           "workarounds": [{"fact": w.fact.id, "status": w.fact.status.value, "action": w.fact.fact.action,
                            "verified": w.verified, "conditions": {k.value: v.model_dump(mode="json", exclude_none=True)
                                                                   for k, v in w.fact.fact.when.items()},
                            "source": _source_json(kg, w.fact)} for w in answer.workarounds],
           "stale": [{"fact": cf.id, "reviewed": kg.reviewed(cf).isoformat()} for cf in answer.stale],
           "caveats": [{"fact": fid, "text": text} for fid, text in answer.caveats],
           "backends": [{"app": t.node, "backend": kg.nodes[t.node].backend, "status": t.status,
                         "edge": [t.reason.upper.value, t.reason.lower.value] if t.reason else None,
                         "kind": (t.reason.kind or t.reason.verdict) if t.reason else None,
                         "facts": [cf.id for cf in t.reason.facts] if t.reason else []}
                        for t in answer.backends],
           "complete": answer.complete}
    return out


def fix_text(kg: KnowledgeGraph, answer: FixAnswer) -> str:
    lines = [explain_text(kg, answer.before).split("\n  next:")[0]]
    if answer.before.verdict == "supported":
        lines.append("nothing to fix: the plan is supported as it is")
        return "\n".join(lines)
    if not answer.fixes:
        tried = ", ".join("+".join(l.value for l in t) for t in answer.tried) or "nothing (every layer is kept)"
        lines.append(f"no verified change found (tried changing: {tried})")
        if not answer.complete:
            lines.append("(the search stopped at its bound)")
        return "\n".join(lines)
    size = min(f.size for f in answer.fixes)
    lines.append(f"smallest changes (verified, {size} change{'s' if size > 1 else ''} each):")
    for i, f in enumerate(answer.fixes, 1):
        parts = []
        for layer, ids in f.changes.items():
            was = answer.plan.labels.get(layer, "?")
            if layer is Layer.driver and not ids:
                parts.append(f"driver {was} → {f.forces.get(Layer.driver, 'another driver')}")
                continue
            from gpulane.cli.render import compact_names

            names = compact_names([_name(kg, x) for x in ids], shown=8)
            parts.append(f"{layer.value} {was} → {names}")
        tag = " (unofficial evidence)" if f.unofficial else ""
        lines.append(f"  {i}. {'; '.join(parts)}{tag}")
        forces = {l: v for l, v in f.forces.items() if l is not Layer.driver or Layer.driver not in f.changes}
        if forces:
            lines.append("       with " + " · ".join(f"{l.value} {v}" for l, v in forces.items()))
    if not answer.complete:
        lines.append("(more changes may exist: the search stopped at its bound)")
    return "\n".join(lines)


def fix_json(kg: KnowledgeGraph, answer: FixAnswer) -> dict:
    fixes = []
    for f in answer.fixes:
        changes = {}
        for layer, ids in f.changes.items():
            changes[layer.value] = {"from": answer.plan.labels.get(layer),
                                    "to": [{"id": x, "name": _name(kg, x)} for x in ids]}
        fixes.append({"changes": changes, "forces": {l.value: v for l, v in f.forces.items()},
                      "verified": True, "unofficial": f.unofficial, "path": hop_list(kg, f.path)})
    return {"verdict": answer.before.verdict, "before": explain_json(kg, answer.before), "fixes": fixes,
            "complete": answer.complete}
