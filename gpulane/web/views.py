"""Page data from the Python API: the same answers the command line words, as dictionaries for templates.

Nothing here decides a verdict: explain, fix and compare (gpulane.queries) do, and these
functions only arrange their answers (and the links between pages) for the templates.
"""

from __future__ import annotations

from gpulane.cli.render_compare import grid_view, mark_of, words_of
from gpulane.cli.render_explain import break_reason
from gpulane.cli.render_kb import describe_selector, fact_line, node_json, source_citation
from gpulane.errors import QueryError
from gpulane.graph.kb import CompiledFact, KnowledgeGraph
from gpulane.graph.names import normalise
from gpulane.model import LAYER_ORDER, Layer
from gpulane.queries.compare import CompareResult, break_facts, default_oses, default_rows, main_break, quote_name
from gpulane.queries.explain import ExplainAnswer, explain
from gpulane.queries.fix import FixAnswer, fix
from gpulane.queries.results import hop_list
from gpulane.queries.run import compile_query
from gpulane.web.links import Links

__all__ = ["CONFIG_KEYS", "explain_view", "compare_view", "node_view", "source_view", "error_view", "gpu_matches",
           "selector_choices", "config_statement"]

# The layers the selector and the shareable /explain URLs name, in path order.
CONFIG_KEYS = ("gpu", "os", "toolkit", "framework", "app")
_KIND_WORDS = {"not_listed": "not listed in a list its source declares complete", "stated": "stated unsupported",
               "driver": "below the stated driver requirement",
               "unknown": "unknown: missing knowledge, not a known incompatibility"}
_FACT_MARK = {"unsupported": "✗", "workaround": "~", "community": "~"}


def error_view(exc: QueryError) -> dict:
    """A query error as the page shows it: the message, the line with its caret, and the hint."""
    return {"message": exc.message, "rendered": exc.render(), "hint": exc.hint, "code": exc.code}


def config_statement(verb: str, params: dict[str, str]) -> str:
    """`explain gpu = "...", os = "..."` from the selector's fields (names quoted, never pasted raw)."""
    parts = [f"{key} = {quote_name(params[key])}" for key in CONFIG_KEYS if params.get(key)]
    if not parts:
        raise QueryError("choose a GPU (and an OS and an app)", code="empty_configuration")
    return f"{verb} " + ", ".join(parts)


def _name(kg: KnowledgeGraph, node_id: str | None) -> str:
    node = kg.nodes.get(node_id or "")
    return node.name if node else (node_id or "")


def _fact_ref(kg: KnowledgeGraph, cf: CompiledFact, links: Links) -> dict:
    src = kg.source_of(cf)
    return {"id": cf.id, "link": links.fact(cf.id, cf.fact.source), "source_link": links.source(cf.fact.source),
            "url": src.url if src else None, "citation": source_citation(kg, cf), "status": cf.status.value,
            "caveat": cf.fact.caveat}


def _chain(kg: KnowledgeGraph, answer: ExplainAnswer, links: Links) -> list[dict]:
    """The seven layers as boxes: the node on the path (or why none), chosen or not, touched by a break or not."""
    hops = {h["layer"]: h for h in hop_list(kg, answer.path)} if answer.path else {}
    broken = {l for b in answer.breaks for l in (b.edge.upper, b.edge.lower)}
    chosen = set(answer.plan.labels)
    boxes = []
    for layer in LAYER_ORDER:
        hop = hops.get(layer.value)
        node = hop.get("node") if hop else None
        state = "broken" if layer in broken and any(b.kind != "unknown" for b in answer.breaks
                                                    if layer in (b.edge.upper, b.edge.lower)) else (
            "gap" if layer in broken else "ok")
        boxes.append({"layer": layer.value, "name": hop["name"] if hop else "—", "node": node,
                      "link": links.node(node) if node else None, "chosen": layer in chosen,
                      "absent": hop is None, "state": state})
    return boxes


