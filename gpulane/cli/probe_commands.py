"""The probe, explain --error and record commands: thin functions the typer app wires up.

Each takes plain arguments, prints with typer.echo, and raises only
GpulaneError subclasses.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import typer

from gpulane.errors import GpulaneError, QueryError

__all__ = ["pci_command", "probe_command", "explain_error", "record_command", "probe_report", "diagnosis_text",
           "diagnosis_json", "probe_text", "probe_json", "RecordWriteError"]


class RecordWriteError(GpulaneError):
    """The record could not be written to --output."""


def _graph(kg):
    if kg is not None:
        return kg
    from gpulane.cli.app import _graph as app_graph  # honours --data / GPULANE_DATA

    return app_graph()


def _echo_json(obj) -> None:
    typer.echo(json.dumps(obj, indent=2, ensure_ascii=False, default=str))


# -- probe ----------------------------------------------------------------------------------------

def pci_command(text: str, as_json: bool, *, kg=None) -> None:
    """`gpulane probe --pci`: each GPU PCI id in the text and the GPU node(s) that list it."""
    from gpulane.graph.pci import pci_ids_in

    kg = _graph(kg)
    ids = pci_ids_in(text)
    if not ids:
        raise QueryError("no PCI id found: give one as 10de:2684, or paste `lspci -nn`, `nvidia-smi -q` "
                         "or `rocminfo` output")
    rows = [{"pci_id": p, "gpus": [{"id": g, "name": kg.nodes[g].name, "arch": kg.arch_of(g)}
                                   for g in kg.gpus_with_pci_id(p)]} for p in ids]
    if as_json:
        _echo_json(rows)
        return
    for row in rows:
        if not row["gpus"]:
            typer.echo(f"{row['pci_id']}: no GPU in the knowledge base lists this PCI id")
            continue
        names = "; ".join(f"{g['name']} [{g['id']}] ({', '.join(g['arch']) or 'arch unknown'})" for g in row["gpus"])
        typer.echo(f"{row['pci_id']}: {names}")


def probe_report(kg, found):
    """Configuration, main explanation and one explanation per other installed app."""
    from gpulane.probe import configuration_from
    from gpulane.queries.explain import explain
    from gpulane.queries.run import compile_query

    cfg = configuration_from(kg, found)
    text = cfg.statement()
    # Without a GPU (or its architecture) any path would show an invented example GPU.
    has_hardware = "gpu =" in (text or "") or "arch =" in (text or "")
    answer = explain(kg, compile_query(kg, "explain " + text)) if text and has_hardware else None
    others = []
    resolved_apps = [a for a in cfg.apps if a.resolved]
    for app in resolved_apps[1:]:
        other_text = cfg.statement(app)
        others.append((app, explain(kg, compile_query(kg, "explain " + other_text))))
    return cfg, text, answer, others


def _found_json(found) -> dict:
    return {"nvidia": asdict(found.nvidia), "amd": asdict(found.amd), "os": asdict(found.os),
            "kernel": asdict(found.kernel), "torch": asdict(found.torch), "packages": found.packages,
            "python": found.python,
            "tools": [{"command": " ".join(r.argv[:2]) if r.argv[0].endswith(("python", "python3", "python.exe"))
                       else " ".join(r.argv), "problem": r.problem} for r in found.runs]}


def probe_json(kg, found) -> dict:
    """{"configuration", "found", "explanation"} (+ "other_apps")."""
    from gpulane.cli.render_explain import explain_json

    cfg, text, answer, others = probe_report(kg, found)
    out = {"configuration": {**cfg.to_json(), "statement": text}, "found": _found_json(found),
           "explanation": explain_json(kg, answer) if answer else None}
    if others:
        out["other_apps"] = [{"app": app.found, "explanation": explain_json(kg, a)} for app, a in others]
    return out


def _status_words(reading, what: str) -> str:
    if reading.status == "not_found":
        return f"{what}: not found"
    return f"{what}: unreadable ({reading.detail})" if reading.detail else f"{what}: unreadable"


def probe_text(kg, found) -> str:
    """What was found, what it resolved to, and the explanation."""
    from gpulane.cli.render_explain import explain_text

    cfg, text, answer, others = probe_report(kg, found)
    lines = ["found on this machine:"]
    if found.nvidia.status == "ok":
        for g in found.nvidia.gpus:
            cc = f" (compute capability {g.compute_cap})" if g.compute_cap else ""
            lines.append(f"  NVIDIA GPU: {g.name}{cc}")
        lines.append(f"  NVIDIA driver: {found.nvidia.driver_version}"
                     + (f" (supports CUDA up to {found.nvidia.cuda_version})" if found.nvidia.cuda_version else ""))
    else:
        lines.append("  " + _status_words(found.nvidia, "nvidia-smi"))
    if found.amd.status == "ok" and found.amd.agents:
        for a in found.amd.agents:
            lines.append(f"  AMD GPU: {a.marketing_name or '(no marketing name)'} ({a.gfx or 'target unknown'})")
        if found.amd.driver_version:
            lines.append(f"  amdgpu driver: {found.amd.driver_version}")
    elif found.amd.status == "ok":
        lines.append("  rocminfo: no GPU agent")
    else:
        lines.append("  " + _status_words(found.amd, "rocminfo / amd-smi"))
    lines.append(f"  OS: {found.os.label}" if found.os.status == "ok" else "  " + _status_words(found.os, "OS"))
    if found.kernel.status == "ok":
        lines.append(f"  kernel: {found.kernel.release}")
    lines.append(f"  Python: {found.python}")
    t = found.torch
    if t.status == "ok":
        runtime = f"CUDA {t.cuda}" if t.cuda else (f"HIP {t.hip}" if t.hip else "CPU only")
        arch = f", archs {' '.join(t.arch_list)}" if t.arch_list else ""
        lines.append(f"  torch: {t.version} ({runtime}{arch})")
    else:
        lines.append("  " + _status_words(t, "torch"))
    for dist, version in found.packages.items():
        if version:
            lines.append(f"  {dist}: {version}")
    if not found.has_gpu:
        lines.append("no GPU found on this machine")
    for note in cfg.notes:
        lines.append(f"note: {note}")
    if answer is None:
        if not found.has_gpu:
            os_part = next((p.strip() for p in (text or "").split(",") if p.strip().startswith("os =")), None)
            hint = f"gpulane find gpu where {os_part}" if os_part else "gpulane find gpu where os = ..."
            lines.append(f"nothing to explain without a GPU; to see which GPUs have supported paths here: {hint}")
        else:
            lines.append("nothing found here resolves to a knowledge-base name; nothing to explain")
        return "\n".join(lines)
    lines.append(f"configuration: {text}")
    lines.append(explain_text(kg, answer))
    for app, other in others:
        lines.append(f"with {app.found} instead:")
        lines.append(explain_text(kg, other))
    return "\n".join(lines)


def probe_command(as_json: bool, *, kg=None, found=None) -> None:
    """`gpulane probe [--json]`: read the local stack and explain it."""
    from gpulane.probe import probe_machine

    kg = _graph(kg)
    found = found if found is not None else probe_machine()
    if as_json:
        _echo_json(probe_json(kg, found))
    else:
        typer.echo(probe_text(kg, found))


# -- explain --error ------------------------------------------------------------------------------

def _source(sig) -> dict:
    return {"url": sig.source.url, "title": sig.source.title, "reviewed": sig.source.reviewed.isoformat()}


def diagnosis_json(kg, d) -> dict:
    """The diagnosis with the layers of each implicated edge, its explanation and fixes."""
    from gpulane.cli.render_explain import _break_json, explain_json, fix_json

    out = {"error": d.text, "known": bool(d.matches),
           "matches": [{"signature": m.signature.id, "title": m.signature.title, "matched": m.matched,
                        "captures": m.captures, "derived": m.derived,
                        "named": [{"group": n.group, "value": n.value, "layer": n.layer.value, "nodes": n.ids}
                                  for n in m.named],
                        "edges": [{"layers": [a.value, b.value]} for a, b in m.edges],
                        "meaning": m.signature.meaning, "check": m.signature.check, "ask": m.signature.ask,
                        "source": _source(m.signature)} for m in d.matches],
           "edges": [[a.value, b.value] for a, b in d.edges],
           "closest": [{"signature": s.id, "message": s.message, "title": s.title} for s in d.closest],
           "configuration": None, "breaking": [], "other_breaks": [], "fixes": None, "mismatches": d.mismatches}
    if d.explanation is not None:
        out["configuration"] = explain_json(kg, d.explanation)
        out["breaking"] = [_break_json(kg, b) for b in d.implicated]
        out["other_breaks"] = [_break_json(kg, b) for b in d.other_breaks]
        out["fixes"] = fix_json(kg, d.fixes)["fixes"] if d.fixes else None
    return out


def diagnosis_text(kg, d) -> str:
    """The diagnosis for a person: what the message means, then the breaking edge or what to ask."""
    from gpulane.cli.render_explain import break_reason, citation, explain_text, fix_text

    if not d.matches:
        lines = ["no known signature matches this error text", "closest signatures in the catalogue:"]
        lines += [f"  {s.id}: \"{s.message}\" ({s.title})" for s in d.closest]
        lines.append("if it is a GPU compatibility error, give the configuration too: "
                     "gpulane explain --error TEXT gpu = ..., os = ..., framework = ...")
        return "\n".join(lines)
    lines = []
    for m in d.matches:
        sig = m.signature
        lines.append(f"known error: {sig.title} [{sig.id}]")
        lines.append(f"  {sig.meaning}")
        for k, v in m.captures.items():
            lines.append(f"  captured {k}: {v}")
        for k, v in m.derived.items():
            lines.append(f"  {k.replace('_', ' ')}: {v}")
        edges = ", ".join(f"{a.value} ↔ {b.value}" for a, b in m.edges)
        lines.append(f"  implicates: {edges}")
        lines.append(f"  source: {sig.source.title} · {sig.source.url} · reviewed {sig.source.reviewed}")
    if d.explanation is None:
        lines.append("check:")
        lines += [f"  - {c}" for m in d.matches for c in m.signature.check]
        lines.append("ask for (or give them as a configuration to name the breaking edge):")
        lines += [f"  - {a}" for m in d.matches for a in m.signature.ask]
        return "\n".join(lines)
    for note in d.mismatches:
        lines.append(f"note: {note}")
    if d.implicated:
        lines.append("breaking edge(s) the error points at:")
        for b in d.implicated:
            e = b.edge
            lines.append(f"  ✗ {e.upper.value} ↔ {e.lower.value}: {break_reason(kg, e, b.facts, b.kind)}")
            if b.facts:
                lines.append(f"      {b.facts[0].id}: {citation(kg, b.facts[0])}")
    elif d.explanation.verdict == "supported":
        lines.append("the knowledge base says this configuration is supported, so the implicated edges hold on "
                     "paper: check that the machine really runs the configuration given (ask:)")
        lines += [f"  - {a}" for m in d.matches for a in m.signature.ask]
    else:
        lines.append("none of the configuration's breaks is on an edge this error implicates; check:")
        lines += [f"  - {c}" for m in d.matches for c in m.signature.check]
    lines.append("the configuration:")
    lines.append(explain_text(kg, d.explanation).split("\n  next:")[0])
    if d.fixes is not None:
        lines.append("\n".join(fix_text(kg, d.fixes).splitlines()[len(explain_text(kg, d.explanation)
                                                                         .split("\n  next:")[0].splitlines()):]))
    return "\n".join(lines)


def explain_error(text: str, config_text: str | None, as_json: bool, *, probe: bool = False, kg=None,
                  found=None) -> None:
    """`gpulane explain --error TEXT [config...]` (or --probe to use this machine's configuration)."""
    from gpulane.queries.diagnose import diagnose

    kg = _graph(kg)
    if probe and not config_text:
        from gpulane.probe import configuration_from, probe_machine

        config_text = configuration_from(kg, found if found is not None else probe_machine()).statement()
    d = diagnose(kg, text, config_text)
    if as_json:
        _echo_json(diagnosis_json(kg, d))
    else:
        typer.echo(diagnosis_text(kg, d))


# -- record ---------------------------------------------------------------------------------------

FORMATS = ("markdown", "json", "mermaid")


def _write_atomic(path: Path, text: str) -> None:
    """Write beside the target, then rename: a reader never sees half a record."""
    from gpulane.loaders.atomic import write_atomic

    try:
        write_atomic(Path(path), text)
    except OSError as exc:
        raise RecordWriteError(f"{path}: cannot write the record ({exc.strerror or exc})") from None


def _as_record(exc: QueryError) -> QueryError:
    """A record is planned as an explain statement; its errors echo the verb the user typed."""
    if exc.text.startswith("explain "):
        exc.text = "record " + exc.text[len("explain "):]
        if exc.span is not None and exc.span.line == 1 and exc.span.column > len("record "):
            exc.span.column -= len("explain") - len("record")
    return exc


def record_command(config_text: str, fmt: str, model: str | None, quantization: str | None, context: str | None,
                   output: Path | None, *, kg=None, today=None) -> None:
    """`gpulane record CONFIG --format markdown|json|mermaid [--model --quantization --context] [--output]`."""
    from gpulane.cli.render_record import record_json, record_markdown, record_mermaid
    from gpulane.cli.record import record_for

    fmt = (fmt or "markdown").lower()
    if fmt not in FORMATS:
        raise QueryError(f"unknown record format '{fmt}'", hint="formats: " + ", ".join(FORMATS), code="bad_format")
    if not config_text or not config_text.strip():
        raise QueryError("record needs a configuration", hint='for example: gpulane record gpu = "RX 7900 XTX", '
                         'os = "Ubuntu 24.04", app = vLLM', code="empty_configuration")
    kg = _graph(kg)
    try:
        record = record_for(kg, config_text, model, quantization, context, today)
    except QueryError as exc:
        raise _as_record(exc) from None
    if fmt == "json":
        text = json.dumps(record_json(record), indent=2, ensure_ascii=False) + "\n"
    elif fmt == "mermaid":
        text = record_mermaid(record) + "\n"
    else:
        text = record_markdown(record)
    if output is None:
        typer.echo(text, nl=False)
        return
    _write_atomic(Path(output), text)
    typer.echo(f"wrote {output}")
