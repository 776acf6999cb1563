"""The `gpulane` command line: thin typer commands over gpulane.api."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from gpulane.errors import GpulaneError, KBLoadError, QueryError

if TYPE_CHECKING:
    from gpulane.model import Layer

# The layer names, spelled here so that importing the command line does not import the model
# (pydantic): `--help` and typing mistakes answer fast. A test keeps it equal to model.LAYER_NAMES.
LAYER_WORDS = ("gpu", "arch", "os", "driver", "toolkit", "framework", "app")

_QUOTING = ("Put a statement in single quotes, names with spaces in double quotes inside: "
            "gpulane find 'gpu where vram >= 24 and app = vLLM and os = \"Ubuntu 24.04\"'. "
            "Typed as separate words it gives the same answer, but the shell acts on > and < "
            "(redirects) before gpulane sees them.")
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="A cited knowledge graph of GPU software compatibility: find, explain, fix.\n\n" + _QUOTING)
kb_app = typer.Typer(no_args_is_help=True, help="Check, count and import the knowledge base.")
app.add_typer(kb_app, name="kb")

_state: dict = {"data": None, "width": None}


@app.callback()
def _options(data: Optional[Path] = typer.Option(None, "--data", envvar="GPULANE_DATA",
                                                 help="A knowledge-base folder instead of the shipped one."),
             width: Optional[int] = typer.Option(None, "--width", min=20,
                                                 help="Wrap text to this many columns (default: the terminal's "
                                                      "width on a terminal; output into a pipe is not wrapped).")):
    _state["data"] = data
    _state["width"] = width


def _width(stream) -> int | None:
    """The width to wrap to: --width, else the terminal's; None (no wrapping) in a pipe."""
    if _state.get("width"):
        return _state["width"]
    if stream.isatty():
        import shutil

        return shutil.get_terminal_size((100, 24)).columns
    return None


def _graph():
    from gpulane.api import load_graph
    from gpulane.cli.progress import progress

    # A warm cache loads in a fraction of a second (no spinner); a cold one compiles the files.
    with progress("loading the knowledge base (compiled once after an install or a data change)…"):
        graph = load_graph(_state["data"])
    # A command lives for one query: the loaded graph stays till exit, so the collector need not
    # walk it again on every pass (a third of explain/fix time at 10^4 facts). Only the CLI does
    # this; the library leaves the collector alone.
    import gc

    gc.freeze()
    return graph


def _emit_text(text: str, err: bool = False) -> None:
    """Words to the terminal: wrapped to its width and styled by the rich renderer on a
    terminal, plain otherwise. An error's echoed statement and caret are never wrapped."""
    from gpulane.textsafe import visible

    text = visible(text)  # an escape sequence in an echoed query or a name is shown, not obeyed
    stream = sys.stderr if err else sys.stdout
    width = _width(stream)
    if width:
        from gpulane.cli.wrap import wrap_text

        if err:
            text = "\n".join(line if line.startswith("  ") else wrap_text(line, width) for line in text.split("\n"))
        else:
            text = wrap_text(text, width)
    if stream.isatty():
        from rich.console import Console

        from gpulane.cli.render_rich import styled

        Console(file=stream, highlight=False, soft_wrap=True).print(styled(text))
    else:
        typer.echo(text, err=err)


def _emit_json(obj) -> None:
    typer.echo(json.dumps(obj, indent=2, ensure_ascii=False, default=str))


def _readings(kg, name: str, layer: Layer | None = None) -> list[str]:
    """Every node id a name can mean (its resolutions and the other readings a query would ask about)."""
    from gpulane.queries.plan import other_readings

    found = kg.names.resolve(name, layer)
    ids = sorted({i for r in found for i in r.ids})
    for lyr in {r.layer for r in found}:
        ids = sorted(set(ids) | other_readings(kg, name, lyr, [r for r in found if r.layer is lyr]))
    return ids


