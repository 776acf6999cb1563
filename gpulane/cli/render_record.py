"""Words for the compatibility record: Markdown (with a Mermaid diagram), JSON, Mermaid alone."""

from __future__ import annotations

from dataclasses import asdict

from gpulane.cli.record import Record
from gpulane.cli.render_explain import EDGE_MARKS, VERDICT_WORDS
from gpulane.textsafe import markdown_text

__all__ = ["record_markdown", "record_json", "record_mermaid"]

_VERDICT, _MARK = VERDICT_WORDS, EDGE_MARKS
# The path reads from hardware up: gpu → arch → os → driver → toolkit → framework → app.
_ORDER = ("gpu", "arch", "os", "driver", "toolkit", "framework", "app")


def _label(text: str) -> str:
    """Mermaid node text: quotes and brackets would end the label early."""
    return text.replace('"', "#quot;").replace("[", "(").replace("]", ")")


def record_mermaid(record: Record) -> str:
    """A flowchart of the path: one node per layer, each checked edge marked ✓/✗/?."""
    lines = ["flowchart LR"]
    present = {e.layer for e in record.layers}
    for entry in record.layers:
        lines.append(f'  {entry.layer}["{entry.layer}: {_label(entry.name)}"]')
    for e in record.edges:
        if e.upper not in present or e.lower not in present:
            continue
        low, high = sorted((e.upper, e.lower), key=_ORDER.index)
        mark = _MARK[e.verdict]
        lines.append(f"  {low} -->|{mark}| {high}" if e.verdict == "ok" else f"  {low} -.->|{mark}| {high}")
    return "\n".join(lines)


def record_markdown(record: Record) -> str:
    """The record as a Markdown document to keep beside a purchase or a deployment."""
    # What the user typed (--model, --context, the names asked for) is escaped: one inline value each.
    config = " · ".join(f"{k} {markdown_text(str(v))}" for k, v in record.configuration.items())
    out = ["# GPU compatibility record", "", f"**Configuration:** {config}", "",
           f"**Verdict:** {_VERDICT[record.verdict]}", "", "## Stack", "", "| layer | component | details |",
           "|---|---|---|"]
    for entry in record.layers:
        details = "; ".join(f"{k} {v}" for k, v in entry.details.items())
        if entry.chosen is None:
            chosen = " (not named: one example)" if entry.layer != "driver" else " (required range)"
        else:
            chosen = f" (asked: {markdown_text(entry.chosen)})" if entry.chosen != entry.name else ""
        out.append(f"| {entry.layer} | {entry.name}{chosen} | {details} |")
    if not record.layers:
        out.append("| — | no path could be built from this configuration | |")
    out += ["", "## Application requirements", ""]
    out += [f"- {r}" for r in record.requirements] or ["- none stated in the knowledge base"]
    out += ["", "## Intended use (as stated)", ""]
    out += [f"- {k}: {markdown_text(v) if v else 'not stated'}" for k, v in record.stated.items()]
    out += ["", "## Checked edges", "", "| edge | | facts |", "|---|---|---|"]
    for e in record.edges:
        mark = _MARK[e.verdict] + (f" {e.reason}" if e.reason else "")
        out.append(f"| {e.upper} {e.upper_name} → {e.lower} {e.lower_name} | {mark} | {', '.join(e.facts)} |")
    out += ["", "## Supporting statements", "", "| fact | status | source | reviewed |", "|---|---|---|---|"]
    for s in record.statements:
        title = s.title + (f", {s.section}" if s.section else "")
        link = f"[{title}]({s.url})" if s.url else title
        reviewed = (s.reviewed or "unknown") + (" (stale: over a year ago)" if s.stale else "")
        out.append(f"| {s.fact} | {s.status} | {link} | {reviewed} |")
    if record.caveats:
        out += ["", "## Caveats", ""]
        out += [f"- {text} ({fid})" for fid, text in record.caveats]
    out += _setup_section(record)
    out += ["", "## Representative tests", "", "Date tested: ____________", "",
            "| test | result | notes |", "|---|---|---|"]
    out += [f"| {t} | ☐ pass ☐ fail | |" for t in record.checklist]
    out += ["", "## Path", "", "```mermaid", record_mermaid(record), "```", ""]
    return "\n".join(out)


def _setup_section(record: Record) -> list[str]:
    """The set-up steps (commands as their sources write them; printed here, never run)."""
    out = ["", "## Set-up", ""]
    if record.setup_path is None:
        return out + ["No set-up steps: the configuration has no supported path."]
    out += [f"Steps for the path {record.setup_path}. Commands are as their sources write them; run none "
            "without reading it.", ""]
    for n, entry in enumerate(record.setup, 1):
        also = f" (+ {', '.join(entry.also_sets_up)})" if entry.also_sets_up else ""
        title = entry.source + (f", {entry.section}" if entry.section else "")
        link = f"[{title}]({entry.url})" if entry.url else title
        out.append(f"{n}. **{entry.layer}{also}** — {link} · reviewed {entry.reviewed or 'unknown'}")
        if entry.command:
            out += ["", "   ```sh", *[f"   {line}" for line in entry.command.splitlines()], "   ```"]
        if entry.instruction:
            out += ["", f"   Manual step: {entry.instruction}"]
        for alt in entry.alternatives:
            out += ["", "   Or:", "", "   ```sh", *[f"   {line}" for line in alt.splitlines()], "   ```"]
        if entry.caveat:
            out += ["", f"   Caveat: {entry.caveat}"]
        out.append("")
    out += [f"- {note}" for note in record.setup_notes]
    return out


def record_json(record: Record) -> dict:
    """The record as JSON: the same content, with the Mermaid source and an empty test log."""
    data = asdict(record)
    data["caveats"] = [{"fact": fid, "text": text} for fid, text in record.caveats]
    data["checklist"] = [{"test": t, "result": None, "notes": None} for t in record.checklist]
    data["date_tested"] = None
    data["mermaid"] = record_mermaid(record)
    return data
