"""Imports change a data folder all or nothing, validated whole, one at a time (issue 17 items 9-11, 14)."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gpulane.api import load_graph
from gpulane.errors import GpulaneError
from gpulane.loaders import transaction
from gpulane.loaders.importers import ImportFormatError, run_import
from gpulane.loaders.transaction import DataFolderError, data_lock, replace_files
from tests.conftest import MINI

FIX = Path(__file__).resolve().parent / "fixtures" / "importers"

TTL_HEAD = """@prefix gl: <https://gpulane.dev/ns#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix prov: <http://www.w3.org/ns/prov#> .
<https://gpulane.dev/kb/source/s1> a gl:Source ; gl:id "s1" ; gl:url "https://example.org/s1" ;
    dcterms:publisher "Example" ; dcterms:title "A table" ; gl:version "1" ;
    gl:reviewed "2026-11-30"^^<http://www.w3.org/2001/XMLSchema#date> {defined} .
"""
TTL_NODE = """<https://gpulane.dev/kb/node/{id}> a gl:Node ; gl:id "{id}" ; gl:layer gl:arch ; gl:name "{id}" ;
    prov:wasDerivedFrom <https://gpulane.dev/kb/source/s1> {defined} .
"""

EXTRA = """sources: []
nodes: []
facts:
  - {id: extra-a-arch, relation: has_arch, subject: gpu-a, object: gfx1100, source: test}