def _resolve_one(kg, name: str, layer: Layer | None = None) -> str:
    from gpulane.errors import AmbiguousNameError, UnknownNameError

    ids = _readings(kg, name, layer)
    if not ids:
        raise UnknownNameError(name, layer.value if layer else None, kg.names.suggestions(name, layer))
    if len(ids) > 1:
        raise AmbiguousNameError(name, sorted(kg.nodes[i].name for i in ids))
    return ids[0]


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def show(name: list[str] = typer.Argument(..., help="A node's name or alias: '7900 XTX', 'w7900', 'gfx1100', 'CUDA 12.4.1'.",
                                         metavar="NAME", show_default=False),
         layer: Optional[str] = typer.Option(None, "--layer", help="Look only in this layer."),
         as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """A node, its attributes, its facts and their sources."""
    _show(" ".join(w.strip() for w in name).strip().strip("\"'"), layer, as_json)


def _show(name: str, layer: str | None, as_json: bool) -> None:
    from gpulane.cli.render_kb import fact_json, fact_line, node_json, source_citation

    from gpulane.errors import AmbiguousNameError

    kg = _graph()
    try:
        node_id = _resolve_one(kg, name, _layer(layer) if layer else None)
    except AmbiguousNameError as exc:
        if not _show_shared_architecture(kg, name, _layer(layer) if layer else None, as_json):
            raise
        return
    node = kg.nodes[node_id]
    facts = kg.facts_about(node_id)
    if as_json:
        out = node_json(kg, node)
        out["facts"] = [fact_json(kg, cf) for cf in facts]
        _emit_json(out)
        return
    data = node_json(kg, node)
    lines: list[str] = []
    lines.append(f"{node.name}  [{node.layer.value} · {node.id}]")
    if node.aliases:
        lines.append(f"  aliases: {', '.join(node.aliases)}")
    for key, value in data["attributes"].items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        lines.append(f"  {key}: {shown}")
    if node.source and node.source in kg.sources:
        src = kg.sources[node.source]
        lines.append(f"  attributes from: {src.publisher}: {src.title} ({src.url}) · reviewed {src.reviewed}")
    for attr, src_id in node.attribute_sources.items():
        if src_id in kg.sources:
            src = kg.sources[src_id]
            lines.append(f"  {attr} from: {src.publisher}: {src.title} ({src.url}) · reviewed {src.reviewed}")
    if facts:
        lines.append(f"facts ({len(facts)}):")
        for cf in facts:
            mark = "✗" if cf.status.value == "unsupported" else ("~" if cf.status.value in ("workaround", "community") else "✓")
            lines.append(f"  {mark} {cf.id}: {fact_line(kg, cf)}")
            lines.append(f"      {source_citation(kg, cf)}")
            if cf.fact.caveat:
                lines.append(f"      caveat: {cf.fact.caveat}")
    _emit_text("\n".join(lines))


def _show_shared_architecture(kg, name: str, layer: "Layer | None", as_json: bool) -> bool:
    """A name that stands for several GPU boards of one architecture ("A800": five boards, all
    sm_80; "MI50": 16 and 32 GB, both gfx906): show answers the architecture they share and lists
    the boards, instead of only asking which. False (nothing printed) when the readings are not all
    GPUs or do not share exactly one architecture."""
    from gpulane.model import Layer

    ids = _readings(kg, name, layer)
    if not ids or any(kg.nodes[i].layer is not Layer.gpu for i in ids):
        return False
    archs = {tuple(kg.arch_of(i)) for i in ids}
    if len(archs) != 1 or len(next(iter(archs))) != 1:
        return False
    arch = kg.nodes[next(iter(archs))[0]]
    gpus = sorted((kg.nodes[i] for i in ids), key=lambda n: n.name)
    if as_json:
        _emit_json({"name": name, "ambiguous": True, "architecture": arch.id,
                    "gpus": [{"id": g.id, "name": g.name, "vram_gb": g.vram_gb,
                              **({"vram_sizes_gb": g.vram_sizes_gb} if g.vram_sizes_gb else {})} for g in gpus]})
        return True
    lines = [f'"{name}" names {len(gpus)} GPUs, all of architecture {arch.name} [arch · {arch.id}]:']
    for g in gpus:
        vram = f" · {g.vram_gb:g} GB" if g.vram_gb else (
            " · " + " or ".join(f"{v:g}" for v in sorted(g.vram_sizes_gb)) + " GB" if g.vram_sizes_gb else "")
        lines.append(f"  {g.name}  [gpu · {g.id}]{vram}")
    lines.append(f'say which for one GPU\'s facts: gpulane show "{gpus[0].name}"; '
                 f"the architecture's: gpulane show {arch.id}")
    _emit_text("\n".join(lines))
    return True


def _layer(text: str) -> Layer:
    from gpulane.model import Layer

    try:
        return Layer(text.lower())
    except ValueError:
        import difflib

        close = difflib.get_close_matches(text.lower(), LAYER_WORDS, n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"layers are {', '.join(LAYER_WORDS)}"
        raise QueryError(f"unknown layer '{text}'", hint=hint, code="unknown_layer") from None


@app.command("list", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def list_nodes(words: list[str] = typer.Argument(..., help="A layer (gpu, arch, os, driver, toolkit, framework, app), "
                                                      "optionally followed by: where vendor = nvidia ...",
                                                 metavar="LAYER [where ...]", show_default=False),
               vendor: Optional[str] = typer.Option(None, "--vendor", help="amd or nvidia."),
               family: Optional[str] = typer.Option(None, "--family", help="RDNA3, Ampere, cuda, torch, ..."),
               as_json: bool = typer.Option(False, "--json", help="Print a JSON list of nodes.")):
    """The nodes of one layer, with filters: `list gpu --vendor amd` or `list 'gpu where vendor = amd'`."""
    text = _statement_text(words)
    if len(text.split()) > 1:
        if vendor or family:
            raise QueryError("use either a where clause or --vendor/--family, not both",
                             hint=f"for example: gpulane list '{text} and vendor = {vendor or 'amd'}'",
                             code="misplaced_clause")
        _run_statement("list " + text, as_json)
        return
    kg = _graph()
    lyr = _layer(text)
    ids = kg.by_layer[lyr]
    if vendor:
        ids = [i for i in ids if (kg.nodes[i].vendor or "") == vendor.lower()]
    if family:
        ids = [i for i in ids if str(kg.attribute(i, "family") or "").lower() == family.lower()]
    _print_nodes(kg, ids, lyr, as_json)


def _print_nodes(kg, ids, lyr: Layer, as_json: bool) -> None:
    """A layer's nodes as a table (name and key attributes) or a JSON list."""
    from gpulane.cli.render_kb import node_json

    nodes = sorted((kg.nodes[i] for i in ids), key=lambda n: (n.vendor or "", n.family or "", n.name))
    if as_json:
        _emit_json([node_json(kg, n) for n in nodes])
        return
    for n in nodes:
        data = node_json(kg, n)["attributes"]
        extra = " · ".join(f"{k} {', '.join(map(str, v)) if isinstance(v, list) else v}"
                           for k, v in data.items() if k in ("vendor", "arch", "family", "vram_gb", "vram_sizes_gb", "version",
                                                                      "platform"))
        typer.echo(f"{n.name:<40} {extra}")
    typer.echo(f"({len(nodes)} {lyr.value} node{'s' if len(nodes) != 1 else ''})")


@app.command()
def sources(as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Each source with its URL, version, review date and age."""
    from gpulane.cli.render_kb import age_days

    kg = _graph()
    counts: dict[str, int] = {}
    for cf in kg.facts:
        counts[cf.fact.source or ""] = counts.get(cf.fact.source or "", 0) + 1
    rows = []
    for s in sorted(kg.sources.values(), key=lambda s: s.id):
        rows.append({"id": s.id, "title": s.title, "publisher": s.publisher, "url": s.url, "version": s.version,
                     "reviewed": s.reviewed.isoformat() if s.reviewed else None,
                     "age_days": age_days(s.reviewed), "facts": counts.get(s.id, 0)})
    if as_json:
        _emit_json(rows)
        return
    lines: list[str] = []
    for r in rows:
        lines.append(f"{r['id']}  ({r['publisher']}, {r['facts']} facts)")
        lines.append(f"  {r['title']} · {r['version']}")
        lines.append(f"  {r['url']}")
        lines.append(f"  reviewed {r['reviewed']} ({r['age_days']} days ago)")
    _emit_text("\n".join(lines))


_PLAN_HELP = ("Read the configuration from a YAML or JSON plan file: one key per layer (gpu: RX 7900 XTX, "
              "os: Ubuntu 24.04, app: vLLM), plus keep and allow lists; see docs/plan-files.md.")
_ALL_HELP = "Show long lists whole instead of shortened with a count."
SHORTENED_NOTE = "(long lists are shortened: --all shows every entry)"


def _run_statement(text: str, as_json: bool, show_all: bool = False) -> None:
    """Parse, plan and run one statement; print its answer."""
    from gpulane.cli import render

    render.show_all(show_all)
    _answer_statement(text, as_json)
    if render.shortened() and not as_json:
        _emit_text(SHORTENED_NOTE)


def _answer_statement(text: str, as_json: bool) -> None:
    from gpulane.cli import render
    from gpulane.queries import run

    kg = _graph()
    from gpulane.queries.parser import parse
    from gpulane.queries.plan import plan as make_plan

    statement = parse(text)
    if statement.verb == "compare":  # a grid, not one plan: gpulane/cli/web_commands.py
        from gpulane.cli.web_commands import print_compare
        from gpulane.queries.compare import compare_statement

        print_compare(kg, compare_statement(kg, statement), "json" if as_json else "text")
        return
    plan = make_plan(kg, statement)
    verb = plan.statement.verb
    if verb == "find":
        result = run.find(kg, plan)
        _emit_json(render.find_json(kg, result)) if as_json else _emit_text(render.find_text(kg, result))
    elif verb == "paths":
        result = run.paths(kg, plan)
        _emit_json(render.paths_json(kg, result)) if as_json else _emit_text(render.paths_text(kg, result))
    elif verb in ("explain", "why"):
        from gpulane.queries import explain as explain_mod
        from gpulane.cli import render_explain

        answer = explain_mod.explain(kg, plan)
        _emit_json(render_explain.explain_json(kg, answer)) if as_json \
            else _emit_text(render_explain.explain_text(kg, answer))
    elif verb == "fix":
        from gpulane.queries import fix as fix_mod
        from gpulane.cli import render_explain

        from gpulane.cli.progress import progress

        with progress("searching for the smallest verified changes…"):
            answer = fix_mod.fix(kg, plan)
        _emit_json(render_explain.fix_json(kg, answer)) if as_json else _emit_text(render_explain.fix_text(kg, answer))
    elif verb == "show":
        _show(plan.statement.subject.text, None, as_json)
    elif verb == "list":
        layer = plan.project[0].value if plan.project else "gpu"
        _list_plan(kg, plan, layer, as_json)
    elif verb == "setup":
        from gpulane.cli.setup_commands import setup_statement

        setup_statement(text, "json" if as_json else "markdown")


def _list_plan(kg, plan, layer: str, as_json: bool) -> None:
    lyr = _layer(layer)
    _print_nodes(kg, plan.problem.pins.get(lyr, frozenset(kg.by_layer[lyr])), lyr, as_json)


_STATEMENT_HELP = ("The rest of the statement, best in single quotes: 'gpu where vram >= 24 and app = vLLM' "
                   "(unquoted, a shell takes > and < as redirects).")


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def find(words: list[str] = typer.Argument(..., help=_STATEMENT_HELP, metavar="LAYER where ...", show_default=False),
         as_json: bool = typer.Option(False, "--json", help="Print JSON."),
         show_all: bool = typer.Option(False, "--all", help=_ALL_HELP)):
    """Which values of a layer have a complete supported path (one witness each)."""
    _run_statement("find " + _statement_text(words), as_json, show_all)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def paths(words: list[str] = typer.Argument(None, help="where ... [order by LAYER] [limit N]", metavar="where ...", show_default=False),
          as_json: bool = typer.Option(False, "--json", help="Print JSON."),
          show_all: bool = typer.Option(False, "--all", help=_ALL_HELP)):
    """List complete supported paths."""
    _run_statement("paths " + _statement_text(words), as_json, show_all)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def explain(words: list[str] = typer.Argument(None, help='gpu = "RX 6700 XT", os = "Ubuntu 22.04", ...'),
            plan_file: Optional[Path] = typer.Option(None, "--plan", help=_PLAN_HELP),
            error: Optional[str] = typer.Option(None, "--error", help="An error message to diagnose."),
            probe: bool = typer.Option(False, "--probe", help="With --error: use this machine's configuration."),
            as_json: bool = typer.Option(False, "--json", help="Print JSON."),
            show_all: bool = typer.Option(False, "--all", help=_ALL_HELP)):
    """Does a configuration work? If not, which edge breaks, and why. With --error, which edge an error implicates."""
    if error is not None:
        from gpulane.cli.probe_commands import explain_error

        config = _config_text(words, plan_file) if (words or plan_file) else None
        explain_error(error, config, as_json, probe=probe)
        return
    _run_statement("explain " + _config_text(words, plan_file), as_json, show_all)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def why(words: list[str] = typer.Argument(None, help='gpu = "RX 6700 XT", os = "Ubuntu 22.04", ...'),
        plan_file: Optional[Path] = typer.Option(None, "--plan", help=_PLAN_HELP),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        show_all: bool = typer.Option(False, "--all", help=_ALL_HELP)):
    """The same as explain: why does (or doesn't) this configuration work?"""
    _run_statement("why " + _config_text(words, plan_file), as_json, show_all)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def fix(words: list[str] = typer.Argument(None, help='gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM [keep gpu]'),
        plan_file: Optional[Path] = typer.Option(None, "--plan", help=_PLAN_HELP),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        show_all: bool = typer.Option(False, "--all", help=_ALL_HELP)):
    """The smallest verified changes that make a blocked plan work."""
    _run_statement("fix " + _config_text(words, plan_file), as_json, show_all)


@app.command()
def probe(as_json: bool = typer.Option(False, "--json", help="Print JSON."),
          pci: Optional[str] = typer.Option(None, "--pci", help="Name the GPU of a PCI id (10de:2684) or of pasted "
                                                                 "lspci -nn / nvidia-smi -q / rocminfo output "
                                                                 "('-' reads it from standard input).")):
    """Read this machine's GPU, driver, OS and Python stack, and explain that configuration."""
    from gpulane.cli.probe_commands import pci_command, probe_command

    if pci is not None:
        pci_command(sys.stdin.read() if pci == "-" else pci, as_json)
        return
    probe_command(as_json)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def record(words: list[str] = typer.Argument(None, help='gpu = "RX 7900 XTX", os = "Ubuntu 24.04", app = vLLM'),
           plan_file: Optional[Path] = typer.Option(None, "--plan", help=_PLAN_HELP),
           fmt: str = typer.Option("markdown", "--format", help="markdown, json or mermaid."),
           model: Optional[str] = typer.Option(None, "--model", help="The model and its format, as you state it."),
           quantization: Optional[str] = typer.Option(None, "--quantization", help="The quantization you plan."),
           context: Optional[str] = typer.Option(None, "--context", help="The context length you plan."),
           output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to a file (atomically).")):
    """Write the pre-purchase compatibility record of a configuration."""
    from gpulane.cli.probe_commands import record_command

    record_command(_config_text(words, plan_file), fmt, model, quantization, context, output)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def query(words: list[str] = typer.Argument(..., help="Any statement: find, paths, explain, fix, show, list.", metavar="STATEMENT", show_default=False),
          as_json: bool = typer.Option(False, "--json", help="Print JSON."),
          sparql: bool = typer.Option(False, "--sparql", help="Print the SPARQL SELECT that answers a find statement."),
          show_all: bool = typer.Option(False, "--all", help=_ALL_HELP)):
    """Run any statement of the query language (or, with --sparql, translate a find statement)."""
    statement = _statement_text(words)
    if sparql:
        from gpulane.cli.rdf_commands import sparql_command

        sparql_command(statement)
        return
    _run_statement(statement, as_json, show_all)


@app.command()
def export(fmt: str = typer.Option("turtle", "--format", help="turtle, jsonld or ntriples."),
           output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to a file (atomically)."),
           verdicts: bool = typer.Option(False, "--verdicts",
                                         help="Write the verdict graph instead (ntriples or turtle): the engine's pair "
                                              "verdicts, which `query --sparql` queries read beside the export.")):
    """The whole knowledge base as RDF (nodes, reified facts with PROV-O provenance, sources)."""
    from gpulane.cli.rdf_commands import export_command

    export_command(fmt, output, verdicts)


# Words that start a clause or name a layer: a shell word beginning with one is a piece of
# the statement ('gpu where vendor = AMD'), not one name with spaces ('RX 7900 XTX').
_CLAUSE_WORDS = frozenset(LAYER_WORDS) | {"where", "and", "limit", "order", "allow", "keep", "find", "paths",
                                          "explain", "fix", "why", "show", "list"}
_OPERATOR_CHARS = frozenset('=<>{}"\'')


def _is_statement_piece(word: str) -> bool:
    """Whether one shell word holds part of a statement rather than a single name."""
    if any(ch in _OPERATOR_CHARS for ch in word):
        return True
    first = word.split(None, 1)[0].rstrip(",").lower() if word.strip() else ""
    return first in _CLAUSE_WORDS


def _statement_text(words: list[str] | None) -> str:
    """The statement the shell words spell, the same whether the user quoted the whole
    statement as one argument or typed it as words (quoting only the names with spaces)."""
    return " ".join(_quote(w) for w in (words or [])).strip()


def _quote(word: str) -> str:
    """Re-quote a shell word that held spaces (the shell took the user's quotes); a word
    that is a piece of the statement itself passes through as written."""
    if _is_statement_piece(word):
        return word.strip()
    if any(ch.isspace() for ch in word) and not (word.startswith('"') or word.startswith("'")):
        if word.endswith(","):
            return '"' + word[:-1].replace('"', "") + '",'
        return '"' + word.replace('"', "") + '"'
    return word


def _config_text(words: list[str] | None, plan_file: Path | None) -> str:
    if plan_file is not None:
        from gpulane.queries.planfile import read_plan_file

        text = read_plan_file(plan_file)
        if words:
            text += " " + _statement_text(words)
        return text
    return _statement_text(words)


@kb_app.command("check")
def kb_check(as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Check the knowledge base: exit 0 when clean, 1 with one line per problem."""
    from gpulane.api import build_graph
    from gpulane.graph.check import check_graph

    from gpulane.cli.progress import progress

    with progress("loading and checking the knowledge base…"):
        kg = build_graph(_state["data"], strict=False)
    problems = check_graph(kg)
    errors = [p for p in problems if p.severity == "error"]
    if as_json:
        _emit_json([{"severity": p.severity, "where": str(p.origin) if p.origin else None, "message": p.message}
                    for p in problems])
    else:
        for p in problems:
            typer.echo(str(p))
        stats = kg.stats()
        typer.echo(f"{len(errors)} error(s), {len(problems) - len(errors)} warning(s) in "
                   f"{stats['files']} files, {sum(stats['nodes'].values())} nodes, {stats['facts']} facts",
                   err=bool(errors))
    raise typer.Exit(1 if errors else 0)


@kb_app.command("stats")
def kb_stats(as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Counts: nodes per layer, facts, sources."""
    kg = _graph()
    stats = kg.stats()
    if as_json:
        _emit_json(stats)
        return
    for layer, n in stats["nodes"].items():
        typer.echo(f"{layer:<10} {n:>6} nodes")
    typer.echo(f"{'facts':<10} {stats['facts']:>6}")
    typer.echo(f"{'sources':<10} {stats['sources']:>6}")


@kb_app.command("import")
def kb_import(kind: str = typer.Argument(..., help="rocm-matrix, rocm-gpu-specs, rocm-linux-sysreq, hip-sdk-windows, amd-llvm-processors, amd-products, nvidia-products, os-glibc, pytorch-builds, ollama-releases, vllm-releases, bitsandbytes-releases, flash-attention-releases, xformers-releases, llama-cpp-releases, comfyui-releases, rdf"),
              file: Path = typer.Argument(..., help="The vendor file, as published."),
              dry_run: bool = typer.Option(False, "--dry-run", help="Show what would change; write nothing.")):
    """Parse a published vendor file, show what changes, and write the knowledge-base file atomically."""
    from gpulane.loaders.importers import IMPORTERS, run_import
    from gpulane.loaders.kbfiles import default_data_dir

    if kind == "rdf":
        from gpulane.cli.rdf_commands import import_rdf

        import_rdf(file, dry_run)
        return
    if kind not in IMPORTERS:
        import difflib

        close = difflib.get_close_matches(kind, list(IMPORTERS) + ["rdf"], n=1)
        raise QueryError(f"unknown import kind '{kind}'",
                         hint=(f"did you mean '{close[0]}'?" if close else
                               "kinds: " + ", ".join(sorted(IMPORTERS) + ["rdf"])), code="unknown_kind")
    from gpulane.cli.progress import progress

    with progress(f"importing {file} ({kind}): parsing, checking the resulting knowledge base…"):
        plan, written = run_import(kind, file, Path(_state["data"]) if _state["data"] else default_data_dir(),
                                   dry_run=dry_run)
    typer.echo(plan.summary())
    if dry_run:
        typer.echo("(dry run: nothing written)")
    for path in written:
        typer.echo(f"wrote {path}")


from gpulane.cli.web_commands import register as _register_web_commands  # noqa: E402

_register_web_commands(app)  # compare, serve, site

from gpulane.cli.setup_commands import register as _register_setup_commands  # noqa: E402

_register_setup_commands(app)  # setup


def main() -> None:
    """Entry point: run the CLI; a gpulane error becomes a message and exit status 2."""
    try:
        app()
    except KBLoadError as exc:
        from gpulane.textsafe import visible

        typer.echo("error: the knowledge base could not be loaded; nothing was loaded:", err=True)
        for p in exc.problems:
            typer.echo(visible(f"  {p}"), err=True)
        sys.exit(2)
    except QueryError as exc:
        _emit_text(exc.render(), err=True)
        if "--json" in sys.argv[1:]:
            _emit_json(exc.to_json())  # scripts read the error as data too (output.schema.json: error)
        sys.exit(2)
    except GpulaneError as exc:
        from gpulane.textsafe import visible

        typer.echo(visible(f"error: {exc}"), err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)


# Verbs that only read (the knowledge base, its cache, this machine) and print: after one of
# them nothing is left to write, so the console script leaves without tearing down the
# interpreter, which frees the loaded graph object by object (some 70 ms of a 0.45 s find).
_READ_ONLY_VERBS = frozenset({"find", "paths", "explain", "why", "fix", "list", "show", "sources", "query",
                              "compare", "setup", "probe"})


def _verb(argv: list[str]) -> str | None:
    """The command word of a command line (the first word that is not an option or its value)."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in ("--data", "--width"):
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def run() -> None:
    """The console script: `main`, then, after a verb that only reads, an exit that skips the
    interpreter's teardown once the output is flushed (the exit status is kept)."""
    try:
        main()
        code: object = 0
    except SystemExit as done:
        code = done.code
    if _verb(sys.argv[1:]) not in _READ_ONLY_VERBS:
        sys.exit(code)
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe (`| head`): nothing more can be written anyway
    import os

    os._exit(code)


if __name__ == "__main__":
    run()
