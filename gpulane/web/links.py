"""Where each page lives: the server's URLs, or the relative paths of a static site."""

from __future__ import annotations

import hashlib
import re
from urllib.parse import urlencode

__all__ = ["Links", "slug"]


def slug(text: str) -> str:
    """A file-name-safe, readable and unique name for a text (a hash keeps two texts apart)."""
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "page"
    return f"{words}-{hashlib.sha1(text.encode('utf-8', 'replace')).hexdigest()[:8]}"


class Links:
    """Link targets for templates. The server links every node; a static site only the pages it wrote."""

    def __init__(self, static: bool = False, prefix: str = "/", pages: set[str] | None = None):
        self.static = static
        self.prefix = prefix  # "/" on the server; "" or "../" in a static site
        self.pages = pages if pages is not None else set()

    def at_depth(self, depth: int) -> "Links":
        """The same site, seen from a page `depth` folders below its root."""
        return Links(self.static, "../" * depth if self.static else "/", self.pages)

    def home(self) -> str:
        return self.prefix + ("index.html" if self.static else "")

    def asset(self, name: str) -> str:
        return f"{self.prefix}static/{name}"

    def node(self, node_id: str) -> str | None:
        if not self.static:
            return f"/node/{node_id}"
        key = f"node/{slug(node_id)}.html"
        return self.prefix + key if key in self.pages else None

    def source(self, source_id: str | None) -> str | None:
        if not source_id:
            return None
        if not self.static:
            return f"/source/{source_id}"
        key = f"source/{slug(source_id)}.html"
        return self.prefix + key if key in self.pages else None

    def fact(self, fact_id: str, source_id: str | None) -> str | None:
        """A fact is shown on its source's page, under its own anchor."""
        page = self.source(source_id)
        return f"{page}#fact-{fact_id}" if page else None

    def explain(self, params: dict[str, str]) -> str | None:
        clean = {k: v for k, v in params.items() if v}
        if not self.static:
            return "/explain?" + urlencode(clean)
        key = f"explain/{slug(urlencode(sorted(clean.items())))}.html"
        return self.prefix + key if key in self.pages else None

    def compare(self, gpus: list[str], extra: dict[str, list[str]] | None = None) -> str | None:
        pairs = [("gpu", g) for g in gpus] + [(k, v) for k, vs in (extra or {}).items() for v in vs]
        if not self.static:
            return "/compare?" + urlencode(pairs)
        key = f"compare/{slug(urlencode(pairs))}.html"
        return self.prefix + key if key in self.pages else None

    @staticmethod
    def explain_page(params: dict[str, str]) -> str:
        """The file a static explanation is written to, relative to the site's root."""
        clean = {k: v for k, v in params.items() if v}
        return f"explain/{slug(urlencode(sorted(clean.items())))}.html"

    @staticmethod
    def compare_page(gpus: list[str], extra: dict[str, list[str]] | None = None) -> str:
        pairs = [("gpu", g) for g in gpus] + [(k, v) for k, vs in (extra or {}).items() for v in vs]
        return f"compare/{slug(urlencode(pairs))}.html"

    @staticmethod
    def node_page(node_id: str) -> str:
        return f"node/{slug(node_id)}.html"

    @staticmethod
    def source_page(source_id: str) -> str:
        return f"source/{slug(source_id)}.html"
