"""Word a SetupAnswer: Markdown, a shell script (printed, never run) or JSON.

Every step carries its citation; a layer no source covers is printed as a gap; an
unsupported configuration gets its explanation and fixes instead of steps.
"""

from __future__ import annotations

from gpulane.graph.kb import KnowledgeGraph
from gpulane.model import Layer, Status, Step
from gpulane.queries.results import hop_list
from gpulane.queries.setup import LayerNote, PlannedStep, SetupAnswer

__all__ = ["setup_markdown", "setup_shell", "setup_json", "FORMATS"]

FORMATS = ("markdown", "shell", "json")


def _name(kg: KnowledgeGraph, node_id: str | None) -> str:
    return kg.nodes[node_id].name if node_id and node_id in kg.nodes else (node_id or "?")


def _path_words(kg: KnowledgeGraph, answer: SetupAnswer) -> str:
    return " · ".join(f"{h['layer']} {h['name']}" for h in hop_list(kg, answer.path))


def _citation(kg: KnowledgeGraph, step: Step) -> tuple[str, str]:
    """("publisher: title, section · reviewed DATE", url) for a step."""
    src = kg.sources.get(step.source or "")
    if src is None:
        return (step.source or "no source", "")
    reviewed = step.reviewed or src.reviewed
    words = f"{src.publisher}: {src.title}"
    if step.section:
        words += f", {step.section}"
    if reviewed:
        words += f" · reviewed {reviewed}"
    return words, src.url


def note_words(kg: KnowledgeGraph, note: LayerNote) -> str:
    """One line for a layer that has no step of its own."""
    what = f"{note.layer.value} {_name(kg, note.node)}" if note.node else note.layer.value
    if note.kind == "gap":
        return f"GAP: {what}: {note.detail}"
    if note.kind == "provided":
        return f"{what}: no separate install; the path's {_name(kg, note.by)} is built with it"
    if note.kind == "covered":
        return f"{what}: installed by step {note.by}"
    if note.kind == "bundled":
        return f"{what}: bundled by {_name(kg, note.by)}"
    return f"{what}: not used by {_name(kg, note.by)}"


def _step_title(kg: KnowledgeGraph, ps: PlannedStep) -> str:
    extra = f" (+ {', '.join(l.value for l in ps.step.also_sets_up)})" if ps.step.also_sets_up else ""
    label = " [WORKAROUND]" if ps.step.status is Status.workaround else ""
    return f"{ps.layer.value}{extra}: {ps.step.id}{label}"


def _is_windows(kg: KnowledgeGraph, answer: SetupAnswer) -> bool:
    os_id = answer.path.values.get(Layer.os) if answer.path else None
    node = kg.nodes.get(os_id or "")
    return bool(node and node.platform and node.platform.value == "windows")


# -- Markdown ---------------------------------------------------------------------------------------

def setup_markdown(kg: KnowledgeGraph, answer: SetupAnswer, checks: dict[str, tuple[str, str]] | None = None) -> str:
    """The steps as Markdown (or, unsupported, the explanation and fixes)."""
    if not answer.supported:
        return _unsupported_text(kg, answer, markdown=True)
    lines = [f"# Set-up: {answer.plan.statement.text.partition(' ')[2].strip()}", ""]
    lines.append(f"Path: {_path_words(kg, answer)}")
    lines.append(f"Method: {answer.method}. Commands are printed, never run; read each before running it.")
    if _is_windows(kg, answer):
        lines.append("This path is on Windows: run the commands in PowerShell or a command prompt.")
    lines.extend(_first_path_words(kg, answer))
    lines.append("")
    for n, ps in enumerate(answer.steps, 1):
        lines.append(f"## {n}. {_step_title(kg, ps)}")
        if checks and ps.step.id in checks:
            state, detail = checks[ps.step.id]
            lines.append(f"*check: {state}{' — ' + detail if detail else ''}*")
            lines.append("")
        if ps.command:
            lines += ["```sh", ps.command, "```"]
        if ps.step.instruction:
            lines.append(f"Manual step: {ps.step.instruction}")
        for alt in ps.alternatives:
            lines += [f"Or, with {alt.step.tool or 'another tool'} ({alt.step.id}):", "```sh", alt.command or "", "```"]
            words, url = _citation(kg, alt.step)
            lines.append(f"  source: {words} — {url}")
        if ps.step.note:
            lines.append(f"Note: {ps.step.note}")
        if ps.step.caveat:
            lines.append(f"Caveat: {ps.step.caveat}")
        words, url = _citation(kg, ps.step)
        lines.append(f"Source: {words} — {url}")
        lines.append("")
    for w in answer.workarounds:
        src = kg.source_of(w.fact)
        lines.append(f"## Workaround setting (unofficial): `{w.setting}`")
        lines.append(f"From fact {w.fact.id}" + (f": {src.publisher}: {src.title} — {src.url}" if src else ""))
        lines.append("")
    others = [n for n in answer.notes]
    if others:
        lines.append("## Layers without a step of their own")
        lines += [f"- {note_words(kg, n)}" for n in others]
        lines.append("")
    if not answer.complete:
        lines.append("(the search for a path with fewer gaps was cut by its time bound)")
    return "\n".join(lines).rstrip() + "\n"


def _first_path_words(kg: KnowledgeGraph, answer: SetupAnswer) -> list[str]:
    if answer.first_path is None:
        return []
    gaps = ", ".join(g.layer.value for g in answer.first_gaps)
    return [f"(A newer supported path exists, {_path_words_for(kg, answer.first_path)}, but the knowledge base "
            f"cannot say how to set up its {gaps}.)"]


