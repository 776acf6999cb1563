"""The Python API that the CLI itself calls: load a knowledge base, then ask it."""

from __future__ import annotations

import gc
import re
from pathlib import Path
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict
from pydantic_core import to_json

from gpulane.errors import KBInvalidError
from gpulane.graph.kb import CompiledState, KnowledgeGraph
from gpulane.loaders.cache import files_key, load_cached, slot_for
from gpulane.loaders.folder import MAX_FILE_BYTES, StoredKB, default_data_dir, kb_files
from gpulane.model import KnowledgeBase, Node, Source, Step
from gpulane.loaders.transaction import reading

__all__ = ["load_graph", "build_graph", "folder_problems"]

CACHE_SALT = "gpulane-graph-v4"


def build_graph(data_dir: Path | None = None, strict: bool = True) -> KnowledgeGraph:
    """Load and compile a knowledge-base folder without any cache.

    With ``strict``, a knowledge base that `kb check` finds errors in is refused
    (KBInvalidError); malformed files always raise KBLoadError.
    """
    from gpulane.loaders.kbfiles import load_files  # the YAML reader: not needed for a cache hit

    directory = Path(data_dir) if data_dir else default_data_dir()
    with reading(directory):
        files = kb_files(directory)
        return _compile(load_files(files), strict)


def folder_problems(paths: list[Path], shown_as: dict[Path, str] | None = None) -> list[str]:
    """Why these files would not make a loadable knowledge base (empty when they would).

    What an import checks before it replaces anything: the files load, and `kb check` finds
    no errors in the result.
    """
    from gpulane.errors import KBLoadError
    from gpulane.loaders.kbfiles import load_files

    try:
        _compile(load_files(paths, shown_as), strict=True)
    except KBLoadError as exc:
        return [str(p) for p in exc.problems]
    except KBInvalidError as exc:
        return list(exc.problems)
    return []


def _compile(kb: KnowledgeBase, strict: bool = True) -> KnowledgeGraph:
    """A loaded knowledge base → the graph (checked and with its solver tables when strict)."""
    from gpulane.graph.check import check_graph
    from gpulane.queries.run import solver_for

    kg = KnowledgeGraph(kb)
    if strict:
        errors = [str(p) for p in check_graph(kg) if p.severity == "error"]
        if errors:
            raise KBInvalidError(errors)
        solver_for(kg)  # built now, so that every query of this process shares its tables
    return kg


def _load_files(files: list[Path]) -> KnowledgeBase:
    # A cache miss: the shipped files are read from their read-ahead forms where those stand in
    # for them (gpulane.loaders.forms), any other file from its YAML.
    from gpulane.loaders.forms import load_read_ahead

    return load_read_ahead(files)


