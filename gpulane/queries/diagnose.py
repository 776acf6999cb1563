"""Error text → the signatures it matches, the edges they implicate, and (with a
configuration) the breaking edge among them and the fixes — as data.

Matching is case-insensitive regex search over the catalogue's patterns;
named groups are captured (the sm_XXX in PyTorch's warning, the gfx target in
rocBLAS's). Unknown text gets the closest signatures, never a guess.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

from gpulane.catalogue import Signature, load_catalogue
from gpulane.errors import GpulaneError
from gpulane.graph.kb import KnowledgeGraph
from gpulane.model import Layer
from gpulane.queries.explain import Break, ExplainAnswer, explain
from gpulane.queries.fix import FixAnswer, fix
from gpulane.queries.plan import Plan
from gpulane.queries.run import compile_query

__all__ = ["Match", "NamedNode", "Diagnosis", "match_signatures", "closest_signatures", "diagnose",
           "EmptyErrorText", "CLOSEST"]

CLOSEST = 3


class EmptyErrorText(GpulaneError):
    """--error was given no text to diagnose."""

    def __init__(self) -> None:
        super().__init__('--error needs the error message, e.g. --error "no kernel image is available for execution '
                         'on the device"')


@dataclass
class NamedNode:
    """A captured group that names a node of the knowledge base (or does not)."""

    group: str
    value: str
    layer: Layer
    ids: list[str]


@dataclass
class Match:
    """One signature the text matched: where, what was captured, what it names."""

    signature: Signature
    matched: str
    captures: dict[str, str]
    named: list[NamedNode] = field(default_factory=list)
    derived: dict[str, str] = field(default_factory=dict)

    @property
    def edges(self) -> list[tuple[Layer, Layer]]:
        return list(self.signature.edges)


@dataclass
class Diagnosis:
    """The answer to `explain --error`: matches (or the closest signatures), and with a
    configuration its explanation, the implicated breaks and the fixes."""

    text: str
    matches: list[Match]
    closest: list[Signature] = field(default_factory=list)
    plan: Plan | None = None
    explanation: ExplainAnswer | None = None
    implicated: list[Break] = field(default_factory=list)  # breaks on an edge a match implicates
    other_breaks: list[Break] = field(default_factory=list)
    fixes: FixAnswer | None = None
    mismatches: list[str] = field(default_factory=list)  # captured names that differ from the configuration

    @property
    def edges(self) -> list[tuple[Layer, Layer]]:
        out: list[tuple[Layer, Layer]] = []
        for m in self.matches:
            for e in m.edges:
                if e not in out and (e[1], e[0]) not in out:
                    out.append(e)
        return out


def match_signatures(text: str, signatures: list[Signature], kg: KnowledgeGraph | None = None) -> list[Match]:
    """Every signature whose pattern occurs in the text, longest match first."""
    found = []
    for sig in signatures:
        best = None
        for pattern in sig.compiled():
            m = pattern.search(text)
            if m and (best is None or len(m.group(0)) > len(best.group(0)) or
                      (len(m.group(0)) == len(best.group(0)) and len(m.groupdict()) > len(best.groupdict()))):
                best = m
        if best is None:
            continue
        captures = {k: v for k, v in best.groupdict().items() if v is not None}
        match = Match(sig, best.group(0), captures, derived=_derived(captures))
        if kg is not None:
            for group, spec in sig.names.items():
                if group in captures:
                    name = spec.format.format(value=captures[group])
                    ids = sorted({i for r in kg.names.resolve(name, spec.layer) for i in r.ids})
                    match.named.append(NamedNode(group, captures[group], spec.layer, ids))
        found.append(match)
    found.sort(key=lambda m: -len(m.matched))
    return found


def _derived(captures: dict[str, str]) -> dict[str, str]:
    """Facts that follow from a captured value by its documented encoding."""
    out = {}
    api = captures.get("driver_api")
    if api and api.isdigit():
        # The CUDA driver API version is 1000 * major + 10 * minor.
        n = int(api)
        out["driver_cuda_version"] = f"{n // 1000}.{(n % 1000) // 10}"
    return out


def closest_signatures(text: str, signatures: list[Signature], n: int = CLOSEST) -> list[Signature]:
    """The signatures whose message reads most like the text (for 'no known signature')."""
    low = text.lower()
    words = set(re.findall(r"[a-z0-9_]{3,}", low))

    def score(sig: Signature) -> float:
        msg = sig.message.lower()
        ratio = difflib.SequenceMatcher(None, low[:400], msg).ratio()
        sig_words = set(re.findall(r"[a-z0-9_]{3,}", msg + " " + sig.title.lower()))
        overlap = len(words & sig_words) / max(1, len(sig_words))
        return ratio + overlap

    return sorted(signatures, key=lambda s: (-score(s), s.id))[:n]


def diagnose(kg: KnowledgeGraph, text: str, config_text: str | None = None,
             catalogue_path: Path | None = None) -> Diagnosis:
    """Match an error message; with a configuration, explain it and name the implicated breaks and fixes."""
    if not text or not text.strip():
        raise EmptyErrorText()
    signatures = load_catalogue(catalogue_path).signatures
    matches = match_signatures(text, signatures, kg)
    diagnosis = Diagnosis(text, matches, [] if matches else closest_signatures(text, signatures))
    if not config_text or not config_text.strip():
        return diagnosis
    plan = compile_query(kg, "explain " + config_text)
    answer = explain(kg, plan)
    diagnosis.plan, diagnosis.explanation = plan, answer
    wanted = {frozenset(e) for e in diagnosis.edges}
    for b in answer.breaks:
        (diagnosis.implicated if frozenset((b.edge.upper, b.edge.lower)) in wanted else diagnosis.other_breaks).append(b)
    if answer.verdict != "supported":
        diagnosis.fixes = fix(kg, plan)
    if answer.path is not None:
        for m in matches:
            for named in m.named:
                on_path = answer.path.values.get(named.layer)
                if named.ids and on_path and on_path not in named.ids:
                    node = kg.nodes.get(on_path)
                    diagnosis.mismatches.append(
                        f"the error names {named.layer.value} {named.value}, but the configuration's "
                        f"{named.layer.value} is {node.name if node else on_path}")
    return diagnosis