def _path_words_for(kg: KnowledgeGraph, path) -> str:
    return " · ".join(f"{h['layer']} {h['name']}" for h in hop_list(kg, path) if h["layer"] in ("toolkit", "framework", "app"))


def _unsupported_text(kg: KnowledgeGraph, answer: SetupAnswer, markdown: bool) -> str:
    from gpulane.cli.render_explain import explain_text, fix_text

    body = fix_text(kg, answer.fixes) if answer.fixes is not None else explain_text(kg, answer.explanation)
    head = "no set-up steps: this configuration is not supported by the sources" if \
        answer.explanation.verdict == "not_supported" else \
        "no set-up steps: no source-backed path exists for this configuration (unknown)"
    if markdown:
        return f"# Set-up: {head}\n\n```\n{body.rstrip()}\n```\n"
    return head + "\n" + body


# -- shell --------------------------------------------------------------------------------------------

def setup_shell(kg: KnowledgeGraph, answer: SetupAnswer) -> str:
    """A bash script of the steps: commands as their sources write them, everything else comments."""
    out = ["#!/usr/bin/env bash", "# Printed by `gpulane setup`; nothing here has been run. Read each step first."]
    if not answer.supported:
        out += [_comment(line) for line in _unsupported_text(kg, answer, markdown=False).splitlines()]
        out.append("exit 1")
        return "\n".join(out) + "\n"
    # A directive before the first command holds for the whole script: the vendors' commands are
    # printed as written, and a few trip shellcheck (an unquoted $LOGNAME), so the steps say which.
    codes = sorted({code for ps in answer.steps for code in ps.step.shellcheck_disable})
    if codes:
        out.append(f"# shellcheck disable={','.join(codes)}  # printed as the sources write them")
    out.append("set -eo pipefail")
    out.append(_comment(f"path: {_path_words(kg, answer)}"))
    if _is_windows(kg, answer):
        out.append(_comment("this path is on Windows: run the commands in PowerShell or a command prompt"))
    out += [_comment(line) for line in _first_path_words(kg, answer)]
    for n, ps in enumerate(answer.steps, 1):
        words, url = _citation(kg, ps.step)
        out += ["", _comment(f"{n}. {_step_title(kg, ps)}"), _comment(f"source: {words}"), _comment(url)]
        if ps.step.note:
            out.append(_comment(f"note: {ps.step.note}"))
        if ps.step.caveat:
            out.append(_comment(f"caveat: {ps.step.caveat}"))
        if ps.step.instruction:
            out.append(_comment(f"manual step: {ps.step.instruction}"))
        if ps.command:
            out.append(ps.command)
        for alt in ps.alternatives:
            alt_words, alt_url = _citation(kg, alt.step)
            out.append(_comment(f"or, with {alt.step.tool or 'another tool'} ({alt_words}; {alt_url}):"))
            out += [_comment(line) for line in (alt.command or "").splitlines()]
    for w in answer.workarounds:
        src = kg.source_of(w.fact)
        out += ["", _comment(f"WORKAROUND (unofficial), from fact {w.fact.id}" + (f": {src.url}" if src else ""))]
        out.append(f"export {w.setting}" if w.is_assignment else _comment(w.setting))
    if answer.notes:
        out.append("")
        out += [_comment(note_words(kg, n)) for n in answer.notes]
    return "\n".join(out) + "\n"


def _comment(text: str) -> str:
    return "# " + text.replace("\n", " ") if text else "#"


# -- JSON ---------------------------------------------------------------------------------------------

def _step_json(kg: KnowledgeGraph, ps: PlannedStep, checks: dict | None) -> dict:
    src = kg.sources.get(ps.step.source or "")
    out = {"id": ps.step.id, "layer": ps.layer.value, "also_sets_up": [l.value for l in ps.step.also_sets_up],
           "method": ps.step.method, "tool": ps.step.tool, "command": ps.command, "instruction": ps.step.instruction,
           "status": ps.step.status.value, "note": ps.step.note, "caveat": ps.step.caveat,
           "source": {"id": ps.step.source, "url": src.url if src else None, "title": src.title if src else None,
                      "publisher": src.publisher if src else None, "section": ps.step.section,
                      "reviewed": str(ps.step.reviewed or (src.reviewed if src else None))},
           "alternatives": [_step_json(kg, alt, None) for alt in ps.alternatives]}
    if checks is not None and ps.step.id in checks:
        out["check"] = {"state": checks[ps.step.id][0], "detail": checks[ps.step.id][1]}
    return out


def setup_json(kg: KnowledgeGraph, answer: SetupAnswer, checks: dict[str, tuple[str, str]] | None = None) -> dict:
    """{"supported", "method", "path", "steps", "layers", "workarounds"} or, unsupported, the explanation."""
    from gpulane.cli.render_explain import explain_json, fix_json

    if not answer.supported:
        return {"supported": False, "verdict": answer.explanation.verdict, "steps": [],
                "explanation": explain_json(kg, answer.explanation),
                "fixes": fix_json(kg, answer.fixes) if answer.fixes is not None else None}
    return {"supported": True, "verdict": "supported", "method": answer.method,
            "path": hop_list(kg, answer.path),
            "steps": [_step_json(kg, ps, checks) for ps in answer.steps],
            "layers": [{"layer": n.layer.value, "node": n.node, "kind": n.kind, "by": n.by, "detail": n.detail,
                        "words": note_words(kg, n)} for n in answer.notes],
            "workarounds": [{"fact": w.fact.id, "setting": w.setting, "source": w.fact.fact.source}
                            for w in answer.workarounds],
            "newer_path_with_gaps": hop_list(kg, answer.first_path) if answer.first_path else None,
            "complete": answer.complete}
