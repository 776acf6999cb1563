"""Differential tests: the generated SPARQL, run by Oxigraph and rdflib, answers as gpulane does."""

from __future__ import annotations

import random

import pyoxigraph as ox
import pytest

from gpulane.graph import rdf
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.synthetic import generate
from gpulane.model import Layer
from gpulane.queries import run
from gpulane.queries.sparql import SparqlUnsupportedError, answer_ids, to_sparql

# Statements at the default evidence level run on the verdict graph (app releases included);
# others (allow community) on the facts, where app releases are not translated.
SHIPPED_STATEMENTS = [
    'find gpu where vendor = AMD and app = vLLM and os = "Ubuntu 24.04"',  # every vLLM release
    'find toolkit where arch = gfx1100 and os = "Ubuntu 24.04"',
    'find framework where gpu = "RTX 4090"',
    'find os where gpu = "RTX 4090" and framework = "torch 2.8.0+cu128"',
    'find os where gpu = "Radeon PRO W7900" and app = "llama.cpp (HIP/ROCm)"',
    'find toolkit where gpu = "RTX 4090" allow community',
    # Pinned and answered layers whose node shares its class in the verdict graph with others
    # (the RX 7900 XTX with the Radeon PRO W7900; the release with other Ollama releases): the
    # answer names the pinned node only.
    'find gpu where gpu = "RX 7900 XTX" and os = "Ubuntu 24.04"',
    'find app where app = "Ollama 0.5.7" and gpu = "RX 7900 XTX"',
    # The OS free and not answered: the depth-first tail (an OS that passes, per path), with the
    # OSes of a mixed toolkit-GPU pair's rows where that pair is mixed.
    "find gpu where app = Ollama",
]


def _gpulane(kg, text):
    plan = run.compile_query(kg, text)
    return plan, sorted(a[0] for a in run.find(kg, plan).answers)


def _rows(result, plan):
    return sorted(tuple(answer_ids(str(row[v.value].value if hasattr(row[v.value], "value") else row[v.value]))
                        for v in plan.project) for row in result)


def _oxigraph(store, query, plan):
    return sorted(tuple(answer_ids(row[v.value].value) for v in plan.project) for row in store.query(query))


def _rdflib(graph, query, plan):
    return sorted(tuple(answer_ids(str(row[v.value])) for v in plan.project) for row in graph.query(query))


def _store(kg):
    store = ox.Store()
    store.bulk_load((rdf.export(kg, "ntriples") + rdf.verdicts(kg)).encode(), format=ox.RdfFormat.N_TRIPLES)
    return store


def _graph(kg):
    graph = rdf.to_graph(kg)
    graph.parse(data=rdf.verdicts(kg), format="nt")
    return graph


@pytest.fixture(scope="module")
def shipped_store(shipped):
    return _store(shipped)


@pytest.fixture(scope="module")
def shipped_graph(shipped):
    return _graph(shipped)


@pytest.mark.parametrize("text", SHIPPED_STATEMENTS)
def test_oxigraph_answers_as_gpulane_on_the_shipped_kb(shipped, shipped_store, text):
    plan, expected = _gpulane(shipped, text)
    assert expected, "a statement with answers tells more"
    assert _oxigraph(shipped_store, to_sparql(shipped, plan), plan) == expected


def test_oxigraph_loads_turtle_export_too(shipped):
    store = ox.Store()
    store.load(rdf.export(shipped, "turtle").encode(), format=ox.RdfFormat.TURTLE)
    store.load(rdf.verdicts(shipped, "turtle").encode(), format=ox.RdfFormat.TURTLE)
    plan, expected = _gpulane(shipped, SHIPPED_STATEMENTS[1])
    assert _oxigraph(store, to_sparql(shipped, plan), plan) == expected


@pytest.mark.parametrize("text", ['find arch where gpu = "RX 7900 XTX"', "find gpu where arch = gfx1100"])
def test_rdflib_answers_as_gpulane_on_the_shipped_kb(shipped, shipped_graph, text):
    # rdflib's SPARQL takes 10 s and more on 50k triples once the OS is in scope: narrow statements only.
    plan, expected = _gpulane(shipped, text)
    assert expected
    assert _rdflib(shipped_graph, to_sparql(shipped, plan), plan) == expected


