"""The compare, serve and site commands, registered on the typer app by `register`.

Kept apart from app.py so the grid and the web app grow without touching the
other commands; each command is thin over gpulane.queries.compare and gpulane.web.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from gpulane.errors import GpulaneError, QueryError

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


class SiteWriteError(GpulaneError):
    """The static site could not be written."""


def register(app: typer.Typer) -> None:
    """Add compare, serve and site to the command line."""

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

    @app.command()
    def serve(port: int = typer.Option(8000, "--port", help="The TCP port."),
              host: str = typer.Option("127.0.0.1", "--host", help="The address to bind (default: this machine only)."),
              request_timeout: float = typer.Option(20.0, "--request-timeout",
                                                    help="Seconds a request may take before it is answered 503.")):
        """A local web page: the selector, the compare grid, GPU and source pages, and a query box."""
        try:
            import uvicorn
        except ImportError:  # pragma: no cover - a dependency of the package
            raise GpulaneError("the web server needs uvicorn: pip install uvicorn") from None
        from gpulane.web.app import create_app

        loopback = host in ("127.0.0.1", "localhost", "::1")
        # On loopback, requests must name a loopback host too (no DNS rebinding from a web page).
        web = create_app(_graph(), request_timeout=request_timeout, loopback_only=loopback)
        if not loopback:
            typer.echo(f"warning: serving on {host}, reachable from other machines", err=True)
        typer.echo(f"gpulane: serving on http://{host}:{port}/ (Ctrl+C stops)", err=True)
        # h11 limits a request's head; the app refuses long query strings and bodies itself.
        uvicorn.run(web, host=host, port=port, log_level="warning", h11_max_incomplete_event_size=64 * 1024,
                    timeout_keep_alive=5, limit_concurrency=64)

    @app.command()
    def site(directory: Path = typer.Argument(..., help="The folder to write the static pages into."),
             pairs: Optional[list[str]] = typer.Option(None, "--compare",
                                                       help='A comparison to write, GPUs separated by commas: '
                                                            '"RX 7900 XTX,RTX 4090" (repeat; default: the seed pairs).')):
        """Write static HTML: the compare pages of the seed comparisons, their GPU and source pages, for publishing."""
        from gpulane.web.site import SEED_COMPARISONS, write_site

        kg = _graph()
        comparisons = [[g.strip() for g in p.split(",") if g.strip()] for p in pairs] if pairs else None
        try:
            written = write_site(kg, directory, comparisons or SEED_COMPARISONS)
        except OSError as exc:
            raise SiteWriteError(f"could not write the site into {directory}: {exc.strerror or exc}") from None
        typer.echo(f"wrote {len(written)} pages into {directory} (open {directory / 'index.html'})")
