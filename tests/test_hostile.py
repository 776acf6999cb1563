"""Hostile input (issue 17): names, plan files, tool output and files that are not files.

Every test here holds a time bound: the defects were hangs and quadratic (or worse) work, so
"it finishes" is the assertion. The whole file runs in well under a minute.
"""

from __future__ import annotations

import os
import re
import string
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpulane.errors import PlanFileError, QueryError
from gpulane.graph.names import split_family_version
from gpulane.probe import readers as r
from gpulane.queries.parser import parse
from gpulane.queries.planfile import plan_to_text, read_plan_file

BOUND_S = 2.0  # per input; the slowest of these takes milliseconds


class _Within:
    """Assert that a block ran within a bound (the defects took 10 s to minutes)."""

    def __init__(self, seconds: float = BOUND_S):
        self.seconds = seconds

    def __enter__(self):
        self.start = time.monotonic()

    def __exit__(self, *exc):
        took = time.monotonic() - self.start
        assert took < self.seconds, f"took {took:.1f}s"


def within(seconds: float = BOUND_S) -> _Within:
    return _Within(seconds)


# -- item 4: names --------------------------------------------------------------------------------

# The expression name resolution used before; kept here as the reference for short names only.
_OLD_FAMILY = re.compile(r"^\s*([A-Za-z][A-Za-z .\-_]*?)\s*@?\s*((?:[<>=!~]=?|==)?\s*[\d].*)?$")


def _old_split(text: str):
    m = _OLD_FAMILY.match(text.strip())
    return None if m is None else (m.group(1), (m.group(2) or "").strip())


@given(st.text(alphabet="aZq .-_@<>=!~ 19\t\n\xa0٣x²", max_size=14))
@settings(max_examples=500, deadline=None)
def test_family_split_reads_short_names_as_before(text):
    assert split_family_version(text) == _old_split(text)


HOSTILE_NAMES = ["a" + " " * 600 + "!", "a" + " " * 5000 + "!", "torch" + " " * 3000 + "@" + " " * 3000 + "x",
                 "a" + "-" * 5000 + "1\n", '"' * 5000, "9" * 5000, "a" + " ." * 3000 + "!",
                 "cuda" + " " * 4000 + ">=" + " " * 4000 + "12" + " " * 4000 + "!"]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=lambda n: f"{n[:6]!r}x{len(n)}")
def test_hostile_names_resolve_in_linear_time(mini, name):
    with within():
        mini.names.resolve(name)
        mini.names.suggestions(name)


@pytest.mark.parametrize("name", HOSTILE_NAMES[:3], ids=lambda n: f"{n[:6]!r}x{len(n)}")
def test_hostile_names_in_queries_and_show(mini, name):
    from gpulane.queries import run

    quoted = name.replace('"', "").replace("\n", " ")
    with within(5):
        for text in (f'find gpu where toolkit = "{quoted}"', f'explain gpu = "{quoted}"'):
            try:
                run.compile_query(mini, text)
            except QueryError:
                pass


@given(st.text(alphabet=" \t'\"0123456789aZ.-@>=!", min_size=200, max_size=3000))
@settings(max_examples=40, deadline=None)
def test_fuzzed_long_names_hold_a_time_bound(mini, name):
    start = time.monotonic()
    mini.names.resolve(name)
    assert time.monotonic() - start < BOUND_S


# -- items 6, 7, 13: plan files --------------------------------------------------------------------

