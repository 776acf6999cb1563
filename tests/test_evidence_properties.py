"""Properties of the evidence model over the whole shipped knowledge base (issue 11).

* No answer pairs a CUDA build, toolkit or app backend with an AMD target, or a ROCm one with an
  NVIDIA target: every such edge is "not supported (vendor)", never unknown, never a candidate.
* `allow workaround` changes an answer where a documented override applies, and never where the
  target is officially supported (every AMD GPU in the knowledge base).
"""

from __future__ import annotations

import pytest

from gpulane.graph.solver import Solver
from gpulane.model import OFFICIAL_POSITIVE, Layer, Status
from gpulane.queries import run

OFFICIAL = OFFICIAL_POSITIVE
WITH_WORKAROUND = frozenset(OFFICIAL_POSITIVE | {Status.workaround})
UPPER = (Layer.toolkit, Layer.framework, Layer.app)


@pytest.fixture(scope="module")
def solver(shipped):
    return Solver(shipped)


def _vendor_nodes(kg, layers):
    return [n for layer in layers for n in kg.by_layer[layer] if kg.compute_vendor(n) in ("amd", "nvidia")]


def test_every_cross_vendor_edge_is_known_impossible(shipped, solver):
    uppers = _vendor_nodes(shipped, UPPER)
    targets = _vendor_nodes(shipped, (Layer.arch, Layer.gpu))
    assert len(uppers) > 50 and len(targets) > 100
    checked = 0
    for u in uppers:
        vu = shipped.compute_vendor(u)
        for t in targets:
            if shipped.compute_vendor(t) == vu:
                continue
            lower = shipped.nodes[t].layer
            upper = shipped.nodes[u].layer
            for allow in (OFFICIAL, WITH_WORKAROUND):
                e = solver.edge(upper, u, lower, t, {upper: u, lower: t}, allow, None, False, True)
                assert e is not None and (e.verdict, e.kind) == ("no", "vendor"), (u, t, e and e.verdict)
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("statement", [
    'find framework where gpu = "RX 7900 XTX" allow unknown',
    'find toolkit where gpu = "RX 7900 XTX" allow unknown',
    'find app where gpu = "RX 6700 XT" allow unknown',
    'find framework where gpu = "RTX 4090" allow unknown',
    'find toolkit where gpu = "RTX 4090" allow unknown',
    'find app where gpu = "RTX 4090" allow unknown',
])
def test_no_answer_pairs_vendors(shipped, statement):
    result = run.find(shipped, run.compile_query(shipped, statement))
    assert result.answers
    for _combo, path in result.answers:
        vendors = {shipped.compute_vendor(v) for v in path.values.values() if v in shipped.nodes} - {None}
        assert len(vendors) == 1, (statement, path.values)


def _amd_gpus(kg):
    return [g for g in kg.by_layer[Layer.gpu] if kg.nodes[g].vendor == "amd" and kg.arch_of(g)]


def test_workaround_never_changes_an_officially_supported_target(shipped, solver):
    """For every AMD GPU and every subject with a documented override: where the subject
    officially supports the GPU (or its architecture), allowing workarounds changes nothing;
    where an override applies, it turns a failing edge into a labelled workaround."""
    linux = next(o for o in shipped.by_layer[Layer.os] if shipped.nodes[o].family == "ubuntu")
    changed = unchanged = 0
    for subject in shipped.overrides:
        layer = shipped.nodes[subject].layer
        for gpu in _amd_gpus(shipped):
            for target in (gpu, *shipped.arch_of(gpu)):
                lower = shipped.nodes[target].layer
                values = {layer: subject, lower: target, Layer.os: linux, Layer.gpu: gpu}
                values[Layer.arch] = shipped.arch_of(gpu)[0]
                before = solver.edge(layer, subject, lower, target, values, OFFICIAL, None, False, True)
                after = solver.edge(layer, subject, lower, target, values, WITH_WORKAROUND, None, False, True)
                official = solver.officially_supports(subject, [gpu, *shipped.arch_of(gpu)], values)
                override = solver.override(subject, target, values, WITH_WORKAROUND)
                if official or override is None:
                    assert _verdict(before) == _verdict(after), (subject, target)
                    assert not any(cf.status is Status.workaround for cf in (after.facts if after else [])), \
                        (subject, target)
                    unchanged += 1
                else:
                    assert override.fact.runs_as not in shipped.arch_of(gpu)
                    assert after is not None and after.verdict == "ok", (subject, target)
                    assert override in after.facts
                    if before is None or before.verdict != "ok":
                        changed += 1
    assert changed > 5 and unchanged > 50


def _verdict(edge):
    return None if edge is None else (edge.verdict, edge.kind)


def test_workaround_changes_the_ollama_answer_on_amd(shipped):
    base = 'find gpu where vendor = AMD and app = Ollama and os = "Ubuntu 22.04"'
    without = {c for c, _ in run.find(shipped, run.compile_query(shipped, base)).answers}
    with_wa = run.find(shipped, run.compile_query(shipped, base + " allow workaround")).answers
    extra = {c for c, p in with_wa} - without
    assert extra, "the documented override must add AMD GPUs"
    for combo, path in with_wa:
        if combo in extra:
            assert path.status == "workaround"
            assert any(cf.fact.runs_as for cf in path.facts_used())
        else:
            assert path.status == "supported"


def test_find_groups_never_mix_statuses_and_json_carries_them(shipped):
    from gpulane.cli.render import find_json, find_text, paths_json
    from gpulane.queries.results import group_answers

    plan = run.compile_query(shipped, 'find framework where gpu = MI300X allow unknown')
    result = run.find(shipped, plan)
    statuses = {p.status for _, p in result.answers}
    # wheels whose gfx942 kernels are known are supported; the others are unknown
    assert {"supported", "unknown"} <= statuses
    for combos, path in group_answers(shipped, result):
        members = {p.status for c, p in result.answers if c in combos}
        assert members == {path.status}
    data = find_json(shipped, result)
    assert all({"status", "caveats"} <= set(a) for a in data["answers"])
    text = find_text(shipped, result)
    assert "[unknown]" in text and "[supported]" in text
    paths = run.paths(shipped, run.compile_query(shipped, 'paths where gpu = MI300X and framework = torch limit 3'))
    assert all({"status", "caveats"} <= set(p) for p in paths_json(shipped, paths)["paths"])