def _edges(kg: KnowledgeGraph, answer: ExplainAnswer, links: Links) -> list[dict]:
    path = answer.path
    if path is None:
        return []
    breaks = {(b.edge.upper, b.edge.lower): b for b in answer.breaks}
    out = []
    for e in sorted(path.edges, key=lambda e: (LAYER_ORDER.index(e.upper), LAYER_ORDER.index(e.lower))):
        if e.verdict == "ok" and not e.facts:
            continue
        b = breaks.get((e.upper, e.lower))
        lower_name = (path.driver_range.describe() if path.driver_facts and path.driver_range is not None else "any") \
            if e.lower is Layer.driver else _name(kg, e.lower_node)
        facts = break_facts(b) if b else list(e.facts)
        # An unknown edge has no evidence; a "not listed" edge is one list, shown by its first entry.
        shown = [] if (b and b.kind == "unknown") else facts[:1] if (b and b.kind == "not_listed") else facts[:3]
        out.append({"upper": e.upper.value, "lower": e.lower.value, "upper_name": _name(kg, e.upper_node),
                    "lower_name": lower_name, "verdict": e.verdict, "mark": {"ok": "✓", "no": "✗", "builds_only": "◐"}.get(e.verdict, "?"),
                    "reason": break_reason(kg, e, b.facts, b.kind) if b else None,
                    "kind": _KIND_WORDS.get(b.kind) if b else None,
                    "facts": [_fact_ref(kg, cf, links) for cf in shown], "more": max(0, len(facts) - len(shown)),
                    "caveats": list(e.caveats[:1]) if e.verdict == "ok" else []})
    # Breaking edges first: the one behind the minimal conflict, then the engine's order; then what holds.
    first = main_break(answer)
    order = [(b.edge.upper.value, b.edge.lower.value) for b in ([first] if first else []) + answer.breaks]
    out.sort(key=lambda d: order.index((d["upper"], d["lower"])) if (d["upper"], d["lower"]) in order else len(order))
    return out


def _fixes(kg: KnowledgeGraph, answer: FixAnswer, params: dict[str, str], links: Links) -> list[dict]:
    out = []
    for f in answer.fixes:
        changes = []
        new_params = dict(params)
        for layer, ids in f.changes.items():
            was = answer.plan.labels.get(layer, "")
            names = [_name(kg, i) for i in ids]
            if layer.value in CONFIG_KEYS and names:
                new_params[layer.value] = names[0]
            platforms = ""
            if layer is Layer.os:
                # Say which kind of OS the change is (Linux, WSL2) before the releases it lists.
                words = {"linux": "Linux", "windows": "Windows", "wsl2": "WSL2"}
                found = [kg.nodes[i].platform.value for i in ids if kg.nodes[i].platform is not None]
                platforms = " or ".join(words.get(p, p) for p in dict.fromkeys(found))
            changes.append({"layer": layer.value, "from": was, "to": names[:8], "more": max(0, len(names) - 8),
                            "platforms": platforms})
        forces = [{"layer": l.value, "what": v} for l, v in f.forces.items()
                  if l is not Layer.driver or Layer.driver not in f.changes]
        out.append({"changes": changes, "forces": forces, "unofficial": f.unofficial,
                    "link": links.explain(new_params), "params": new_params})
    return out


def _workarounds(kg: KnowledgeGraph, answer: ExplainAnswer, links: Links) -> list[dict]:
    out = []
    for w in answer.workarounds:
        cf = w.fact
        cond = "; ".join(f"{k.value} {describe_selector(kg, v)}" for k, v in cf.fact.when.items())
        out.append({"fact": _fact_ref(kg, cf, links), "verified": w.verified, "action": cf.fact.action,
                    "note": cf.fact.note, "subjects": ", ".join(_name(kg, s) for s in cf.fact.subjects[:3]),
                    "conditions": cond, "status": cf.status.value})
    return out


