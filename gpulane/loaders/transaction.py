"""Changing a knowledge-base folder: locked, validated whole, and all or nothing.

An import rewrites several files of a data folder. ``replace_files``:

1. holds an exclusive lock on the folder (``.gpulane.lock``) for the whole
   read-modify-write, so two imports never interleave (readers take it shared);
2. writes every new file to a temporary file beside its target;
3. loads and checks the knowledge base the folder *would* hold (the other files
   plus the new ones) and refuses, listing the problems, if it does not load
   cleanly: nothing has been replaced at that point;
4. keeps a hard link of each file it replaces and writes a journal, then renames
   the new files into place. If a rename fails, the files already renamed are put
   back; if the process is killed, the next lock holder (an import, or a load of
   the folder) finds the journal and puts the old files back. Either way the
   folder holds the old knowledge base or the new one, never a mix.

Temporary files and links a killed import left behind are removed by the next
lock holder. All names start with "." so loaders never list them.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator

from gpulane.errors import GpulaneError
from gpulane.loaders.atomic import discard, stage

__all__ = ["DataFolderError", "data_lock", "reading", "replace_files", "recover", "check_file_name", "JOURNAL",
           "LOCK"]

LOCK = ".gpulane.lock"
JOURNAL = ".gpulane-import.journal"
_TXN = ".gpulane-txn-"
LOCK_WAIT_S = 60.0


class DataFolderError(GpulaneError):
    """A knowledge-base folder that cannot be changed (or read) safely, and why."""

    def __init__(self, path: str, message: str, problems: list[str] | None = None):
        self.path = path
        self.message = message
        self.problems = problems or []
        lines = [f"{path}: {message}", *(f"  {p}" for p in self.problems[:20])]
        if len(self.problems) > 20:
            lines.append(f"  ... and {len(self.problems) - 20} more")
        super().__init__("\n".join(lines))


def _flock(fd: int, exclusive: bool, wait_s: float) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks here; imports there are single-user anyway
        return True
    mode = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, mode)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


@contextlib.contextmanager
def data_lock(data_dir: Path, exclusive: bool = True, wait_s: float = LOCK_WAIT_S) -> Iterator[None]:
    """Hold the folder's lock. Exclusive for writers; shared for readers, and only where a
    writer has ever made the lock file (a folder nobody can write needs no lock to read)."""
    path = Path(data_dir) / LOCK
    try:
        if exclusive:
            Path(data_dir).mkdir(parents=True, exist_ok=True)
        fd = os.open(path, (os.O_RDWR | os.O_CREAT) if exclusive else os.O_RDONLY, 0o644)
    except OSError as exc:
        if not exclusive:
            yield
            return
        raise DataFolderError(str(data_dir), f"cannot lock the folder ({exc.strerror or exc})") from None
    try:
        if not _flock(fd, exclusive, wait_s):
            raise DataFolderError(str(data_dir), f"another gpulane process has held the folder for {wait_s:g}s; "
                                                 "try again when its import has finished")
        if exclusive:
            recover(Path(data_dir))
        yield
    finally:
        os.close(fd)


def recover(data_dir: Path) -> bool:
    """Undo an import that was killed mid-switch, and remove what killed imports left.

    Call with the exclusive lock held. Returns True when a half-done switch was undone.
    """
    journal = data_dir / JOURNAL
    undone = False
    if journal.exists():
        try:
            entries = json.loads(journal.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entries = []
        _roll_back(data_dir, entries)
        discard(str(journal))
        undone = True
    for entry in os.scandir(data_dir):
        name = entry.name
        # Ours: transaction files, and atomic.stage's ".NAME.XXXX.tmp" of a killed writer (under the
        # exclusive lock no writer is busy, so every one of them is stale).
        if name.startswith(_TXN) or (name.startswith(".") and name.endswith(".tmp")):
            discard(entry.path)
    return undone


def check_file_name(name: str) -> str | None:
    """Why a name cannot be a knowledge-base file of a folder, or None when it can."""
    if not name or "\0" in name or "/" in name or "\\" in name or name in (".", ".."):
        return "is not a plain file name"
    if name.startswith("."):
        return "starts with '.' (hidden files are not loaded)"
    if not name.endswith(".yaml"):
        return "does not end in .yaml (only *.yaml files are loaded)"
    if len(name.encode("utf-8", errors="replace")) > 200:
        return "is longer than 200 bytes"
    if not name.isprintable():
        return "contains control characters"
    return None


@contextlib.contextmanager
def reading(data_dir: Path) -> Iterator[None]:
    """Hold a folder for reading: undo a killed import first (when we may), then a shared lock."""
    from gpulane.errors import FileProblem, KBLoadError

    data_dir = Path(data_dir)
    if (data_dir / JOURNAL).exists():
        try:
            with data_lock(data_dir, wait_s=10.0):
                pass
        except DataFolderError as exc:
            raise KBLoadError([FileProblem(str(data_dir / JOURNAL), None,
                                           f"an import was interrupted and cannot be undone here: {exc.message}")]) \
                from None
    with data_lock(data_dir, exclusive=False):
        yield


def _roll_back(data_dir: Path, entries: list) -> None:
    for item in entries:
        if not (isinstance(item, list) and len(item) == 3):
            continue
        tmp, target, backup = (data_dir / n if isinstance(n, str) and "/" not in n and n else None for n in item)
        if target is None:
            continue
        if backup is not None and backup.exists():
            os.replace(backup, target)  # the old file, whether or not the new one was renamed in
            # rename() between two links of one file does nothing: the link is still there
            discard(str(backup))
        elif backup is None and tmp is not None and not tmp.exists() and target.exists():
            os.unlink(target)  # a file this import added
        if tmp is not None:
            discard(str(tmp))


def replace_files(data_dir: Path, texts: dict[str, str],
                  validate: Callable[[list[Path], dict[Path, str]], list[str]] | None = None) -> list[Path]:
    """Replace (or add) files of a data folder, all or nothing; returns the paths written.

    ``texts`` maps file names in ``data_dir`` to their new text. ``validate`` gets the file list
    the folder would have (new files as their staged temporary paths) and the names to show for
    the temporaries; it returns problems, and any problem refuses the whole change.
    Call with ``data_lock(data_dir)`` held.
    """
    data_dir = Path(data_dir)
    shown = str(data_dir)
    for name in texts:
        why = check_file_name(name)
        if why:
            raise DataFolderError(shown, f"{name!r} {why}")
        target = data_dir / name
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise DataFolderError(str(target), "exists and is not a regular file; move it away first")
    txn = uuid.uuid4().hex[:12]
    staged: dict[str, Path] = {}
    backups: dict[str, Path] = {}
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            tmp = Path(stage(data_dir / name, text))
            staged[name] = tmp  # cleaned up on failure under either name
            final_tmp = data_dir / f"{_TXN}{txn}-{name}"
            os.replace(tmp, final_tmp)
            staged[name] = final_tmp
        if validate is not None:
            others = [p for p in _listed(data_dir) if p.name not in texts]
            paths = sorted(others + list(staged.values()), key=lambda p: _target_name(p, staged))
            problems = validate(paths, {p: str(data_dir / n) for n, p in staged.items()})
            if problems:
                raise DataFolderError(shown, "the import would leave a knowledge base that does not load; "
                                             "nothing was changed", problems)
        for name in texts:
            target = data_dir / name
            if target.exists():
                backup = data_dir / f"{_TXN}{txn}-{name}.old"
                os.link(target, backup)
                backups[name] = backup
        _write_journal(data_dir, [[staged[n].name, n, backups[n].name if n in backups else None] for n in texts])
    except OSError as exc:
        for p in [*staged.values(), *backups.values()]:
            discard(str(p))
        raise DataFolderError(str(exc.filename or shown), f"cannot write ({exc.strerror or exc}); nothing was changed") \
            from None
    except BaseException:
        for p in [*staged.values(), *backups.values()]:
            discard(str(p))
        raise
    done: list[Path] = []
    try:
        for name in texts:
            os.replace(staged[name], data_dir / name)
            done.append(data_dir / name)
    except OSError as exc:
        _roll_back(data_dir, json.loads((data_dir / JOURNAL).read_text(encoding="utf-8")))
        discard(str(data_dir / JOURNAL))
        raise DataFolderError(str(exc.filename or shown), f"cannot replace ({exc.strerror or exc}); "
                                                          "the old files were put back") from None
    discard(str(data_dir / JOURNAL))
    for backup in backups.values():
        discard(str(backup))
    return done


def _target_name(path: Path, staged: dict[str, Path]) -> str:
    for name, tmp in staged.items():
        if tmp == path:
            return name
    return path.name


def _listed(data_dir: Path) -> list[Path]:
    return [p for p in data_dir.iterdir() if p.suffix in (".yaml", ".yml") and not p.name.startswith(".")]


def _write_journal(data_dir: Path, entries: list) -> None:
    tmp = stage(data_dir / JOURNAL, json.dumps(entries))
    os.replace(tmp, data_dir / JOURNAL)
    try:  # the journal must be on disk before the first rename
        fd = os.open(data_dir, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass
