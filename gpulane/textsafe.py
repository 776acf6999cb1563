"""Text from elsewhere, made safe for where it is shown.

Tool output, /etc/os-release, imported names and the user's own query can hold
control characters; printed raw, an ESC sequence rewrites the terminal (a fake
"✓ supported", a hidden line). ``visible`` shows each control character as an
escape (``\\x1b``) instead. ``markdown_text`` also folds line breaks and
backslash-escapes the characters that mean something inside a Markdown line
(emphasis, links, tables, HTML), so a value typed by the user (``--model``)
stays one inline value in a record and cannot add a heading or a "Verdict"
line.
"""

from __future__ import annotations

import re

__all__ = ["visible", "markdown_text", "has_control"]

# C0 and C1 controls and DEL, except tab and line feed; also the Unicode line/paragraph
# separators and bidirectional overrides that reorder what a terminal shows.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTROL_NO_NEWLINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|~!])")


def _escape(match: re.Match) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def has_control(text: str, allow_newline: bool = True) -> bool:
    """Whether text holds a control character (tab and, by default, line feed allowed)."""
    return bool((_CONTROL if allow_newline else _CONTROL_NO_NEWLINE).search(text))


def visible(text: str, allow_newline: bool = True) -> str:
    """The text with every control character shown as an escape; tabs (and line feeds) kept."""
    pattern = _CONTROL if allow_newline else _CONTROL_NO_NEWLINE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def markdown_text(text: str) -> str:
    """One inline Markdown value: controls shown, line breaks folded, punctuation escaped."""
    flat = visible(" ".join(text.split()), allow_newline=False)
    return _MARKDOWN.sub(r"\\\1", flat)
