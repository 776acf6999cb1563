"""The shipped knowledge base read ahead (gpulane/loaders/forms.py): each shipped YAML file's form
is what reading the YAML gives, a form stands in for its file only when made from exactly those
bytes by this code, and anything else about a form means the YAML is read (issue 18, cold start)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpulane.api import _compile, _encode, load_graph
from gpulane.errors import KBLoadError
from gpulane.loaders import forms, kbfiles
from gpulane.loaders.folder import default_data_dir, kb_files
from gpulane.loaders.forms import load_read_ahead, stale_forms, write_forms

SHIPPED = default_data_dir()


def _same_kb(a, b) -> None:
    """Two loaded knowledge bases hold the same items (fields and given fields), lines and files."""
    assert a.files == b.files
    assert a.origins == b.origins
    for kind in ("sources", "nodes", "facts", "steps"):
        left, right = getattr(a, kind), getattr(b, kind)
        assert left == right, kind
        assert [x.model_fields_set for x in left] == [y.model_fields_set for y in right], kind


def test_the_shipped_forms_are_current():
    assert stale_forms() == [], "remake the forms: python -m gpulane.loaders.forms"


def test_forms_read_as_the_shipped_yaml_reads():
    files = kb_files(SHIPPED)
    from_yaml = kbfiles.load_files(files)
    read_ahead = load_read_ahead(files)
    _same_kb(read_ahead, from_yaml)
    # The cache entry (every model as it writes itself, set fields only, and the compiled tables)
    # is byte for byte the one the YAML gives.
    assert _encode(_compile(read_ahead)) == _encode(_compile(from_yaml))


def test_a_cold_start_on_the_shipped_kb_reads_no_yaml(tmp_path):
    code = ("import sys; from gpulane.api import load_graph; kg = load_graph(); "
            "print(len(kg.kb.facts), 'yaml' in sys.modules)")
    env = {**os.environ, "GPULANE_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout.split()
    assert out == [str(len(kbfiles.load_files(kb_files(SHIPPED)).facts)), "False"]


@pytest.fixture()
def folder(tmp_path):
    """Four shipped files and their forms, in a folder of the test's own."""
    data, where = tmp_path / "data", tmp_path / "forms"
    data.mkdir()
    for name in ("vllm.yaml", "ollama.yaml", "rocm-os.yaml", "install-apps.yaml"):
        shutil.copy(SHIPPED / name, data / name)
    assert len(write_forms(data, where)) == 4
    return data, where


def _yaml_reads(monkeypatch) -> list[str]:
    """The files read from YAML from now on (by name)."""
    read = []
    real = kbfiles.read_kb_file_lines

    def counting(path, shown):
        read.append(path.name)
        return real(path, shown)

    monkeypatch.setattr(kbfiles, "read_kb_file_lines", counting)
    return read


def test_an_edited_file_alone_is_read_from_yaml(folder, monkeypatch):
    data, where = folder
    with open(data / "ollama.yaml", "a", encoding="utf-8") as fh:
        fh.write("# edited\n")
    read = _yaml_reads(monkeypatch)
    kb = load_read_ahead(kb_files(data), where)
    assert read == ["ollama.yaml"]
    monkeypatch.undo()
    _same_kb(kb, kbfiles.load_files(kb_files(data)))
    assert stale_forms(data, where) == ["ollama.yaml: its form is out of date"]