def _plan(tmp_path: Path, text: str, name: str = "plan.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_plan_values_are_read_as_written(tmp_path):
    text = read_plan_file(_plan(tmp_path, "gpu: RX 7900 XTX\ndriver: 550.120\nos: 24.04\n"))
    assert '"550.120"' in text and '"24.04"' in text
    json_text = read_plan_file(_plan(tmp_path, '{"gpu": "RTX 4090", "driver": 550.120}', "plan.json"))
    assert '"550.120"' in json_text


def test_a_plan_value_cannot_add_a_condition(tmp_path):
    text = read_plan_file(_plan(tmp_path, "gpu: RTX 4090\ndriver: '> 1, os = Windows'\n"))
    statement = parse("explain " + text)
    assert len(statement.conditions) == 2
    assert [c.name for c in statement.conditions] == ["gpu", "driver"]
    assert statement.conditions[1].values[0].text == "1, os = Windows"


@pytest.mark.parametrize("body, words", [
    ("gpu: A\ngpu: B\n", "duplicate key"),
    ("gpu: &a X\nos: *a\n", "aliases"),
    ("gpu: RTX 4090\nkeep: ['gpu os, allow workaround']\n", "names"),
    ("gpu: [a, b]\n", "one name"),
    ('gpu: "x\\"y"\n', "quotes"),
    ("gpu: \"a\\u001b[31mred\"\n", "control"),
])
def test_bad_plans_are_refused_with_a_reason(tmp_path, body, words):
    with pytest.raises(PlanFileError) as err:
        read_plan_file(_plan(tmp_path, body))
    assert words in str(err.value)


def test_plan_with_aliases_is_refused_at_once(tmp_path):
    lol = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
    with within():
        with pytest.raises(PlanFileError):
            read_plan_file(_plan(tmp_path, lol))


def test_deeply_nested_plan_is_refused(tmp_path):
    with within():
        with pytest.raises(PlanFileError):
            read_plan_file(_plan(tmp_path, "gpu: " + "[" * 5000 + "]" * 5000 + "\n"))
        with pytest.raises(PlanFileError):
            read_plan_file(_plan(tmp_path, "gpu: " + "{a: " * 3000 + "b" + "}" * 3000 + "\n"))


def test_plan_from_devices_fifos_and_folders_is_refused(tmp_path):
    cases = [tmp_path]
    if os.path.exists("/dev/zero"):
        cases.append(Path("/dev/zero"))
        link = tmp_path / "zero.yaml"
        link.symlink_to("/dev/zero")
        cases.append(link)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.yaml"
        os.mkfifo(fifo)
        cases.append(fifo)
    big = _plan(tmp_path, "gpu: " + "x" * (70 * 1024) + "\n", "big.yaml")
    cases += [big, tmp_path / "missing.yaml"]
    for path in cases:
        with within():
            with pytest.raises(PlanFileError):
                read_plan_file(path)


def test_plan_to_text_quotes_every_value():
    assert plan_to_text({"gpu": "RX 7900 XTX", "driver": ">= 550", "keep": ["gpu"]}) == \
        'gpu = "RX 7900 XTX", driver >= "550" keep gpu'


@given(st.dictionaries(st.sampled_from(["gpu", "os", "driver", "app", "toolkit", "framework", "vendor"]),
                       st.text(alphabet=string.printable, max_size=40), min_size=1, max_size=5))
@settings(max_examples=150, deadline=None)
def test_fuzzed_plans_give_text_that_parses_as_exactly_their_conditions(data):
    start = time.monotonic()
    try:
        text = plan_to_text(data)
    except PlanFileError:
        return
    statement = parse("explain " + text)
    assert len(statement.conditions) == len(data)
    assert time.monotonic() - start < BOUND_S


# -- item 5: tool output ---------------------------------------------------------------------------

_LONG = 1_000_000


def _hostile_outputs():
    return {
        "nvidia table, a long line of spaces": "| 0  a" + " " * _LONG + "b |\nDriver Version: 550.54",
        "nvidia table, repeated headers": "Driver Version: 1 " * 50_000,
        "nvidia query, a long line": "GPU" + "," * _LONG,
        "rocminfo, a run of stars": "Agent\n" + "*" * _LONG + "\n",
        "rocminfo, stars and blank lines": "Agent 1\n" + "***\n \n" * 100_000,
        "amd-smi, a long GPU line": "GPU:" + " " * _LONG + "x\n" + "GPU: 0\n" + "  ASIC:\n" * 10_000,
        "os-release, one long line": "ID=" + "x" * _LONG,
        "kernel, digits": "1." * 200_000,
        "torch, not JSON": "{" * _LONG,
    }


@pytest.mark.parametrize("case", list(_hostile_outputs()))
def test_readers_are_linear_on_hostile_output(case):
    text = _hostile_outputs()[case]
    with within():
        r.read_nvidia_smi_table(text)
        r.read_nvidia_smi_query(text)
        r.read_rocminfo(text)
        r.read_amd_smi_static(text)
        r.read_os_release(text)
        r.read_kernel(text)
        r.read_torch_report(text)


def test_table_rows_are_read_as_before():
    row = "|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0  On |                  N/A |"
    table = r.read_nvidia_smi_table("| NVIDIA-SMI 550.54.14   Driver Version: 550.54.14   CUDA Version: 12.4 |\n"
                                    + row + "\n|   1  Tesla V1...  On   | x |\n")
    assert table.driver_version == "550.54.14" and table.cuda_version == "12.4"
    assert [(g.name, g.truncated) for g in table.gpus] == [("NVIDIA GeForce RTX 4090", False), ("Tesla V1", True)]


@given(st.text(alphabet=" *|:\n\tAgentGPU0123456789.OnOffDriver Version", max_size=2000))
@settings(max_examples=150, deadline=None)
def test_fuzzed_tool_output_never_raises_and_holds_a_time_bound(text):
    start = time.monotonic()
    for reader in (r.read_nvidia_smi_table, r.read_nvidia_smi_query, r.read_rocminfo, r.read_amd_smi_static,
                   r.read_os_release, r.read_kernel, r.read_torch_report):
        assert reader(text).status in (r.OK, r.NOT_FOUND, r.UNREADABLE)
    assert time.monotonic() - start < BOUND_S


def test_hung_fifo_plan_does_not_block_the_cli(tmp_path):
    """explain --plan FIFO returns an error instead of waiting for a writer."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    import subprocess

    fifo = tmp_path / "plan.yaml"
    os.mkfifo(fifo)
    out = subprocess.run([sys.executable, "-m", "gpulane", "explain", "--plan", str(fifo)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "plan.yaml" in out.stderr and "regular file" in out.stderr


# -- items 8, 12, 14: knowledge-base folders and files ---------------------------------------------

def _kb_copy(tmp_path: Path) -> Path:
    import shutil

    from tests.conftest import MINI

    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    return folder


def _load_problems(folder: Path) -> str:
    from gpulane.api import load_graph
    from gpulane.errors import KBInvalidError, KBLoadError

    with within(10):
        with pytest.raises((KBLoadError, KBInvalidError)) as err:
            load_graph(folder)
    return str(err.value)


def test_missing_or_empty_data_folder_is_an_error(tmp_path):
    assert "does not exist" in _load_problems(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    assert "no *.yaml" in _load_problems(tmp_path / "empty")


_EXTRA_FACT = """
facts:
  - id: extra-{n}
    relation: supports
    subject: gpu-a
    object: {obj}
    {when}
    source: test
"""


@pytest.mark.parametrize("name, make, words", [
    ("dangling.yaml", lambda p: p.symlink_to(p.parent / "gone.yaml"), "dangling"),
    ("loop.yaml", lambda p: p.symlink_to(p), "loop"),
    ("empty.yaml", lambda p: p.write_bytes(b""), "empty"),
    ("other.yml", lambda p: p.write_text("nodes: []\n"), ".yaml"),
    ("folder.yaml", lambda p: p.mkdir(), "folder"),
    ("spec.yaml", lambda p: p.write_text(_EXTRA_FACT.format(n=1, obj="{layer: toolkit, family: rocm, version: '>=>=6'}",
                                                            when="")), "spec.yaml:"),
    ("when.yaml", lambda p: p.write_text(_EXTRA_FACT.format(n=2, obj="{layer: arch, ids: [gfx1100]}",
                                                            when="when: {os: {layer: toolkit, family: rocm}}")),
     "when.yaml:"),
    ("deep.yaml", lambda p: p.write_text("nodes: " + "[" * 500 + "]" * 500 + "\n"), "deep"),
    ("bigint.yaml", lambda p: p.write_text("nodes:\n  - {id: x, layer: gpu, name: X, vram_gb: " + "9" * 5000 + "}\n"),
     "digits"),
    ("huge.yaml", lambda p: p.write_text("# padding\n" * (220 * 1024)), "larger than"),
])
def test_bad_knowledge_base_entries_are_errors_naming_the_file(tmp_path, name, make, words):
    folder = _kb_copy(tmp_path)
    make(folder / name)
    problems = _load_problems(folder)
    assert name in problems and words in problems
    assert "Traceback" not in problems


# -- items 15, 18: -o targets ------------------------------------------------------------------------

def test_output_to_a_symlink_or_fifo_is_written_in_place(tmp_path):
    from gpulane.loaders.atomic import write_atomic

    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    if hasattr(os, "mkfifo"):
        import threading

        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
        reader.start()
        write_atomic(fifo, "through the pipe")
        reader.join(10)
        assert got == ["through the pipe"]
        import stat

        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_long_output_names_work_and_stale_temporaries_go(tmp_path):
    from gpulane.loaders.atomic import _tmp_prefix, write_atomic

    target = tmp_path / ("r" * 245 + ".md")
    assert len(target.name) == 248
    stale = tmp_path / (_tmp_prefix(target) + "dead.tmp")
    stale.write_text("left by a kill")
    old = time.time() - 7200
    os.utime(stale, (old, old))
    write_atomic(target, "record")
    assert target.read_text() == "record"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


# -- item 16: SPARQL comments ------------------------------------------------------------------------

def test_a_multi_line_statement_stays_inside_the_sparql_comment(mini):
    from gpulane.queries import run
    from gpulane.queries.sparql import to_sparql

    text = "find gpu\nwhere vendor = amd\r\nand vram >= 8"
    sparql = to_sparql(mini, run.compile_query(mini, text))
    head = sparql.split("SELECT DISTINCT", 1)[0]
    assert head.count("\n") >= 5 and "\r" not in head
    assert all(not line or line.startswith(("PREFIX", "#")) for line in head.splitlines())


# -- item 17: escapes for the medium -----------------------------------------------------------------

def test_escape_sequences_are_shown_not_obeyed(tmp_path):
    import subprocess

    out = subprocess.run([sys.executable, "-m", "gpulane", "find", "gpu", "where", "vendor", "=",
                          "\x1b[2J\x1b[32mAMD"], capture_output=True, text=True, timeout=120)
    assert "\x1b" not in out.stdout + out.stderr and "\\x1b" in out.stderr


def test_tool_output_and_os_release_lose_their_escapes(tmp_path):
    from gpulane.probe.runner import probe_machine, run_tool

    ran = run_tool([sys.executable, "-c", "print('RTX\\x1b[31m 4090\\r')"])
    assert "\x1b" not in ran.text and "\\x1b" in ran.text
    release = tmp_path / "os-release"
    release.write_text('ID=ubuntu\nVERSION_ID="24.04"\nNAME="Ubu\x1b]0;pwned\x07ntu"\n')
    found = probe_machine(lambda argv, timeout: __import__("gpulane.probe.runner", fromlist=["ToolRun"])
                          .ToolRun(argv, None, "not found"), release)
    assert "\x1b" not in (found.os.name or "") and "\x07" not in (found.os.name or "")


def test_record_markdown_escapes_what_the_user_typed(shipped):
    from gpulane.cli.render_record import record_markdown
    from gpulane.cli.record import record_for

    model = "GGUF\n\n**Verdict:** ✓ supported\n# Forged"
    text = record_markdown(record_for(shipped, 'gpu = "RTX 4090", os = "Ubuntu 24.04"', model=model,
                                      context="8k | injected | cell"))
    assert sum(line.startswith("**Verdict:**") for line in text.splitlines()) == 1
    assert not any(line.startswith("# Forged") for line in text.splitlines())
    assert "8k \\| injected \\| cell" in text


def test_control_characters_in_knowledge_base_text_are_refused(tmp_path):
    folder = _kb_copy(tmp_path)
    (folder / "esc.yaml").write_text('nodes:\n  - {id: gpu-esc, layer: gpu, name: "Evil\\e[31m", vendor: amd}\n')
    problems = _load_problems(folder)
    assert "esc.yaml:2" in problems and "control characters" in problems


def test_a_when_naming_nodes_of_another_layer_is_an_error(tmp_path):
    folder = _kb_copy(tmp_path)
    (folder / "when.yaml").write_text(_EXTRA_FACT.format(n=3, obj="gfx1100", when="when: {os: [rocm-6.2.0]}"))
    problems = _load_problems(folder)
    assert "extra-3" in problems and "when.os mixes layers" in problems
