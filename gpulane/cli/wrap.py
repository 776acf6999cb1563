"""Fit rendered text to a terminal: wrap at word boundaries with hanging indents.

The renderers write one logical line per item, however long; this module only
decides where those lines break on a screen of a given width, so the wording
(and the snapshots of it) stays in the renderers.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["wrap_text", "HANG"]

_PADDING = re.compile(r"(\S) {3,}(?=\S)")
_MARKER = re.compile(r"(\d+\.|[✓✗?~\-]) ")
HANG = 4  # how much further than its first line a wrapped line's continuation is indented


def wrap_text(text: str, width: int) -> str:
    """Every line of ``text`` broken to at most ``width`` characters.

    A line keeps its own indentation; its continuation lines hang ``HANG`` columns
    deeper, so an item still reads as one item. Lines break between words; a single
    word longer than the room left (a long URL) is split, since nothing may pass the edge.
    """
    width = max(20, width)
    lines = text.split("\n")
    # Column padding ("label      ✓ fact") aligns verdicts on a wide screen; when a padded line
    # does not fit, the padding goes everywhere, so the verdicts stay beside their edges.
    if any(len(line) > width and _PADDING.search(line) for line in lines):
        lines = [_PADDING.sub(lambda m: m.group(1) + "  ", line) for line in lines]
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        indent = len(line) - len(line.lstrip(" "))
        indent = min(indent, width // 2)
        marker = _MARKER.match(line[indent:])
        # A numbered or ticked item continues under its text; anything else hangs HANG deeper.
        hang = min(indent + (len(marker.group(0)) if marker else HANG), width // 2)
        out.extend(textwrap.wrap(line.strip(" "), width=width, initial_indent=" " * indent,
                                 subsequent_indent=" " * hang, break_long_words=True,
                                 break_on_hyphens=False, drop_whitespace=True) or [""])
    return "\n".join(out)
