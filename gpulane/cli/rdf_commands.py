"""CLI commands for RDF: `export`, `query --sparql`, `kb import rdf`.

Plain functions that gpulane/cli/app.py registers; each prints its result and
raises GpulaneError (never a traceback) on failure.
"""

from __future__ import annotations

from pathlib import Path

import typer

from gpulane.errors import QueryError

__all__ = ["export_command", "sparql_command", "import_rdf"]


def _data_dir() -> Path | None:
    from gpulane.cli.app import _state

    return Path(_state["data"]) if _state.get("data") else None


def export_command(format: str = "turtle", output: Path | None = None, verdicts: bool = False) -> None:
    """`gpulane export --format turtle|jsonld|ntriples [-o FILE] [--verdicts]`: the whole knowledge base
    as RDF, or (--verdicts) the verdict graph that the generated SPARQL reads beside it."""
    from gpulane.api import load_graph
    from gpulane.graph import rdf

    kg = load_graph(_data_dir())
    text = rdf.verdicts(kg, format) if verdicts else rdf.export(kg, format)
    if output is None:
        typer.echo(text, nl=False)
        return
    from gpulane.errors import GpulaneError
    from gpulane.loaders.atomic import write_atomic

    output = Path(output)
    try:
        write_atomic(output, text)
    except OSError as exc:
        raise GpulaneError(f"{output}: cannot write the export ({exc.strerror or exc})") from None
    typer.echo(f"wrote {output} ({len(text.encode())} bytes, {format})", err=True)


def sparql_command(statement: str) -> None:
    """`gpulane query --sparql 'find ...'`: print the SPARQL SELECT that answers the statement."""
    from gpulane.api import load_graph
    from gpulane.queries.run import compile_query
    from gpulane.queries.sparql import to_sparql

    kg = load_graph(_data_dir())
    plan = compile_query(kg, statement)
    if not plan.project:
        raise QueryError("only find statements are translated to SPARQL", statement, None,
                         "for example: find gpu where app = vLLM", code="no_projection")
    typer.echo(to_sparql(kg, plan), nl=False)


def import_rdf(path: Path, dry_run: bool = False, data_dir: Path | None = None) -> list[Path]:
    """`gpulane kb import rdf FILE [--dry-run]`: read an RDF export back into knowledge-base files.

    The file is parsed and validated whole, and the result compiled and checked
    like the shipped knowledge base, before anything is written; then every file
    is written to a temporary file and renamed into place. Returns the paths written.
    """
    from gpulane.errors import KBInvalidError
    from gpulane.graph.check import check_graph
    from gpulane.graph.kb import KnowledgeGraph
    from gpulane.loaders.kbfiles import default_data_dir
    from gpulane.loaders.rdf import plan_files, read_rdf, write_files

    from gpulane.api import folder_problems
    from gpulane.loaders.transaction import data_lock

    kb = read_rdf(Path(path))
    errors = [str(p) for p in check_graph(KnowledgeGraph(kb)) if p.severity == "error"]
    if errors:
        raise KBInvalidError(errors)
    target = Path(data_dir) if data_dir else (_data_dir() or default_data_dir())
    if dry_run:
        _print_files(path, kb, plan_files(kb, target))
        typer.echo("dry run: nothing written")
        return []
    # Locked from reading the current files to the switch; the folder the import would leave
    # (its other files plus these) is loaded and checked before anything is replaced.
    with data_lock(target):
        files = plan_files(kb, target)
        _print_files(path, kb, files)
        written = write_files(files, validate=folder_problems)
    typer.echo(f"wrote {len(written)} file(s)")
    return written


def _print_files(path, kb, files) -> None:
    typer.echo(f"{path}: {len(kb.sources)} sources, {len(kb.nodes)} nodes, {len(kb.facts)} facts")
    for f in files:
        s, n, fa = f.counts
        typer.echo(f"  {f.status:<9} {f.path}  ({s} sources, {n} nodes, {fa} facts)")
