"""A configuration from a YAML or JSON file, as statement text.

    gpu: RX 7900 XTX
    os: Ubuntu 24.04
    app: vLLM
    driver: ">= 550"        # a version or a comparison
    keep: [gpu]             # fix only
    allow: [workaround]

JSON is YAML, so one reader takes both.

A plan file is input from elsewhere, so it is read defensively: only a regular
file of at most 64 KB; every scalar is read as the string it is written as
(``driver: 550.120`` is "550.120", not the float 550.12); anchors, aliases,
duplicate keys and deep nesting are refused. Each value becomes one quoted
value of one condition, and the statement is parsed back to check that it says
exactly that: a value can never add a condition or a clause.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from gpulane.errors import PlanFileError, QueryError
from gpulane.loaders.safeio import UnreadableFile, read_regular_file
from gpulane.model import LAYER_NAMES

__all__ = ["read_plan_file", "plan_to_text", "MAX_PLAN_BYTES"]

_EXTRA = ("keep", "allow")
_ATTRIBUTES = ("vendor", "vram", "family", "platform", "cc")
MAX_PLAN_BYTES = 64 * 1024
# A plan is a flat mapping with short lists: anything deeper is not a plan.
_MAX_DEPTH = 8
_OPERATORS = (">=", "<=", "!=", "==", "~=", ">", "<", "=")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


class _PlanLoader(yaml.BaseLoader):
    """Every scalar a string; no anchors or aliases, no duplicate keys, no deep nesting."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent) or getattr(self.peek_event(), "anchor", None):
            raise yaml.MarkedYAMLError(None, None, "anchors and aliases are not allowed in a plan",
                                       self.peek_event().start_mark)
        self._depth += 1
        try:
            if self._depth > _MAX_DEPTH:
                raise yaml.MarkedYAMLError(None, None, f"nested deeper than {_MAX_DEPTH} levels",
                                           self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):  # type: ignore[override]
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise yaml.MarkedYAMLError(None, None, "a key must be a name", key_node.start_mark)
            if key in seen:
                raise yaml.MarkedYAMLError(None, None, f"duplicate key '{key}'", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=True)


_PlanLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _PlanLoader.construct_mapping)


def read_plan_file(path: Path) -> str:
    """The configuration text of a plan file (what follows 'explain' or 'fix')."""
    try:
        raw = read_regular_file(path, MAX_PLAN_BYTES)
    except UnreadableFile as exc:
        raise PlanFileError(str(path), f"{exc.reason}; a plan is a YAML or JSON file of a few lines") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PlanFileError(str(path), f"not UTF-8 text ({exc.reason})") from None
    try:
        data = yaml.load(text, Loader=_PlanLoader)  # noqa: S506 - a BaseLoader: strings, lists, mappings only
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}" if mark else ""
        problem = f": {exc.problem}" if exc.problem else ""
        raise PlanFileError(str(path), f"not a plan{where}{problem}") from None
    except (yaml.YAMLError, RecursionError):
        raise PlanFileError(str(path), "not YAML or JSON") from None
    return plan_to_text(data, str(path))


def plan_to_text(data: object, where: str = "plan") -> str:
    """Turn a mapping of layer → value into configuration text (every value quoted)."""
    if not isinstance(data, dict) or not data:
        raise PlanFileError(where, "expected a mapping such as {gpu: RX 7900 XTX, os: Ubuntu 24.04}")
    parts, tail = [], []
    for key, value in data.items():
        key = str(key)
        if key in _EXTRA:
            values = value if isinstance(value, list) else [value]
            names = [v for v in values if isinstance(v, str) and _NAME.fullmatch(v.strip())]
            if not values or len(names) != len(values):
                raise PlanFileError(where, f"'{key}' takes names such as [gpu, os] or [workaround]")
            tail.append(f"{key} " + ", ".join(n.strip() for n in names))
            continue
        if key not in LAYER_NAMES and key not in _ATTRIBUTES:
            raise PlanFileError(where, f"unknown key '{key}': expected one of {', '.join(LAYER_NAMES)}, keep, allow")
        if not isinstance(value, str):
            raise PlanFileError(where, f"the value of '{key}' must be one name or version, not a "
                                       f"{'list' if isinstance(value, list) else 'mapping'}")
        text = value.strip()
        op = next((o for o in _OPERATORS if text.startswith(o)), "=")
        if text.startswith(op):
            text = text[len(op):].strip()
        if not text:
            raise PlanFileError(where, f"the value of '{key}' is empty")
        if any(ch in text for ch in '"\n\r') or not text.isprintable():
            raise PlanFileError(where, f"the value of '{key}' cannot contain quotes, line breaks or control "
                                       "characters")
        parts.append(f'{key} {op} "{text}"')
    statement = ", ".join(parts) + ("" if not tail else " " + " ".join(tail))
    _check_round_trip(statement, len(parts), where)
    return statement


def _check_round_trip(statement: str, conditions: int, where: str) -> None:
    """The statement must read back as exactly the plan's conditions (a value adds none)."""
    from gpulane.queries.parser import parse

    if conditions == 0:
        return  # keep/allow alone: the caller adds the conditions
    try:
        parsed = parse("explain " + statement)
    except QueryError as err:
        raise PlanFileError(where, f"not a configuration: {err.message}") from None
    if len(parsed.conditions) != conditions:
        raise PlanFileError(where, "a value reads as more than one condition")
