"""The pre-purchase compatibility record, as data: the configuration layer by
layer, what the user states about their use, each supporting statement with
its source and review date, the verdict, and a test checklist to fill in.

Worded by gpulane/cli/render_record.py (Markdown, JSON, Mermaid). It lives with the command line
because its entries are already worded (break reasons, selectors) by the renderers.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from gpulane.cli.render_explain import break_reason
from gpulane.cli.render_kb import describe_selector
from gpulane.graph.check import STALE_AFTER_DAYS
from gpulane.graph.kb import CompiledFact, KnowledgeGraph
from gpulane.graph.solver import is_pseudo
from gpulane.model import LAYER_ORDER, Layer, Relation
from gpulane.queries.explain import ExplainAnswer, explain
from gpulane.queries.results import hop_list
from gpulane.queries.run import compile_query

__all__ = ["Record", "LayerEntry", "Statement", "EdgeEntry", "SetupEntry", "build_record", "record_for", "add_setup",
           "CHECKLIST"]

CHECKLIST = ("model load", "prompt processing", "generation", "memory use", "second cold start")


@dataclass
class LayerEntry:
    """One layer of the path: the node (or why none), what the user wrote, and its details."""

    layer: str
    name: str
    node: str | None
    chosen: str | None  # as the user wrote it, when they named this layer
    details: dict[str, str] = field(default_factory=dict)


@dataclass
class EdgeEntry:
    """One checked pair of layers on the path, with its mark and facts."""

    upper: str
    lower: str
    upper_name: str
    lower_name: str
    verdict: str  # ok | no | unknown
    facts: list[str]
    reason: str | None = None


@dataclass
class Statement:
    """A supporting (or breaking) statement: the fact and where it comes from."""

    fact: str
    status: str
    title: str
    url: str | None
    section: str | None
    reviewed: str | None
    stale: bool = False


@dataclass
class SetupEntry:
    """One set-up step of the record's "set-up" section, with its citation."""

    step: str
    layer: str
    also_sets_up: list[str]
    command: str | None
    instruction: str | None
    status: str
    source: str
    url: str | None
    section: str | None
    reviewed: str | None
    alternatives: list[str] = field(default_factory=list)
    caveat: str | None = None


@dataclass
class Record:
    verdict: str
    configuration: dict[str, str]
    layers: list[LayerEntry]
    edges: list[EdgeEntry]
    requirements: list[str]
    stated: dict[str, str | None]
    statements: list[Statement]
    caveats: list[tuple[str, str]]
    checklist: tuple[str, ...] = CHECKLIST
    # The set-up section: the path the steps are for, the steps, and the layers without one.
    setup_path: str | None = None
    setup: list[SetupEntry] = field(default_factory=list)
    setup_notes: list[str] = field(default_factory=list)


def _name(kg: KnowledgeGraph, node_id: str) -> str:
    node = kg.nodes.get(node_id)
    return node.name if node else node_id


def _details(kg: KnowledgeGraph, layer: Layer, node_id: str | None, hop: dict) -> dict[str, str]:
    if node_id is None:
        return {}
    node = kg.nodes[node_id]
    out: dict[str, str] = {}
    if layer is Layer.gpu:
        if node.vendor:
            out["vendor"] = {"amd": "AMD", "nvidia": "NVIDIA", "intel": "Intel"}.get(node.vendor, node.vendor)
        if node.vram_gb:
            out["VRAM"] = f"{node.vram_gb:g} GB"
        elif node.vram_sizes_gb:
            out["VRAM"] = " or ".join(f"{size:g}" for size in sorted(node.vram_sizes_gb)) + " GB"
    elif layer is Layer.arch:
        if node.family:
            out["family"] = node.family
        if node.llvm_target:
            out["LLVM target"] = node.llvm_target
        if node.compute_capability:
            out["compute capability"] = node.compute_capability
    elif layer is Layer.os:
        if node.platform:
            out["platform"] = node.platform.value
        if node.kernels:
            out["kernels"] = ", ".join(node.kernels)
    elif node.version:
        out["version"] = node.version
    return out


