"""A knowledge-base folder and the stored form of a loaded one, without reading YAML.

What a warm start needs (which files a folder holds, where the shipped one is, the validated
models a cache entry holds) lives here, apart from the YAML reader in kbfiles, so that a
command answered from the cache never imports PyYAML. kbfiles re-exports all of it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ConfigDict

from gpulane.errors import FileProblem, KBLoadError
from gpulane.model import Fact, KnowledgeBase, Node, Origin, Source, Step

__all__ = ["MAX_FILE_BYTES", "StoredKB", "assemble", "default_data_dir", "display_path", "kb_files"]

# The largest shipped file is ~250 KB and loads in well under a second; YAML loads at a few
# hundred KB a second, so this cap keeps any one file to seconds (16 MB took a minute and 1.4 GB).
MAX_FILE_BYTES = 2 * 1024 * 1024


def default_data_dir() -> Path:
    """The knowledge base shipped inside the package."""
    return Path(__file__).resolve().parent.parent / "data"


def kb_files(data_dir: Path) -> list[Path]:
    """The YAML files of a knowledge-base folder, in a stable order.

    Every ``*.yaml`` and ``*.yml`` entry is listed, whatever it is (a dangling symlink, a folder, a
    ``.yml`` file): the loader reports each one that is not a knowledge-base file, by name, rather
    than skipping it silently. Raises KBLoadError for a missing folder or one with no ``*.yaml``.
    """
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        what = "does not exist" if not data_dir.exists() else "is not a folder"
        raise KBLoadError([FileProblem(display_path(data_dir), None, f"the knowledge-base folder {what}")])
    found = sorted(p for p in data_dir.iterdir() if p.suffix in (".yaml", ".yml") and not p.name.startswith("."))
    if not any(p.suffix == ".yaml" for p in found):
        raise KBLoadError([FileProblem(display_path(data_dir), None,
                                       "the knowledge-base folder holds no *.yaml files")])
    return found


def display_path(path: Path) -> str:
    """A path as short as it can be said: relative to the working directory if inside it."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


# How one file is read: (its content, the line of each item per kind, the problems found). The
# content is anything with the four item lists (a KBFile); it is used only when there are no problems.
FileReader = Callable[[Path, str], tuple[object, Mapping[str, Sequence[int]], list[FileProblem]]]


def assemble(paths: Iterable[Path], read: FileReader, shown_as: dict[Path, str] | None = None) -> KnowledgeBase:
    """The files' items in one KnowledgeBase, each with where it was written, or KBLoadError.

    ``read`` reads one file (the YAML reader, or one that first looks for the file's read-ahead
    form). Every file is read and every problem collected before failing, so one run reports
    them all; on any problem nothing is returned. ``shown_as`` names files that are read from
    elsewhere (an import's staged files) by the name they will have.
    """
    kb = KnowledgeBase()
    problems: list[FileProblem] = []
    for path in paths:
        shown = display_path(Path((shown_as or {}).get(path, path)))
        content, lines, file_problems = read(path, shown)
        problems.extend(file_problems)
        if file_problems:
            continue
        kb.files.append(shown)
        for kind in _KIND_WORD:
            target = getattr(kb, kind)
            item_lines = lines.get(kind, ())
            for i, item in enumerate(getattr(content, kind)):
                kb.origins[(kind, len(target))] = Origin(shown, item_lines[i] if i < len(item_lines) else 0)
                target.append(item)
    if problems:
        raise KBLoadError(problems)
    return kb


class StoredKB(BaseModel):
    """A KnowledgeBase as the cache stores it: validated models and where each was written."""

    # Built only where a cache entry is written (a cold start) or a test validates one in full:
    # a warm start reads entries with gpulane.loaders.stored (see `read`).
    model_config = ConfigDict(extra="forbid", defer_build=True)

    files: list[str]
    sources: list[Source]
    nodes: list[Node]
    facts: list[Fact]
    steps: list[Step] = []
    # Per kind, one [path, line] per item (aligned with the item list); null where unknown.
    origins: dict[str, list[Optional[tuple[str, int]]]]

    @classmethod
    def of(cls, kb: KnowledgeBase) -> "StoredKB":
        """The stored form of a knowledge base (dump it with exclude_unset=True)."""
        origins = {kind: [(o.path, o.line) if (o := kb.origins.get((kind, i))) else None
                          for i in range(len(getattr(kb, kind)))] for kind in _KIND_WORD}
        return cls(files=kb.files, sources=kb.sources, nodes=kb.nodes, facts=kb.facts, steps=kb.steps,
                   origins=origins)

    def knowledge_base(self) -> KnowledgeBase:
        """The KnowledgeBase back, as load_files made it."""
        kb = KnowledgeBase(sources=self.sources, nodes=self.nodes, facts=self.facts, steps=self.steps,
                           files=self.files)
        _add_origins(kb.origins, self.origins)
        return kb

    @staticmethod
    def read(data: dict, facts: Sequence[dict] | None = None,
             origins: Callable[[], dict] | None = None) -> KnowledgeBase:
        """The KnowledgeBase of a stored one that ``gpulane.loaders.stored.validator(StoredKB)``
        checked: the same as ``StoredKB.model_validate(data).knowledge_base()``, made faster.

        ``facts`` (checked dictionaries, possibly checked when first read) and ``origins`` (a
        function giving the ``origins`` field, called on the first look-up) stand in for those
        fields of ``data`` where a cache entry stores them apart, to be read only when used."""
        from gpulane.loaders.stored import LazyModels, build

        # Facts become models when first used (see LazyModels): the compiled facts hold what a
        # query reads of every fact.
        kb = KnowledgeBase(sources=build(Source, data["sources"]), nodes=build(Node, data["nodes"]),
                           facts=LazyModels(Fact, data["facts"] if facts is None else facts),
                           steps=build(Step, data.get("steps", [])), files=data["files"])
        if origins is None:
            _add_origins(kb.origins, data["origins"])
        else:
            kb.origins = _OriginsOnUse(origins)
        return kb


class _OriginsOnUse(Mapping):
    """A knowledge base's table of where each item was written, read on the first look-up (only
    messages about an item ask for it)."""

    def __init__(self, read: Callable[[], dict]):
        self._read: Callable[[], dict] | None = read
        self._table: dict[tuple[str, int], Origin] = {}

    def _made(self) -> dict[tuple[str, int], Origin]:
        if self._read is not None:
            read, self._read = self._read, None
            _add_origins(self._table, read())
        return self._table

    def __getitem__(self, key: tuple[str, int]) -> Origin:
        return self._made()[key]

    def __iter__(self):
        return iter(self._made())

    def __len__(self) -> int:
        return len(self._made())


def _add_origins(table: dict, origins: dict) -> None:
    for kind in _KIND_WORD:
        for i, where in enumerate(origins.get(kind, ())):
            if where is not None:
                table[(kind, i)] = Origin(where[0], where[1])


_KIND_WORD = {"sources": "source", "nodes": "node", "facts": "fact", "steps": "step"}