def _code_stamp() -> str:
    """Size and mtime of every module the compiled graph is made of: new code, new cache."""
    package = Path(__file__).resolve().parent
    parts = []
    for sub in ("", "graph", "loaders"):
        for py in sorted((package / sub).glob("*.py")):
            st = py.stat()
            parts.append(f"{sub}/{py.name}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(parts)


# The shape of gpulane.graph.kb.selector_key: layer, ids, then one value per selector attribute.
_SelectorKey = tuple[Optional[str], Optional[tuple[str, ...]], Optional[str], Optional[str], Optional[str],
                     Optional[str], Optional[str], Optional[str], Optional[str], Optional[str]]
_Selections = list[tuple[_SelectorKey, str, list[str]]]
_Origins = dict[str, list[Optional[tuple[str, int]]]]


class _StoredCore(BaseModel):
    """The part of a cache entry every command reads: plain data, validated when read.

    The facts, where each item was written, and the selector expansions follow it in the entry
    as separate texts, read when first used (see ``_encode``)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    files: list[str]
    sources: list[Source]
    nodes: list[Node]
    steps: list[Step] = []
    # What compiling computed (KnowledgeGraph.compiled_state): read back, not recomputed.
    compiled: CompiledState
    # Where each fact's JSON text ends in the texts after the core line; then where the origins
    # (StoredKB.origins) and the selector expansions (key, layer, node ids) end.
    fact_ends: list[int]
    origins_end: int
    selections_end: int


def _encode(kg: KnowledgeGraph) -> bytes:
    """A cache entry: one line of JSON that every warm start validates (``_StoredCore``), then
    each fact's JSON text, the origins and the selections, each validated when first read. A
    command reads as models only the facts it shows (and the origins only to name a file and
    line), so a warm start costs less than reading every fact, at every size."""
    def plain(value) -> bytes:
        # pydantic-core's writer: for the values written here (strings, ints, None, lists, tuples,
        # dicts with string keys) the same bytes as ``json.dumps(value, ensure_ascii=False,
        # separators=(",", ":")).encode()``, in a third of the time.
        return to_json(value)

    stored = StoredKB.of(kg.kb)
    fact_texts = _fact_texts(stored)
    fact_ends, end = [], 0
    for text in fact_texts:
        end += len(text)
        fact_ends.append(end)
    origins = plain(stored.origins)
    selections = plain(kg.selection_table())
    head = _dump(stored, include={"files", "sources", "nodes", "steps"})
    # Neither JSON text holds a raw newline (strings escape it): the core is exactly the first line.
    core = b"".join((head[:-1], b',"compiled":', plain(kg.compiled_state()), b',"fact_ends":', plain(fact_ends),
                     b',"origins_end":', str(end + len(origins)).encode(),
                     b',"selections_end":', str(end + len(origins) + len(selections)).encode(), b"}"))
    return b"".join((core, b"\n", *fact_texts, origins, selections))


def _fact_texts(stored: StoredKB) -> list[bytes]:
    """Each fact's JSON text (as its model writes it, set fields only).

    Written as one list and cut where a fact starts (``},{"id":``: a fact's first field is its
    id, no model inside a fact has an ``id`` field, and a quote inside a string is escaped), which
    costs half of writing each fact on its own; where the cut does not give one text per fact,
    each is written on its own."""
    text = _dump(stored, include={"facts"})
    body = text[len(b'{"facts":['):-len(b"]}")]
    pieces = body.split(b'},{"id":') if body else []
    if len(pieces) == len(stored.facts):
        return [(b"" if i == 0 else b'{"id":') + piece + (b"" if i == len(pieces) - 1 else b"}")
                for i, piece in enumerate(pieces)]
    return [f.model_dump_json(exclude_unset=True).encode() for f in stored.facts]


def _dump(stored: StoredKB, include: set[str]) -> bytes:
    """``stored.model_dump_json(include=include, exclude_unset=True).encode()``: the serializer's
    own bytes, not decoded to a string and encoded back (megabytes at a cold start)."""
    return StoredKB.__pydantic_serializer__.to_json(stored, include=include, exclude_unset=True)


_validators: dict[str, Any] = {}
_NEWLINE = re.compile(b"\n")  # finds the end of the core line in a view (which has no .find)


def _validator(name: str, annotation: Any):
    made = _validators.get(name)
    if made is None:
        from gpulane.loaders.stored import validator

        made = _validators[name] = validator(annotation)
    return made


def _decoder(slot: str):
    """How a cache entry of this slot is read back (see ``_encode``)."""
    def decode(payload: memoryview) -> KnowledgeGraph:
        from gpulane.errors import CacheEntryError
        from gpulane.loaders.cache import discard, entry_path
        from gpulane.loaders.stored import CheckedOnUse
        from gpulane.model import Fact
        from gpulane.queries.run import solver_for

        # Our own output, checked before it was stored (the cache matched the entry's key, which
        # names these files and this code, and its digest): every value's type is validated again
        # when read (a wrong one is a miss, or for a part read later an error that removes the
        # entry), the value checks are not, and the models are made from the checked data
        # without a second pass (gpulane.loaders.stored).
        # Only the core line is copied (the JSON reader takes bytes); the facts, origins and
        # selections after it stay a view of the entry, each item copied when first read.
        newline = _NEWLINE.search(payload)
        if newline is None:
            raise ValueError("no core line")
        core = _validator("core", _StoredCore).validate_json(bytes(payload[:newline.start()]))
        rest = payload[newline.end():]
        facts_end = core["fact_ends"][-1] if core["fact_ends"] else 0
        origins_end, selections_end = core["origins_end"], core["selections_end"]
        if not facts_end <= origins_end <= selections_end == len(rest):
            raise ValueError("section offsets do not fit the entry")

        def damaged(what: str, exc: Exception):
            discard(slot)
            errors = exc.errors() if callable(getattr(exc, "errors", None)) else []  # pydantic-core's
            why = f"{'.'.join(map(str, errors[0]['loc'])) or 'value'}: {errors[0]['msg']}" if errors else str(exc)
            return CacheEntryError(str(entry_path(slot)), f"{what}: {why}")

        def section(name: str, annotation: Any, start: int, end: int):
            def read():
                try:
                    return _validator(name, annotation).validate_json(bytes(rest[start:end]))
                except ValueError as exc:
                    raise damaged(name, exc) from None
            return read

        facts = CheckedOnUse(_validator("fact", Fact), rest, core["fact_ends"],
                             lambda index, exc: damaged(f"fact {index}", exc))
        kb = StoredKB.read(core, facts=facts, origins=section("origins", _Origins, facts_end, origins_end))
        kg = KnowledgeGraph.from_compiled(kb, core["compiled"],
                                          section("selections", _Selections, origins_end, selections_end))
        solver_for(kg)
        return kg

    return decode


def load_graph(data_dir: Path | None = None, use_cache: bool = True) -> KnowledgeGraph:
    """The knowledge graph of a folder (default: the shipped one), from cache when fresh.

    The cache holds the checked knowledge base and what compiling it computed as data (JSON),
    never code: a hit is validated by the schema and the compiled tables are read back.
    """
    directory = Path(data_dir) if data_dir else default_data_dir()
    if not use_cache:
        return build_graph(directory)
    from gpulane import __version__

    install = Path(__file__).resolve().parent
    # The graph is some 10^5 objects made at once and kept for the whole run: collecting garbage
    # while they are made only rescans them (a third of a warm start), so it waits until after,
    # and they are then moved out of the collector's way (gc.freeze).
    collecting = gc.isenabled()
    gc.disable()
    try:
        with reading(directory):  # an import in progress finishes first
            files = kb_files(directory)
            key = files_key(files, f"{CACHE_SALT}:{__version__}:{directory.resolve()}:{_code_stamp()}",
                            MAX_FILE_BYTES)
            slot = slot_for(install, directory.resolve())
            kg, _ = load_cached(key, lambda: _compile(_load_files(files)), _encode, _decoder(slot), slot=slot)
    finally:
        if collecting:
            gc.freeze()
            gc.enable()
    return kg