def build_record(kg: KnowledgeGraph, answer: ExplainAnswer, model: str | None = None,
                 quantization: str | None = None, context: str | None = None,
                 today: dt.date | None = None) -> Record:
    """Assemble the record from an explanation (any verdict)."""
    today = today or dt.date.today()
    plan = answer.plan
    path = answer.path
    labels = {l.value: plan.labels[l] for l in LAYER_ORDER if l in plan.labels}
    layers: list[LayerEntry] = []
    edges: list[EdgeEntry] = []
    facts: list[CompiledFact] = []
    requirements: list[str] = []
    if path is not None:
        for hop in hop_list(kg, path):
            layer = Layer(hop["layer"])
            layers.append(LayerEntry(hop["layer"], hop["name"], hop["node"], plan.labels.get(layer),
                                     _details(kg, layer, hop["node"], hop)))
        breaks = {(b.edge.upper, b.edge.lower): b for b in answer.breaks}
        for e in sorted(path.edges, key=lambda e: (LAYER_ORDER.index(e.upper), LAYER_ORDER.index(e.lower))):
            if e.verdict == "ok" and not e.facts:
                continue
            b = breaks.get((e.upper, e.lower))
            edge_facts = list(b.facts) if b else list(e.facts)
            reason = break_reason(kg, e, b.facts, b.kind) if b else None
            lower_name = (path.driver_range.describe() if path.driver_facts and path.driver_range is not None
                          else "any") if e.lower is Layer.driver else _name(kg, e.lower_node)
            edges.append(EdgeEntry(e.upper.value, e.lower.value, _name(kg, e.upper_node), lower_name, e.verdict,
                                   [cf.id for cf in edge_facts], reason))
            facts.extend(cf for cf in edge_facts if cf not in facts)
            for cf in e.facts:
                if cf.fact.relation is Relation.requires and e.upper is Layer.app and e.verdict == "ok":
                    text = f"{_name(kg, e.upper_node)} requires {describe_selector(kg, cf.fact.object)}"
                    if text not in requirements:
                        requirements.append(text)
        for cf in path.driver_facts:
            if cf not in facts:
                facts.append(cf)
        app = path.values.get(Layer.app)
        if app and not is_pseudo(app):
            # Extensions the app needs (app → app requirements) are not path edges; list them apart.
            for cf in kg.by_subject.get((app, Layer.app), []):
                if cf.fact.relation is Relation.requires:
                    text = f"{_name(kg, app)} requires {describe_selector(kg, cf.fact.object)}"
                    if text not in requirements:
                        requirements.append(text)
    statements = []
    for cf in facts:
        src = kg.source_of(cf)
        reviewed = kg.reviewed(cf)
        statements.append(Statement(cf.id, cf.status.value, f"{src.publisher}: {src.title}" if src else
                                    (cf.fact.source or "no source"), src.url if src else None, cf.fact.section,
                                    reviewed.isoformat() if reviewed else None,
                                    bool(reviewed and (today - reviewed).days > STALE_AFTER_DAYS)))
    stated = {"model format": model, "quantization": quantization, "context": context}
    return Record(answer.verdict, labels, layers, edges, requirements, stated, statements, answer.caveats)


def record_for(kg: KnowledgeGraph, config_text: str, model: str | None = None, quantization: str | None = None,
               context: str | None = None, today: dt.date | None = None) -> Record:
    """Plan, explain and assemble the record for a configuration written in the query language."""
    plan = compile_query(kg, "explain " + config_text)
    record = build_record(kg, explain(kg, plan), model, quantization, context, today)
    if record.verdict == "supported":
        add_setup(kg, record, config_text)
    return record


def add_setup(kg: KnowledgeGraph, record: Record, config_text: str) -> None:
    """Fill the record's set-up section from the same steps `gpulane setup` prints."""
    from gpulane.cli.render_setup import note_words
    from gpulane.queries.setup import setup

    answer = setup(kg, compile_query(kg, "setup " + config_text))
    if not answer.supported:
        return
    record.setup_path = " · ".join(f"{h['layer']} {h['name']}" for h in hop_list(kg, answer.path))
    for ps in answer.steps:
        src = kg.sources.get(ps.step.source or "")
        reviewed = ps.step.reviewed or (src.reviewed if src else None)
        record.setup.append(SetupEntry(
            ps.step.id, ps.layer.value, [l.value for l in ps.step.also_sets_up], ps.command, ps.step.instruction,
            ps.step.status.value, f"{src.publisher}: {src.title}" if src else (ps.step.source or "no source"),
            src.url if src else None, ps.step.section, reviewed.isoformat() if reviewed else None,
            [alt.command for alt in ps.alternatives if alt.command], ps.step.caveat))
    record.setup_notes = [note_words(kg, n) for n in answer.notes]
