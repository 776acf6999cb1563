"""Answers as data: paths, hops and edges with their fact ids.

Renderers (gpulane/cli/render.py) word these; the JSON output is these
dictionaries, so text and JSON always carry the same fact ids.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.solver import NOT_USED, Path, is_pseudo, provided_by
from gpulane.model import LAYER_ORDER, Layer

__all__ = ["hop_list", "FindResult", "PathsResult", "DriverAnswer", "node_ref", "group_answers", "driver_minimum"]


def node_ref(kg: KnowledgeGraph, node_id: str) -> dict:
    node = kg.nodes[node_id]
    return {"id": node.id, "name": node.name}


def hop_list(kg: KnowledgeGraph, path: Path) -> list[dict]:
    """One hop per layer in scope: its node (or why it has none) and the facts behind it."""
    hops = []
    for layer in LAYER_ORDER:
        if layer is Layer.driver:
            if path.driver_range is None:
                continue
            facts = [cf.id for cf in path.driver_facts]
            hops.append({"layer": "driver", "node": None, "name": _driver_words(path),
                         "range": None if not facts else path.driver_range.describe(), "facts": facts})
            continue
        if layer not in path.values:
            continue
        value = path.values[layer]
        facts = []
        for e in path.edges:
            if e.upper is layer and e.verdict == "ok" and e.lower is not Layer.driver:
                facts.extend(cf.id for cf in e.facts)
        hop: dict = {"layer": layer.value, "facts": list(dict.fromkeys(facts))}
        if is_pseudo(value):
            owner = path.skipped_by.get(layer)
            hop["node"] = None
            hop["name"] = ("not used by " if value == NOT_USED else "bundled by ") + (kg.nodes[owner].name if owner else "?")
            hop["not_used_by" if value == NOT_USED else "bundled_by"] = owner
        else:
            hop["node"] = value
            hop["name"] = kg.nodes[value].name
            provider = provided_by(kg, layer, path.values)
            if provider and layer is Layer.toolkit:
                hop["bundled_by"] = provider
        hops.append(hop)
    return hops


def _driver_words(path: Path) -> str:
    if path.driver_pin:
        return path.driver_pin
    if not path.driver_facts:
        return "any (no stated requirement)"
    return path.driver_range.describe()


@dataclass
class DriverAnswer:
    """The driver a `find driver` question needs for one OS platform and GPU vendor.

    ``combo`` holds the values of the other projected layers (empty for `find driver`);
    ``path`` is the supported path with the lowest stated driver minimum, whose
    ``driver_range`` and ``driver_facts`` are the answer and its evidence.
    """

    combo: tuple[str, ...]
    platform: str
    vendor: str
    path: Path

    @property
    def stated(self) -> bool:
        """Whether any fact on the path states a driver requirement."""
        return bool(self.path.driver_facts)


@dataclass
class FindResult:
    project: list[Layer]
    answers: list[tuple[tuple[str, ...], Path]]
    empty_reason: str | None = None
    truncated: bool = False
    drivers: list[DriverAnswer] | None = None  # set when the driver layer is projected


def driver_minimum(path: Path):
    """The lowest driver version a path's range admits (None: no lower bound), for ordering."""
    if path.driver_range is None or not path.driver_range.intervals:
        return None
    lows = [iv.lo for iv in path.driver_range.intervals]
    return None if any(lo is None for lo in lows) else min(lows)


@dataclass
class PathsResult:
    paths: list[Path]
    limit: int | None
    more: bool = False
    empty_reason: str | None = None


def _kind_of(kg: KnowledgeGraph, layer: Layer, value: str) -> tuple:
    """What makes two answers of a layer alike: a GPU's architecture, an OS's platform, a family."""
    node = kg.nodes[value]
    if layer is Layer.gpu:
        return ("arch", tuple(kg.arch_of(value)))
    if layer is Layer.os:
        return ("platform", node.platform.value if node.platform else None)
    return ("family", node.family)


def group_answers(kg: KnowledgeGraph, result: FindResult) -> list[tuple[list[tuple[str, ...]], Path]]:
    """Answers whose witnesses differ only in the projected layers, grouped; a group's answers
    always share one status."""
    groups: dict[tuple, list] = {}
    order: list[tuple] = []
    for combo, path in result.answers:
        # Answers of different status never share a group (an unknown 2.12 under a supported 2.13).
        key_parts = [("status", path.status)]
        key_parts += [_kind_of(kg, layer, value) for layer, value in zip(result.project, combo)]
        for layer in LAYER_ORDER:
            if layer in result.project or layer not in path.values:
                continue
            if layer is Layer.gpu:
                continue
            key_parts.append((layer.value, path.values[layer]))
        key = tuple(key_parts)
        if key not in groups:
            groups[key] = [[], path]
            order.append(key)
        groups[key][0].append(combo)
    return [(groups[k][0], groups[k][1]) for k in order]
