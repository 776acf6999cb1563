"""Words for answers: text and JSON renderers over the result data."""

from __future__ import annotations

from gpulane.graph.kb import KnowledgeGraph
from gpulane.queries.results import FindResult, PathsResult, group_answers, hop_list, node_ref

__all__ = ["find_text", "find_json", "paths_text", "paths_json", "path_line"]

GROUP_SHOWN = 24
# How each answer status is written beside a group of answers.
STATUS_WORDS = {"supported": "supported", "workaround": "supported via workaround",
                "community": "supported on community evidence", "builds_only": "builds for, not stated supported",
                "unknown": "unknown", "not_supported": "not supported"}
GROUPS_SHOWN = 12  # answer groups of a find statement before "… and N more groups"

# Whether long lists are shortened (the default) or shown whole (`--all`); and whether the
# last rendering shortened anything, so the command line can say how to see the rest.
_LISTS = {"all": False, "shortened": False}


def show_all(value: bool) -> None:
    """Show every entry of long lists (True) or shorten them with a count (False)."""
    _LISTS["all"] = value
    _LISTS["shortened"] = False


def shortened() -> bool:
    """Whether anything rendered since `show_all` was last called was shortened."""
    return _LISTS["shortened"]


def limit(n: int | None, total: int) -> int:
    """How many of ``total`` entries to show when ``n`` is the usual limit."""
    if n is None or _LISTS["all"] or total <= n:
        return total
    _LISTS["shortened"] = True
    return n


def compact_names(names: list[str], shown: int = GROUP_SHOWN) -> str:
    """'ROCm 7.2.0 | 7.1.1 | 7.1.0': words all names start with are written once."""
    if not names:
        return ""
    shown = limit(shown, len(names))
    split = [n.split(" ") for n in names]
    common = 0
    while all(len(w) > common + 1 for w in split) and len({tuple(w[:common + 1]) for w in split}) == 1:
        common += 1
    rest = [" ".join(w[common:]) for w in split[1:shown]]
    text = " | ".join([names[0], *rest])
    if len(names) > shown:
        text += f" | … (+{len(names) - shown})"
    return text


def path_line(kg: KnowledgeGraph, path, skip: tuple[str, ...] = ()) -> str:
    """A path on one line: 'gfx1100 · Ubuntu 24.04 · ROCm 7.0.2 (...) · vLLM'."""
    parts = []
    for hop in hop_list(kg, path):
        if hop["layer"] in skip:
            continue
        if hop["layer"] == "driver":
            parts.append(f"driver {hop['name']}")
            continue
        name = hop["name"]
        if hop["node"] is None:
            name = f"{hop['layer']} {name}"
        if hop.get("bundled_by") and hop["node"]:
            name += f" (in {kg.nodes[hop['bundled_by']].name})"
        parts.append(name)
    return " · ".join(parts)


def _unofficial_note(kg: KnowledgeGraph, path) -> str | None:
    used = path.unofficial_used()
    if not used:
        return None
    words = []
    for cf in used:
        action = f" ({cf.fact.action})" if cf.fact.action else ""
        words.append(f"{cf.status.value} {cf.id}{action}")
    return "unofficial: " + "; ".join(words)


def find_text(kg: KnowledgeGraph, result: FindResult) -> str:
    what = ", ".join(l.value for l in result.project)
    if result.drivers is not None and result.answers:
        return drivers_text(kg, result)
    if not result.answers:
        return f"no {what} found: {result.empty_reason}"
    groups = group_answers(kg, result)
    lines = [f"{len(result.answers)} {what} answer{'s' if len(result.answers) != 1 else ''}"
             f" ({len(groups)} group{'s' if len(groups) != 1 else ''} with the same path):"]
    skip = tuple(l.value for l in result.project)
    caveat_ids: dict[str, int] = {}
    shown_groups = limit(GROUPS_SHOWN, len(groups))
    for combos, path in groups[:shown_groups]:
        names = [" + ".join(kg.nodes[c].name for c in combo) for combo in combos]
        lines.append(f"  {compact_names(names)}  [{STATUS_WORDS[path.status]}]")
        lines.append(f"      via {path_line(kg, path, skip)}")
        lines.extend(_path_notes(kg, path, "      "))
        for c in sorted({c for e in path.edges for c in e.caveats}):
            if c not in caveat_ids:
                caveat_ids[c] = len(caveat_ids) + 1
        refs = sorted({caveat_ids[c] for e in path.edges for c in e.caveats})
        if refs:
            lines.append("      caveats: " + ", ".join(f"[{r}]" for r in refs))
    if shown_groups < len(groups):
        rest = sum(len(combos) for combos, _ in groups[shown_groups:])
        lines.append(f"  … and {len(groups) - shown_groups} more groups ({rest} answers)")
    for text, number in caveat_ids.items():
        lines.append(f"[{number}] {text}")
    if result.truncated:
        lines.append("(stopped at the time limit: more answers may exist)")
    return "\n".join(lines)


