"""The knowledge base as RDF: vocabulary, and export to N-Triples, Turtle, JSON-LD.

Every source, node and fact becomes a resource; a fact is a reified statement
(``gl:subject``, ``gl:object`` selector, ``gl:when`` conditions, ``gl:status``,
provenance through PROV-O). Alongside the facts as written, the export carries
their compiled expansion (``gl:selects`` from a fact or a condition to every
node its selector picks, driver requirements as ranked intervals) so that a
SPARQL engine can apply the path rules without re-implementing selectors.
docs/rdf.md describes the vocabulary.

The N-Triples text is written directly (rdflib is slow at 10^5 facts); Turtle
and JSON-LD go through rdflib.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Iterator
from urllib.parse import quote, unquote

from gpulane.errors import GpulaneError
from gpulane.graph.kb import Condition, KnowledgeGraph
from gpulane.model import ALWAYS_EXHAUSTIVE, LAYER_ORDER, OFFICIAL_POSITIVE, Fact, Node, Selector, Source, Step

_LAYER_RANK = {layer: i for i, layer in enumerate(LAYER_ORDER)}
from gpulane.versions import VersionRange

__all__ = ["GL", "KB", "PROV", "FORMATS", "ExportError", "export", "ntriples", "turtle", "jsonld", "to_graph",
           "node_iri", "fact_iri", "verdicts", "step_iri", "HANDLED", "RDF_JSON", "camel", "source_iri", "id_from_iri", "DriverKeys", "INF_KEY"]

GL = "https://gpulane.dev/ns#"
KB = "https://gpulane.dev/kb/"
PROV = "http://www.w3.org/ns/prov#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
DCT = "http://purl.org/dc/terms/"

FORMATS = ("turtle", "ntriples", "jsonld")
PREFIXES = {"gl": GL, "kb": KB, "prov": PROV, "rdf": RDF, "rdfs": RDFS, "xsd": XSD, "dcterms": DCT}
INF_KEY = 1_000_000_000  # the open upper end of a driver interval, as a key

# Model field → gl: property, for the plain literal fields of each kind.
SOURCE_FIELDS = {"version": "version", "note": "note"}
NODE_FIELDS = {"vendor": "vendor", "family": "family", "version": "version", "llvm_target": "llvmTarget",
               "compute_capability": "computeCapability", "glibc": "glibc", "note": "note"}
SELECTOR_FIELDS = {"vendor": "vendor", "family": "family", "version": "version", "platform": "platform",
                   "compute_capability": "computeCapability", "segment": "segment", "backend": "backend",
                   "glibc": "glibc"}
FACT_FIELDS = {"section": "section", "note": "note", "caveat": "caveat", "action": "action"}

# Fields each writer handles itself; any other model field (the schema grows) is
# written generically as an rdf:JSON literal of gl:<camelCaseName>, so nothing is lost.
HANDLED = {
    "Source": {"id", "url", "publisher", "title", "reviewed", *SOURCE_FIELDS},
    "Node": {"id", "layer", "name", "aliases", "vram_gb", "platform", "kernels", "release_date", "layers",
             "source", *NODE_FIELDS},
    "Fact": {"id", "relation", "subject", "object", "when", "status", "exhaustive", "source", "reviewed",
             *FACT_FIELDS},
    # Set-up steps: every field but the id is a generic rdf:JSON literal, with prov:wasDerivedFrom.
    "Step": {"id"},
}
RDF_JSON = RDF + "JSON"


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


# Ids are percent-encoded so that any id is a valid IRI path segment.
_SAFE = "-._~+!$&'()*,;=:@"


class ExportError(GpulaneError):
    """The knowledge base cannot be exported as it is."""


def _seg(ident: str) -> str:
    return quote(ident, safe=_SAFE)


def node_iri(node_id: str) -> str:
    return f"{KB}node/{_seg(node_id)}"


def fact_iri(fact_id: str) -> str:
    return f"{KB}fact/{_seg(fact_id)}"


def step_iri(step_id: str) -> str:
    return f"{KB}step/{_seg(step_id)}"


def source_iri(source_id: str) -> str:
    return f"{KB}source/{_seg(source_id)}"


def id_from_iri(iri: str, kind: str) -> str | None:
    """The id inside a kb: IRI of a kind ("node", "fact", "source"), or None."""
    prefix = f"{KB}{kind}/"
    if not iri.startswith(prefix) or "/" in iri[len(prefix):]:
        return None
    return unquote(iri[len(prefix):])


def _esc(text: str) -> str:
    return (text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r"))


class DriverKeys:
    """Driver interval bounds as integer keys, so SPARQL can compare them.

    Every bound version in the knowledge base gets a rank; a bound's key is
    2·rank (the version itself) or 2·rank+1 (just above it). A point key p lies
    in an interval when low <= p < high, which keeps inclusive and exclusive
    ends exact without encoding versions as strings.
    """

    def __init__(self, kg: KnowledgeGraph):
        versions = set()
        for rng in _driver_ranges(kg):
            for iv in rng.intervals:
                versions.update(v for v in (iv.lo, iv.hi) if v is not None)
        self.rank = {v: i for i, v in enumerate(sorted(versions))}

    def interval_keys(self, rng: VersionRange) -> list[tuple[int, int]]:
        out = []
        for iv in rng.intervals:
            low = -1 if iv.lo is None else 2 * self.rank[iv.lo] + (0 if iv.lo_incl else 1)
            high = INF_KEY if iv.hi is None else 2 * self.rank[iv.hi] + (1 if iv.hi_incl else 0)
            out.append((low, high))
        return out


def _driver_ranges(kg: KnowledgeGraph) -> Iterator[VersionRange]:
    for cf in kg.facts:
        if cf.target.drivers is not None:
            yield cf.target.drivers
        for cond in cf.when:
            if cond.drivers is not None:
                yield cond.drivers


class _Writer:
    """Collects triples as N-Triples terms: ``<iri>``, ``_:blank`` or a literal."""

    def __init__(self):
        self.triples: list[tuple[str, str, str]] = []
        self._blank = 0

    def iri(self, s: str, p: str, o: str) -> None:
        self.triples.append((f"<{s}>", f"<{p}>", f"<{o}>"))

    def lit(self, s: str, p: str, value, datatype: str | None = None) -> None:
        if isinstance(value, bool):
            text, datatype = ("true" if value else "false"), XSD + "boolean"
        elif isinstance(value, int):
            text, datatype = str(value), XSD + "integer"
        elif isinstance(value, float):
            text, datatype = repr(value), XSD + "double"
        elif isinstance(value, dt.date):
            text, datatype = value.isoformat(), XSD + "date"
        else:
            text = str(value)
        tail = f"^^<{datatype}>" if datatype else ""
        self.triples.append((f"<{s}>", f"<{p}>", f'"{_esc(text)}"{tail}'))

    def str_list(self, s: str, p: str, items: list[str]) -> None:
        """An rdf:List of string literals (order matters: aliases, ids)."""
        if not items:
            self.triples.append((f"<{s}>", f"<{p}>", f"<{RDF}nil>"))
            return
        self._blank += 1
        names = [f"_:l{self._blank}x{i}" for i in range(len(items))]
        self.triples.append((f"<{s}>", f"<{p}>", names[0]))
        for i, (name, item) in enumerate(zip(names, items)):
            self.triples.append((name, f"<{RDF}first>", f'"{_esc(item)}"'))
            rest = names[i + 1] if i + 1 < len(names) else f"<{RDF}nil>"
            self.triples.append((name, f"<{RDF}rest>", rest))


def ntriples(kg: KnowledgeGraph) -> str:
    """The whole knowledge base, with its compiled expansion, as N-Triples text."""
    return "".join(f"{s} {p} {o} .\n" for s, p, o in _triples(kg))


def _triples(kg: KnowledgeGraph) -> list[tuple[str, str, str]]:
    _refuse_duplicates(kg)
    w = _Writer()
    keys = DriverKeys(kg)
    kb_iri = f"{KB}knowledge-base"
    w.iri(kb_iri, RDF + "type", GL + "KnowledgeBase")
    w.str_list(kb_iri, GL + "files", list(kg.kb.files))
    for i, src in enumerate(kg.kb.sources):
        _source(w, kg, i, src)
    for i, node in enumerate(kg.kb.nodes):
        _node(w, kg, i, node)
    compiled = {cf.index: cf for cf in kg.facts}
    for i, fact in enumerate(kg.kb.facts):
        _fact(w, kg, i, fact, compiled.get(i), keys)
    for i, step in enumerate(kg.kb.steps):
        _step(w, kg, i, step)
    _links(w, kg)
    return w.triples


def _links(w: _Writer, kg: KnowledgeGraph) -> None:
    """Node → node links wherever a positive fact relates them, from the node of the upper
    layer to the node of the lower one (both ways within one layer): the direction the
    SPARQL joins read, which keeps the index half the size.

    gl:link for any positive status, gl:officialLink for supported/deprecated:
    a join index for SPARQL (RDF keeps one triple however many facts back a pair);
    the rules themselves still read the facts.
    """
    official: set[tuple[str, str]] = set()
    anyone: set[tuple[str, str]] = set()
    for cf in kg.facts:
        if not cf.positive or cf.target.ids is None:
            continue
        objects = [o for o in cf.target.ids if o in kg.nodes]
        for subject in cf.subjects:
            if subject not in kg.nodes:
                continue
            s_rank = _LAYER_RANK[kg.nodes[subject].layer]
            for o in objects:
                o_rank = _LAYER_RANK[kg.nodes[o].layer]
                pairs = [(subject, o)] if s_rank > o_rank else [(o, subject)] if o_rank > s_rank \
                    else [(subject, o), (o, subject)]
                for pair in pairs:
                    anyone.add(pair)
                    if cf.status in OFFICIAL_POSITIVE:
                        official.add(pair)
    for a, b in sorted(anyone):
        w.iri(node_iri(a), GL + "link", node_iri(b))
    for a, b in sorted(official):
        w.iri(node_iri(a), GL + "officialLink", node_iri(b))


def _step(w: _Writer, kg: KnowledgeGraph, index: int, step: Step) -> None:
    """A set-up step: its fields as rdf:JSON literals (lossless), its source as provenance."""
    s = step_iri(step.id)
    w.iri(s, RDF + "type", GL + "Step")
    w.iri(s, RDF + "type", PROV + "Entity")
    w.lit(s, GL + "id", step.id)
    if step.source:
        w.iri(s, PROV + "wasDerivedFrom", source_iri(step.source))
    _extra(w, s, step)
    _origin(w, kg, s, "steps", index)


def _refuse_duplicates(kg: KnowledgeGraph) -> None:
    for kind, items in (("source", kg.kb.sources), ("node", kg.kb.nodes), ("fact", kg.kb.facts),
                        ("step", kg.kb.steps)):
        seen: set[str] = set()
        for item in items:
            if item.id in seen:
                raise ExportError(f"{kind} id '{item.id}' is defined twice; run 'gpulane kb check' and fix it "
                                  "before exporting (an RDF resource has one IRI)")
            seen.add(item.id)


def _extra(w: _Writer, s: str, item) -> None:
    handled = HANDLED[type(item).__name__]
    fields = type(item).model_fields
    for name, info in fields.items():
        value = getattr(item, name)
        if name in handled or value is None or value == info.default:
            continue
        if info.default_factory is not None and value == info.default_factory():
            continue  # an empty list or mapping: the field's default, restored on reading
        dumped = item.model_dump(mode="json", include={name})[name]
        w.lit(s, GL + camel(name), json.dumps(dumped, ensure_ascii=False, sort_keys=False), RDF_JSON)


def _origin(w: _Writer, kg: KnowledgeGraph, iri: str, kind: str, index: int) -> None:
    w.lit(iri, GL + "position", index)
    origin = kg.kb.origin(kind, index)
    if origin is not None:
        w.lit(iri, GL + "definedIn", origin.path)
        w.lit(iri, GL + "line", origin.line)


def _source(w: _Writer, kg: KnowledgeGraph, index: int, src: Source) -> None:
    s = source_iri(src.id)
    w.iri(s, RDF + "type", GL + "Source")
    w.iri(s, RDF + "type", PROV + "Entity")
    w.lit(s, GL + "id", src.id)
    w.lit(s, GL + "url", src.url, XSD + "anyURI")
    w.lit(s, DCT + "publisher", src.publisher)
    w.lit(s, DCT + "title", src.title)
    for field, prop in SOURCE_FIELDS.items():
        value = getattr(src, field)
        if value is not None:
            w.lit(s, GL + prop, value)
    if src.reviewed is not None:
        w.lit(s, GL + "reviewed", src.reviewed)
    _extra(w, s, src)
    _origin(w, kg, s, "sources", index)


def _node(w: _Writer, kg: KnowledgeGraph, index: int, node: Node) -> None:
    s = node_iri(node.id)
    w.iri(s, RDF + "type", GL + "Node")
    w.lit(s, GL + "id", node.id)
    w.iri(s, GL + "layer", GL + node.layer.value)
    w.lit(s, GL + "name", node.name)
    w.lit(s, RDFS + "label", node.name)
    if node.aliases:
        w.str_list(s, GL + "aliases", list(node.aliases))
    for field, prop in NODE_FIELDS.items():
        value = getattr(node, field)
        if value is not None:
            w.lit(s, GL + prop, value)
    if node.vram_gb is not None:
        w.lit(s, GL + "vramGb", float(node.vram_gb))
    if node.platform is not None:
        w.lit(s, GL + "platform", node.platform.value)
    if node.kernels:
        w.str_list(s, GL + "kernels", list(node.kernels))
    if node.release_date is not None:
        w.lit(s, GL + "releaseDate", node.release_date)
    for layer, kind in node.layers.items():
        w.iri(s, GL + ("notUsedLayer" if kind == "not_used" else "bundledLayer"), GL + layer.value)
    if node.source is not None:
        w.iri(s, PROV + "wasDerivedFrom", source_iri(node.source))
    _extra(w, s, node)
    _origin(w, kg, s, "nodes", index)


def _selector(w: _Writer, s: str, sel: Selector) -> None:
    w.iri(s, RDF + "type", GL + "Selector")
    if sel.layer is not None:
        w.iri(s, GL + "selectorLayer", GL + sel.layer.value)
    if sel.ids is not None:
        w.str_list(s, GL + "ids", list(sel.ids))
    for field, prop in SELECTOR_FIELDS.items():
        value = getattr(sel, field)
        if value is not None:
            w.lit(s, GL + prop, getattr(value, "value", value))


def _expansion(w: _Writer, kg: KnowledgeGraph, s: str, cond: Condition, keys: DriverKeys) -> None:
    """What a compiled selector picks: node links, or driver intervals."""
    w.iri(s, GL + "compiledLayer", GL + cond.layer.value)
    if cond.ids is not None:
        for nid in sorted(cond.ids):
            if nid in kg.nodes:
                w.iri(s, GL + "selects", node_iri(nid))
    if cond.drivers is not None:
        w.lit(s, GL + "constrainsDriver", True)
        # An empty range is written as one interval that holds no point.
        for i, (low, high) in enumerate(keys.interval_keys(cond.drivers) or [(INF_KEY, -1)]):
            iv = f"{s}/interval/{i}"
            w.iri(s, GL + "driverInterval", iv)
            w.lit(iv, GL + "lowKey", low)
            w.lit(iv, GL + "highKey", high)


def _fact(w: _Writer, kg: KnowledgeGraph, index: int, fact: Fact, cf, keys: DriverKeys) -> None:
    s = fact_iri(fact.id)
    w.iri(s, RDF + "type", GL + "Fact")
    w.iri(s, RDF + "type", RDF + "Statement")
    w.iri(s, RDF + "type", PROV + "Entity")
    w.lit(s, GL + "id", fact.id)
    w.iri(s, GL + "relation", GL + fact.relation.value)
    # gl:subject names every node the fact is about (a selector's expansion too), so
    # SPARQL joins need no selector logic; the selector itself is kept for the round trip.
    for subject in kg.subjects_of(fact):
        w.iri(s, GL + "subject", node_iri(subject))
    if isinstance(fact.subject, list):
        w.str_list(s, GL + "subjectList", list(fact.subject))
    elif isinstance(fact.subject, Selector):
        sel = f"{s}/subject"
        w.iri(s, GL + "subjectSelector", sel)
        _selector(w, sel, fact.subject)
    obj = f"{s}/object"
    w.iri(s, GL + "object", obj)
    _selector(w, obj, fact.object)
    for layer, sel in fact.when.items():
        c = f"{s}/when/{layer.value}"
        w.iri(s, GL + "when", c)
        w.iri(c, RDF + "type", GL + "Condition")
        w.iri(c, GL + "onLayer", GL + layer.value)
        _selector(w, c, sel)
    w.iri(s, GL + "status", GL + fact.status.value)
    w.lit(s, GL + "exhaustive", bool(fact.exhaustive))
    if fact.exhaustive or fact.relation in ALWAYS_EXHAUSTIVE:
        w.lit(s, GL + "listsAll", True)
    for field, prop in FACT_FIELDS.items():
        value = getattr(fact, field)
        if value is not None:
            w.lit(s, GL + prop, value)
    if fact.source is not None:
        w.iri(s, PROV + "wasDerivedFrom", source_iri(fact.source))
    if fact.reviewed is not None:
        w.lit(s, GL + "reviewed", fact.reviewed)
    src = kg.sources.get(fact.source or "")
    reviewed = fact.reviewed or (src.reviewed if src else None)
    if reviewed is not None:
        w.lit(s, PROV + "generatedAtTime", f"{reviewed.isoformat()}T00:00:00Z", XSD + "dateTime")
    _extra(w, s, fact)
    _origin(w, kg, s, "facts", index)
    if cf is None:
        return  # its subject is not a node: nothing to expand
    w.iri(s, GL + "subjectLayer", GL + cf.subject_layer.value)
    # The layers its conditions read, so SPARQL can match all of them with joins.
    w.lit(s, GL + "whenLayers", ",".join(sorted(c.layer.value for c in cf.when)))
    _expansion(w, kg, s, cf.target, keys)
    for layer, cond in zip(fact.when, cf.when):
        _expansion(w, kg, f"{s}/when/{layer.value}", cond, keys)


def to_graph(kg: KnowledgeGraph):
    """The export as an rdflib Graph, with the gl/kb/prov prefixes bound."""
    import rdflib

    g = rdflib.Graph()
    for prefix, ns in PREFIXES.items():
        g.bind(prefix, ns, override=True)
    g.parse(data=ntriples(kg), format="nt")
    return g


_LOCAL = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _short(term: str) -> str:
    """A prefixed name for a term where one is safe, the term itself otherwise."""
    if term.startswith("<"):
        iri = term[1:-1]
        for prefix, ns in PREFIXES.items():
            if iri.startswith(ns) and _LOCAL.fullmatch(iri[len(ns):]):
                return f"{prefix}:{iri[len(ns):]}"
        return term
    if "^^<" in term:
        text, _, dtype = term.rpartition("^^")
        return f"{text}^^{_short(dtype)}"
    return term


def turtle(kg: KnowledgeGraph) -> str:
    """The export as Turtle: prefixes, one block per resource, in export order."""
    out = [f"@prefix {prefix}: <{ns}> .\n" for prefix, ns in PREFIXES.items()]
    current = None
    for s, p, o in _triples(kg):
        if s != current:
            if current is not None:
                out.append(" .\n")
            out.append(f"\n{_short(s)}\n    {_short(p)} {_short(o)}")
            current = s
        else:
            out.append(f" ;\n    {_short(p)} {_short(o)}")
    if current is not None:
        out.append(" .\n")
    return "".join(out)


def _jsonld_value(term: str):
    if term.startswith("<"):
        return {"@id": term[1:-1]}
    if term.startswith("_:"):
        return {"@id": term}
    text, _, dtype = term.rpartition("^^") if term.endswith(">") and "\"^^<" in term else (term, "", "")
    value = json.loads(text)  # an N-Triples string literal is a JSON string here (same escapes)
    return {"@value": value, "@type": dtype[1:-1]} if dtype else {"@value": value}


def jsonld(kg: KnowledgeGraph) -> str:
    """The export as expanded JSON-LD (no remote context needed to read it)."""
    objects: dict[str, dict] = {}
    for s, p, o in _triples(kg):
        key = s[1:-1] if s.startswith("<") else s
        obj = objects.setdefault(key, {"@id": key})
        prop = p[1:-1]
        if prop == RDF + "type":
            obj.setdefault("@type", []).append(o[1:-1])
        else:
            obj.setdefault(prop, []).append(_jsonld_value(o))
    return json.dumps({"@graph": list(objects.values())}, ensure_ascii=False, indent=1) + "\n"


def verdicts(kg: KnowledgeGraph, format: str = "ntriples") -> str:
    """The verdict graph (gpulane.graph.verdicts) as N-Triples or Turtle: the engine's pair
    verdicts, which the generated SPARQL reads beside the export. Derived data: the import
    does not read it back."""
    from gpulane.graph.verdicts import verdict_triples

    triples = verdict_triples(kg)
    if format in ("nt", "ntriples", "n-triples"):
        return "".join(f"{s} {p} {o} .\n" for s, p, o in triples)
    if format in ("ttl", "turtle"):
        out = [f"@prefix {prefix}: <{ns}> .\n" for prefix, ns in PREFIXES.items()]
        out += [f"{_short(s)} {_short(p)} {_short(o)} .\n" for s, p, o in triples]
        return "".join(out)
    raise ExportError(f"the verdict graph is written as ntriples or turtle, not '{format}'")


def export(kg: KnowledgeGraph, format: str = "turtle") -> str:
    """The knowledge base as RDF text: turtle, ntriples or jsonld."""
    if format in ("nt", "ntriples", "n-triples"):
        return ntriples(kg)
    if format in ("ttl", "turtle"):
        return turtle(kg)
    if format in ("jsonld", "json-ld"):
        return jsonld(kg)
    raise ExportError(f"unknown export format '{format}'; formats are {', '.join(FORMATS)}")
