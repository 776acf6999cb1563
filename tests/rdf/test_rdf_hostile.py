"""Hostile RDF: entities, bombs, remote contexts, huge input, bad syntax; nothing half-imported."""

from __future__ import annotations

import pytest

from gpulane.errors import GpulaneError, KBLoadError
from gpulane.loaders import rdf as rdf_loader
from gpulane.loaders.rdf import RDFImportError, parse_rdf, read_rdf

GOOD_TTL = """@prefix gl: <https://gpulane.dev/ns#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix prov: <http://www.w3.org/ns/prov#> .
<https://gpulane.dev/kb/source/s1> a gl:Source ; gl:id "s1" ; gl:url "https://example.org/s1" ;
    dcterms:publisher "Example" ; dcterms:title "A table" ; gl:version "1" ; gl:reviewed "2026-11-30"^^<http://www.w3.org/2001/XMLSchema#date> .
<https://gpulane.dev/kb/node/gfx1100> a gl:Node ; gl:id "gfx1100" ; gl:layer gl:arch ; gl:name "gfx1100" ;
    prov:wasDerivedFrom <https://gpulane.dev/kb/source/s1> .
"""


def test_a_small_hand_written_file_imports(tmp_path):
    path = tmp_path / "kb.ttl"
    path.write_text(GOOD_TTL)
    kb = read_rdf(path)
    assert [n.id for n in kb.nodes] == ["gfx1100"] and kb.nodes[0].source == "s1"
    assert kb.sources[0].reviewed.isoformat() == "2026-11-30"


XXE = """<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:gl="https://gpulane.dev/ns#">
  <rdf:Description rdf:about="https://gpulane.dev/kb/node/x"><gl:name>&xxe;</gl:name></rdf:Description>
</rdf:RDF>
"""

BOMB = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:gl="https://gpulane.dev/ns#">
  <rdf:Description rdf:about="https://gpulane.dev/kb/node/x"><gl:name>&lol3;</gl:name></rdf:Description>
</rdf:RDF>
"""


@pytest.mark.parametrize("text", [XXE, BOMB], ids=["external-entity", "billion-laughs"])
def test_xml_doctype_is_refused(tmp_path, text):
    path = tmp_path / "evil.rdf"
    path.write_text(text)
    with pytest.raises(RDFImportError) as err:
        read_rdf(path)
    assert err.value.line == 2 and "DOCTYPE" in str(err.value)


@pytest.mark.parametrize("context", ['"https://example.org/context.jsonld"',
                                     '["https://example.org/a.jsonld", {"gl": "https://gpulane.dev/ns#"}]',
                                     '{"@import": "https://example.org/c.jsonld"}'])
def test_jsonld_remote_context_is_refused_before_any_fetch(tmp_path, monkeypatch, context):
    import urllib.request

    def no_network(*args, **kwargs):  # the test fails loudly if anything tries
        raise AssertionError("network access attempted")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    path = tmp_path / "kb.jsonld"
    path.write_text('{"@context": %s,\n "@id": "https://gpulane.dev/kb/node/x", "gl:name": "x"}' % context)
    with pytest.raises(RDFImportError) as err:
        read_rdf(path)
    assert "refused" in str(err.value) and err.value.line == 1


def test_huge_literal_is_refused(monkeypatch):
    monkeypatch.setattr(rdf_loader, "MAX_LITERAL_CHARS", 1000)
    text = GOOD_TTL.replace('gl:name "gfx1100"', 'gl:name "%s"' % ("x" * 5000))
    with pytest.raises(RDFImportError, match="longer than 1000 characters"):
        parse_rdf(text, "turtle")


def test_huge_file_is_refused_without_reading_it(tmp_path, monkeypatch):
    monkeypatch.setattr(rdf_loader, "MAX_FILE_BYTES", 100)
    path = tmp_path / "big.nt"
    path.write_text("# padding\n" * 50)
    with pytest.raises(RDFImportError, match="larger than 100 bytes"):
        read_rdf(path)


@pytest.mark.parametrize("name,text,line", [
    ("bad.ttl", GOOD_TTL.replace("gl:layer gl:arch ;", "gl:layer gl:arch ;;; ]"), 6),
    ("bad.nt", '<https://a> <https://b> <https://c> .\n<https://a> <https://b> "unterminated .\n', 2),
    ("bad.jsonld", '{"@id": "https://a",\n "https://b": [1,, 2]}', 2),
    ("bad.rdf", '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n<oops>\n</rdf:RDF>\n', 4),
])
def test_invalid_rdf_names_the_line(tmp_path, name, text, line):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(RDFImportError) as err:
        read_rdf(path)
    assert err.value.line == line, str(err.value)
    assert str(err.value).startswith(f"{path}:{line}:") or f":{line}:" in str(err.value)


def test_schema_errors_are_reported_together_and_nothing_is_returned():
    text = GOOD_TTL.replace("gl:layer gl:arch", "gl:layer gl:hardware").replace('gl:url "https://', 'gl:url "ftp://')
    with pytest.raises(KBLoadError) as err:
        parse_rdf(text, "turtle")
    messages = [p.message for p in err.value.problems]
    assert any("node 'gfx1100'" in m and "layer" in m for m in messages)
    assert any("source 's1'" in m and "url" in m for m in messages)


def test_unknown_extension_and_non_gpulane_rdf(tmp_path):
    odd = tmp_path / "kb.csv"
    odd.write_text("a,b\n")
    with pytest.raises(GpulaneError, match="unknown RDF file type"):
        read_rdf(odd)
    with pytest.raises(KBLoadError, match="no gpulane sources"):
        parse_rdf("<https://a> <https://b> <https://c> .\n", "nt")


def test_cli_import_refuses_bad_file_and_writes_nothing(tmp_path):
    from gpulane.cli.rdf_commands import import_rdf

    data = tmp_path / "data"
    data.mkdir()
    bad = tmp_path / "bad.ttl"
    bad.write_text(GOOD_TTL + "\n<https://x> <https://y> .\n")
    with pytest.raises(RDFImportError):
        import_rdf(bad, dry_run=False, data_dir=data)
    assert list(data.iterdir()) == []
    good = tmp_path / "good.ttl"
    good.write_text(GOOD_TTL)
    assert import_rdf(good, dry_run=True, data_dir=data) == [] and list(data.iterdir()) == []
    written = import_rdf(good, dry_run=False, data_dir=data)
    assert [p.name for p in written] == ["rdf-import.yaml"]
