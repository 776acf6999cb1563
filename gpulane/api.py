"""The Python API that the CLI itself calls: load a knowledge base, then ask it."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict

from gpulane.errors import KBInvalidError
from gpulane.graph.kb import KnowledgeGraph
from gpulane.loaders.cache import files_key, load_cached, slot_for
from gpulane.loaders.folder import MAX_FILE_BYTES, StoredKB, default_data_dir, kb_files
from gpulane.model import KnowledgeBase
from gpulane.loaders.transaction import reading

__all__ = ["load_graph", "build_graph", "folder_problems"]

CACHE_SALT = "gpulane-graph-v3"


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
    from gpulane.loaders.kbfiles import load_files  # the YAML reader: imported on a cache miss only

    return load_files(files)


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


class _StoredGraph(BaseModel):
    """What the cache holds for a knowledge-base folder: plain data, validated when read."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    kb: StoredKB
    # Selector expansions (key, layer, node ids), so a warm start need not match them again.
    selections: list[tuple[_SelectorKey, str, list[str]]]
    # What compiling computed (KnowledgeGraph.compiled_state): read back, not recomputed.
    compiled: dict[str, Any]


def _encode(kg: KnowledgeGraph) -> bytes:
    def plain(value) -> bytes:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()

    # The fields of _StoredGraph, written piecewise: the models by pydantic, the rest by json.
    return b"".join((b'{"kb":', StoredKB.of(kg.kb).model_dump_json(exclude_unset=True).encode(),
                     b',"selections":', plain(kg.selection_table()), b',"compiled":', plain(kg.compiled_state()),
                     b"}"))


_payload_validator = None


def _decode(payload: bytes) -> KnowledgeGraph:
    from gpulane.queries.run import solver_for

    global _payload_validator
    if _payload_validator is None:
        from gpulane.loaders.stored import validator

        _payload_validator = validator(_StoredGraph)
    # Our own output, checked before it was stored (the cache matched the entry's key, which names
    # these files and this code, and its digest): every value's type is validated again (a wrong
    # one is a miss), the value checks are not, and the models are made from the checked data
    # without a second pass (gpulane.loaders.stored).
    stored = _payload_validator.validate_json(payload)
    kg = KnowledgeGraph.from_compiled(StoredKB.read(stored["kb"]), stored["compiled"], stored["selections"])
    solver_for(kg)
    return kg


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
            kg, _ = load_cached(key, lambda: _compile(_load_files(files)), _encode, _decode,
                                slot=slot_for(install, directory.resolve()))
    finally:
        if collecting:
            gc.freeze()
            gc.enable()
    return kg
