"""The Python API that the CLI itself calls: load a knowledge base, then ask it."""

from __future__ import annotations

from pathlib import Path

from gpulane.errors import KBInvalidError
from gpulane.graph.kb import KnowledgeGraph
from gpulane.loaders.cache import files_key, load_cached
from gpulane.loaders.kbfiles import default_data_dir, kb_files, load_files

__all__ = ["load_graph", "build_graph"]

CACHE_SALT = "gpulane-graph-v1"


def build_graph(data_dir: Path | None = None, strict: bool = True) -> KnowledgeGraph:
    """Load and compile a knowledge-base folder without any cache.

    With ``strict``, a knowledge base that `kb check` finds errors in is refused
    (KBInvalidError); malformed files always raise KBLoadError.
    """
    from gpulane.graph.check import check_graph
    from gpulane.queries.run import solver_for

    files = kb_files(Path(data_dir) if data_dir else default_data_dir())
    kg = KnowledgeGraph(load_files(files))
    if strict:
        errors = [str(p) for p in check_graph(kg) if p.severity == "error"]
        if errors:
            raise KBInvalidError(errors)
        solver_for(kg)  # its tables travel with the cached graph
    return kg


def _code_stamp() -> str:
    """Size and mtime of every module the compiled graph is made of: new code, new cache."""
    package = Path(__file__).resolve().parent
    parts = []
    for sub in ("", "graph", "loaders"):
        for py in sorted((package / sub).glob("*.py")):
            st = py.stat()
            parts.append(f"{sub}/{py.name}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(parts)


def load_graph(data_dir: Path | None = None, use_cache: bool = True) -> KnowledgeGraph:
    """The knowledge graph of a folder (default: the shipped one), from cache when fresh."""
    directory = Path(data_dir) if data_dir else default_data_dir()
    if not use_cache:
        return build_graph(directory)
    from gpulane import __version__

    files = kb_files(directory)
    key = files_key(files, f"{CACHE_SALT}:{__version__}:{directory.resolve()}:{_code_stamp()}")
    kg, _ = load_cached(key, lambda: build_graph(directory))
    return kg  # type: ignore[return-value]
