"""Importer for xFormers releases v0.0.20 onwards: one app node per release.

Input: the pinned scan of the release tags of ``facebookresearch/xformers``
(``scripts/scan_xformers_tags.py``; committed in ``data-inputs/``):
per tag the commit, the torch versions ``.github/workflows/wheels.yml`` builds the
published wheels for, and the README's pip line (the PyTorch release it names and the
platforms, "linux & win").

The published wheels are built against one torch release and pin it (PyPI METADATA:
xformers 0.0.29 requires torch==2.5.1), so each release ``requires`` torch ``==X`` for
the torch versions of its wheel workflow; where the workflow at the tag names none, the
README's pip line is used. Both are cited at the tag. ``runs_on`` Linux and Windows
follow the README's pip line.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .app_releases import REVIEWED, Run, read_json, runs, tag_source
from .errors import ImportFormatError

REPO = "https://github.com/facebookresearch/xformers"
INPUT = "xformers-tags.json"
SOURCE = Source(id="xformers-release-tags", url=f"{REPO}/tags", publisher="Meta (facebookresearch)",
                title="xFormers release tags (v0.0.20 onwards)", version="tags up to v0.0.35", reviewed=REVIEWED)


def parse(path: Path) -> KBFile:
    path = Path(path)
    _, rows = read_json(path, "releases")
    for i, row in enumerate(rows):
        if not isinstance(row.get("tag"), str) or not re.fullmatch(r"v0\.0\.\d+(\.post\d+)?", row["tag"]):
            raise ImportFormatError(path, None, f"releases[{i}]: 'tag' missing or not a release tag v0.0.N")
        if not isinstance(row.get("commit"), str) or not isinstance(row.get("wheel_torch"), list):
            raise ImportFormatError(path, None, f"release {row['tag']}: 'commit' and 'wheel_torch' are required")
    sources: dict[str, Source] = {SOURCE.id: SOURCE}
    nodes: list[Node] = []
    facts: list[Fact] = []

    def version(row: dict) -> str:
        return row["tag"].lstrip("v")

    for row in rows:
        nodes.append(Node(id=f"xformers-{version(row)}", layer=Layer.app, name=f"xFormers {version(row)}",
                          family="xformers", version=version(row), source=SOURCE.id))

    def cite(run: Run, file: str) -> str:
        src = tag_source(REPO, "Meta (facebookresearch)", "xFormers", file, run.first["tag"], run.first["commit"], "xformers")
        sources.setdefault(src.id, src)
        return src.id

    def through(run: Run) -> str:
        return f"Read at {run.first['tag']}" + ("." if run.first is run.last else
                                                   f"; the same at every release tag through {run.last['tag']}.")

    def torch_pin(r: dict):
        if r["wheel_torch"]:
            return (".github/workflows/wheels.yml", tuple(r["wheel_torch"]))
        if r.get("readme_pip_torch"):
            return ("README.md", (r["readme_pip_torch"],))
        return None

    for run in runs(rows, torch_pin):
        file, versions = run.value
        readme = {r.get("readme_pip_torch") for r in run.rows} - set(versions) - {None}
        note = (f"The wheels of these tags are built for torch {', '.join(versions)} and pin it."
                if file.endswith("wheels.yml") else "The README's pip line names this torch release.")
        if readme and file.endswith("wheels.yml"):
            note += f" The README's pip line names {', '.join(sorted(readme))} instead; the wheel workflow is followed."
        facts.append(Fact(id=f"xformers-{version(run.first)}-torch", relation=Relation.requires,
                          subject=[f"xformers-{version(r)}" for r in run.rows],
                          object=Selector(layer=Layer.framework, family="torch",
                                          version=" || ".join(f"=={v}" for v in versions)),
                          source=cite(run, file),
                          section="wheel build matrix (torch_version)" if file.endswith("wheels.yml") else
                          "Installing xFormers: pip line", note=f"{note} {through(run)}"))
    for platform, word in (("linux", "linux"), ("windows", "win")):
        for run in runs(rows, lambda r: word in (r.get("readme_pip_platforms") or "").split(" & ")):
            # The README marks its ROCm wheels "linux only": Windows is stated for the CUDA wheels.
            when = {Layer.arch: Selector(layer=Layer.arch, vendor="nvidia")} if platform == "windows" else {}
            facts.append(Fact(id=f"xformers-{version(run.first)}-os-{platform}", relation=Relation.runs_on,
                              subject=[f"xformers-{version(r)}" for r in run.rows],
                              object=Selector(layer=Layer.os, platform=platform), source=cite(run, "README.md"),
                              section="Installing xFormers: pip line (platforms)", note=through(run), when=when))
    return KBFile(sources=list(sources.values()), nodes=nodes, facts=facts)
