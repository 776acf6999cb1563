"""The compare command, registered on the typer app by `register`.

Kept apart from app.py so the grid grows without touching the
other commands; each command is thin over gpulane.queries.compare.
"""

from __future__ import annotations

import json
from typing import Optional

import typer

from gpulane.errors import QueryError

__all__ = ["register", "print_compare", "FORMATS"]

FORMATS = ("text", "markdown", "json")


def _graph():
    from gpulane.cli.app import _graph as app_graph  # honours --data / GPULANE_DATA

    return app_graph()


def print_compare(kg, result, fmt: str) -> None:
    """Print a comparison in one of FORMATS."""
    from gpulane.cli import render_compare

    if fmt == "json":
        typer.echo(json.dumps(render_compare.compare_json(kg, result), indent=2, ensure_ascii=False, default=str))
    elif fmt == "markdown":
        typer.echo(render_compare.compare_markdown(kg, result))
    else:
        typer.echo(render_compare.compare_text(kg, result))


def _format(fmt: str, as_json: bool) -> str:
    fmt = "json" if as_json else fmt.lower()
    if fmt not in FORMATS:
        import difflib

        close = difflib.get_close_matches(fmt, FORMATS, n=1)
        raise QueryError(f"unknown format '{fmt}'", hint=f"did you mean '{close[0]}'?" if close else
                         "formats: " + ", ".join(FORMATS), code="unknown_format")
    return fmt


def register(app: typer.Typer) -> None:
    """Add compare to the command line."""

    @app.command()
    def compare(gpus: list[str] = typer.Argument(..., help='Two or more GPUs: "RX 7900 XTX" "RTX 4090".'),
                os: Optional[list[str]] = typer.Option(None, "--os", help="An OS column (repeat for more). "
                                                       "Default: the newest Ubuntu LTS, Windows 11, WSL2."),
                apps: Optional[list[str]] = typer.Option(None, "--app", help="An app row (repeat for more)."),
                frameworks: Optional[list[str]] = typer.Option(None, "--framework",
                                                               help="A framework row (repeat for more)."),
                fmt: str = typer.Option("text", "--format", help="text, markdown or json."),
                as_json: bool = typer.Option(False, "--json", help="Print JSON (the same as --format json).")):
        """GPUs side by side: one row per app or framework, one column per GPU and OS, every cell cited."""
        from gpulane.queries.compare import compare as run_compare

        fmt = _format(fmt, as_json)
        kg = _graph()
        print_compare(kg, run_compare(kg, list(gpus), os or None, apps or None, frameworks or None), fmt)
