"""The query parser's LALR tables, shipped as JSON data so that a process need not build them.

Building the parser from grammar.lark (lark computes the LALR tables and compiles the
lexer's patterns) takes some 40-80 ms of every command's start; reading the same tables from
grammar.tables.json takes about 6 ms. The file is data, written by this module from the
grammar (``python -m gpulane.queries.lark_tables``) and read with json, never with pickle:
lark's own cache is a pickle and is not used (see tests/test_cache.py).

The file records the SHA-256 of the grammar and the lark version it was made with; when
either differs from what is installed, or the file is missing or unreadable, the parser is
built from the grammar as before, so the tables can never answer for another grammar.
tests/test_lark_tables.py checks that regenerating gives the shipped file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lark import Lark, __version__ as LARK_VERSION

__all__ = ["GRAMMAR", "TABLES", "build_parser", "load_parser", "tables_text"]

GRAMMAR = Path(__file__).with_name("grammar.lark")
TABLES = Path(__file__).with_name("grammar.tables.json")
_FORMAT = "gpulane-lark-tables-1"
# How the parser is made: the tables hold these options, so a load needs none.
_OPTIONS = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": False}


def build_parser(grammar: str | None = None) -> Lark:
    """The parser built from the grammar text (lark computes the tables)."""
    return Lark(GRAMMAR.read_text(encoding="utf-8") if grammar is None else grammar, **_OPTIONS)


def tables_text(grammar: str | None = None) -> str:
    """The JSON text of grammar.tables.json for a grammar (default: grammar.lark)."""
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    text = GRAMMAR.read_text(encoding="utf-8") if grammar is None else grammar
    data, memo = build_parser(text).memo_serialize([TerminalDef, Rule])
    data["parser"]["parser"] = _canonical(data["parser"]["parser"])
    doc = {"format": _FORMAT, "lark": LARK_VERSION, "grammar_sha256": _digest(text),
           "data": _encode(data), "memo": _encode(memo)}
    return json.dumps(doc, ensure_ascii=True, separators=(",", ":")) + "\n"


def load_parser() -> Lark | None:
    """The parser read from grammar.tables.json; None when the file is absent, unreadable, or
    made for another grammar or lark version (the caller then builds it)."""
    try:
        doc = json.loads(TABLES.read_bytes())
        grammar = GRAMMAR.read_text(encoding="utf-8")
        if not isinstance(doc, dict) or doc.get("format") != _FORMAT or doc.get("lark") != LARK_VERSION \
                or doc.get("grammar_sha256") != _digest(grammar):
            return None
        # Lark.load given a dict reads it as data (lark's pickle path is for file objects).
        return Lark.load({"data": _decode(doc["data"]), "memo": _decode(doc["memo"])})
    except Exception:  # any mismatch means "build it instead"; the data never runs as code
        return None


def _canonical(table: dict) -> dict:
    """The serialized LALR table with tokens numbered by name and states in the order a
    breadth-first walk from the start states meets them (transitions taken by token name).

    lark numbers both as its sets happen to iterate, which differs from run to run; the
    automaton is the same, so numbered this way the same grammar always gives the same file.
    """
    names: dict[int, str] = table["tokens"]
    states: dict[int, dict[int, tuple]] = table["states"]
    token_id = {name: i for i, name in enumerate(sorted(names.values()))}
    order: dict[int, int] = {}
    queue = [table["start_states"][s] for s in sorted(table["start_states"])]
    queue += [table["end_states"][s] for s in sorted(table["end_states"])]
    while queue:
        state = queue.pop(0)
        if state in order:
            continue
        order[state] = len(order)
        for token, (action, arg) in sorted(states[state].items(), key=lambda item: names[item[0]]):
            if action == 0 and arg not in order:  # a shift (or goto) names the next state
                queue.append(arg)
    for state in states:  # none is unreachable in an LALR table; kept in any case
        order.setdefault(state, len(order))

    def action(act: tuple) -> tuple:
        return (0, order[act[1]]) if act[0] == 0 else act

    return {
        "tokens": {i: name for name, i in token_id.items()},
        "states": {order[s]: {token_id[names[t]]: action(a) for t, a in sorted(acts.items(), key=lambda i: names[i[0]])}
                   for s, acts in sorted(states.items(), key=lambda item: order[item[0]])},
        "start_states": {k: order[v] for k, v in sorted(table["start_states"].items())},
        "end_states": {k: order[v] for k, v in sorted(table["end_states"].items())},
    }


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# lark's serialized tables hold tuples and dicts keyed by integers, which plain JSON would turn
# into lists and string keys: each container is tagged so that it is read back exactly.

def _encode(value):
    if isinstance(value, tuple):
        return {"t": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {"o": {k: _encode(v) for k, v in value.items()}}
        if all(isinstance(k, int) and not isinstance(k, bool) for k in value):
            return {"i": [[k, _encode(v)] for k, v in value.items()]}
        raise TypeError(f"mixed dictionary keys in lark tables: {sorted(map(repr, value))[:3]}")
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"a {type(value).__name__} in lark tables cannot be written as JSON")


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        (tag, inner), = value.items()
        if tag == "t":
            return tuple(_decode(v) for v in inner)
        if tag == "o":
            return {k: _decode(v) for k, v in inner.items()}
        if tag == "i":
            return {int(k): _decode(v) for k, v in inner}
        raise ValueError(f"unknown tag {tag!r} in lark tables")
    return value


if __name__ == "__main__":
    TABLES.write_text(tables_text(), encoding="utf-8")
    print(f"wrote {TABLES}")
