"""fix orders replacements by their distance from the user's choice. `_Distance` reads each
original once and shortcuts a replacement that is one of them; it must give what weighing every
original against the replacement gives (the reference below), versions padded with zeros,
unparseable versions, families missing or empty included."""

from __future__ import annotations

from itertools import combinations
from types import SimpleNamespace

from gpulane.queries.fix import _FAR, _Distance
from gpulane.versions import parse_version


def _reference(nodes: dict, originals, value: str) -> tuple:
    node = nodes[value]
    best = _FAR
    for orig_id in originals:
        orig = nodes.get(orig_id)
        if orig is None:
            continue
        same_family = (orig.family or "") == (node.family or "") and orig.family is not None
        if same_family and orig.version and node.version:
            try:
                a, b = parse_version(orig.version).release, parse_version(node.version).release
                width = max(len(a), len(b))
                a, b = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
                cand = (0, tuple(abs(x - y) for x, y in zip(a, b)), 0 if b >= a else 1)
            except Exception:
                cand = (0, (1 << 19,), 1)
        else:
            cand = (0 if same_family else 1, (1 << 20,), 1)
        best = min(best, cand)
    return best


def test_distance_matches_weighing_every_original():
    versions = ["2.6", "2.6.0", "2.6.0.0", "2.6.1", "2.10", "2.5.9", "3", "3.0.1", "0.12.4", "0.12.10",
                "not a version", "", None]
    families = ["torch", "", None, "other"]
    nodes = {f"n{i}-{j}": SimpleNamespace(family=f, version=v)
             for i, f in enumerate(families) for j, v in enumerate(versions)}
    kg = SimpleNamespace(nodes=nodes)
    ids = sorted(nodes)
    torch = [n for n in ids if nodes[n].family == "torch"]
    sets = [frozenset(), frozenset({"missing"}), frozenset(torch), frozenset(ids)]
    sets += [frozenset(pair) for pair in combinations(torch[:8], 2)]
    sets += [frozenset({n}) for n in ids]
    for originals in sets:
        distance = _Distance(kg, originals)
        for value in ids:
            expected = _reference(nodes, originals, value)
            assert distance(value) == expected, (sorted(originals), value)
            assert _Distance(kg, originals)(value) == expected  # a fresh one: nothing remembered
