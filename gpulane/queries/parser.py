"""Query text → Statement, with errors that point at the token.

Lark's LALR parser with its contextual lexer reads the grammar in
grammar.lark; syntax errors are reworded here: the line, a caret under the
offending token, what was expected in words, and a hint where one fits.
"""

from __future__ import annotations

from functools import lru_cache

from lark import Lark, Token, Transformer, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from gpulane.errors import QueryError, Span
from gpulane.queries.ast import Condition, Statement, Value

__all__ = ["parse"]

MAX_QUERY_CHARS = 10_000

_WORDS = {
    "FIND": "'find'", "PATHS": "'paths'", "EXPLAIN": "'explain'", "FIX": "'fix'", "WHY": "'why'",
    "SHOW": "'show'", "LIST": "'list'", "WHERE": "'where'", "AND": "'and'", "IN": "'in'",
    "LIMIT": "'limit'", "ORDER": "'order'", "BY": "'by'", "ALLOW": "'allow'", "KEEP": "'keep'",
    "SETUP": "'setup'", "USING": "'using'",
    "DIRECTION": "'asc' or 'desc'", "NAME": "a layer or attribute name (gpu, os, vendor, vram, ...)",
    "CMP": "a comparison (=, !=, >=, <=, >, <)", "WORD": "a name or version", "STRING": "a quoted name",
    "INT": "a whole number", "COMMA": "','", "LBRACE": "'{'", "RBRACE": "'}'", "$END": "the end of the query",
    "AT": "'@'", "COMPARE": "'compare'", "OVER": "'over'",
}
_STATEMENTS = "find, paths, explain, fix, why, show, list, compare or setup"


@lru_cache(maxsize=1)
def _parser() -> Lark:
    # Read from the LALR tables shipped as JSON beside the grammar (about 6 ms), else built from
    # the grammar (40-80 ms); never from lark's own cache file: that file is a pickle, and
    # reading a pickle from a cache folder is how a planted file runs code.
    from gpulane.queries.lark_tables import build_parser, load_parser

    return load_parser() or build_parser()


def _span(token: Token) -> Span:
    return Span(token.line or 1, token.column or 1, max(1, len(str(token))))


def _expected_words(expected: set[str]) -> str:
    words = sorted({_WORDS.get(e, e.lower()) for e in expected if not e.startswith("__")})
    if not words:
        return "something else"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def parse(text: str) -> Statement:
    """Parse one statement; raise QueryError with a position on any mistake."""
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(f"the query is longer than {MAX_QUERY_CHARS} characters")
    if not text.strip():
        raise QueryError("the query is empty", hint=f"start with {_STATEMENTS}")
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text) from None
    statement = _ToStatement(text).transform(tree)
    return statement


def _syntax_error(exc: UnexpectedInput, text: str) -> QueryError:
    if isinstance(exc, UnexpectedEOF):
        lines = text.splitlines() or [""]
        span = Span(len(lines), len(lines[-1]) + 1, 1)
        return QueryError(f"the query ends too early: expected {_expected_words(set(exc.expected))}", text, span,
                          _hint_for(text, None, set(exc.expected)), code="syntax")
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            lines = text.splitlines() or [""]
            span = Span(len(lines), len(lines[-1]) + 1, 1)
            return QueryError(f"the query ends too early: expected {_expected_words(exc.accepts or exc.expected)}",
                              text, span, _hint_for(text, None, exc.accepts or exc.expected), code="syntax")
        expected = exc.accepts or exc.expected
        return QueryError(f"unexpected '{tok}': expected {_expected_words(expected)}", text, _span(tok),
                          _hint_for(text, tok, expected), code="syntax")
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        span = Span(exc.line, exc.column, 1)
        hint = None
        if ch == '"' or ch == "'":
            hint = "a quoted name needs its closing quote on the same line"
        elif exc.column == 1 and exc.line == 1:
            hint = f"a query starts with {_STATEMENTS}"
        allowed = getattr(exc, "allowed", None) or set()
        what = f": expected {_expected_words(set(allowed))}" if allowed else ""
        return QueryError(f"unexpected character '{ch}'{what}", text, span, hint, code="syntax")
    return QueryError(str(exc), text, code="syntax")


# Names compared with >= and friends: a number or version after one of them, with no
# operator between, is what a shell leaves of `vram >= 24`.
_COMPARABLE = frozenset({"vram", "vram_gb", "memory", "cc", "compute_capability", "driver", "toolkit",
                         "framework", "os", "gpu.vram", "arch.cc"})


def _shell_hint(text: str, at: int | None) -> str | None:
    """A comparison whose operator vanished ('vram 24', or 'vram' at the end) is what a
    shell leaves after taking `>`/`<` as a redirect: say so and show the quoted form."""
    head = text.strip().split(None, 1)
    if len(head) < 2 or "'" in text:
        return None
    before = text[:at].split() if at is not None else text.split()
    if not before or before[-1].lower() not in _COMPARABLE:
        return None
    if at is None:
        fixed = text.rstrip() + " >= VALUE"
    elif text[at:at + 1].isdigit():
        fixed = text[:at].rstrip() + " >= " + text[at:].lstrip()
    else:
        return None
    verb, rest = fixed.strip().split(None, 1)
    return ("if you typed > or <, the shell took it as a redirect (and may have made a file named '=' or "
            f"after the value); quote the whole statement: gpulane {verb.lower()} '{rest}'")