def _path_notes(kg: KnowledgeGraph, path, indent: str) -> list[str]:
    """The unofficial evidence and the unknown edges a path rests on, one line each."""
    lines = []
    note = _unofficial_note(kg, path)
    if note:
        lines.append(f"{indent}{note}")
    gaps = _gaps(kg, path)
    if gaps:
        lines.append(f"{indent}unknown (no source): {gaps}")
    return lines


def _gaps(kg: KnowledgeGraph, path) -> str:
    return "; ".join(f"{e.upper.value} {kg.nodes[e.upper_node].name} → {e.lower.value} {kg.nodes[e.lower_node].name}"
                     for e in path.edges if e.verdict == "unknown")


def _driver_rest(result: FindResult) -> list:
    return [layer for layer in result.project if layer.value != "driver"]


def _driver_words(answer) -> str:
    if not answer.stated:
        return "no driver requirement stated in the knowledge base (unknown)"
    return f"driver {answer.path.driver_range.describe()}"


def drivers_text(kg: KnowledgeGraph, result: FindResult) -> str:
    """`find driver`: per OS platform and GPU vendor, the lowest stated driver range and its facts."""
    from gpulane.cli.render_kb import source_citation

    rest = _driver_rest(result)
    groups: dict[tuple, list] = {}
    for d in result.drivers:
        key = (d.platform, d.vendor, _driver_words(d), tuple(cf.id for cf in d.path.driver_facts))
        groups.setdefault(key, []).append(d)
    lenient = any(path.verdict == "unknown" for _, path in result.answers)
    lines = [f"the lowest driver each {'candidate' if lenient else 'supported'} path needs, per OS platform "
             f"and GPU vendor ({len(groups)} answer{'s' if len(groups) != 1 else ''}):"]
    if lenient:
        lines.append("  (no path is fully backed by sources: the paths below have edges no source covers)")
    for (platform, vendor, words, _), members in groups.items():
        head = f"  {platform} · {vendor} GPUs: {words}"
        if rest:
            names = [" + ".join(kg.nodes[c].name for c in d.combo) for d in members]
            head += f"  (for {compact_names(names)})"
        lines.append(head)
        path = members[0].path
        for cf in path.driver_facts:
            lines.append(f"      from {cf.id}: {source_citation(kg, cf)}")
        lines.append(f"      via {path_line(kg, path, ('driver',))}")
        lines.extend(_path_notes(kg, path, "      "))
    if result.truncated:
        lines.append("(stopped at the time limit: more answers may exist)")
    return "\n".join(lines)


def find_json(kg: KnowledgeGraph, result: FindResult) -> dict:
    if result.drivers is not None and result.answers:
        return _drivers_json(kg, result)
    answers = []
    for combo, path in result.answers:
        entry = {layer.value: node_ref(kg, node) for layer, node in zip(result.project, combo)}
        entry["status"] = path.status
        entry["caveats"] = path.caveats
        entry["path"] = hop_list(kg, path)
        unofficial = [cf.id for cf in path.unofficial_used()]
        if unofficial:
            entry["unofficial_facts"] = unofficial
        answers.append(entry)
    out = {"statement": "find", "project": [l.value for l in result.project], "answers": answers}
    if result.empty_reason:
        out["empty_reason"] = result.empty_reason
    if result.truncated:
        out["truncated"] = True
    return out


def _drivers_json(kg: KnowledgeGraph, result: FindResult) -> dict:
    answers = []
    for d in result.drivers:
        entry = {layer.value: node_ref(kg, node) for layer, node in zip(_driver_rest(result), d.combo)}
        entry["driver"] = {"platform": d.platform, "gpu_vendor": d.vendor,
                           "range": d.path.driver_range.describe() if d.stated else None,
                           "facts": [cf.id for cf in d.path.driver_facts]}
        entry["status"] = d.path.status
        entry["path"] = hop_list(kg, d.path)
        answers.append(entry)
    out = {"statement": "find", "project": [l.value for l in result.project], "answers": answers}
    if result.truncated:
        out["truncated"] = True
    return out


def paths_text(kg: KnowledgeGraph, result: PathsResult) -> str:
    if not result.paths:
        return f"no complete supported path: {result.empty_reason}"
    lines = []
    for i, path in enumerate(result.paths, 1):
        lines.append(f"{i:>2}. {path_line(kg, path)}  [{STATUS_WORDS[path.status]}]")
        lines.extend(_path_notes(kg, path, "    "))
    if result.more:
        lines.append(f"(first {result.limit}; more exist: raise the limit)")
    return "\n".join(lines)


def paths_json(kg: KnowledgeGraph, result: PathsResult) -> dict:
    out = {"statement": "paths", "paths": [{"status": p.status, "caveats": p.caveats, "path": hop_list(kg, p),
                                            "unofficial_facts": [cf.id for cf in p.unofficial_used()]}
                                           for p in result.paths],
           "limit": result.limit, "more": result.more}
    if result.empty_reason:
        out["empty_reason"] = result.empty_reason
    return out
