"""The rich renderer: the text renderers' words, styled for a terminal.

The wording stays in one place (the text renderers); this module only adds
colour, so text output, rich output and the snapshots never drift apart.
"""

from __future__ import annotations

import re

from rich.text import Text

__all__ = ["styled"]

_LINE_STYLES = (
    (re.compile(r"^✓ supported"), "bold green"),
    (re.compile(r"^✗ not supported"), "bold red"),
    (re.compile(r"^\? unknown"), "bold yellow"),
    (re.compile(r"^error:"), "bold red"),
    (re.compile(r"^hint:"), "cyan"),
    (re.compile(r"^smallest changes"), "bold"),
    (re.compile(r"^\s+(caveat|caveats|stale|unknown \(no source\))"), "yellow"),
    (re.compile(r"^\s+(unofficial|also documented)"), "magenta"),
    (re.compile(r"^\s+https?://"), "dim cyan"),
)
_MARKS = {"✓": "green", "✗": "bold red", "?": "yellow", "^": "bold red"}


def styled(text: str) -> Text:
    """A rich Text of the rendered words, with verdicts and marks coloured."""
    out = Text()
    for i, line in enumerate(text.split("\n")):
        if i:
            out.append("\n")
        style = next((s for rx, s in _LINE_STYLES if rx.search(line)), None)
        if style:
            out.append(line, style=style)
            continue
        # Colour the verdict marks of edge lines: "  toolkit ... → arch ...   ✗ reason".
        match = re.search(r"\s([✓✗?])\s", line)
        if match and not line.lstrip().startswith(("(", "path used")):
            out.append(line[:match.start(1)])
            out.append(line[match.start(1):], style=_MARKS[match.group(1)])
        elif line.strip() and set(line.strip()) == {"^"}:
            out.append(line, style=_MARKS["^"])
        else:
            out.append(line)
    return out