def _hint_for(text: str, tok: Token | None, expected: set[str]) -> str | None:
    import difflib

    if tok is not None and tok.line == 1 and tok.column == 1:
        verbs = ["find", "paths", "explain", "fix", "why", "show", "list", "compare", "setup"]
        close = difflib.get_close_matches(str(tok).lower(), verbs, n=1)
        return f"did you mean '{close[0]}'?" if close else f"a query starts with {_STATEMENTS}"
    if "CMP" in expected and (tok is None or tok.type in ("WORD", "INT", "STRING")):
        shell = _shell_hint(text, tok.start_pos if tok is not None else None)
        if shell:
            return shell
    if "CMP" in expected and tok is not None:
        return "conditions read NAME = VALUE, for example: os = \"Ubuntu 24.04\""
    if "WHERE" in expected and tok is not None and tok.type in ("NAME", "WORD"):
        return "filters follow 'where', for example: find gpu where vendor = AMD"
    if tok is not None and tok.type == "CMP" and "NAME" in expected:
        return "quote names with spaces or operators, for example: gpu = \"RX 7900 XTX\""
    return None


class _ToStatement(Transformer):
    """Lark tree → Statement (positions kept on every name and value)."""

    def __init__(self, text: str):
        super().__init__()
        self.text = text

    def start(self, items):
        return items[0]

    # values
    def quoted(self, items):
        tok = items[0]
        return Value(str(tok)[1:-1].strip(), _span(tok))

    def bare(self, items):
        first, last = items[0], items[-1]
        text = " ".join(str(t) for t in items)
        width = (last.end_pos - first.start_pos) if last.end_pos is not None else len(text)
        return Value(text, Span(first.line, first.column, max(1, width)))

    def version_part(self, items):
        op = None
        if len(items) == 2:
            op = str(items[0])
        word = items[-1]
        return (op, Value(str(word), _span(word)))

    def compare(self, items):
        name, cmp, value = items[0], items[1], items[2]
        version_op, version = None, None
        rest = items[3:]
        if rest:
            tail = rest[-1]
            if isinstance(tail, tuple):
                version_op, version = tail
                if len(rest) == 2 and isinstance(rest[0], Token) and rest[0].type == "CMP":
                    version_op = version_op or str(rest[0])
                version_op = version_op or "=="
        return Condition(str(name), _span(name), str(cmp), (value,), version_op, version)

    def member(self, items):
        name = items[0]
        values = tuple(v for v in items[2:] if isinstance(v, Value))
        return Condition(str(name), _span(name), "in", values)

    # clauses
    def layer_list(self, items):
        return ("layers", [(str(t), _span(t)) for t in items])

    def where(self, items):
        return ("conditions", [c for c in items if isinstance(c, Condition)])

    def config(self, items):
        return ("conditions", [c for c in items if isinstance(c, Condition)])

    def limit(self, items):
        return ("limit", int(str(items[-1])))

    def order(self, items):
        names = [t for t in items if isinstance(t, Token) and t.type == "NAME"]
        direction = next((str(t).lower() for t in items if isinstance(t, Token) and t.type == "DIRECTION"), "desc")
        return ("order", (str(names[0]), _span(names[0]), direction))

    def allow(self, items):
        return ("allow", [(str(t), _span(t)) for t in items if isinstance(t, Token) and t.type == "NAME"])

    def keep(self, items):
        return ("keep", [(str(t), _span(t)) for t in items if isinstance(t, Token) and t.type == "NAME"])

    def over(self, items):
        return ("over", [(str(t), _span(t)) for t in items if isinstance(t, Token) and t.type == "NAME"])

    def _statement(self, verb, items):
        st = Statement(verb, self.text)
        for item in items:
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                key, value = item
                if key == "layers":
                    st.layers = value
                elif key == "conditions":
                    st.conditions.extend(value)
                elif key == "limit":
                    st.limit = value
                elif key == "order":
                    st.order = value
                elif key == "allow":
                    st.allow.extend(value)
                elif key == "keep":
                    st.keep.extend(value)
                elif key == "over":
                    st.over.extend(value)
                elif key == "using":
                    st.using = value
            elif isinstance(item, Condition):  # compare's subject (gpu in {...}) comes before its where
                st.conditions.insert(0, item)
            elif isinstance(item, Value):
                st.subject = item
            elif isinstance(item, Token) and item.type == "NAME" and verb == "list":
                st.layers = [(str(item), _span(item))]
        return st

    def find(self, items):
        return self._statement("find", items)

    def paths(self, items):
        return self._statement("paths", items)

    def explain(self, items):
        return self._statement("explain", items)

    def fix(self, items):
        return self._statement("fix", items)

    def why(self, items):
        return self._statement("why", items)

    def show(self, items):
        return self._statement("show", items)

    def list(self, items):
        return self._statement("list", items)

    def compare_statement(self, items):
        return self._statement("compare", items)

    def setup(self, items):
        return self._statement("setup", items)

    def using(self, items):
        name = next(t for t in items if isinstance(t, Token) and t.type == "NAME")
        return ("using", (str(name), _span(name)))
