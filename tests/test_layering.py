"""Each stage imports only what lies below it. The graph compiles what the loaders read, so
neither imports the other (both build on gpulane.model); queries sit on the graph; the command
line and the web page sit on top. Checked on the source, function-level imports included."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "gpulane"

# stage -> stages it must never import
FORBIDDEN = {
    "graph": ("gpulane.loaders", "gpulane.queries", "gpulane.cli", "gpulane.web"),
    "loaders": ("gpulane.queries", "gpulane.cli", "gpulane.web"),
    "queries": ("gpulane.cli", "gpulane.web"),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
    return out


def test_lower_stages_never_import_higher_ones():
    bad = []
    for stage, forbidden in FORBIDDEN.items():
        for path in sorted((PACKAGE / stage).rglob("*.py")):
            for line, module in _imports(path):
                if module.startswith(forbidden):
                    bad.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    assert not bad, "\n".join(bad)
