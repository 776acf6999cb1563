"""Export → import round trips: the knowledge base and every answer survive."""

from __future__ import annotations

import json

import pytest

from gpulane.graph import rdf
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.synthetic import generate
from gpulane.loaders.rdf import parse_rdf, plan_files, write_files
from gpulane.loaders.kbfiles import kb_files, load_files
from gpulane.queries import run

STATEMENTS = [
    'find gpu where vendor = AMD and app = vLLM and os = "Ubuntu 24.04"',
    'find toolkit where arch = gfx1100 and os = "Ubuntu 24.04"',
    'find framework where gpu = "RTX 4090"',
    'find app where gpu = "RX 7900 XTX"',
]


def _answers(kg, text):
    return [a[0] for a in run.find(kg, run.compile_query(kg, text)).answers]


@pytest.fixture(scope="module")
def shipped_nt(shipped):
    return rdf.export(shipped, "ntriples")


@pytest.mark.parametrize("fmt", ["ntriples", "turtle"])
def test_shipped_round_trip_loses_nothing(shipped, fmt):
    text = rdf.export(shipped, fmt)
    kb = parse_rdf(text, {"ntriples": "nt", "turtle": "turtle", "jsonld": "json-ld"}[fmt])
    assert kb.sources == shipped.kb.sources
    assert kb.nodes == shipped.kb.nodes
    assert kb.facts == shipped.kb.facts
    assert kb.steps == shipped.kb.steps
    assert kb.files == shipped.kb.files
    assert kb.origins == shipped.kb.origins
    again = KnowledgeGraph(kb)
    assert again.stats() == shipped.stats()
    if fmt == "ntriples":
        for text in STATEMENTS:
            assert _answers(again, text) == _answers(shipped, text)


def test_export_carries_provenance_and_expansion(shipped, shipped_nt):
    import rdflib

    g = rdflib.Graph().parse(data=shipped_nt, format="nt")
    gl = rdflib.Namespace(rdf.GL)
    prov = rdflib.Namespace(rdf.PROV)
    cf = next(c for c in shipped.facts if c.fact.object.ids is None and c.target.ids)
    fact = rdflib.URIRef(rdf.fact_iri(cf.id))
    assert (fact, prov.wasDerivedFrom, rdflib.URIRef(rdf.source_iri(cf.fact.source))) in g
    selected = {str(o) for o in g.objects(fact, gl.selects)}
    assert selected == {rdf.node_iri(i) for i in cf.target.ids if i in shipped.nodes}
    src = shipped.sources[cf.fact.source]
    assert g.value(rdflib.URIRef(rdf.source_iri(src.id)), gl.reviewed).toPython() == src.reviewed
    ollama = rdflib.URIRef(rdf.node_iri("ollama-rocm"))
    assert (ollama, gl.bundledLayer, gl.toolkit) in g and (ollama, gl.notUsedLayer, gl.framework) in g


def test_jsonld_export_is_self_contained(shipped):
    data = json.loads(rdf.export(shipped, "jsonld"))
    assert "@context" not in data and len(data["@graph"]) > len(shipped.facts)


@pytest.mark.parametrize("seed,fmt", [(0, "turtle"), (1, "jsonld"), (2, "ntriples")])
def test_synthetic_round_trip(seed, fmt):
    kb = generate(400, seed=seed)
    kg = KnowledgeGraph(kb)
    back = KnowledgeGraph(parse_rdf(rdf.export(kg, fmt), {"jsonld": "json-ld", "ntriples": "nt"}.get(fmt, fmt)))
    assert back.stats() == kg.stats()
    assert back.kb.facts == kb.facts and back.kb.nodes == kb.nodes
    for text in ["find gpu where vendor = AMD and app = app-0 and os = os-0", "find os where app = app-1"]:
        assert _answers(back, text) == _answers(kg, text)


def test_import_writes_files_that_load_to_the_same_kb(shipped, shipped_nt, tmp_path):
    kb = parse_rdf(shipped_nt, "nt")
    files = plan_files(kb, tmp_path)
    assert {f.status for f in files} == {"new"}
    written = write_files(files)
    assert {p.name for p in written} == {p.rsplit("/", 1)[-1] for p in shipped.kb.files}
    loaded = KnowledgeGraph(load_files(kb_files(tmp_path)))
    assert loaded.stats()["facts"] == shipped.stats()["facts"]
    assert loaded.stats()["nodes"] == shipped.stats()["nodes"]
    assert _answers(loaded, STATEMENTS[1]) == _answers(shipped, STATEMENTS[1])
    assert {f.status for f in plan_files(kb, tmp_path)} == {"unchanged"}
    assert not list(tmp_path.glob(".*.tmp"))


def test_verdict_graph_is_small_and_apart_from_the_export(shipped, shipped_nt):
    from gpulane.loaders.rdf import MAX_FILE_BYTES

    verdicts = rdf.verdicts(shipped, "ntriples")
    # The export stays importable; the verdicts are a separate, derived file a fraction of its size.
    assert len(shipped_nt.encode()) < MAX_FILE_BYTES
    assert len(verdicts.encode()) < len(shipped_nt.encode()) // 8
    assert "/fact/" not in verdicts and "okArchGpu" in verdicts
