"""The shipped knowledge base read ahead: each shipped YAML file's validated content, as JSON.

Reading the shipped YAML is most of a cold start (the first command after installing, or after
the cache was cleared): libyaml parses it, but PyYAML and pydantic make every value in Python,
some 0.6 s for the 58 shipped files on a 2-core machine. ``gpulane/data/forms/NAME.json`` holds
what reading ``NAME.yaml`` gives (its sources, nodes, facts and steps as the models write them,
set fields only, and the line each item starts on), made by this module from the YAML and
checked against it by ``tests/test_forms.py``.

A form stands in for its YAML file only when its header names

- the SHA-256 of the file's bytes, exactly as they are now (edit the file, and its YAML is read:
  the other files' forms still serve), and
- ``reader_stamp()``, a hash of the code that decides what a YAML file reads as (the schema and
  the YAML reader), so that a form made by other code is never read.

Anything else (no form, another header, a form that does not read back) means the YAML is read,
as it is without forms. Forms are looked for only in the installed package, never in the data
folder a command is given, so a data folder cannot bring its own. A form is JSON, read by
gpulane's typed reader of its own stored data (``gpulane.loaders.stored``): it can only become
gpulane's models, never run code. ``gpulane kb check`` and imports always read the YAML.

After editing a shipped file, remake the forms with ``python -m gpulane.loaders.forms``;
``--check`` says which are out of date (the tests run it).
"""

from __future__ import annotations

import hashlib
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from gpulane.errors import KBLoadError
from gpulane.loaders.folder import _KIND_WORD, MAX_FILE_BYTES, assemble, default_data_dir, kb_files
from gpulane.loaders.safeio import UnreadableFile, read_regular_file
from gpulane.model import Fact, KnowledgeBase, Node, Source, Step

__all__ = ["FORM_VERSION", "forms_dir", "load_read_ahead", "reader_stamp", "stale_forms", "write_forms"]

# Bumped when the form's own layout changes (a form of another layout is not read: its YAML is).
FORM_VERSION = 1
# The modules (relative to the package) whose code decides what a YAML file reads as.
_READER_MODULES = ("model.py", "textsafe.py", "loaders/kbfiles.py")
# A form is a little larger than its YAML file.
_MAX_FORM_BYTES = 3 * MAX_FILE_BYTES


def forms_dir() -> Path:
    """Where the shipped knowledge base's forms are: inside the installed package."""
    return default_data_dir() / "forms"


@cache
def reader_stamp() -> str | None:
    """A hash of the form layout and of the code that reads YAML into models (None where that
    code cannot be read as files, as from a zip: then no form is used)."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(f"gpulane-form-{FORM_VERSION}".encode())
    for name in _READER_MODULES:
        try:
            code = (package / name).read_bytes()
        except OSError:
            return None
        digest.update(b"\0" + name.encode() + b"\0" + code)
    return digest.hexdigest()


class _FormBody(BaseModel):
    """What reading one YAML file gave: its items and the line each starts on."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    lines: dict[str, list[int]]
    sources: list[Source]
    nodes: list[Node]
    facts: list[Fact]
    steps: list[Step]


def _header(yaml_bytes: bytes) -> dict[str, Any]:
    return {"form": FORM_VERSION, "reader": reader_stamp(), "yaml_sha256": hashlib.sha256(yaml_bytes).hexdigest()}


def form_text(yaml_bytes: bytes, content: Any, lines: Mapping[str, Sequence[int]]) -> str:
    """The form of a file that read without problems: a header line, then the body, one item a
    line (so that a change to one item is a change to one line)."""
    parts = [json.dumps(_header(yaml_bytes), separators=(",", ":")), "\n",
             '{"lines":', json.dumps({kind: list(lines.get(kind, ())) for kind in _KIND_WORD}, separators=(",", ":"))]
    for kind in _KIND_WORD:
        items = [item.model_dump_json(exclude_unset=True) for item in getattr(content, kind)]
        parts.append(f',\n"{kind}":[' + (("\n" + ",\n".join(items) + "\n") if items else "") + "]")
    parts.append("}\n")
    return "".join(parts)


@cache
def _body_reader():
    from gpulane.loaders.stored import builder, validator

    return validator(_FormBody), builder(_FormBody)


def _read_body(text: bytes) -> _FormBody:
    check, make = _body_reader()
    return make(check.validate_json(text))