def _synthetic_statements(kg, rng, count, layers=("gpu", "arch", "os", "toolkit", "framework", "app")):
    out = []
    while len(out) < count:
        project = rng.choice(layers)
        conds = []
        for layer in rng.sample([l for l in layers if l != project], rng.randint(1, 2)):
            conds.append(f"{layer} = {rng.choice(kg.by_layer[Layer(layer)])}")
        if rng.random() < 0.2:
            conds.append("vendor = " + rng.choice(["AMD", "NVIDIA"]))
        text = f"find {project} where " + " and ".join(conds)
        if rng.random() < 0.2:
            text += " allow community"
        out.append(text)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_oxigraph_and_rdflib_answer_as_gpulane_on_synthetic_kbs(seed):
    kg = KnowledgeGraph(generate(300, seed=seed, gpus=30, toolkits=10, frameworks=16, apps=5))
    small = KnowledgeGraph(generate(120, seed=seed, gpus=8, archs=4, oses=3, toolkits=4, frameworks=6, apps=4))
    store = _store(kg)
    rng = random.Random(seed)
    nonempty = 0
    for text in _synthetic_statements(kg, rng, 30):
        plan, expected = _gpulane(kg, text)
        assert _oxigraph(store, to_sparql(kg, plan), plan) == expected, text
        nonempty += bool(expected)
    assert nonempty >= 5
    # rdflib is slow (seconds per statement once apps are in scope): a smaller knowledge base,
    # statements up to the toolkit layer.
    graph = _graph(small)
    for text in _synthetic_statements(small, rng, 3, layers=("gpu", "arch", "os", "toolkit")):
        plan, expected = _gpulane(small, text)
        assert _rdflib(graph, to_sparql(small, plan), plan) == expected, text


def test_bench_question_on_synthetic_kb_agrees():
    kg = KnowledgeGraph(generate(1000))
    plan, expected = _gpulane(kg, "find gpu where vendor = AMD and app = app-0 and os = os-0")
    assert len(expected) > 10
    assert _oxigraph(_store(kg), to_sparql(kg, plan), plan) == expected


# An app that ships its toolkit inside itself: the toolkit's own list (gfx1100 only) does not
# judge the architecture on paths through that app; the app's list (gfx1100, gfx1030) does.
BUNDLING_KB = {
    "kb.yaml": """
sources:
  - {id: s, url: "https://example.org/s", publisher: P, title: T, version: "1", reviewed: 2026-11-30}
nodes:
  - {id: g-a, layer: gpu, name: Card A, vendor: amd, source: s}
  - {id: g-b, layer: gpu, name: Card B, vendor: amd, source: s}
  - {id: g-c, layer: gpu, name: Card C, vendor: amd, source: s}
  - {id: gfx1100, layer: arch, name: gfx1100, vendor: amd, llvm_target: gfx1100, source: s}
  - {id: gfx1030, layer: arch, name: gfx1030, vendor: amd, llvm_target: gfx1030, source: s}
  - {id: gfx906, layer: arch, name: gfx906, vendor: amd, llvm_target: gfx906, source: s}
  - {id: linux, layer: os, name: Some Linux 1, family: somelinux, version: "1", platform: linux, source: s}
  - {id: rt-1, layer: toolkit, name: Runtime 1.0, vendor: amd, family: runtime, version: 1.0.0, source: s}
  - {id: bundler, layer: app, name: Bundler, family: bundler, source: s, layers: {framework: not_used}}
  - {id: plain, layer: app, name: Plain, family: plain, source: s, layers: {framework: not_used}}
facts:
  - {id: a, relation: has_arch, subject: g-a, object: gfx1100, source: s}
  - {id: b, relation: has_arch, subject: g-b, object: gfx1030, source: s}
  - {id: c, relation: has_arch, subject: g-c, object: gfx906, source: s}
  - {id: rt-arch, relation: supports, subject: rt-1, object: [gfx1100], exhaustive: true, domain: {layer: arch, vendor: amd}, source: s}
  - {id: rt-os, relation: supports, subject: rt-1, object: linux, source: s}
  - {id: bundler-ships, relation: bundles, subject: bundler, object: rt-1, source: s}
  - {id: bundler-arch, relation: supports, subject: bundler, object: [gfx1100, gfx1030], exhaustive: true, domain: {layer: arch, vendor: amd}, source: s}
  - {id: bundler-os, relation: runs_on, subject: bundler, object: linux, source: s}
  - {id: plain-toolkit, relation: requires, subject: plain, object: rt-1, source: s}
  - {id: plain-arch, relation: supports, subject: plain, object: [gfx1100, gfx1030], exhaustive: true, domain: {layer: arch, vendor: amd}, source: s}
  - {id: plain-os, relation: runs_on, subject: plain, object: linux, source: s}
""",
}


