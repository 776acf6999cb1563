"""`gpulane site DIR`: the compare pages of the seed comparisons, the explanation behind each of
their cells, their GPUs' pages and every source's page, as static HTML for publishing.

The pages are the server's templates rendered with relative links; a link is only made to a page
the site holds, so nothing dangles.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from gpulane.graph.kb import KnowledgeGraph
from gpulane.queries.compare import CompareResult, compare
from gpulane.web import views
from gpulane.web.app import HERE, render
from gpulane.web.links import Links

__all__ = ["SEED_COMPARISONS", "write_site"]

# The questions people bring (issue 16): a consumer, a workstation, and two datacenter pairs.
SEED_COMPARISONS: list[list[str]] = [
    ["RX 7900 XTX", "RTX 4090"],
    ["Radeon PRO W7900", "RTX A6000"],
    ["MI210", "RTX PRO 6000"],
    ["B300", "MI355X"],
]


def _cell_params(result: CompareResult) -> list[dict[str, str]]:
    out = []
    for (r, c) in sorted(result.cells):
        row, col = result.rows[r], result.columns[c]
        if col.absent:
            continue
        params = {"gpu": col.gpu_name}
        if col.os_label:
            params["os"] = col.os_label
        if row.name:
            params[row.layer.value] = row.name
        out.append(params)
    return out


def write_site(kg: KnowledgeGraph, directory: Path, comparisons: list[list[str]] | None = None,
               apps: list[str] | None = None, oses: list[str] | None = None) -> list[Path]:
    """Write the static site; return the files written. Unknown GPU names raise QueryError before anything is written."""
    directory = Path(directory)
    comparisons = comparisons or SEED_COMPARISONS
    results = [(gpus, compare(kg, gpus, oses, apps)) for gpus in comparisons]

    pages: set[str] = {Links.source_page(s) for s in kg.sources}
    gpu_ids: list[str] = []
    cells: list[dict[str, str]] = []
    for gpus, result in results:
        pages.add(Links.compare_page(gpus))
        for gid, _ in result.gpus:
            if gid not in gpu_ids:
                gpu_ids.append(gid)
        for params in _cell_params(result):
            if params not in cells:
                cells.append(params)
    pages.update(Links.node_page(g) for g in gpu_ids)
    pages.update(Links.explain_page(p) for p in cells)
    root = Links(static=True, prefix="", pages=pages)
    sub = root.at_depth(1)

    written: list[Path] = []

    def write(relative: str, html: str) -> None:
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
        written.append(target)

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "static").mkdir(exist_ok=True)
    for asset in ("style.css", "app.js"):
        shutil.copyfile(HERE / "static" / asset, directory / "static" / asset)

    index = []
    for gpus, result in results:
        grid = views.compare_view(kg, result, sub)
        write(Links.compare_page(gpus), render("compare.html", sub, title="compare", gpus=gpus, grid=grid,
                                               error=None, extra={}))
        index.append({"title": grid["title"], "link": root.compare(gpus)})
    for params in cells:
        answer = views.explain_view(kg, params, sub)
        write(Links.explain_page(params), render("selector.html", sub, title=answer["headline"], params=params,
                                                 choices={"oses": [], "apps": [], "frameworks": []}, answer=answer,
                                                 error=None, show_workarounds=True))
    for gid in gpu_ids:
        data = views.node_view(kg, gid, sub)
        write(Links.node_page(gid), render("node.html", sub, title=data["name"], node=data, compare_link=None))
    for sid in sorted(kg.sources):
        data = views.source_view(kg, sid, sub)
        write(Links.source_page(sid), render("source.html", sub, title=data["title"], source=data))
    sources = sorted(kg.sources.values(), key=lambda s: (s.publisher.lower(), s.title.lower()))
    write("index.html", render("index.html", root, title="comparisons", comparisons=index,
                               generated=dt.date.today().isoformat(),
                               gpus=[{"name": kg.nodes[g].name, "link": root.node(g)} for g in gpu_ids],
                               sources=[{"publisher": s.publisher, "title": s.title, "link": root.source(s.id)}
                                        for s in sources]))
    return written
