"""Words for a comparison grid: plain text, Markdown (for a forum post or a purchase record) and JSON.

All three are built from one `GridView`, so they carry the same marks, notes and
numbered sources.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpulane.cli.render_explain import break_reason
from gpulane.graph.kb import CompiledFact, KnowledgeGraph
from gpulane.queries.compare import CompareCell, CompareResult

__all__ = ["GridView", "CellView", "grid_view", "compare_text", "compare_markdown", "compare_json", "MARKS",
           "STATUS_WORDS", "cell_reason", "mark_of", "words_of"]

MARKS = {"supported": "✓", "workaround": "~", "community": "~", "builds_only": "◐", "not_supported": "✗",
         "unknown": "?"}
STATUS_WORDS = {"supported": "supported", "workaround": "via workaround", "community": "via community report",
                "builds_only": "builds only (compiled for; no support statement)", "not_supported": "not supported",
                "unknown": "unknown"}


def mark_of(status: str) -> str:
    return MARKS.get(status, "?")


def words_of(status: str) -> str:
    return STATUS_WORDS.get(status, status.replace("_", " "))
_MAX_CELL_SOURCES = 3


@dataclass
class CellView:
    """One cell in words: its mark, a short line or two, the sentence behind it and its sources."""

    row: int
    column: int
    status: str
    short: str  # "ROCm 7.2.0", "app→os", "workaround", "unknown"
    build: str | None
    reason: str | None  # the one-line sentence (the breaking edge, the workaround, the gap)
    edge: tuple[str, str] | None
    facts: list[str]
    sources: list[int]  # numbers into GridView.sources
    note: int | None = None  # number into GridView.notes

    @property
    def mark(self) -> str:
        return mark_of(self.status)


@dataclass
class GridView:
    result: CompareResult
    cells: dict[tuple[int, int], CellView]
    notes: list[str] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)  # {"id", "citation", "url"}


def cell_reason(kg: KnowledgeGraph, cell: CompareCell) -> str | None:
    """The sentence behind a cell that is not plainly supported."""
    if cell.note:
        return cell.note
    if cell.breaking is not None:
        b = cell.breaking
        return break_reason(kg, b.edge, b.facts, b.kind)
    if cell.workaround is not None:
        cf = cell.workaround.fact
        action = cf.fact.action or cf.fact.note or cf.id
        kind = "community report" if cf.status.value == "community" else "workaround"
        return f"not officially supported; a {kind} makes it run: {action}"
    return None


def grid_view(kg: KnowledgeGraph, result: CompareResult) -> GridView:
    """Number the sources and notes of a comparison once, for every output format."""
    view = GridView(result, {})
    numbers: dict[str, int] = {}

    def source_number(cf: CompiledFact) -> int | None:
        src = kg.source_of(cf)
        key = cf.fact.source or cf.id
        if key not in numbers:
            citation = f"{src.publisher}: {src.title} ({src.version})" if src else (cf.fact.source or cf.id)
            view.sources.append({"id": cf.fact.source, "citation": citation, "url": src.url if src else None})
            numbers[key] = len(view.sources)
        return numbers[key]

    for (r, c), cell in sorted(result.cells.items()):
        facts = cell.facts()
        sources = list(dict.fromkeys(n for n in (source_number(cf) for cf in facts) if n))
        edge = (cell.breaking.edge.upper.value, cell.breaking.edge.lower.value) if cell.breaking else None
        if cell.answer is not None and cell.answer.verdict == "supported" and cell.toolkit:
            short = cell.toolkit
        elif cell.status == "not_supported" and edge:
            short = f"{edge[0]}→{edge[1]}"
        elif result.columns[c].absent:
            short = "OS not in KB"
        elif edge:
            short = f"{cell.status.replace('_', ' ')} {edge[0]}→{edge[1]}"
        else:
            short = words_of(cell.status)
        view.cells[(r, c)] = CellView(r, c, cell.status, short, cell.build, cell_reason(kg, cell), edge,
                                      [cf.id for cf in facts], sources)
    # One note per distinct sentence: a column of an absent OS shares one.
    note_numbers: dict[str, int] = {}
    for key in sorted(view.cells):
        v = view.cells[key]
        if not v.reason:
            continue
        if v.reason not in note_numbers:
            view.notes.append(v.reason)
            note_numbers[v.reason] = len(view.notes)
        v.note = note_numbers[v.reason]
    return view


def _column_title(col) -> tuple[str, str]:
    return col.gpu_name, (col.os_label or "any OS")


def _cell_lines(v: CellView) -> list[str]:
    refs = ""
    if v.note:
        refs = f" ({v.note})"
    first = f"{v.mark} {v.short}{refs}"
    second = v.build or ""
    if v.sources:
        shown = ",".join(str(n) for n in v.sources[:_MAX_CELL_SOURCES]) + ("…" if len(v.sources) > _MAX_CELL_SOURCES else "")
        second = f"{second} [{shown}]".strip()
    return [first, second] if second else [first]


def compare_text(kg: KnowledgeGraph, result: CompareResult) -> str:
    """The grid for a terminal: rows × (GPU · OS) columns, then notes and numbered sources."""
    view = grid_view(kg, result)
    gpu_names = " vs ".join(name for _, name in result.gpus)
    lines = [f"compare: {gpu_names}",
             "  ✓ supported (newest path's toolkit and build)  ~ via workaround  ✗ not supported (breaking edge)"
             "  ? unknown", ""]
    label_w = max([len("app / framework")] + [len(r.label) for r in result.rows]) + 1
    cols = result.columns
    cell_lines = {k: _cell_lines(v) for k, v in view.cells.items()}
    widths = []
    for c, col in enumerate(cols):
        gpu, os_name = _column_title(col)
        w = max([len(os_name)] + [len(line) for r in range(len(result.rows)) for line in cell_lines[(r, c)]])
        widths.append(min(max(w, 8), 34))
    # Header line 1: the GPU over its group of columns; line 2: the OS of each column.
    head1, head2 = [" " * label_w], ["app / framework".ljust(label_w)]
    c = 0
    while c < len(cols):
        group = [k for k in range(c, len(cols)) if cols[k].gpu == cols[c].gpu]
        span = sum(widths[k] for k in group) + 3 * (len(group) - 1)
        head1.append(_fit(cols[c].gpu_name, span).ljust(span))
        for k in group:
            head2.append(_fit(_column_title(cols[k])[1], widths[k]).ljust(widths[k]))
        c = group[-1] + 1
    lines.append(" | ".join(head1).rstrip())
    lines.append(" | ".join(head2).rstrip())
    lines.append("-+-".join("-" * w for w in [label_w] + widths))
    for r, row in enumerate(result.rows):
        height = max(len(cell_lines[(r, c)]) for c in range(len(cols)))
        for i in range(height):
            parts = [(row.label if i == 0 else "").ljust(label_w)]
            for c in range(len(cols)):
                cl = cell_lines[(r, c)]
                parts.append(_fit(cl[i] if i < len(cl) else "", widths[c]).ljust(widths[c]))
            lines.append(" | ".join(parts).rstrip())
    if view.notes:
        lines.append("")
        lines.append("notes:")
        for n, text in enumerate(view.notes, 1):
            where = [f"{result.rows[v.row].label} on {cols[v.column].gpu_name} · {_column_title(cols[v.column])[1]}"
                     for v in view.cells.values() if v.note == n]
            facts = list(dict.fromkeys(f for v in view.cells.values() if v.note == n for f in v.facts))
            srcs = sorted({s for v in view.cells.values() if v.note == n for s in v.sources})
            cite = ""
            if facts:
                cite = f" [{', '.join(facts[:2])}{' …' if len(facts) > 2 else ''}; source {', '.join(map(str, srcs))}]"
            lines.append(f"  ({n}) {text}{cite}")
            lines.append(f"      for {_join_where(where)}")
    if view.sources:
        lines.append("")
        lines.append("sources:")
        for n, s in enumerate(view.sources, 1):
            lines.append(f"  [{n}] {s['citation']}")
            if s["url"]:
                lines.append(f"      {s['url']}")
    if not result.complete:
        lines.append("(the comparison stopped at its time bound; cells marked so are not computed)")
    lines.append("each cell: gpulane explain gpu = ..., os = ..., app = ... for the whole path")
    return "\n".join(lines)


def _join_where(where: list[str]) -> str:
    if len(where) <= 3:
        return "; ".join(where)
    return "; ".join(where[:3]) + f"; and {len(where) - 3} more"


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;")


def compare_markdown(kg: KnowledgeGraph, result: CompareResult) -> str:
    """The grid as a Markdown table with numbered notes and linked sources."""
    view = grid_view(kg, result)
    cols = result.columns
    out = [f"### {_md(' vs '.join(name for _, name in result.gpus))}", "",
           "✓ supported (newest path's toolkit and build) · ~ via workaround · ✗ not supported (breaking edge) · "
           "? unknown", ""]
    header = ["app / framework"] + [f"{_md(col.gpu_name)}<br>{_md(_column_title(col)[1])}" for col in cols]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))
    for r, row in enumerate(result.rows):
        parts = [_md(row.label)]
        for c in range(len(cols)):
            v = view.cells[(r, c)]
            text = f"{v.mark} {_md(v.short)}"
            if v.build:
                text += f"<br>{_md(v.build)}"
            refs = [f"note {v.note}"] if v.note else []
            refs += [f"[{n}]" for n in v.sources[:_MAX_CELL_SOURCES]]
            if refs:
                text += " " + " ".join(refs)
            parts.append(text)
        out.append("| " + " | ".join(parts) + " |")
    if view.notes:
        out += ["", "Notes:", ""]
        for n, text in enumerate(view.notes, 1):
            facts = list(dict.fromkeys(f for v in view.cells.values() if v.note == n for f in v.facts))
            out.append(f"{n}. {_md(text)}" + (f" (`{'`, `'.join(facts[:3])}`)" if facts else ""))
    if view.sources:
        out += ["", "Sources:", ""]
        for n, s in enumerate(view.sources, 1):
            out.append(f"[{n}] " + (f"[{_md(s['citation'])}]({s['url']})" if s["url"] else _md(s["citation"])) + "  ")
    out += ["", f"_Generated by gpulane from `{_md(result.text)}`._"]
    return "\n".join(out)


def compare_json(kg: KnowledgeGraph, result: CompareResult) -> dict:
    """The grid as JSON, with the same fact ids and numbered sources as the text."""
    view = grid_view(kg, result)
    cells = []
    for (r, c), v in sorted(view.cells.items()):
        cell = result.cells[(r, c)]
        entry = {"row": r, "column": c, "status": v.status, "mark": v.mark, "toolkit": cell.toolkit,
                 "build": cell.build, "reason": v.reason, "facts": v.facts, "sources": v.sources,
                 "configuration": cell.config}
        if cell.breaking is not None:
            entry["breaking_edge"] = {"edge": list(v.edge), "from": cell.breaking.edge.upper_node,
                                      "to": cell.breaking.edge.lower_node, "kind": cell.breaking.kind}
        if cell.workaround is not None:
            entry["workaround"] = {"fact": cell.workaround.fact.id, "status": cell.workaround.fact.status.value,
                                   "action": cell.workaround.fact.fact.action}
        if cell.answer is not None:
            entry["verdict"] = cell.answer.verdict
        cells.append(entry)
    return {"statement": result.text,
            "gpus": [{"id": g, "name": n} for g, n in result.gpus],
            "rows": [{"label": r.label, "layer": r.layer.value, "name": r.name, "ids": list(r.ids)}
                     for r in result.rows],
            "columns": [{"gpu": c.gpu, "gpu_name": c.gpu_name, "os": c.os_label, "os_ids": list(c.os_ids),
                         "absent": c.absent, "note": c.missing_note} for c in result.columns],
            "cells": cells, "notes": view.notes, "sources": view.sources, "messages": result.notes,
            "complete": result.complete}