def explain_view(kg: KnowledgeGraph, params: dict[str, str], links: Links, with_fixes: bool = True,
                 show_workarounds: bool = False) -> dict:
    """The selector's answer for a configuration: verdict, the chain, the edges, fixes and workarounds."""
    text = config_statement("explain", params)
    plan = compile_query(kg, text)
    fixes: list[dict] = []
    if with_fixes:
        fix_plan = compile_query(kg, config_statement("fix", params) + (" keep gpu" if params.get("gpu") else ""))
        fixed = fix(kg, fix_plan)
        answer = fixed.before
        if answer.verdict != "supported":
            fixes = _fixes(kg, fixed, params, links)
    else:
        answer = explain(kg, plan)
    labels = answer.plan.labels
    headline = []
    for layer in LAYER_ORDER:
        if layer in labels:
            pins = answer.plan.problem.pins.get(layer)
            headline.append(_name(kg, next(iter(pins))) if pins and len(pins) == 1 else labels[layer])
    conflict = None
    if answer.conflict:
        conflict = {"choices": [{"layer": l.value, "label": labels.get(l, "?")} for l in answer.conflict.choices],
                    "facts": [_fact_ref(kg, cf, links) for cf in answer.conflict.facts[:3]]}
    status = getattr(answer, "status", answer.verdict)  # the engine's finer status, where it has one
    return {"statement": text, "verdict": answer.verdict, "status": status, "verdict_words": words_of(status),
            "mark": mark_of(status), "headline": " · ".join(headline), "chain": _chain(kg, answer, links),
            "edges": _edges(kg, answer, links), "fixes": fixes, "conflict": conflict,
            "workarounds": _workarounds(kg, answer, links), "show_workarounds": show_workarounds,
            "caveats": [{"fact": fid, "text": t} for fid, t in answer.caveats[:6]],
            "stale": [cf.id for cf in answer.stale], "complete": answer.complete,
            "example_path": bool(answer.path) and any(l not in labels for l in LAYER_ORDER
                                                      if answer.path and l in answer.path.values)}


def compare_view(kg: KnowledgeGraph, result: CompareResult, links: Links) -> dict:
    """The grid for the compare page: GPU groups over OS columns, cells that open their explanation."""
    view = grid_view(kg, result)
    groups: list[dict] = []
    for col in result.columns:
        if groups and groups[-1]["gpu"] == col.gpu:
            groups[-1]["span"] += 1
        else:
            groups.append({"gpu": col.gpu, "name": col.gpu_name, "link": links.node(col.gpu), "span": 1})
    columns = [{"os": col.os_label or "any OS", "absent": col.absent, "note": col.missing_note}
               for col in result.columns]
    rows = []
    for r, row in enumerate(result.rows):
        cells = []
        for c, col in enumerate(result.columns):
            v = view.cells[(r, c)]
            params = {"gpu": col.gpu_name}
            if col.os_label and not col.absent:
                params["os"] = col.os_label
            if row.name:
                params[row.layer.value] = row.name
            cells.append({"status": v.status, "mark": v.mark, "short": v.short, "build": v.build,
                          "reason": v.reason, "note": v.note, "sources": v.sources,
                          "words": words_of(v.status), "where": f"{row.label} on {col.gpu_name} · "
                                                                    f"{col.os_label or 'any OS'}",
                          "link": None if col.absent else links.explain(params), "params": params})
        rows.append({"label": row.label, "layer": row.layer.value, "cells": cells})
    sources = [{"n": n, "citation": s["citation"], "url": s["url"], "link": links.source(s["id"])}
               for n, s in enumerate(view.sources, 1)]
    return {"title": " vs ".join(name for _, name in result.gpus), "statement": result.text, "groups": groups,
            "columns": columns, "rows": rows, "notes": view.notes, "sources": sources,
            "messages": result.notes, "complete": result.complete}