def _form_for(path: Path, where: Path) -> _FormBody | None:
    """The form that stands in for this file's YAML as it is now, or None."""
    if path.suffix != ".yaml" or reader_stamp() is None:
        return None
    try:
        yaml_bytes = read_regular_file(path, MAX_FILE_BYTES)
        form = read_regular_file(where / f"{path.stem}.json", _MAX_FORM_BYTES)
    except UnreadableFile:
        return None
    head, newline, body = form.partition(b"\n")
    try:
        if not newline or json.loads(head) != _header(yaml_bytes):
            return None
        made = _read_body(body)
    except ValueError:  # not JSON, or not a form (pydantic-core's ValidationError is a ValueError)
        return None
    if set(made.lines) != set(_KIND_WORD) or any(len(made.lines[k]) != len(getattr(made, k)) for k in _KIND_WORD):
        return None
    return made


def load_read_ahead(paths: Iterable[Path], where: Path | None = None) -> KnowledgeBase:
    """Load knowledge-base files as ``kbfiles.load_files`` does, taking each file's form
    (from ``where``, by default the shipped ones) where one stands in for it and reading the
    YAML of the others. The result is the same KnowledgeBase, items, lines and all."""
    where = forms_dir() if where is None else where

    def read(path: Path, shown: str):
        made = _form_for(path, where)
        if made is not None:
            return made, made.lines, []
        from gpulane.loaders import kbfiles  # PyYAML: imported only when a file has no form

        return kbfiles.read_kb_file_lines(path, shown)

    return assemble(paths, read)


def write_forms(data_dir: Path | None = None, where: Path | None = None) -> list[str]:
    """Make the form of every YAML file of a folder (default: the shipped one) and remove forms
    whose file is gone; returns the names written. Raises KBLoadError, writing nothing, if a
    file does not read."""
    from gpulane.loaders.atomic import write_atomic
    from gpulane.loaders.kbfiles import read_kb_file_lines

    data_dir = Path(data_dir) if data_dir else default_data_dir()
    where = Path(where) if where else data_dir / "forms"
    texts, problems = {}, []
    for path in kb_files(data_dir):
        content, lines, file_problems = read_kb_file_lines(path, path.name)
        problems.extend(file_problems)
        if not file_problems:
            texts[f"{path.stem}.json"] = form_text(path.read_bytes(), content, lines)
    if problems:
        raise KBLoadError(problems)
    where.mkdir(exist_ok=True)
    written = []
    for name, text in texts.items():
        target = where / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            write_atomic(target, text)
            written.append(name)
    for old in where.glob("*.json"):
        if old.name not in texts:
            old.unlink()
            written.append(f"{old.name} (removed)")
    return written


def stale_forms(data_dir: Path | None = None, where: Path | None = None) -> list[str]:
    """Why the forms of a folder (default: the shipped one) do not stand in for its YAML files,
    one line per file (empty when every form does): missing, out of date, not what the YAML
    reads as, or left over. Compares what each form reads as, not its bytes."""
    from gpulane.loaders.kbfiles import read_kb_file_lines

    data_dir = Path(data_dir) if data_dir else default_data_dir()
    where = Path(where) if where else data_dir / "forms"
    found = []
    names = set()
    for path in kb_files(data_dir):
        names.add(f"{path.stem}.json")
        made = _form_for(path, where)
        if made is None:
            exists = (where / f"{path.stem}.json").exists()
            found.append(f"{path.name}: {'its form is out of date' if exists else 'no form'}")
            continue
        content, lines, problems = read_kb_file_lines(path, path.name)
        if problems:
            found.append(f"{path.name}: does not read ({problems[0]})")
        elif _dumped(content, lines) != _dumped(made, made.lines):
            found.append(f"{path.name}: its form is not what the YAML reads as")
    found.extend(f"{extra.name}: a form with no YAML file" for extra in sorted(where.glob("*.json"))
                 if extra.name not in names)
    return found


def _dumped(content: Any, lines: Mapping[str, Sequence[int]]) -> tuple:
    return (tuple((kind, tuple(lines.get(kind, ()))) for kind in _KIND_WORD),
            tuple((kind, tuple(json.dumps(item.model_dump(mode="json", exclude_unset=True), sort_keys=True)
                               for item in getattr(content, kind))) for kind in _KIND_WORD))


def main(argv: list[str]) -> int:
    """``python -m gpulane.loaders.forms [--check]``: remake the shipped forms, or say which are
    out of date (exit 1 if any)."""
    if argv not in ([], ["--check"]):
        print("usage: python -m gpulane.loaders.forms [--check]", file=sys.stderr)
        return 2
    try:
        if argv:
            stale = stale_forms()
            for line in stale:
                print(line)
            if stale:
                print("remake them with: python -m gpulane.loaders.forms", file=sys.stderr)
            return 1 if stale else 0
        written = write_forms()
    except KBLoadError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    print(f"{len(written)} form(s) written or removed" + (": " + ", ".join(written) if written else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
