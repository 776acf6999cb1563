"""An RDF file (gpulane's export, or a triple store's dump of it) → a KnowledgeBase.

What `gpulane kb import rdf FILE` reads. The file is untrusted:

- it is read whole into memory, bounded (MAX_FILE_BYTES), and parsed from that
  text, so the parser never opens a file or a URL (rdflib fetches only what it
  is given a location for);
- RDF/XML with a DOCTYPE is refused: that is where external entities and
  entity-expansion ("billion laughs") live, and RDF has no use for them;
- JSON-LD that names a remote ``@context`` or ``@import`` is refused before
  parsing, so nothing is fetched from the network;
- a literal over MAX_LITERAL_CHARS is refused;
- syntax errors name the line.

Only the facts as written are read back (ids, selectors, fields); the compiled
expansion in the export (``gl:selects`` and driver intervals) is ignored and
recomputed by KnowledgeGraph. Writing is all or nothing: every file is written
to a temporary file first, then each is renamed into place.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml
from pydantic import ValidationError

from gpulane.errors import FileProblem, GpulaneError, KBLoadError
from gpulane.graph.rdf import (DCT, FACT_FIELDS, GL, HANDLED, NODE_FIELDS, PROV, RDF, RDF_JSON, SELECTOR_FIELDS,
                               SOURCE_FIELDS, camel, id_from_iri)
from gpulane.loaders.kbfiles import KnowledgeBase, Origin, display_path
from gpulane.loaders.safeio import UnreadableFile, read_regular_file
from gpulane.loaders.transaction import DataFolderError, check_file_name, replace_files
from gpulane.model import Fact, Layer, Node, Source, Step

__all__ = ["RDFImportError", "read_rdf", "parse_rdf", "kb_from_triples", "guess_format", "ImportedFile", "plan_files",
           "write_files", "MAX_FILE_BYTES", "MAX_LITERAL_CHARS", "RDF_FORMATS"]

# The whole shipped knowledge base exports to about 33 MB of N-Triples (less in Turtle).
# The whole shipped knowledge base in N-Triples is about 68 MB (5,022 facts, 2026-12-01) and grows
# with the catalogue: the cap leaves room for a few times that, and still refuses a runaway file.
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_LITERAL_CHARS = 1024 * 1024
RDF_FORMATS = {".ttl": "turtle", ".turtle": "turtle", ".nt": "nt", ".ntriples": "nt", ".jsonld": "json-ld",
               ".json": "json-ld", ".rdf": "xml", ".xml": "xml", ".owl": "xml"}
_BASE = "urn:gpulane:import:"  # the base IRI for relative references: never dereferenced
IMPORT_FILE = "rdf-import.yaml"  # where items without a recorded file go


class RDFImportError(GpulaneError):
    """An RDF file that cannot be imported: unreadable, hostile, or not RDF; nothing was imported."""

    def __init__(self, path: str, line: int | None, message: str):
        self.problem = FileProblem(str(path), line, message)
        self.line = line
        super().__init__(str(self.problem))


def guess_format(path: Path) -> str:
    """The rdflib format name for a file, by its extension."""
    fmt = RDF_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise RDFImportError(display_path(path), None,
                                f"unknown RDF file type '{path.suffix}'; use .ttl, .nt, .jsonld or .rdf")
    return fmt


def read_rdf(path: Path, format: str | None = None) -> KnowledgeBase:
    """Read and validate an RDF file into a KnowledgeBase, or raise a GpulaneError."""
    path = Path(path)
    shown = display_path(path)
    fmt = format or guess_format(path)
    try:
        # A regular file only (not /dev/zero, a FIFO or a link to one), read up to the cap.
        data = read_regular_file(path, MAX_FILE_BYTES)
    except UnreadableFile as exc:
        raise RDFImportError(shown, None, exc.reason) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RDFImportError(shown, None, f"not UTF-8 text ({exc.reason})") from None
    return parse_rdf(text, fmt, shown)


def parse_rdf(text: str, format: str, shown: str = "<rdf>") -> KnowledgeBase:
    """Parse RDF text (bounded, offline) and read the knowledge base in it."""
    if len(text) > MAX_FILE_BYTES:
        raise RDFImportError(shown, None, f"text is larger than {MAX_FILE_BYTES} bytes")
    fmt = {"turtle": "turtle", "ttl": "turtle", "nt": "nt", "ntriples": "nt", "jsonld": "json-ld",
           "json-ld": "json-ld", "xml": "xml", "rdfxml": "xml"}.get(format)
    if fmt is None:
        raise RDFImportError(shown, None, f"unknown RDF format '{format}'")
    if fmt == "xml":
        _refuse_doctype(text, shown)
    if fmt == "json-ld":
        _refuse_remote_context(text, shown)
    graph = _parse(text, fmt, shown)
    triples = []
    for s, p, o in graph:
        if hasattr(o, "datatype") and len(o) > MAX_LITERAL_CHARS:
            raise RDFImportError(shown, _line_of(text, str(s)),
                                    f"a literal of <{p}> is longer than {MAX_LITERAL_CHARS} characters")
        triples.append((s, p, o))
    return kb_from_triples(triples, shown, text)


_DOCTYPE = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def _refuse_doctype(text: str, shown: str) -> None:
    match = _DOCTYPE.search(text)
    if match:
        raise RDFImportError(shown, text.count("\n", 0, match.start()) + 1,
                                "RDF/XML with a DOCTYPE or ENTITY declaration is refused "
                                "(external entities and entity expansion are not allowed)")


def _refuse_remote_context(text: str, shown: str) -> None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RDFImportError(shown, exc.lineno, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise RDFImportError(shown, None, "JSON nested too deeply") from None
    except ValueError as exc:  # a number of more than 4,300 digits
        what = "a number with too many digits" if "digits" in str(exc) else str(exc)[:200]
        raise RDFImportError(shown, None, f"invalid JSON: {what}") from None
    stack: list[Any] = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "@import" or (key == "@context" and _names_a_document(value)):
                    raise RDFImportError(shown, _line_of(text, key),
                                            f"JSON-LD {key} naming another document is refused "
                                            "(nothing is fetched while importing); inline the context")
                stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)


def _names_a_document(context: Any) -> bool:
    if isinstance(context, str):
        return True
    if isinstance(context, list):
        return any(_names_a_document(c) for c in context)
    return False


def _parse(text: str, fmt: str, shown: str):
    import rdflib
    from rdflib.plugins.parsers.notation3 import BadSyntax

    graph = rdflib.Graph()
    try:
        graph.parse(data=text, format=fmt, publicID=_BASE)
    except BadSyntax as exc:
        raise RDFImportError(shown, exc.lines + 1, f"invalid {_FORMAT_WORD[fmt]}: {exc.message}") from None
    except Exception as exc:  # rdflib raises many kinds; each is reported with a line where one is known
        line = _error_line(exc, text, fmt)
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RDFImportError(shown, line, f"invalid {_FORMAT_WORD[fmt]}: {message[:300]}") from None
    return graph


_FORMAT_WORD = {"turtle": "Turtle", "nt": "N-Triples", "json-ld": "JSON-LD", "xml": "RDF/XML"}


def _error_line(exc: Exception, text: str, fmt: str) -> int | None:
    get_line = getattr(exc, "getLineNumber", None)
    if callable(get_line):
        return get_line()
    lineno = getattr(exc, "lineno", None)
    if isinstance(lineno, int):
        return lineno
    if fmt == "nt":
        # rdflib's N-Triples error names the text, not the line: find the first line that fails alone.
        import rdflib

        for i, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                rdflib.Graph().parse(data=line + "\n", format="nt")
            except Exception:
                return i
    return None


def _line_of(text: str | None, needle: str) -> int | None:
    """The line where a subject or key first appears in the text, for error messages."""
    if not text:
        return None
    for candidate in (f"<{needle}>", f'"{needle}"', needle):
        at = text.find(candidate)
        if at >= 0:
            return text.count("\n", 0, at) + 1
    return None


# -- triples → models ---------------------------------------------------------------


class _Index:
    """Subject → property → values, over plain Python values."""

    def __init__(self, triples: Iterable[tuple]):
        self.props: dict[str, dict[str, list]] = {}
        for s, p, o in triples:
            self.props.setdefault(str(s), {}).setdefault(str(p), []).append(o)

    def all(self, s: str, p: str) -> list:
        return self.props.get(s, {}).get(p, [])

    def one(self, s: str, p: str):
        values = self.all(s, p)
        return values[0] if values else None

    def text(self, s: str, p: str) -> str | None:
        value = self.one(s, p)
        return None if value is None else str(value)

    def value(self, s: str, p: str):
        value = self.one(s, p)
        if value is None:
            return None
        to_python = getattr(value, "toPython", None)
        return to_python() if callable(to_python) and hasattr(value, "datatype") else str(value)

    def str_list(self, s: str, p: str) -> list[str] | None:
        head = self.one(s, p)
        if head is None:
            return None
        out: list[str] = []
        seen: set[str] = set()
        node = str(head)
        while node != RDF + "nil":
            if node in seen or node not in self.props:
                raise ValueError(f"the list of <{p}> is not a proper rdf:List")
            seen.add(node)
            out.append(str(self.one(node, RDF + "first")))
            node = str(self.one(node, RDF + "rest"))
        return out

    def typed(self, cls: str) -> list[str]:
        return [s for s, props in self.props.items() if any(str(t) == cls for t in props.get(RDF + "type", []))]


def _local(iri, ns: str = GL) -> str | None:
    text = str(iri) if iri is not None else None
    return text[len(ns):] if text and text.startswith(ns) else text


def kb_from_triples(triples: Iterable[tuple], shown: str = "<rdf>", text: str | None = None) -> KnowledgeBase:
    """Read sources, nodes and facts (as written) from triples; KBLoadError lists every problem."""
    idx = _Index(triples)
    kb = KnowledgeBase()
    problems: list[FileProblem] = []
    files = idx.str_list("https://gpulane.dev/kb/knowledge-base", GL + "files") or []
    for kind, cls, build in (("sources", GL + "Source", _source), ("nodes", GL + "Node", _node),
                             ("facts", GL + "Fact", _fact), ("steps", GL + "Step", _step)):
        subjects = sorted(idx.typed(cls), key=lambda s: (_position(idx, s), s))
        target = getattr(kb, kind)
        for s in subjects:
            try:
                item = build(idx, s)
            except (ValidationError, ValueError) as exc:
                problems.append(FileProblem(shown, _line_of(text, s), _problem_text(kind, idx, s, exc)))
                continue
            path = idx.text(s, GL + "definedIn")
            line = idx.value(s, GL + "line")
            if path is not None:
                kb.origins[(kind, len(target))] = Origin(path, int(line or 0))
                if path not in files:
                    files.append(path)
            else:
                kb.origins[(kind, len(target))] = Origin(shown, _line_of(text, s) or 0)
            target.append(item)
    if problems:
        raise KBLoadError(problems)
    if not (kb.sources or kb.nodes or kb.facts):
        raise KBLoadError([FileProblem(shown, None, "no gpulane sources, nodes or facts in this RDF "
                                                    f"(expected resources typed with the {GL} vocabulary)")])
    kb.files = files or [shown]
    return kb


def _position(idx: _Index, s: str) -> int:
    value = idx.value(s, GL + "position")
    return value if isinstance(value, int) else 1 << 62


def _problem_text(kind: str, idx: _Index, s: str, exc: Exception) -> str:
    word = kind[:-1]
    ident = idx.text(s, GL + "id") or s
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors():
            where = ".".join(str(x) for x in err["loc"])
            parts.append(f"{where}: {err['msg'].removeprefix('Value error, ')}" if where else err["msg"])
        return f"{word} '{ident}': " + "; ".join(parts)
    return f"{word} '{ident}': {exc}"


def _id(idx: _Index, s: str, kind: str) -> str:
    return idx.text(s, GL + "id") or id_from_iri(s, kind) or s


def _ref(iri, kind: str) -> str | None:
    return None if iri is None else (id_from_iri(str(iri), kind) or str(iri))


def _fields(idx: _Index, s: str, mapping: dict[str, str]) -> dict:
    out = {}
    for field, prop in mapping.items():
        value = idx.value(s, GL + prop)
        if value is not None:
            out[field] = value
    return out


def _extra(idx: _Index, s: str, model) -> dict:
    """Fields written generically (rdf:JSON literals), by model field name."""
    out = {}
    for name in model.model_fields:
        if name in HANDLED[model.__name__]:
            continue
        value = idx.one(s, GL + camel(name))
        if value is not None:
            if str(getattr(value, "datatype", "")) != RDF_JSON:
                raise ValueError(f"{name}: expected an rdf:JSON literal")
            try:
                out[name] = json.loads(str(value))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{name}: invalid JSON ({exc.msg})") from None
    return out


def _step(idx: _Index, s: str) -> Step:
    return Step.model_validate({"id": _id(idx, s, "step"), **_extra(idx, s, Step)})


def _source(idx: _Index, s: str) -> Source:
    data = {"id": _id(idx, s, "source"), "url": idx.text(s, GL + "url"),
            "publisher": idx.text(s, DCT + "publisher"), "title": idx.text(s, DCT + "title"),
            "reviewed": idx.value(s, GL + "reviewed"), **_fields(idx, s, SOURCE_FIELDS), **_extra(idx, s, Source)}
    return Source.model_validate({k: v for k, v in data.items() if v is not None})


def _node(idx: _Index, s: str) -> Node:
    data: dict[str, Any] = {"id": _id(idx, s, "node"), "layer": _local(idx.one(s, GL + "layer")),
                            "name": idx.text(s, GL + "name"), **_fields(idx, s, NODE_FIELDS)}
    for field, prop in (("aliases", "aliases"), ("kernels", "kernels")):
        items = idx.str_list(s, GL + prop)
        if items is not None:
            data[field] = items
    for field, prop in (("vram_gb", "vramGb"), ("platform", "platform"), ("release_date", "releaseDate")):
        value = idx.value(s, GL + prop)
        if value is not None:
            data[field] = value
    layers = {}
    for prop, kind in (("notUsedLayer", "not_used"), ("bundledLayer", "bundled")):
        for layer in idx.all(s, GL + prop):
            layers[_local(layer)] = kind
    if layers:
        data["layers"] = layers
    data["source"] = _ref(idx.one(s, PROV + "wasDerivedFrom"), "source")
    data.update(_extra(idx, s, Node))
    return Node.model_validate({k: v for k, v in data.items() if v is not None})


def _selector(idx: _Index, s: str) -> dict:
    data: dict[str, Any] = {}
    layer = idx.one(s, GL + "selectorLayer")
    if layer is not None:
        data["layer"] = _local(layer)
    ids = idx.str_list(s, GL + "ids")
    if ids is not None:
        data["ids"] = ids
    data.update(_fields(idx, s, SELECTOR_FIELDS))
    return data


def _fact(idx: _Index, s: str) -> Fact:
    subject_list = idx.str_list(s, GL + "subjectList")
    subject_selector = idx.one(s, GL + "subjectSelector")
    if subject_selector is not None:
        subject: Any = _selector(idx, str(subject_selector))
    elif subject_list is not None:
        subject = subject_list
    else:
        subjects = sorted(_ref(x, "node") for x in idx.all(s, GL + "subject"))
        subject = subjects[0] if len(subjects) == 1 else subjects
    obj = idx.one(s, GL + "object")
    when = {}
    for cond in sorted(idx.all(s, GL + "when"), key=str):
        key = _local(idx.one(str(cond), GL + "onLayer"))
        sel = _selector(idx, str(cond))
        # Ids alone are passed as a list: a mapping would take its layer from the key.
        when[key] = sel["ids"] if set(sel) == {"ids"} else sel
    when = dict(sorted(when.items(), key=lambda kv: _LAYER_RANK.get(kv[0], 99)))
    data: dict[str, Any] = {
        "id": _id(idx, s, "fact"), "relation": _local(idx.one(s, GL + "relation")), "subject": subject,
        "object": _selector(idx, str(obj)) if obj is not None else None,
        "status": _local(idx.one(s, GL + "status")), "exhaustive": idx.value(s, GL + "exhaustive"),
        "source": _ref(idx.one(s, PROV + "wasDerivedFrom"), "source"),
        "reviewed": idx.value(s, GL + "reviewed"), **_fields(idx, s, FACT_FIELDS)}
    if when:
        data["when"] = when
    data.update(_extra(idx, s, Fact))
    return Fact.model_validate({k: v for k, v in data.items() if v is not None})


_LAYER_RANK = {layer.value: i for i, layer in enumerate(Layer)}


# -- writing ----------------------------------------------------------------------


@dataclass
class ImportedFile:
    """One knowledge-base file an import writes: where, what, and whether it changes."""

    path: Path
    text: str
    status: str  # "new" | "changed" | "unchanged"
    counts: tuple[int, int, int]  # sources, nodes, facts


def plan_files(kb: KnowledgeBase, data_dir: Path) -> list[ImportedFile]:
    """The YAML files that hold the knowledge base, one per file it was exported from."""
    groups: dict[str, dict[str, list]] = {}
    for kind in ("sources", "nodes", "facts", "steps"):
        for i, item in enumerate(getattr(kb, kind)):
            origin = kb.origin(kind, i)
            # Items carry the knowledge-base file they were exported from (gl:definedIn); others
            # (origin: the RDF file itself) go to IMPORT_FILE. A .yml name would never be loaded.
            recorded = origin is not None and origin.path.endswith((".yaml", ".yml"))
            name = origin.path.replace("\\", "/").rsplit("/", 1)[-1] if recorded else IMPORT_FILE
            why = check_file_name(name)
            if why:
                shown_name = name.encode("unicode_escape").decode("ascii")[:80]
                raise RDFImportError(str(data_dir), None, f"{kind[:-1]} #{i + 1} is defined in '{shown_name}', "
                                                          f"which {why}")
            groups.setdefault(name, {"sources": [], "nodes": [], "facts": [], "steps": []})[kind].append(item)
    out = []
    for name, items in groups.items():
        path = Path(data_dir) / name
        text = dump_items(items)
        try:
            old = path.read_text(encoding="utf-8") if path.exists() else None
        except (OSError, UnicodeDecodeError):
            old = ""  # a folder or an unreadable file: "changed", and the write says why it cannot
        status = "new" if old is None else ("unchanged" if old == text else "changed")
        out.append(ImportedFile(path, text, status,
                                (len(items["sources"]), len(items["nodes"]), len(items["facts"]))))
    return out


def dump_items(items: dict[str, list]) -> str:
    """YAML for sources, nodes, facts and steps in the order given (defaults left out)."""
    data: dict[str, Any] = {}
    for kind in ("sources", "nodes", "facts", "steps"):
        if items.get(kind):
            data[kind] = [_compact(x.model_dump(mode="json", exclude_defaults=True, exclude_none=True))
                          for x in items[kind]]
    header = "# Imported by `gpulane kb import rdf`.\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def _compact(item: dict) -> dict:
    if "object" in item:
        item["object"] = _selector_yaml(item["object"])
    if "when" in item:
        item["when"] = {k: _selector_yaml(v) for k, v in item["when"].items()}
    if "applies_to" in item:
        item["applies_to"] = {k: _selector_yaml(v) for k, v in item["applies_to"].items()}
    return item


def _selector_yaml(sel: dict):
    return sel["ids"] if set(sel) == {"ids"} else sel


def write_files(files: list[ImportedFile], validate=None) -> list[Path]:
    """Write every changed file as one unit (see loaders.transaction); returns the paths written.

    ``validate`` (gpulane.api.folder_problems) checks the knowledge base the folder would hold.
    """
    changed = [f for f in files if f.status != "unchanged"]
    if not changed:
        return []
    folder = changed[0].path.parent
    try:
        return replace_files(folder, {f.path.name: f.text for f in changed}, validate=validate)
    except DataFolderError as exc:
        raise RDFImportError(exc.path, None, "\n  ".join([exc.message, *exc.problems[:20]])) from None
