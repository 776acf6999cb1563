"""Knowledge-base files: schema errors with exact messages, all-or-nothing loading."""

from __future__ import annotations

import pytest

from gpulane.errors import KBLoadError
from gpulane.loaders.kbfiles import load_files
from tests.conftest import write_kb

SOURCE = """sources:
  - id: s1
    url: https://example.org/x
    publisher: AMD
    title: T
    version: "1"
    reviewed: 2026-11-30
"""

GOOD = SOURCE + """nodes:
  - id: gfx1100
    layer: arch
    name: gfx1100
    source: s1
"""


def load_error(tmp_path, text: str, name: str = "amd.yaml") -> list[str]:
    folder = write_kb(tmp_path / "kb", {name: text})
    with pytest.raises(KBLoadError) as info:
        load_files(sorted(folder.glob("*.yaml")))
    return [str(p).replace(str(folder) + "/", "").split("/kb/")[-1] for p in info.value.problems]


def test_bad_status_names_file_line_fact_and_choices(tmp_path):
    text = GOOD + """facts:
  - id: rocm-6.2-gfx1100
    relation: supports
    subject: gfx1100
    object: gfx1100
    status: suported
    source: s1
"""
    (problem,) = load_error(tmp_path, text)
    assert problem.endswith("amd.yaml:18: fact 'rocm-6.2-gfx1100': status 'suported' is not one of "
                            "supported, deprecated, workaround, community, unsupported")


@pytest.mark.parametrize("field_text, message", [
    ("    vram_gb: lots\n", "node 'gfx1100': vram_gb 'lots' is not a number"),
    ("    layer2: arch\n", "node 'gfx1100': unknown field 'layer2'"),
    ("    platform: macos\n", "node 'gfx1100': platform 'macos' is not one of linux, windows, wsl2"),
    ("    release_date: last year\n", "node 'gfx1100': release_date 'last year' is not a date such as 2026-11-30"),
    ("    compute_capability: eight\n", "node 'gfx1100': compute_capability: expected a compute capability such as '8.9'"),
])
def test_node_field_errors(tmp_path, field_text, message):
    (problem,) = load_error(tmp_path, GOOD + field_text)
    assert problem.endswith("amd.yaml:13: " + message), problem


def test_missing_field_and_bad_selector(tmp_path):
    text = SOURCE + """facts:
  - id: f1
    relation: supports
    subject: x
  - id: f2
    relation: supports
    subject: x
    object: {family: RDNA3}
"""
    problems = load_error(tmp_path, text)
    assert problems[0].endswith("amd.yaml:9: fact 'f1': missing required field 'object'")
    assert problems[1].endswith("amd.yaml:15: fact 'f2': object: a selector by attributes needs 'layer'")


def test_yaml_syntax_error_names_line(tmp_path):
    (problem,) = load_error(tmp_path, GOOD + "  - id: [unclosed\n")
    assert problem.startswith("amd.yaml:14: YAML syntax error") or ": YAML syntax error" in problem


def test_duplicate_key_and_aliases_are_refused(tmp_path):
    (dup,) = load_error(tmp_path, GOOD.replace("    source: s1\n", "    source: s1\n    source: s1\n"))
    assert "duplicate key 'source'" in dup
    anchored = SOURCE + "nodes:\n  - &a {id: x, layer: arch, name: x, source: s1}\n  - *a\n"
    (alias,) = load_error(tmp_path / "2", anchored)
    assert "anchors and aliases are not allowed" in alias


def test_not_a_mapping_and_not_utf8(tmp_path):
    (problem,) = load_error(tmp_path, "- just\n- a list\n")
    assert problem.endswith("amd.yaml:1: expected a mapping with 'sources', 'nodes' and 'facts'")
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "x.yaml").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(KBLoadError) as info:
        load_files([folder / "x.yaml"])
    assert "not UTF-8 text" in str(info.value)


def test_loading_is_all_or_nothing(tmp_path):
    folder = write_kb(tmp_path / "kb", {"a-good.yaml": GOOD, "b-bad.yaml": "nodes:\n  - id: y\n    name: Y\n    layer: bogus\n"})
    with pytest.raises(KBLoadError) as info:
        load_files(sorted(folder.glob("*.yaml")))
    assert len(info.value.problems) == 1
    assert "b-bad.yaml:4: node 'y': layer 'bogus' is not one of gpu, arch, os, driver, toolkit, framework, app" \
        in str(info.value.problems[0])


def test_every_problem_of_every_file_is_reported_at_once(tmp_path):
    folder = write_kb(tmp_path / "kb", {
        "a.yaml": "nodes:\n  - {id: a, layer: gpuu, name: A}\n",
        "b.yaml": "nodes:\n  - {id: b, layer: arch, name: B, vram_gb: x}\n",
    })
    with pytest.raises(KBLoadError) as info:
        load_files(sorted(folder.glob("*.yaml")))
    assert [p.line for p in info.value.problems] == [2, 2]
    assert info.value.problems[0].path.endswith("a.yaml") and info.value.problems[1].path.endswith("b.yaml")


def test_cli_prints_problems_without_traceback(tmp_path):
    import subprocess
    import sys

    folder = write_kb(tmp_path / "kb", {"amd.yaml": GOOD + "    vram_gb: lots\n"})
    out = subprocess.run([sys.executable, "-m", "gpulane", "--data", str(folder), "kb", "stats"],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "the knowledge base could not be loaded; nothing was loaded" in out.stderr
    assert "vram_gb 'lots' is not a number" in out.stderr