def _damage(path: Path, how: str) -> None:
    text = original = path.read_text(encoding="utf-8")
    head, body = text.split("\n", 1)
    header = json.loads(head)
    if how == "other reader":
        header["reader"] = "0" * 64
        text = json.dumps(header) + "\n" + body
    elif how == "other yaml":
        header["yaml_sha256"] = "0" * 64
        text = json.dumps(header) + "\n" + body
    elif how == "other version":
        header["form"] = forms.FORM_VERSION + 1
        text = json.dumps(header) + "\n" + body
    elif how == "no header line":
        text = head
    elif how == "header not JSON":
        text = "{" + text
    elif how == "truncated":
        text = text[: len(text) // 2]
    elif how == "a field of the wrong type":
        text = text.replace('"status":"workaround"', '"status":17', 1)
    elif how == "an unknown field":
        text = text.replace('{"id":', '{"planted":1,"id":', 1)
    elif how == "lines that do not fit":
        text = text.replace('{"lines":{"sources":[', '{"lines":{"sources":[1,', 1)
    elif how == "a kind without lines":
        text = text.replace('{"lines":{"sources":', '{"lines":{"other":', 1)
    elif how == "empty":
        text = ""
    assert text != original, how
    path.write_text(text, encoding="utf-8")


DAMAGE = ["other reader", "other yaml", "other version", "no header line", "header not JSON", "truncated",
          "a field of the wrong type", "an unknown field", "lines that do not fit", "a kind without lines", "empty"]


@pytest.mark.parametrize("how", DAMAGE)
def test_a_form_that_does_not_stand_in_means_the_yaml_is_read(folder, monkeypatch, how):
    data, where = folder
    _damage(where / "vllm.json", how)
    read = _yaml_reads(monkeypatch)
    kb = load_read_ahead(kb_files(data), where)
    assert read == ["vllm.yaml"]
    monkeypatch.undo()
    _same_kb(kb, kbfiles.load_files(kb_files(data)))
    assert [line.split(":")[0] for line in stale_forms(data, where)] == ["vllm.yaml"]


def test_a_form_that_is_not_a_regular_file_is_not_read(folder, monkeypatch):
    data, where = folder
    (where / "vllm.json").unlink()
    (where / "vllm.json").symlink_to("/dev/zero")
    read = _yaml_reads(monkeypatch)
    load_read_ahead(kb_files(data), where)
    assert read == ["vllm.yaml"]


def test_a_form_with_the_right_header_but_other_items_is_reported(folder):
    data, where = folder
    path = where / "vllm.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"status":"workaround"', '"status":"unsupported"', 1),
                    encoding="utf-8")
    assert stale_forms(data, where) == ["vllm.yaml: its form is not what the YAML reads as"]


def test_missing_and_left_over_forms_are_reported(folder):
    data, where = folder
    (where / "ollama.json").unlink()
    (where / "gone.json").write_text("{}", encoding="utf-8")
    assert stale_forms(data, where) == ["ollama.yaml: no form", "gone.json: a form with no YAML file"]
    assert sorted(write_forms(data, where)) == ["gone.json (removed)", "ollama.json"]
    assert stale_forms(data, where) == []
    assert write_forms(data, where) == []  # nothing to do: nothing rewritten


def test_forms_are_not_written_for_a_folder_that_does_not_read(folder):
    data, where = folder
    (data / "broken.yaml").write_text("facts: [\n", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in where.iterdir()}
    with pytest.raises(KBLoadError) as caught:
        write_forms(data, where)
    assert "broken.yaml:" in str(caught.value.problems[0])
    assert {p.name: p.read_bytes() for p in where.iterdir()} == before


def test_a_data_folder_cannot_bring_its_own_forms(tmp_path, monkeypatch):
    """Forms are looked for in the installed package only: a folder's own forms/ is never read,
    however well its headers match."""
    data = tmp_path / "data"
    shutil.copytree(SHIPPED, data)
    (data / "vllm.yaml").write_text((data / "vllm.yaml").read_text(encoding="utf-8") + "# mine\n",
                                    encoding="utf-8")
    write_forms(data, data / "forms")
    planted = data / "forms" / "vllm.json"
    planted.write_text(planted.read_text(encoding="utf-8").replace('"status":"workaround"', '"status":"unsupported"'),
                       encoding="utf-8")
    # Given as the place to look, the planted form would stand in (its header fits the file):
    planted_kb = load_read_ahead(kb_files(data), data / "forms")
    assert planted_kb.facts != kbfiles.load_files(kb_files(data)).facts
    monkeypatch.setenv("GPULANE_CACHE_DIR", str(tmp_path / "cache"))
    kg = load_graph(data, use_cache=True)
    _same_kb(kg.kb, kbfiles.load_files(kb_files(data)))


def test_the_command_checks_and_remakes_the_shipped_forms():
    assert forms.main(["--check"]) == 0
    assert forms.main(["--bogus"]) == 2


def test_no_form_is_used_where_the_reader_code_cannot_be_read(folder, monkeypatch):
    data, where = folder
    monkeypatch.setattr(forms, "reader_stamp", lambda: None)
    read = _yaml_reads(monkeypatch)
    load_read_ahead(kb_files(data), where)
    assert sorted(read) == ["install-apps.yaml", "ollama.yaml", "rocm-os.yaml", "vllm.yaml"]