def test_a_bundled_toolkit_is_judged_by_the_app_in_sparql_too(tmp_path):
    from tests.conftest import write_kb
    from gpulane.api import build_graph

    kg = build_graph(write_kb(tmp_path, BUNDLING_KB))
    store = _store(kg)
    cases = {'find gpu where app = Bundler and os = "Some Linux 1"': ["g-a", "g-b"],
             'find gpu where app = Plain and os = "Some Linux 1"': ["g-a"],
             "find app where gpu = \"Card B\"": ["bundler"],
             "find toolkit where gpu = \"Card B\" and app = Bundler": ["rt-1"]}
    for text, ids in cases.items():
        plan, expected = _gpulane(kg, text)
        assert expected == [(i,) for i in ids] or expected == ids, text  # written from the facts above
        assert _oxigraph(store, to_sparql(kg, plan), plan) == expected, text


# A driver requirement that depends on the path (the runtime needs a newer driver on Linux A,
# none elsewhere) against one that does not (the older architecture's ceiling): the SPARQL folds the plain ones in
# one stage and the path's one in a stage of its own, dropping the layers no later stage reads.
DRIVER_KB = {
    "kb.yaml": """
sources:
  - {id: s, url: "https://example.org/s", publisher: P, title: T, version: "1", reviewed: 2026-11-30}
nodes:
  - {id: g-a, layer: gpu, name: Card A, vendor: amd, source: s}
  - {id: g-b, layer: gpu, name: Card B, vendor: amd, source: s}
  - {id: gfx1100, layer: arch, name: gfx1100, vendor: amd, llvm_target: gfx1100, source: s}
  - {id: gfx1030, layer: arch, name: gfx1030, vendor: amd, llvm_target: gfx1030, source: s}
  - {id: linux-a, layer: os, name: Some Linux A, family: somelinux, version: "1", platform: linux, source: s}
  - {id: linux-b, layer: os, name: Other Linux B, family: otherlinux, version: "1", platform: linux, source: s}
  - {id: rt-1, layer: toolkit, name: Runtime 1.0, vendor: amd, family: runtime, version: 1.0.0, source: s}
facts:
  - {id: a, relation: has_arch, subject: g-a, object: gfx1100, source: s}
  - {id: b, relation: has_arch, subject: g-b, object: gfx1030, source: s}
  - {id: rt-arch, relation: supports, subject: rt-1, object: [gfx1100, gfx1030], source: s}
  - {id: rt-os, relation: supports, subject: rt-1, object: [linux-a, linux-b], source: s}
  - {id: rt-driver-a, relation: requires, subject: rt-1, object: {layer: driver, version: ">=600"}, when: {os: linux-a}, source: s}
  - {id: old-ceiling, relation: requires, subject: gfx1030, object: {layer: driver, version: "<550"}, source: s}
""",
}


def test_driver_requirements_that_depend_on_the_path_in_sparql_too(tmp_path):
    from tests.conftest import write_kb
    from gpulane.api import build_graph
    from gpulane.graph.verdicts import inventory

    kg = build_graph(write_kb(tmp_path, DRIVER_KB))
    assert Layer.toolkit in inventory(kg).path_drivers and Layer.arch not in inventory(kg).path_drivers
    store = _store(kg)
    cases = {'find os where gpu = "Card B" and toolkit = "Runtime 1.0"': ["linux-b"],
             'find os where gpu = "Card A" and toolkit = "Runtime 1.0"': ["linux-a", "linux-b"],
             'find gpu where os = "Some Linux A" and toolkit = "Runtime 1.0"': ["g-a"],
             'find gpu where os = "Other Linux B" and toolkit = "Runtime 1.0"': ["g-a", "g-b"],
             'find arch where os = "Some Linux A" and toolkit = "Runtime 1.0"': ["gfx1100"],
             'find toolkit where gpu = "Card B" and os = "Some Linux A"': []}
    for text, ids in cases.items():
        plan, expected = _gpulane(kg, text)
        assert expected == [(i,) for i in ids] or expected == ids, text  # written from the facts above
        assert _oxigraph(store, to_sparql(kg, plan), plan) == expected, text