def node_view(kg: KnowledgeGraph, node_id: str, links: Links) -> dict:
    """Every fact about a node, with its source."""
    node = kg.nodes[node_id]
    data = node_json(kg, node)
    attrs = []
    for key, value in data["attributes"].items():
        if key == "arch" and isinstance(value, list):
            attrs.append({"key": key, "value": ", ".join(_name(kg, a) for a in value),
                          "links": [{"name": _name(kg, a), "link": links.node(a)} for a in value]})
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list) else (
            ", ".join(f"{k}: {v}" for k, v in value.items()) if isinstance(value, dict) else value)
        attrs.append({"key": key, "value": shown, "links": []})
    attribute_sources = []
    for attr, src_id in ([("attributes", node.source)] if node.source else []) + list(node.attribute_sources.items()):
        src = kg.sources.get(src_id)
        if src:
            attribute_sources.append({"what": attr, "title": f"{src.publisher}: {src.title}", "url": src.url,
                                      "link": links.source(src_id), "reviewed": str(src.reviewed or "")})
    facts = []
    for cf in kg.facts_about(node_id):
        ref = _fact_ref(kg, cf, links)
        ref.update({"line": fact_line(kg, cf), "mark": _FACT_MARK.get(cf.status.value, "✓"),
                    "note": cf.fact.note, "section": cf.fact.section})
        facts.append(ref)
    return {"id": node.id, "name": node.name, "layer": node.layer.value, "aliases": node.aliases,
            "attributes": attrs, "attribute_sources": attribute_sources, "facts": facts, "note": node.note}


def source_view(kg: KnowledgeGraph, source_id: str, links: Links) -> dict:
    """A source and every fact (and node attribute) taken from it."""
    src = kg.sources[source_id]
    facts = []
    for cf in kg.facts:
        if cf.fact.source != source_id:
            continue
        subjects = [{"name": _name(kg, s), "link": links.node(s)} for s in cf.fact.subjects[:12]]
        objects = [{"name": _name(kg, o), "link": links.node(o)} for o in (cf.fact.object.ids or [])[:12]]
        facts.append({"id": cf.id, "anchor": f"fact-{cf.id}", "line": fact_line(kg, cf), "status": cf.status.value,
                      "mark": _FACT_MARK.get(cf.status.value, "✓"), "section": cf.fact.section,
                      "note": cf.fact.note, "caveat": cf.fact.caveat, "action": cf.fact.action,
                      "subjects": subjects, "objects": objects, "relation": cf.fact.relation.value,
                      "more_subjects": max(0, len(cf.fact.subjects) - 12)})
    nodes = [{"name": n.name, "link": links.node(n.id), "layer": n.layer.value}
             for n in sorted(kg.nodes.values(), key=lambda n: (n.layer.value, n.name))
             if n.source == source_id or source_id in n.attribute_sources.values()]
    return {"id": src.id, "title": src.title, "publisher": src.publisher, "url": src.url, "version": src.version,
            "reviewed": str(src.reviewed or ""), "note": src.note, "facts": facts, "nodes": nodes}


def gpu_matches(kg: KnowledgeGraph, text: str, limit: int = 12) -> list[dict]:
    """GPUs whose name or alias contains what was typed, best first (for search as you type)."""
    key = normalise(text)[:80]
    if not key:
        return []
    scored = []
    for node_id in kg.by_layer[Layer.gpu]:
        node = kg.nodes[node_id]
        names = [normalise(node.name), *(normalise(a) for a in node.aliases)]
        hits = [n.find(key) for n in names if key in n]
        if hits:
            scored.append((min(hits) > 0, len(node.name), node.name, node_id))
    scored.sort()
    return [{"id": i, "name": n} for _, _, n, i in scored[:limit]]


def selector_choices(kg: KnowledgeGraph) -> dict:
    """The OS, app and framework choices of the selector (families first, then single releases)."""
    oses = [kg.nodes[i].name for i in kg.by_layer[Layer.os]]
    preferred = [o for o in default_oses(kg) if o in oses]
    os_names = preferred + sorted(o for o in oses if o not in preferred)
    rows = default_rows(kg)
    apps = [{"value": r.name, "label": r.label + (" (any build)" if len(r.ids) > 1 else "")}
            for r in rows if r.layer is Layer.app]
    families = {r.name for r in rows}
    for node_id in sorted(kg.by_layer[Layer.app], key=lambda i: kg.nodes[i].name.lower()):
        node = kg.nodes[node_id]
        if len([i for i in kg.by_layer[Layer.app] if kg.nodes[i].family == node.family]) > 1 or \
                node.family not in families:
            apps.append({"value": node.name, "label": node.name})
    frameworks = [{"value": r.name, "label": r.label} for r in rows if r.layer is Layer.framework]
    return {"oses": os_names, "apps": apps, "frameworks": frameworks}
