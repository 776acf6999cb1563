"""One exception hierarchy for gpulane; messages are built from fields.

Nothing else escapes the public API or the CLI: every failure a user can cause
(bad file, bad query, unknown name) is one of these, worded for a person.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class GpulaneError(Exception):
    """Base class of every error gpulane reports to a user."""


@dataclass
class FileProblem:
    """One problem in one knowledge-base or import file, at a line."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class KBLoadError(GpulaneError):
    """The knowledge base could not be loaded; nothing was loaded."""

    def __init__(self, problems: list[FileProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class KBInvalidError(GpulaneError):
    """The files parse, but the knowledge base has errors (see `kb check`)."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        head = f"the knowledge base has {len(problems)} problem(s); run 'gpulane kb check' for all of them"
        super().__init__("\n".join([head, *problems[:5]]))


class CacheEntryError(GpulaneError):
    """A cache entry did not read back when a part of it was first used (a bug of the writer);
    the entry has been removed, so the next run builds it again from the files."""

    def __init__(self, path: str, what: str):
        self.path = path
        super().__init__(f"the cached knowledge base {path} does not read back ({what}); it has been removed: "
                         "run the command again to rebuild it from the files")


@dataclass
class Span:
    """Where in a query text something is: 1-based line and column, and width."""

    line: int
    column: int
    width: int = 1


class QueryError(GpulaneError):
    """A query that cannot be answered as written: syntax or meaning."""

    def __init__(self, message: str, text: str = "", span: Span | None = None,
                 hint: str | None = None, code: str = "query"):
        self.message = message
        self.text = text
        self.span = span
        self.hint = hint
        self.code = code
        super().__init__(self.render())

    def render(self) -> str:
        """The error as a person reads it: message, the line, a caret, a hint."""
        lines = [f"error: {self.message}"]
        if self.text and self.span:
            src = self.text.splitlines() or [""]
            row = src[min(self.span.line, len(src)) - 1]
            lines.append(f"  {row}")
            lines.append("  " + " " * (self.span.column - 1) + "^" * max(1, self.span.width))
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        out = {"error": self.code, "message": self.message}
        if self.span:
            out["line"], out["column"] = self.span.line, self.span.column
        if self.hint:
            out["hint"] = self.hint
        return out


class UnknownNameError(QueryError):
    """A name that matches no node of the layer it was given for."""

    def __init__(self, name: str, layer: str | None, suggestions: list[str],
                 text: str = "", span: Span | None = None):
        self.name = name
        self.layer = layer
        self.suggestions = suggestions
        what = f"unknown {layer}" if layer else "unknown name"
        hint = None
        if suggestions:
            hint = "did you mean " + " or ".join(f'"{s}"' for s in suggestions) + "?"
        super().__init__(f'{what} "{name}"', text, span, hint, code="unknown_name")


class AmbiguousNameError(QueryError):
    """A name that matches several nodes equally well."""

    def __init__(self, name: str, candidates: list[str], text: str = "", span: Span | None = None):
        self.name = name
        self.candidates = candidates
        shown = ", ".join(f'"{c}"' for c in candidates[:6])
        super().__init__(f'"{name}" could mean several things', text, span,
                         f"say which: {shown}", code="ambiguous_name")


@dataclass
class PlanFileError(GpulaneError):
    """A --plan file that cannot be read as a configuration."""

    path: str
    message: str
    details: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"