def test_driver_requirements_on_the_free_layer_of_a_depth_first_tail(tmp_path):
    """The OS free and not answered: the query looks for one OS per path on which every rule
    passes, the drivers included (the runtime's requirement on Linux A against gfx1030's
    ceiling); where the runtime needs the newer driver on both OSes, Card B has none left."""
    from tests.conftest import write_kb
    from gpulane.api import build_graph

    both = DRIVER_KB["kb.yaml"] + (
        "  - {id: rt-driver-b, relation: requires, subject: rt-1, object: {layer: driver, version: \">=600\"}, "
        "when: {os: linux-b}, source: s}\n")
    for files, cases in (
            (DRIVER_KB, {'find gpu where toolkit = "Runtime 1.0"': ["g-a", "g-b"],
                         'find arch where toolkit = "Runtime 1.0"': ["gfx1030", "gfx1100"]}),
            ({"kb.yaml": both}, {'find gpu where toolkit = "Runtime 1.0"': ["g-a"],
                                 'find arch where toolkit = "Runtime 1.0"': ["gfx1100"]})):
        kg = build_graph(write_kb(tmp_path / str(len(files["kb.yaml"])), files))
        store = _store(kg)
        for text, ids in cases.items():
            plan, expected = _gpulane(kg, text)
            assert expected == [(i,) for i in ids] or expected == ids, text  # written from the facts above
            query = to_sparql(kg, plan)
            assert "EXISTS { VALUES ?os" in query, "the OS is the depth-first tail"
            assert _oxigraph(store, query, plan) == expected, text


def test_depth_first_tail_reads_rows_folded_to_what_it_reads(shipped):
    """Before the OS search, the rows are folded (SELECT DISTINCT) to the answered class and the
    variables the search reads: the OPTIONAL lookups' own variables (vendors, intervals) are
    dropped. (The answers: test_oxigraph_answers_as_gpulane_on_the_shipped_kb.)"""
    import re

    lines = to_sparql(shipped, run.compile_query(shipped, "find gpu where app = Ollama")).split("\n")
    tails = [i for i, line in enumerate(lines) if line.startswith("      FILTER(") and lines[i + 1] == "    } }"
             and "?os" in line]
    assert len(tails) == 3, "one search per branch"
    for i in tails:
        assert lines[i - 1] == "      } }", "the search reads the folded rows"
        opening = max(k for k in range(i) if lines[k].startswith("      { SELECT DISTINCT"))
        kept = lines[opening].split("DISTINCT ")[1].split(" WHERE")[0].split()
        bound = set(re.findall(r"\?\w+", "\n".join(lines[opening + 1:i - 1])))
        assert kept[0] == "?gpuc"
        assert set(kept[1:]) == bound & set(re.findall(r"\?\w+", lines[i])) - {"?gpuc"}
        assert len(kept) < len(bound - {"?os"}) and not any(v.startswith(("?vendor", "?iv")) for v in kept)


def test_statements_the_translation_does_not_cover_say_so(shipped):
    plan = run.compile_query(shipped, 'find gpu where vendor = AMD and app = vLLM and os = "Ubuntu 24.04" '
                                      'allow community')
    with pytest.raises(SparqlUnsupportedError, match="app releases"):
        to_sparql(shipped, plan)
    plan = run.compile_query(shipped, 'find toolkit where gpu = "RX 7900 XTX" and kernel = 6.11.0-21-generic')
    with pytest.raises(SparqlUnsupportedError, match="kernel"):
        to_sparql(shipped, plan)
    plan = run.compile_query(shipped, 'find toolkit where gpu = "RTX 4090" and driver = 550.54.14')
    with pytest.raises(SparqlUnsupportedError, match="driver"):
        to_sparql(shipped, plan)
    plan = run.compile_query(shipped, 'paths where gpu = "RTX 4090" and os = "Ubuntu 22.04"')
    with pytest.raises(SparqlUnsupportedError, match="only find"):
        to_sparql(shipped, plan)
