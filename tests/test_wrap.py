"""Issue 15 item 5: output fits 80- and 100-column terminals, wraps at word boundaries with
hanging indents, and prints each caveat once."""

from __future__ import annotations

import pytest
import yaml
from typer.testing import CliRunner

from gpulane.cli import app as cli_app
from gpulane.cli.render_explain import explain_text, fix_text
from gpulane.cli.wrap import wrap_text
from gpulane.queries import run
from gpulane.queries.explain import explain
from gpulane.queries.fix import fix
from tests.conftest import TESTS, graph_for, update_snapshots

SCENARIOS = yaml.safe_load((TESTS / "scenarios" / "scenarios.yaml").read_text())
SNAPSHOTS = TESTS / "scenarios" / "snapshots" / "width"
WIDTHS = (80, 100)


def _answer_text(case, shipped, mini):
    kg = graph_for(case["kb"], shipped, mini)
    plan = run.compile_query(kg, case["statement"])
    if plan.statement.verb == "fix":
        answer = fix(kg, plan)
        return fix_text(kg, answer), answer.before
    answer = explain(kg, plan)
    return explain_text(kg, answer), answer


def test_wrapping_breaks_between_words_with_a_hanging_indent():
    line = "  caveat: " + " ".join(f"word{i}" for i in range(40))
    wrapped = wrap_text(line, 40).splitlines()
    assert all(len(l) <= 40 for l in wrapped)
    assert wrapped[0].startswith("  caveat: word0")
    assert all(l.startswith("      word") for l in wrapped[1:])  # two of its own, four more
    assert " ".join(l.strip() for l in wrapped) == line.strip()  # no word was cut


def test_a_numbered_item_continues_under_its_text():
    wrapped = wrap_text("  3. os Windows 11 → " + " | ".join(["Ubuntu 24.04"] * 8), 50).splitlines()
    assert all(l.startswith("     ") and not l.startswith("      ") for l in wrapped[1:])


def test_short_lines_and_padding_stay_as_written_when_they_fit():
    text = "✓ supported: X\n  gpu A → arch B        ✓ fact-1"
    assert wrap_text(text, 80) == text


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", SCENARIOS, ids=[c["name"] for c in SCENARIOS])
def test_scenarios_fit_the_width_and_say_each_caveat_once(case, width, shipped, mini):
    text, answer = _answer_text(case, shipped, mini)
    wrapped = wrap_text(text, width)
    assert max(len(l) for l in wrapped.splitlines()) <= width
    caveats = {c for e in (answer.path.edges if answer.path else []) for c in e.caveats}
    caveats |= {c for _, c in answer.caveats}
    for caveat in caveats:
        assert text.count(caveat) <= 1, caveat
    if case["kb"] == "mini":
        snapshot = SNAPSHOTS / f"{case['name']}-{width}.txt"
        if update_snapshots() or not snapshot.exists():
            snapshot.parent.mkdir(parents=True, exist_ok=True)
            snapshot.write_text(wrapped + "\n")
        assert wrapped + "\n" == snapshot.read_text()


COMMANDS = [
    ["find", "framework where gpu = \"RTX 4090\""],
    ["find", "gpu where vendor = AMD and app = vLLM"],
    ["find", "driver where toolkit = \"CUDA 12.8\""],
    ["find", "gpu, driver where app = Ollama"],
    ["paths", "where gpu = \"RX 7900 XTX\" and app = vLLM limit 5"],
    ["explain", 'gpu = "RX 7900 XTX", os = "Ubuntu 24.04", app = vLLM'],
    ["fix", 'gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM keep gpu'],
    ["show", "RX 7900 XTX"],
    ["sources"],
]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c)[:40] for c in COMMANDS])
def test_commands_fit_the_width(shipped, monkeypatch, command, width):
    monkeypatch.setattr(cli_app, "_graph", lambda: shipped)
    result = CliRunner().invoke(cli_app.app, ["--width", str(width), *command])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines and max(len(l) for l in lines) <= width
    caveat_lines = [l.split("caveat", 1)[1] for l in lines if l.lstrip().startswith("caveat:")]
    assert len(caveat_lines) == len(set(caveat_lines))


def test_long_lists_are_shortened_with_a_count_and_all_shows_them(shipped, monkeypatch):
    monkeypatch.setattr(cli_app, "_graph", lambda: shipped)
    short = CliRunner().invoke(cli_app.app, ["find", "gpu where vendor = nvidia"]).stdout
    whole = CliRunner().invoke(cli_app.app, ["find", "gpu where vendor = nvidia", "--all"]).stdout
    assert "more groups" in short and cli_app.SHORTENED_NOTE in short
    assert "more groups" not in whole and cli_app.SHORTENED_NOTE not in whole
    assert len(whole) > len(short)


# -- progress (item 10) ------------------------------------------------------------------------------

def test_progress_shows_a_spinner_on_a_terminal_for_a_slow_step():
    import io
    import time

    from rich.console import Console

    from gpulane.cli.progress import progress

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80)
    with progress("compiling the knowledge base…", console=console, delay=0.01):
        time.sleep(0.3)
    assert "compiling the knowledge base" in out.getvalue()


def test_progress_stays_silent_for_a_fast_step_and_off_a_terminal(capsys):
    import io

    from rich.console import Console

    from gpulane.cli.progress import progress

    out = io.StringIO()
    with progress("fast", console=Console(file=out, force_terminal=True), delay=5):
        pass
    assert out.getvalue() == ""
    with progress("in a pipe"):  # pytest's stderr is not a terminal: nothing at all
        pass
    assert capsys.readouterr().err == ""


def test_json_and_pipes_get_no_progress(shipped, monkeypatch):
    monkeypatch.setattr(cli_app, "_graph", lambda: shipped)
    result = CliRunner().invoke(cli_app.app, ["fix", 'gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM', "--json"])
    assert result.exit_code == 0
    json_text = result.stdout
    assert json_text.lstrip().startswith("{") and "searching" not in result.output