"""


def _folder(tmp_path: Path, extra: bool = False) -> Path:
    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    if extra:
        (folder / "extra.yaml").write_text(EXTRA)
    return folder


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and p.name != ".gpulane.lock"}


def _ttl(tmp_path: Path, defined_in: str | None, *ids: str) -> Path:
    defined = f'; gl:definedIn "{defined_in}"' if defined_in else ""
    path = tmp_path / "in.ttl"
    path.write_text(TTL_HEAD.format(defined=defined) + "".join(TTL_NODE.format(id=i, defined=defined) for i in ids))
    return path


# -- item 9: the whole resulting knowledge base is checked first -----------------------------------

def test_vendor_import_that_leaves_a_broken_kb_is_refused(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataFolderError) as err:
        run_import("rocm-matrix", FIX / "rocm-matrix-small.csv", empty)
    assert "nothing was changed" in str(err.value) and "is not a node" in str(err.value)
    assert not list(empty.glob("*.yaml")) and not list(empty.glob(".*.tmp"))


def test_rdf_import_with_a_duplicate_id_is_refused(tmp_path):
    from gpulane.cli.rdf_commands import import_rdf

    folder = _folder(tmp_path)
    before = _snapshot(folder)
    with pytest.raises(GpulaneError) as err:
        import_rdf(_ttl(tmp_path, "other.yaml", "gfx1100"), data_dir=folder)  # gfx1100 is in mini.yaml
    assert "gfx1100" in str(err.value)
    assert _snapshot(folder) == before


def test_rdf_import_that_overwrites_a_file_others_need_is_refused(tmp_path):
    from gpulane.cli.rdf_commands import import_rdf

    folder = _folder(tmp_path, extra=True)
    load_graph(folder)  # loads before
    before = _snapshot(folder)
    with pytest.raises(GpulaneError) as err:
        import_rdf(_ttl(tmp_path, "mini.yaml", "gfx1100"), data_dir=folder)  # a mini.yaml without gpu-a
    assert "extra.yaml" in str(err.value) and "nothing was changed" in str(err.value)
    assert _snapshot(folder) == before
    assert load_graph(folder).stats()["facts"] == 31


@pytest.mark.parametrize("defined", ["a\\u0000b.yaml", "x" * 300 + ".yaml", "f.yml", "../escape.yaml"])
def test_hostile_defined_in_is_refused(tmp_path, defined):
    from gpulane.cli.rdf_commands import import_rdf

    folder = _folder(tmp_path)
    before = _snapshot(folder)
    with pytest.raises(GpulaneError):
        if defined == "../escape.yaml":
            import_rdf(_ttl(tmp_path, defined, "zz1"), data_dir=folder)
            raise GpulaneError("written")  # a path is reduced to its name: it must not escape the folder
        import_rdf(_ttl(tmp_path, defined, "zz1"), data_dir=folder)
    assert not (tmp_path / "escape.yaml").exists()
    if defined != "../escape.yaml":
        assert _snapshot(folder) == before


def test_jsonld_with_a_huge_number_is_an_error(tmp_path):
    from gpulane.loaders.rdf import RDFImportError, read_rdf

    path = tmp_path / "big.jsonld"
    path.write_text('{"@id": "https://gpulane.dev/kb/node/x", "https://gpulane.dev/ns#name": ' + "1" * 100_000 + "}")
    with pytest.raises(RDFImportError, match="digits"):
        read_rdf(path)


def test_rdf_import_reads_only_regular_files(tmp_path):
    from gpulane.loaders.rdf import RDFImportError, read_rdf

    link = tmp_path / "zero.ttl"
    link.symlink_to("/dev/zero")
    start = time.monotonic()
    with pytest.raises(RDFImportError, match="regular file"):
        read_rdf(link)
    assert time.monotonic() - start < 2


# -- item 10: all or nothing across files ----------------------------------------------------------

def test_a_failed_rename_puts_the_old_files_back(tmp_path, monkeypatch):
    folder = _folder(tmp_path, extra=True)
    before = _snapshot(folder)
    real = os.replace
    calls = []

    def flaky(src, dst):
        if str(dst).endswith(".yaml") and not Path(dst).name.startswith("."):
            calls.append(dst)
            if len(calls) == 2:
                raise OSError(errno.EIO, "I/O error", str(dst))
        return real(src, dst)

    monkeypatch.setattr(transaction.os, "replace", flaky)
    texts = {"extra.yaml": "sources: []\n", "mini.yaml": (folder / "mini.yaml").read_text() + "\n# edited\n"}
    with pytest.raises(DataFolderError, match="put back"):
        replace_files(folder, texts)
    monkeypatch.undo()
    assert _snapshot(folder) == before
    assert not [p for p in folder.iterdir() if p.name.startswith(".gpulane-txn") or p.name.endswith(".tmp")]


def test_a_kill_mid_switch_is_undone_by_the_next_reader(tmp_path, monkeypatch):
    folder = _folder(tmp_path, extra=True)
    before = _snapshot(folder)
    real = os.replace
    renamed = []

    def killed(src, dst):
        if str(dst).endswith(".yaml") and not Path(dst).name.startswith("."):
            if renamed:
                raise KeyboardInterrupt  # the process dies between two renames
            renamed.append(dst)
        return real(src, dst)

    monkeypatch.setattr(transaction.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        replace_files(folder, {"extra.yaml": "sources: []\n", "mini.yaml": "sources: []\n"})
    monkeypatch.undo()
    assert (folder / transaction.JOURNAL).exists()  # half switched: one file new, one old
    kg = load_graph(folder)  # the next reader puts the old files back first
    assert kg.stats()["facts"] == 31
    assert _snapshot(folder) == before


def test_stale_temporary_files_are_cleaned_by_the_next_import(tmp_path):
    folder = _folder(tmp_path)
    for name in (".mini.yaml.abc123.tmp", ".gpulane-txn-dead-mini.yaml", ".gpulane-txn-dead-mini.yaml.old"):
        (folder / name).write_text("left by a kill")
    with data_lock(folder):
        pass
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == [".gpulane.lock"]


# -- item 11: one import at a time ------------------------------------------------------------------

def test_an_import_waits_for_the_folder_lock(tmp_path):
    folder = tmp_path / "kb"
    done = threading.Event()

    def importer():
        try:
            run_import("hip-sdk-windows", FIX / "hip-sdk-small.rst", folder, validate=False)
        finally:
            done.set()

    with data_lock(folder):
        worker = threading.Thread(target=importer)
        worker.start()
        time.sleep(0.5)
        assert not done.is_set()  # blocked while another process holds the folder
    worker.join(30)
    assert done.is_set()


def test_two_imports_at_once_keep_both_os_node_sets(tmp_path):
    from gpulane.loaders.importers import OS_FILE, load_kbfile

    folder = tmp_path / "kb"
    runs = [("rocm-linux-sysreq", "linux-sysreq-small"), ("hip-sdk-windows", "hip-sdk-small.rst")]
    failures = []

    def one(kind, name):
        try:
            run_import(kind, FIX / name, folder, validate=False)
        except Exception as exc:  # a thread's exception would otherwise pass unseen
            failures.append(exc)

    threads = [threading.Thread(target=one, args=run) for run in runs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures
    ids = {n.id for n in load_kbfile(folder / OS_FILE).nodes}
    assert "windows-11" in ids and "ubuntu-22.04" in ids


# -- item 14: vendor import failures are messages ----------------------------------------------------

@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_write_failures_are_messages_and_change_nothing(tmp_path, monkeypatch, code):
    folder = _folder(tmp_path)
    before = _snapshot(folder)
    from gpulane.loaders import atomic

    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code), str(folder / "x"))

    monkeypatch.setattr(atomic.tempfile, "mkstemp", fail)
    with pytest.raises(DataFolderError, match=os.strerror(code)):
        replace_files(folder, {"mini.yaml": "sources: []\n"})
    monkeypatch.undo()
    assert _snapshot(folder) == before


def test_target_that_is_a_folder_or_malformed_is_a_message(tmp_path):
    folder = tmp_path / "kb"
    (folder / "rocm-gpu-specs.yaml").mkdir(parents=True)
    with pytest.raises(ImportFormatError, match="folder"):
        run_import("rocm-gpu-specs", FIX / "gpu-specs-small.rst", folder)
    shutil.rmtree(folder / "rocm-gpu-specs.yaml")
    (folder / "rocm-gpu-specs.yaml").write_text("nodes: [ {id: x\n")
    with pytest.raises(ImportFormatError, match="rocm-gpu-specs.yaml"):
        run_import("rocm-gpu-specs", FIX / "gpu-specs-small.rst", folder)


def test_cli_import_into_a_broken_target_prints_no_traceback(tmp_path):
    folder = _folder(tmp_path)
    (folder / "rocm-gpu-specs.yaml").mkdir()
    out = subprocess.run([sys.executable, "-m", "gpulane", "--data", str(folder), "kb", "import", "rocm-gpu-specs",
                          str(FIX / "gpu-specs-small.rst")], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "Traceback" not in out.stderr and "rocm-gpu-specs.yaml" in out.stderr
