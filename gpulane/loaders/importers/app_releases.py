"""Shared pieces of the app-release importers (Ollama, vLLM, bitsandbytes, ...).

Each app importer reads a pinned input file: a table of release tags, the commit of
each tag and what the scan of the project's own files at that tag found (the scan
scripts live in ``scripts/``). From it the importer writes one node per release (per
backend where the app has several) and *range facts*: a fact whose subject is a
selector over releases (``{layer: app, family: ollama, backend: rocm, version:
">=0.12.4,<=0.13.5"}``), one per run of consecutive releases that say the same thing,
cited at the commit of the first tag of the run.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Sequence

from gpulane.model import Selector, Source

from .common import read_json_object
from .errors import ImportFormatError

REVIEWED = dt.date(2026, 11, 30)


@dataclass(frozen=True)
class Run:
    """Consecutive releases (oldest first) that share one value."""

    value: Any
    first: dict
    last: dict
    rows: tuple[dict, ...]

    def spec(self, all_rows: Sequence[dict], version_of: Callable[[dict], str]) -> str:
        """The version spec of the run: ">=first,<=last", open-ended at the newest release."""
        low = version_of(self.first)
        if self.last is all_rows[-1]:
            return f">={low}"
        return f">={low},<={version_of(self.last)}"


def runs(rows: Sequence[dict], value_of: Callable[[dict], Hashable]) -> list[Run]:
    """Split releases (oldest first) into runs of equal value; runs whose value is None
    or empty are dropped (the releases say nothing there)."""
    out: list[Run] = []
    start = 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or value_of(rows[i]) != value_of(rows[start]):
            value = value_of(rows[start])
            if value not in (None, (), "", frozenset(), False):
                out.append(Run(value, rows[start], rows[i - 1], tuple(rows[start:i])))
            start = i
    return out


def read_json(path: Path, key: str) -> tuple[dict, list[dict]]:
    """The pinned input: a JSON object whose ``key`` holds the release rows."""
    path = Path(path)
    data = read_json_object(path, f"a non-empty '{key}' list")
    rows = data.get(key)
    if not isinstance(rows, list) or not rows:
        raise ImportFormatError(path, None, f"expected a JSON object with a non-empty '{key}' list")
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ImportFormatError(path, None, f"{key}[{i}]: expected an object")
    return data, rows


def need(path: Path, row: dict, field: str, index: int, kind: type | tuple = str) -> Any:
    """A required field of a release row, or a clear error naming the row."""
    value = row.get(field)
    if not isinstance(value, kind):
        label = row.get("tag") or row.get("version") or f"#{index}"
        raise ImportFormatError(path, None, f"release {label}: field '{field}' missing or not {getattr(kind, '__name__', kind)}")
    return value


def tag_source(repo_url: str, publisher: str, project: str, path: str, tag: str, commit: str,
               id_prefix: str, note: str | None = None) -> Source:
    """A source: one file of a project at a release tag, pinned to the tag's commit."""
    slug = path.lstrip(".").replace("/", "-").replace(".", "-").lower()
    return Source(id=f"{id_prefix}-{slug}-{tag.lstrip('v')}", url=f"{repo_url}/blob/{commit}/{path}",
                  publisher=publisher, title=f"{project} {path} at {tag}", version=f"{tag} ({commit})",
                  reviewed=REVIEWED, note=note)


def release_selector(family: str, spec: str, backend: str | None = None) -> Selector:
    return Selector(layer="app", family=family, version=spec, backend=backend)


def uniq(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
