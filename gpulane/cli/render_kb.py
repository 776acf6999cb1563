"""Words for knowledge-base objects: nodes, facts, sources (text and JSON)."""

from __future__ import annotations

import datetime as dt

from gpulane.graph.kb import CompiledFact, KnowledgeGraph
from gpulane.model import Layer, Node

_ATTRS = ("vendor", "family", "version", "vram_gb", "vram_sizes_gb", "virtual_function", "generic_name", "llvm_target", "compute_capability", "platform",
          "kernels", "glibc", "release_date", "layers")


def node_json(kg: KnowledgeGraph, node: Node) -> dict:
    """A node as JSON: id, layer, name, aliases and every attribute set."""
    out = {"id": node.id, "layer": node.layer.value, "name": node.name, "aliases": node.aliases}
    attrs = {}
    for a in _ATTRS:
        v = getattr(node, a)
        if v not in (None, [], {}):
            attrs[a] = v.value if hasattr(v, "value") else (
                {k.value: x for k, x in v.items()} if isinstance(v, dict) else
                v.isoformat() if isinstance(v, dt.date) else v)
    if node.layer is Layer.gpu:
        archs = kg.arch_of(node.id)
        if archs:
            attrs["arch"] = archs
            fam = kg.attribute(node.id, "family")
            if fam and "family" not in attrs:
                attrs["family"] = fam
    out["attributes"] = attrs
    out["source"] = node.source
    if node.attribute_sources:
        out["attribute_sources"] = dict(node.attribute_sources)
    if node.note:
        out["note"] = node.note
    return out


def fact_json(kg: KnowledgeGraph, cf: CompiledFact) -> dict:
    """A fact as JSON, with its source and review date."""
    f = cf.fact
    src = kg.source_of(cf)
    reviewed = kg.reviewed(cf)
    out = {
        "id": f.id,
        "relation": f.relation.value,
        "subject": kg.subjects_of(f),
        "object": f.object.model_dump(mode="json", exclude_none=True),
        "status": f.status.value,
        "exhaustive": cf.exhaustive,
        "source": {"id": f.source, "url": src.url if src else None, "title": src.title if src else None,
                   "version": src.version if src else None,
                   "reviewed": reviewed.isoformat() if reviewed else None},
    }
    if f.when:
        out["when"] = {k.value: v.model_dump(mode="json", exclude_none=True) for k, v in f.when.items()}
    for key in ("section", "note", "caveat", "action"):
        if getattr(f, key):
            out[key] = getattr(f, key)
    return out


def describe_selector(kg: KnowledgeGraph, sel) -> str:
    """A selector in words: names for ids, 'attr spec' pairs otherwise."""
    if sel.ids is not None:
        if not sel.ids:
            return "none named (the statement names no node of this layer)"
        names = [kg.nodes[i].name if i in kg.nodes else i for i in sel.ids]
        if len(names) > 8:
            return ", ".join(names[:8]) + f" (+{len(names) - 8} more)"
        return ", ".join(names)
    parts = []
    for key in ("vendor", "family", "platform", "segment", "backend"):
        if getattr(sel, key):
            v = getattr(sel, key)
            parts.append(f"{key} {getattr(v, 'value', v)}")
    if sel.version:
        parts.append(f"{(sel.layer.value + ' ') if sel.layer else ''}version {sel.version}")
    if sel.compute_capability:
        parts.append(f"compute capability {sel.compute_capability}")
    if sel.glibc:
        parts.append(f"glibc {sel.glibc}")
    return " · ".join(parts)


def fact_line(kg: KnowledgeGraph, cf: CompiledFact, perspective: str | None = None) -> str:
    """One line for a fact: subject relation object [when ...] (status)."""
    f = cf.fact
    subjects = kg.subjects_of(f)
    if f.subject_selector is not None:
        subj = f"{describe_selector(kg, f.subject_selector)} ({len(subjects)} releases)"
    else:
        subj = ", ".join(kg.nodes[s].name if s in kg.nodes else s for s in subjects[:4])
        if len(subjects) > 4:
            subj += f" (+{len(subjects) - 4})"
    text = f"{subj} {f.relation.value.replace('_', ' ')} {describe_selector(kg, f.object)}"
    if f.when:
        text += " when " + "; ".join(f"{k.value} {describe_selector(kg, v)}" for k, v in f.when.items())
    return text


_STATUS_WORDS = {"supported": "supported", "deprecated": "deprecated", "unsupported": "stated unsupported",
                 "workaround": "workaround (unofficial)", "community": "community report (unofficial)"}


def source_citation(kg: KnowledgeGraph, cf: CompiledFact) -> str:
    """'Publisher: title, section · status · reviewed DATE' for a fact."""
    src = kg.source_of(cf)
    reviewed = kg.reviewed(cf)
    title = f"{src.publisher}: {src.title}" if src else (cf.fact.source or "no source")
    section = f", {cf.fact.section}" if cf.fact.section else ""
    date = f" · reviewed {reviewed.isoformat()}" if reviewed else ""
    return f"{title}{section} · {_STATUS_WORDS[cf.status.value]}{date}"


def age_days(reviewed: dt.date | None, today: dt.date | None = None) -> int | None:
    if reviewed is None:
        return None
    return ((today or dt.date.today()) - reviewed).days
