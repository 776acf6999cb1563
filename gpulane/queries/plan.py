"""Statement → Problem: names resolved to nodes, attributes to node sets.

Every unknown name, layer, attribute or evidence level becomes a QueryError
that points at the word and suggests what was probably meant.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass, field

from gpulane.errors import AmbiguousNameError, QueryError, UnknownNameError
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.names import normalise
from gpulane.graph.solver import DriverPin, Problem
from gpulane.model import LAYER_NAMES, LAYER_ORDER, OFFICIAL_POSITIVE, Layer, Status
from gpulane.queries.ast import Condition, Statement, Value
from gpulane.versions import InvalidSpecError, VersionRange, parse_spec, parse_version, spec_matches

__all__ = ["Plan", "plan", "ATTRIBUTES"]

# Attribute name → (layer it describes, node attribute).
ATTRIBUTES: dict[str, tuple[Layer, str]] = {
    "vendor": (Layer.gpu, "vendor"),
    "vram": (Layer.gpu, "vram_gb"),
    "vram_gb": (Layer.gpu, "vram_gb"),
    "memory": (Layer.gpu, "vram_gb"),
    "family": (Layer.gpu, "family"),
    "platform": (Layer.os, "platform"),
    "cc": (Layer.arch, "compute_capability"),
    "compute_capability": (Layer.arch, "compute_capability"),
    "llvm_target": (Layer.arch, "llvm_target"),
    "distro": (Layer.os, "family"),
}
_EVIDENCE = {"workaround": Status.workaround, "workarounds": Status.workaround, "community": Status.community,
             "unofficial": None, "all": None, "unknown": "unknown"}
_NUMERIC = {"vram_gb"}
_VERSIONED = {"compute_capability", "version"}


@dataclass
class Plan:
    """A statement ready to run: the problem, projection, and presentation options."""

    statement: Statement
    problem: Problem
    project: list[Layer] = field(default_factory=list)
    order: tuple[Layer, str] | None = None
    limit: int | None = None
    keep: list[Layer] = field(default_factory=list)
    labels: dict[Layer, str] = field(default_factory=dict)  # how the user wrote each pinned layer


def _layer_of(kg: KnowledgeGraph, name: str, span, text: str) -> Layer:
    try:
        return Layer(name.lower())
    except ValueError:
        close = difflib.get_close_matches(name.lower(), LAYER_NAMES, n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"layers are {', '.join(LAYER_NAMES)}"
        raise QueryError(f"unknown layer '{name}'", text, span, hint, code="unknown_layer") from None


def plan(kg: KnowledgeGraph, st: Statement) -> Plan:
    """Resolve a parsed statement against a knowledge graph."""
    text = st.text
    pins: dict[Layer, frozenset[str]] = {}
    driver: DriverPin | None = None
    mentioned: set[Layer] = set()
    labels: dict[Layer, str] = {}

    kernel: str | None = None
    for cond in st.conditions:
        name = cond.name.lower()
        if name == "kernel":
            kernel = _kernel(cond, text)
            continue
        layer, attr = _target(kg, name, cond, text)
        mentioned.add(layer)
        if layer is Layer.driver and attr is None:
            driver = _driver_pin(kg, cond, text)
            labels[Layer.driver] = driver.text
            continue
        ids = _attribute_ids(kg, layer, attr, cond, text) if attr else _layer_ids(kg, layer, cond, text)
        pins[layer] = pins[layer] & ids if layer in pins else ids
        if attr is None:
            labels[layer] = _label(cond)

    project: list[Layer] = []
    if st.verb in ("find", "list"):
        for name, span in st.layers:
            project.append(_layer_of(kg, name, span, text))
        mentioned.update(project)
    order = None
    if st.order:
        order_layer = _layer_of(kg, st.order[0], st.order[1], text)
        mentioned.add(order_layer)
        order = (order_layer, st.order[2])

    allow = set(OFFICIAL_POSITIVE)
    lenient = False
    for word, span in st.allow:
        key = word.lower()
        if key not in _EVIDENCE:
            close = difflib.get_close_matches(key, list(_EVIDENCE), n=1)
            raise QueryError(f"unknown evidence level '{word}'", text, span,
                             f"did you mean '{close[0]}'?" if close else "allow workaround, community, all, or unknown",
                             code="unknown_evidence")
        status = _EVIDENCE[key]
        if status == "unknown":
            lenient = True  # paths whose only gaps are edges no source covers, labelled as such
            continue
        allow.update([status] if status else [Status.workaround, Status.community])

    keep: list[Layer] = []
    if st.keep and st.verb != "fix":
        name, span = st.keep[0]
        raise QueryError("'keep' belongs to fix", text, span, "write: fix gpu = ..., os = ... keep gpu",
                         code="misplaced_clause")
    for name, span in st.keep:
        keep.append(_layer_of(kg, name, span, text))

    if st.verb in ("explain", "fix", "why", "setup") and not st.conditions:
        raise QueryError(f"{st.verb} needs a configuration", text, None,
                         f'for example: {st.verb} gpu = "RX 7900 XTX", os = "Ubuntu 24.04", app = vLLM',
                         code="empty_configuration")

    top = max((_rank(l) for l in mentioned), default=_rank(Layer.arch))
    scope = tuple(l for l in LAYER_ORDER if _rank(l) <= max(top, _rank(Layer.arch)))
    problem = Problem(pins, scope, frozenset(allow), driver, lenient=lenient, kernel=kernel)
    return Plan(st, problem, project, order, st.limit, keep, labels)


def _kernel(cond: Condition, text: str) -> str:
    """`kernel = 6.11.0-21-generic`: the running Linux kernel, as `uname -r` prints it."""
    value = cond.values[0]
    if cond.op not in ("=", "==") or len(cond.values) != 1 or not re.match(r"^\d+\.\d+", value.text):
        raise QueryError(f"cannot read the kernel condition '{_label(cond)}'", text, value.span,
                         'write the kernel as uname -r prints it: kernel = "6.11.0-21-generic"', code="bad_kernel")
    return value.text


def _rank(layer: Layer) -> int:
    return LAYER_ORDER.index(layer)


def _label(cond: Condition) -> str:
    text = " | ".join(v.text for v in cond.values)
    if cond.version is not None:
        text += f" {cond.version_op or ''}{cond.version.text}"
    return text if cond.op in ("=", "==", "in") else f"{cond.op} {text}"


def _target(kg: KnowledgeGraph, name: str, cond: Condition, text: str) -> tuple[Layer, str | None]:
    if "." in name:
        layer_name, _, attr = name.partition(".")
        layer = _layer_of(kg, layer_name, cond.name_span, text)
        attr = ATTRIBUTES.get(attr, (layer, attr))[1] if attr not in ("version", "family", "vendor", "platform") else attr
        return layer, attr
    if name in LAYER_NAMES:
        return Layer(name), None
    if name in ATTRIBUTES:
        return ATTRIBUTES[name]
    vocab = list(LAYER_NAMES) + list(ATTRIBUTES)
    close = difflib.get_close_matches(name, vocab, n=2)
    hint = ("did you mean " + " or ".join(f"'{c}'" for c in close) + "?") if close else \
        f"name a layer ({', '.join(LAYER_NAMES)}) or an attribute ({', '.join(sorted(ATTRIBUTES))})"
    raise QueryError(f"unknown layer or attribute '{cond.name}'", text, cond.name_span, hint, code="unknown_field")


def _resolve(kg: KnowledgeGraph, layer: Layer, value: Value, text: str, version: str | None = None) -> frozenset[str]:
    query = f"{value.text} {version}" if version else value.text
    found = kg.names.resolve(query, layer)
    if not found and version is None:
        found = kg.names.resolve(value.text.replace("@", " "), layer)
    if not found:
        err = UnknownNameError(query, layer.value, kg.names.suggestions(value.text, layer), text, value.span)
        platform = platform_hint(kg, layer, value.text)
        if platform:
            err.hint = platform
        raise err
    ids = frozenset(i for r in found for i in r.ids)
    if not ids:
        fam = found[0].family or value.text
        members = kg.names.families.get(fam, {}).get(layer, [])
        raise QueryError(f"no {layer.value} matches '{query}'", text, value.span,
                         version_hint(kg, members, found[0].spec), code="no_match")
    readings = other_readings(kg, query, layer, found)
    if readings:
        names = [kg.nodes[i].name for i in sorted(ids | readings, key=lambda i: kg.nodes[i].name)]
        raise AmbiguousNameError(query, names, text, value.span)
    return ids


def other_readings(kg: KnowledgeGraph, name: str, layer: Layer, found) -> frozenset[str]:
    """Nodes a name found only with brand words dropped may also mean: those whose own name or
    alias starts with the name as typed ("RTX 6000" → Quadro RTX 6000, but also RTX 6000 Ada)."""
    if not found or any(r.how != "alias" for r in found):
        return frozenset()
    ids = {i for r in found for i in r.ids}
    key = normalise(name)
    others = {i for k, by_layer in kg.names.exact.items() if k.startswith(key) and k != key
              for i in by_layer.get(layer, ())}
    return frozenset(others - ids)


def version_hint(kg: KnowledgeGraph, members, spec: str | None) -> str:
    """'the knowledge base holds ROCm 6.0.0 – 7.2.0; nearest: 6.0.0, 6.0.2': the range held and
    the releases nearest the one asked for."""
    versioned = []
    for node_id in members:
        node = kg.nodes[node_id]
        try:
            versioned.append((parse_version(node.version), node))
        except (InvalidSpecError, ValueError, TypeError):
            continue
    if not versioned:
        return "the knowledge base holds no versions of it"
    versioned.sort(key=lambda pair: pair[0])
    low, high = versioned[0][1], versioned[-1][1]
    first = low.name.split()[0]
    prefix = first if low.family and first.lower().startswith(low.family.lower()[:3]) else (low.family or "")
    if low.version == high.version:
        return f"the knowledge base holds only {prefix} {low.version}"
    held = f"the knowledge base holds {prefix} {low.version} – {high.version}"
    asked = None
    try:
        asked = parse_version(re.sub(r"^[<>=!~]+\s*", "", spec or "").rstrip(".*"))
    except (InvalidSpecError, ValueError):
        pass
    if asked is None:
        return held
    distinct: dict = {}
    for v, node in versioned:
        distinct.setdefault(v.release, node.version)
    releases = sorted(distinct)
    # The releases on either side of where the asked one would sit, three in all.
    at = bisect.bisect_left(releases, asked.release)
    start = max(0, min(at - 1, len(releases) - 3))
    nearest = releases[start:start + 3]
    return held + "; nearest: " + ", ".join(distinct[r] for r in nearest)


_PLATFORM_WORDS = {"wsl": "wsl2", "wsl2": "wsl2", "linux": "linux", "windows": "windows", "win": "windows"}


def platform_hint(kg: KnowledgeGraph, layer: Layer, name: str) -> str | None:
    """`os = WSL2`: a platform where an OS release was expected."""
    if layer is not Layer.os:
        return None
    platform = _PLATFORM_WORDS.get(normalise(name))
    if platform is None:
        return None
    on = sorted(kg.nodes[i].name for i in kg.by_layer[Layer.os]
                if kg.nodes[i].platform and kg.nodes[i].platform.value == platform)
    if on:
        shown = ", ".join(on[:6]) + (f" (+{len(on) - 6})" if len(on) > 6 else "")
        return f"{name} is a platform, not an OS release: write platform = {platform}, or name one of {shown}"
    return (f"{name} is a platform, not an OS release, and the knowledge base has no OS on the {platform} "
            "platform yet, so it cannot answer for it; answers for Windows or a Linux distribution do not "
            f"carry over to {name}")


def _layer_ids(kg: KnowledgeGraph, layer: Layer, cond: Condition, text: str) -> frozenset[str]:
    if cond.op == "in":
        out: set[str] = set()
        for v in cond.values:
            out |= _resolve(kg, layer, v, text)
        return frozenset(out)
    value = cond.values[0]
    if cond.op in ("=", "=="):
        version = None
        if cond.version is not None:
            version = f"{cond.version_op or '=='}{cond.version.text}" if cond.version_op not in (None, "==") \
                or "*" in cond.version.text else cond.version.text
        return _resolve(kg, layer, value, text, version)
    if cond.op == "!=":
        excluded = _resolve(kg, layer, value, text)
        return frozenset(set(kg.by_layer[layer]) - excluded)
    # toolkit >= 12.4: a version comparison over every node of the layer.
    spec = f"{cond.op}{value.text}"
    try:
        parse_spec(spec)
    except InvalidSpecError:
        raise QueryError(f"'{value.text}' is not a version", text, value.span,
                         f"compare {layer.value} versions like: {layer.value} >= 12.4", code="bad_version") from None
    return frozenset(i for i in kg.by_layer[layer] if kg.nodes[i].version and spec_matches(kg.nodes[i].version, spec))


def _attribute_ids(kg: KnowledgeGraph, layer: Layer, attr: str, cond: Condition, text: str) -> frozenset[str]:
    """The nodes of `layer` whose attribute meets the condition, remembered per graph (a filter
    such as vendor = AMD walks every GPU; the same filter again is a lookup)."""
    values = [v.text for v in cond.values]
    memo = kg.__dict__.setdefault("_attribute_ids_memo", {})
    key = (layer, attr, cond.op, tuple(values))
    found = memo.get(key)
    if found is None:
        found = _match_attribute(kg, layer, attr, cond, text, values)
        if len(memo) > 1_000:
            memo.clear()
        memo[key] = found
    return found


def _match_attribute(kg: KnowledgeGraph, layer: Layer, attr: str, cond: Condition, text: str,
                     values: list[str]) -> frozenset[str]:
    if attr not in _NUMERIC and cond.op in _TEXT_OPS:
        out = _match_text(kg, layer, attr, cond.op, values)
    else:
        out = _match_each(kg, layer, attr, cond, text, values)
    if not out and cond.op in ("=", "==", "in"):
        known = sorted({str(getattr(kg.attribute(i, attr), "value", kg.attribute(i, attr)))
                        for i in kg.by_layer[layer] if kg.attribute(i, attr) is not None})
        close = difflib.get_close_matches(values[0].lower(), [k.lower() for k in known], n=2)
        hint = ("did you mean " + " or ".join(f"'{c}'" for c in close) + "?") if close else \
            (f"known values: {', '.join(known[:12])}" if known else None)
        raise QueryError(f"no {layer.value} has {cond.name} {cond.op} {values[0]}", text, cond.values[0].span, hint,
                         code="no_match")
    return frozenset(out)


# The operators `_attr_matches` answers by comparing text (a version attribute too: = is text).
_TEXT_OPS = frozenset({"=", "==", "in", "!="})


def _match_text(kg: KnowledgeGraph, layer: Layer, attr: str, op: str, values: list[str]) -> set[str]:
    """`_match_each` for a text comparison (`_TEXT_OPS`, attribute not numeric): the same test,
    made once per distinct attribute value instead of once per node (vendor = AMD at 10^5 facts
    walks 16,666 GPUs that hold two vendors)."""
    wanted = {v.lower() for v in values}
    keep = op != "!="
    verdicts: dict[int, bool] = {}
    # A node's vendor is in the name index too (every node that has one): a lookup there does
    # not read the node (at 10^5 facts, 19 -> 14 ms for vendor = AMD).
    attribute = kg.names.vendors.get if attr == "vendor" else lambda node_id: kg.attribute(node_id, attr)
    out = set()
    for node_id in kg.by_layer[layer]:
        actual = attribute(node_id)
        if actual is None:
            continue
        # By identity: nodes share their enum members (and often their strings); the node holds
        # the value, so the id is not reused while this runs.
        hit = verdicts.get(id(actual))
        if hit is None:
            actual_value = getattr(actual, "value", actual)
            if isinstance(actual_value, list):
                hit = any(str(a).lower() in wanted for a in actual_value)
            else:
                hit = str(actual_value).lower() in wanted
                verdicts[id(actual)] = hit
        if hit is keep:
            out.add(node_id)
    return out


def _match_each(kg: KnowledgeGraph, layer: Layer, attr: str, cond: Condition, text: str,
                values: list[str]) -> set[str]:
    """The nodes whose attribute meets the condition, tested node by node."""
    out = set()
    for node_id in kg.by_layer[layer]:
        actual = kg.attribute(node_id, attr)
        if actual is None and attr == "vram_gb" and kg.nodes[node_id].vram_sizes_gb:
            # Sold in several sizes: the condition holds only if it holds for every size. Where
            # some sizes meet it and some do not, the answer is unknown, and an attribute filter
            # keeps only what holds, as for a GPU whose memory no source states.
            if all(_attr_matches(size, attr, cond.op, values, cond, text) for size in kg.nodes[node_id].vram_sizes_gb):
                out.add(node_id)
            continue
        if actual is None:
            continue
        actual = getattr(actual, "value", actual)
        if _attr_matches(actual, attr, cond.op, values, cond, text):
            out.add(node_id)
    return out


def _attr_matches(actual, attr: str, op: str, values: list[str], cond: Condition, text: str) -> bool:
    if attr in _NUMERIC:
        try:
            number = float(values[0])
        except ValueError:
            raise QueryError(f"'{values[0]}' is not a number", text, cond.values[0].span,
                             f"for example: {cond.name} >= 24", code="bad_number") from None
        return {"=": actual == number, "==": actual == number, "!=": actual != number, ">=": actual >= number,
                "<=": actual <= number, ">": actual > number, "<": actual < number}.get(op, False)
    if attr in _VERSIONED and op not in ("=", "==", "!=", "in"):
        try:
            return spec_matches(str(actual), f"{op}{values[0]}")
        except InvalidSpecError:
            raise QueryError(f"'{values[0]}' is not a version", text, cond.values[0].span, code="bad_version") from None
    if isinstance(actual, list):
        hit = any(str(a).lower() in {v.lower() for v in values} for a in actual)
    else:
        hit = str(actual).lower() in {v.lower() for v in values}
    if op in ("=", "==", "in"):
        return hit
    if op == "!=":
        return not hit
    raise QueryError(f"{cond.name} cannot be compared with {op}", text, cond.name_span, "use = or !=",
                     code="bad_operator")


def _driver_pin(kg: KnowledgeGraph, cond: Condition, text: str) -> DriverPin:
    value = cond.values[0]
    raw = value.text
    if cond.version is not None:
        raw = f"{cond.version_op or ''}{cond.version.text}"
    label = raw if cond.op in ("=", "==") else f"{cond.op} {raw}"
    try:
        if cond.op in ("=", "==") and cond.version is None:
            found = kg.names.resolve(raw, Layer.driver)
            ids = [i for r in found for i in r.ids]
            if len(ids) == 1 and kg.nodes[ids[0]].version:
                branch = kg.nodes[ids[0]].version
                return DriverPin(kg.nodes[ids[0]].name, VersionRange.from_spec(f"=={branch}.*"))
            digits = raw.lower().lstrip("r")
            if digits.count(".") == 0 and digits.isdigit():
                return DriverPin(f"R{digits}", VersionRange.from_spec(f"=={digits}.*"))
            rng = VersionRange.from_spec(f"=={digits}")
            return DriverPin(raw, rng, exact=digits)
        return DriverPin(label, VersionRange.from_spec(f"{cond.op}{raw}" if cond.op not in ("=", "==") else raw))
    except (InvalidSpecError, ValueError):
        raise QueryError(f"'{raw}' is not a driver version", text, value.span,
                         "for example: driver = 550.54.14, driver >= 550, or driver = R570", code="bad_version") from None
