"""The setup command: the cited steps that put a machine on a configuration's path.

`register(app)` adds the command to the typer app; the statement form
(`gpulane query 'setup ...'`) reaches `setup_statement` through the same registration.
"""

from __future__ import annotations

import json
from typing import Optional

import typer

from gpulane.errors import QueryError

__all__ = ["register", "setup_statement", "run_checks"]


def run_checks(answer) -> dict[str, tuple[str, str]]:
    """Read-only probes for each step of the answer: step id → (state, detail)."""
    from gpulane.probe.step_checks import check_step

    return {ps.step.id: check_step(ps.step.check) for ps in answer.steps}


def setup_statement(text: str, fmt: str = "markdown", check: bool = False) -> None:
    """Run a `setup ...` statement and print it in the asked format."""
    from gpulane.cli.app import _graph
    from gpulane.cli.render_setup import FORMATS, setup_json, setup_markdown, setup_shell
    from gpulane.queries.run import compile_query
    from gpulane.queries.setup import setup

    if fmt not in FORMATS:
        import difflib

        close = difflib.get_close_matches(fmt, FORMATS, n=1)
        raise QueryError(f"unknown format '{fmt}'", hint=f"did you mean '{close[0]}'?" if close else
                         "formats: " + ", ".join(FORMATS), code="unknown_format")
    kg = _graph()
    answer = setup(kg, compile_query(kg, text))
    checks = run_checks(answer) if check and answer.supported else None
    if fmt == "json":
        typer.echo(json.dumps(setup_json(kg, answer, checks), indent=2, ensure_ascii=False, default=str))
    elif fmt == "shell":
        typer.echo(setup_shell(kg, answer), nl=False)
    else:
        typer.echo(setup_markdown(kg, answer, checks), nl=False)


def register(app: typer.Typer) -> None:
    """Add `gpulane setup` to the command-line app."""

    @app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
    def setup(words: list[str] = typer.Argument(None, help='gpu = "RX 7900 XTX", os = "Ubuntu 24.04", '
                                                           'framework = torch [allow workaround] [using container]'),
              plan_file: Optional[str] = typer.Option(None, "--plan", help="Read the configuration from YAML/JSON."),
              fmt: str = typer.Option("markdown", "--format", help="markdown, shell or json."),
              container: bool = typer.Option(False, "--container", help="Steps for the container install."),
              check: bool = typer.Option(False, "--check",
                                         help="Run read-only probes and mark the steps already satisfied.")):
        """The cited set-up steps (driver, toolkit, framework, app) of a configuration's best path.
        Commands are printed, never run."""
        from pathlib import Path

        from gpulane.cli.app import _config_text

        text = _config_text(words, Path(plan_file) if plan_file else None)
        if container and " using " not in f" {text} ":
            text += " using container"
        setup_statement("setup " + text, fmt, check)
