"""The query AST: small dataclasses that keep where each part was written."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpulane.errors import Span


@dataclass(frozen=True)
class Value:
    """A name or version as written, quoted or not."""

    text: str
    span: Span


@dataclass(frozen=True)
class Condition:
    """`NAME OP VALUE [OP VERSION]` or `NAME in {VALUE, ...}`."""

    name: str
    name_span: Span
    op: str
    values: tuple[Value, ...]
    version_op: str | None = None
    version: Value | None = None

    @property
    def span(self) -> Span:
        return self.name_span


@dataclass
class Statement:
    """One statement: its verb and clauses."""

    verb: str  # find | paths | explain | fix | why | show | list | compare | setup
    text: str
    layers: list[tuple[str, Span]] = field(default_factory=list)  # find's projection, list's layer
    conditions: list[Condition] = field(default_factory=list)
    limit: int | None = None
    order: tuple[str, Span, str] | None = None  # (layer, span, "asc"|"desc")
    allow: list[tuple[str, Span]] = field(default_factory=list)
    keep: list[tuple[str, Span]] = field(default_factory=list)
    subject: Value | None = None  # show NAME
    over: list[tuple[str, Span]] = field(default_factory=list)  # compare's axes: rows and columns
    using: tuple[str, Span] | None = None  # setup ... using container
