"""Issue 15: every verb takes its statement as one quoted argument or as words, with the
same output; `find driver` answers; `list LAYER where ...` works; find never raises."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gpulane.cli import app as cli_app
from gpulane.cli import probe_commands
from gpulane.errors import QueryError
from gpulane.model import LAYER_ORDER, Layer
from gpulane.queries import run

runner = CliRunner()


@pytest.fixture
def cli(shipped, monkeypatch):
    """Run the CLI in-process on the shipped graph; returns (exit code, stdout, stderr)."""
    monkeypatch.setattr(cli_app, "_graph", lambda: shipped)
    monkeypatch.setattr(probe_commands, "_graph", lambda kg=None: shipped)
    # Both forms must give the same output: the searches get a budget a busy machine cannot cut.
    from functools import partial

    from gpulane.queries import explain as explain_mod, fix as fix_mod
    monkeypatch.setattr(fix_mod, "fix", partial(fix_mod.fix, budget_s=fix_mod.FIX_BUDGET_S * 15))
    monkeypatch.setattr(explain_mod, "explain", partial(explain_mod.explain, budget_s=explain_mod.EXPLAIN_BUDGET_S * 15))

    def invoke(*args: str):
        result = runner.invoke(cli_app.app, list(args))
        if result.exception and not isinstance(result.exception, SystemExit):
            if isinstance(result.exception, QueryError):
                return 2, "", result.exception.render()
            raise result.exception
        return result.exit_code, result.stdout, ""
    return invoke


# (verb, statement as the user quotes it whole, the same statement as shell words)
BOTH_FORMS = [
    ("find", 'gpu where vendor = AMD and app = vLLM', ["gpu", "where", "vendor", "=", "AMD", "and", "app", "=", "vLLM"]),
    ("find", 'gpu, os where gpu = "RX 7900 XTX"', ["gpu,", "os", "where", "gpu", "=", "RX 7900 XTX"]),
    ("paths", 'where gpu = "RX 7900 XTX" and app = vLLM limit 3',
     ["where", "gpu", "=", "RX 7900 XTX", "and", "app", "=", "vLLM", "limit", "3"]),
    ("explain", 'gpu = "Radeon PRO W7900", os = "Ubuntu 24.04", framework = torch',
     ["gpu", "=", "Radeon PRO W7900,", "os", "=", "Ubuntu 24.04,", "framework", "=", "torch"]),
    ("why", 'gpu = "RX 7900 XTX", os = "Ubuntu 24.04"', ["gpu", "=", "RX 7900 XTX,", "os", "=", "Ubuntu 24.04"]),
    ("fix", 'gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM keep gpu',
     ["gpu", "=", "RX 7900 XTX,", "os", "=", "Windows 11,", "app", "=", "vLLM", "keep", "gpu"]),
    ("record", 'gpu = "Radeon PRO W7900", os = "Ubuntu 24.04", framework = torch',
     ["gpu", "=", "Radeon PRO W7900,", "os", "=", "Ubuntu 24.04,", "framework", "=", "torch"]),
    ("query", 'find toolkit where arch = gfx1100 and os = "Ubuntu 24.04"',
     ["find", "toolkit", "where", "arch", "=", "gfx1100", "and", "os", "=", "Ubuntu 24.04"]),
    ("list", "gpu where vendor = nvidia", ["gpu", "where", "vendor", "=", "nvidia"]),
    ("show", "RX 7900 XTX", ["RX", "7900", "XTX"]),
]


@pytest.mark.parametrize("verb, whole, words", BOTH_FORMS, ids=[f"{v}-{i}" for i, (v, _, _) in enumerate(BOTH_FORMS)])
def test_one_argument_and_words_give_the_same_output(cli, verb, whole, words):
    one = cli(verb, whole)
    split = cli(verb, *words)
    assert one == split
    assert one[0] == 0, one[2]
    assert one[1].strip()


@pytest.mark.parametrize("verb", ["find", "paths", "explain", "fix", "record", "why"])
def test_errors_echo_the_verb_typed(cli, verb):
    statement = {"find": "gpu where gpu = Nonesuch-9", "paths": "where gpu = Nonesuch-9"}.get(
        verb, 'gpu = "Radeon PRO W7900", os = "Ubuntu 24.04", framework = torchh')
    code, _, err = cli(verb, statement)
    assert code == 2
    echo = err.splitlines()[1].strip()
    assert echo.startswith(verb + " ")
    # The caret sits under the offending word, whichever verb was typed.
    caret = err.splitlines()[2]
    start = caret.index("^") - 2
    assert echo[start:start + 6].lower() in ("torchh", "nonesu")


def test_the_issue_record_case_works(cli):
    code, out, err = cli("record", 'gpu = "Radeon PRO W7900", os = "Ubuntu 24.04", framework = torch')
    assert code == 0, err
    assert "Radeon PRO W7900" in out and "Ubuntu 24.04" in out


def test_list_takes_a_where_clause(cli, shipped):
    code, out, _ = cli("list", "gpu", "where", "vendor", "=", "nvidia")
    assert code == 0
    nvidia = [n for n in shipped.nodes.values() if n.layer is Layer.gpu and n.vendor == "nvidia"]
    assert out.strip().splitlines()[-1] == f"({len(nvidia)} gpu nodes)"
    assert cli("list", "gpu", "--vendor", "nvidia") == (code, out, "")


def test_find_driver_for_cuda_12_8_gives_the_minimum_per_platform(cli):
    # CUDA 12.8 release notes, Table 3, row "12.8 GA": >= 570.26 on Linux x86_64, >= 570.65 on Windows.
    code, out, err = cli("find", 'driver where toolkit = "CUDA 12.8"')
    assert code == 0, err
    lines = out.splitlines()
    linux = next(i for i, l in enumerate(lines) if l.strip().startswith("linux · nvidia"))
    windows = next(i for i, l in enumerate(lines) if l.strip().startswith("windows · nvidia"))
    assert lines[linux].endswith("driver >= 570.26")
    assert lines[windows].endswith("driver >= 570.65")
    assert "cuda-12.8.0-linux-driver-min" in lines[linux + 1]
    assert "cuda-12.8.0-windows-driver-min" in lines[windows + 1]


def test_find_driver_json_names_range_platform_and_facts(cli):
    import json

    code, out, _ = cli("find", "driver", "where", "toolkit", "=", "CUDA 12.8", "--json")
    assert code == 0
    answers = json.loads(out)["answers"]
    by_platform = {a["driver"]["platform"]: a["driver"] for a in answers if a["driver"]["gpu_vendor"] == "nvidia"}
    assert by_platform["linux"]["range"] == ">= 570.26"
    assert by_platform["linux"]["facts"] == ["cuda-12.8.0-linux-driver-min"]


@pytest.mark.parametrize("statement", ['find driver where gpu = "RTX 4090"', "find gpu, driver where app = Ollama",
                                       "find driver", "find driver, os where vendor = amd"])
def test_find_driver_questions_answer(cli, statement):
    code, out, err = cli("query", statement)
    assert code in (0,), err
    assert "driver" in out


# -- find L for every layer and pair of layers never raises -----------------------------------------

PROJECTIONS = [(layer,) for layer in LAYER_ORDER] + list(itertools.combinations(LAYER_ORDER, 2))


def _condition(shipped, layer: Layer, pick: int, form: int) -> str:
    ids = sorted(shipped.by_layer[layer])
    node = shipped.nodes[ids[pick % len(ids)]]
    if form == 0 or layer is Layer.driver:
        return f'{layer.value} = "{node.name}"'
    if form == 1 and node.vendor:
        return f"vendor = {node.vendor}"
    if form == 2 and node.platform:
        return f"platform = {node.platform.value}"
    if form == 3 and node.version:
        return f"{layer.value} >= {node.version}"
    return f'{layer.value} != "{node.name}"'


@pytest.mark.parametrize("projection", PROJECTIONS, ids=["-".join(l.value for l in p) for p in PROJECTIONS])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(conditions=st.lists(st.tuples(st.sampled_from(LAYER_ORDER), st.integers(0, 10_000), st.integers(0, 4)),
                           max_size=2))
def test_find_every_layer_and_pair_never_raises(shipped, monkeypatch, projection, conditions):
    monkeypatch.setattr(run, "FIND_TIME_BUDGET_S", 0.5)
    text = "find " + ", ".join(l.value for l in projection)
    if conditions:
        text += " where " + " and ".join(_condition(shipped, *c) for c in conditions)
    from gpulane.cli.render import find_json, find_text

    try:
        result = run.find(shipped, run.compile_query(shipped, text))
    except QueryError as err:
        assert err.message
        return
    find_text(shipped, result)
    find_json(shipped, result)


@pytest.mark.parametrize("words, quoted", [
    (["gpu", "where", "vram", "24", "and", "app", "=", "vLLM"], "gpulane find 'gpu where vram >= 24 and app = vLLM'"),
    (["gpu", "where", "vram"], "gpulane find 'gpu where vram >= VALUE'"),
])
def test_a_comparison_the_shell_ate_gets_the_quoted_form(cli, words, quoted):
    # What a shell passes on for: gpulane find gpu where vram >= 24 and app = vLLM (and vram > 24).
    code, _, err = cli("find", *words)
    assert code == 2
    hint = err.splitlines()[-1]
    assert "redirect" in hint and hint.endswith(quoted)


def test_a_missing_operator_elsewhere_keeps_the_plain_hint(cli):
    code, _, err = cli("find", "gpu", "where", "vendor", "amd")
    assert code == 2 and "redirect" not in err


def test_help_tells_to_single_quote(cli):
    code, out, _ = cli("--help")
    assert code == 0 and "single quotes" in out


# -- hints (item 6) ---------------------------------------------------------------------------------

def _hint(shipped, statement: str) -> str:
    with pytest.raises(QueryError) as info:
        run.compile_query(shipped, statement)
    return info.value.hint or ""


def test_a_version_outside_the_knowledge_base_gets_the_range_held_and_the_nearest(shipped):
    rocm = sorted((n for n in shipped.nodes.values() if n.family == "rocm" and n.layer is Layer.toolkit),
                  key=lambda n: tuple(int(x) for x in n.version.split(".")))
    hint = _hint(shipped, 'find gpu where toolkit = "ROCm 4.5"')
    assert hint.startswith(f"the knowledge base holds ROCm {rocm[0].version} – {rocm[-1].version}; nearest: ")
    # 4.5 sits below every release held: the nearest are the oldest ones.
    assert hint.endswith(", ".join(n.version for n in rocm[:3]))


def test_a_platform_given_as_an_os_means_every_release_of_it(shipped):
    """`os = Linux` / `os = Windows` are the platform (any release of it); WSL2 is an OS node of its own."""
    def pinned(statement):
        return run.compile_query(shipped, statement).problem.pins[Layer.os]

    linux = {n.id for n in shipped.nodes.values() if n.layer is Layer.os and n.platform and n.platform.value == "linux"}
    assert pinned("find gpu where os = Linux") == linux and "ubuntu-24.04" in linux
    assert pinned("find gpu where os = windows") >= {"windows-10", "windows-11", "windows-server-2022"}
    assert pinned("find gpu where os = WSL2") == {"wsl2"} == pinned("find gpu where os = WSL")


def test_a_platform_without_os_releases_says_so(mini):
    """With no OS node on a platform (the small test KB has no WSL2), naming it is an error that says why."""
    hint = _hint(mini, "find gpu where os = WSL2")
    assert "WSL2 is a platform" in hint


def test_an_ambiguous_gpu_name_lists_its_readings(shipped):
    from gpulane.errors import AmbiguousNameError

    with pytest.raises(AmbiguousNameError) as info:
        run.compile_query(shipped, 'find app where gpu = "RTX 6000"')
    assert {"Quadro RTX 6000", "NVIDIA RTX 6000 Ada Generation"} <= set(info.value.candidates)


@pytest.mark.parametrize("name, node_id", [("RTX 6000 Ada", "rtx-6000-ada"), ("Quadro RTX 6000", "quadro-rtx-6000"),
                                           ("7900 XT", "radeon-rx-7900-xt"), ("4080", "geforce-rtx-4080")])
def test_names_that_say_which_still_resolve(shipped, name, node_id):
    plan = run.compile_query(shipped, f'find app where gpu = "{name}"')
    assert plan.problem.pins[Layer.gpu] == frozenset([node_id])


def test_the_documented_plan_examples_read_as_the_documented_configuration(tmp_path):
    import re

    from gpulane.queries.planfile import read_plan_file
    from tests.conftest import TESTS

    doc = (TESTS.parent / "docs" / "plan-files.md").read_text()
    expected = re.search(r"Both read as the configuration\n`(.*?)`", doc, flags=re.S).group(1).replace("\n", " ")
    for lang in ("yaml", "json"):
        block = re.search(rf"```{lang}\n(.*?)```", doc, flags=re.S).group(1)
        path = tmp_path / f"plan.{lang}"
        path.write_text(block)
        assert read_plan_file(path) == expected


def test_the_command_line_imports_without_the_model():
    """`gpulane --help` and the import itself stay light: the model (pydantic) loads on first use."""
    import subprocess
    import sys

    from gpulane.model import LAYER_NAMES

    assert cli_app.LAYER_WORDS == tuple(LAYER_NAMES)
    code = "import sys, gpulane.cli.app; print(sorted(m for m in ('pydantic', 'gpulane.model', 'lark') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr
