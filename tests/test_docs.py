"""Every statement in docs/query-language.md and the README runs without error."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import update_snapshots

from gpulane.queries import run
from tests.conftest import TESTS

ROOT = TESTS.parent
DOC = ROOT / "docs" / "query-language.md"


def _statements() -> list[str]:
    blocks = re.findall(r"```query\n(.*?)```", DOC.read_text(), flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


@pytest.mark.parametrize("statement", _statements())
def test_documented_statement_runs(shipped, statement):
    from gpulane.queries.explain import explain
    from gpulane.queries.fix import fix

    plan = run.compile_query(shipped, statement)
    verb = plan.statement.verb
    if verb == "find":
        result = run.find(shipped, plan)
        assert result.answers, statement
    elif verb == "paths":
        assert run.paths(shipped, plan).paths, statement
    elif verb in ("explain", "why"):
        assert explain(shipped, plan).verdict in ("supported", "not_supported", "unknown", "builds_only")
    elif verb == "fix":
        assert fix(shipped, plan).fixes, statement
    elif verb == "compare":
        from gpulane.queries.compare import compare_statement

        result = compare_statement(shipped, plan.statement)
        assert result.cells and result.complete, statement


def test_documented_error_is_the_real_error(shipped):
    from gpulane.errors import QueryError

    text = DOC.read_text()
    shown = re.search(r"```\n(error: unknown gpu.*?)```", text, flags=re.S).group(1).rstrip("\n")
    with pytest.raises(QueryError) as info:
        run.compile_query(shipped, 'find gpu where gpu = "RX 7900XTXX"')
    assert info.value.render() == shown


def test_readme_examples_print_what_the_readme_says():
    """Each README block that starts with '$ gpulane' shows the command's real output."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```console\n\$ (gpulane [^\n]*)\n(.*?)```", readme, flags=re.S)
    assert blocks
    for command, expected in blocks:
        args = _shell_words(command)[1:]
        out = subprocess.run([sys.executable, "-m", "gpulane", *args], capture_output=True, text=True)
        if update_snapshots():  # GPULANE_UPDATE_SNAPSHOTS=1: write the real output back
            readme = readme.replace(f"$ {command}\n{expected}", f"$ {command}\n{out.stdout.rstrip(chr(10))}\n", 1)
            continue
        assert out.stdout.rstrip("\n") == expected.rstrip("\n"), command
    if update_snapshots():
        (ROOT / "README.md").write_text(readme)


def _shell_words(command: str) -> list[str]:
    import shlex

    return shlex.split(command)
