"""Importer for bitsandbytes releases 0.37.0 onwards: one app node per (release, feature).

Input: the pinned scan of the release tags of ``bitsandbytes-foundation/bitsandbytes``
(``scripts/scan_bitsandbytes_tags.py``; committed in ``data-inputs/``):
per tag the commit, the torch requirement and its file, the hardware row of each
feature in ``docs/source/installation.mdx`` (0.43.0 onwards) or, before that, the
CHANGELOG's 0.37.0 entry "Int8 now supported on all GPUs", and whether Linux is named.

Nodes: ``bitsandbytes-<version>-llm-int8`` ("bitsandbytes 0.45.0 LLM.int8()"),
``-8bit-optimizers`` and ``-nf4-fp4`` for the releases whose docs have a row for them.
Facts, one per run of consecutive releases saying the same (cited at the first tag):

* LLM.int8() up to 0.42: ``supports`` every NVIDIA arch, with the CHANGELOG's caveat
  (below compute capability 7.5 the int8 weights are cast to 16/32-bit for the matmul);
* from 0.43: ``requires`` the compute capability each row names ("Turing ... or Ampere"
  is 7.5 up to 8.7; "Turing or newer" and "7.5+" are 7.5 onwards; "Kepler (GTX 780 or
  newer)" 3.5; "Maxwell ... or newer" 5.0; "6.0+" 6.0), complete over NVIDIA archs;
* ``requires`` torch as the package metadata or README states it;
* ``runs_on`` Linux.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .app_releases import REVIEWED, Run, read_json, runs, tag_source
from .errors import ImportFormatError

REPO = "https://github.com/bitsandbytes-foundation/bitsandbytes"
INPUT = "bitsandbytes-tags.json"
FEATURES = {"llm-int8": "LLM.int8()", "8bit-optimizers": "8-bit optimizers/quantization",
            "nf4-fp4": "NF4/FP4 quantization"}
SOURCE = Source(id="bitsandbytes-release-tags", url=f"{REPO}/tags", publisher="bitsandbytes-foundation",
                title="bitsandbytes release tags (0.37.0 onwards)", version="tags up to 0.50.1", reviewed=REVIEWED)


def cc_spec(row_text: str) -> str | None:
    """The compute capability range a feature row of the installation page names."""
    m = re.match(r"(\d+\.\d+)\+", row_text)
    if m:
        return f">={m.group(1)}"
    if "Turing" in row_text and "Ampere" in row_text:
        return ">=7.5,<8.9"  # Turing (7.5) and Ampere (8.0, 8.6, 8.7) only
    if "Turing" in row_text and "or newer" in row_text:
        return ">=7.5"
    if "Kepler" in row_text and "GTX 780 or newer" in row_text:
        return ">=3.5"  # GTX 780: compute capability 3.5
    if "Maxwell" in row_text and "or newer" in row_text:
        return ">=5.0"
    return None


def torch_spec(requirement: str) -> str | None:
    spec = requirement[len("torch"):].strip()
    return spec or None


def parse(path: Path) -> KBFile:
    path = Path(path)
    _, rows = read_json(path, "releases")
    for i, row in enumerate(rows):
        if not isinstance(row.get("tag"), str) or not re.fullmatch(r"\d+\.\d+\.\d+", row["tag"]):
            raise ImportFormatError(path, None, f"releases[{i}]: 'tag' missing or not a release tag X.Y.Z")
        if not isinstance(row.get("commit"), str) or not isinstance(row.get("features"), dict):
            raise ImportFormatError(path, None, f"release {row['tag']}: 'commit' and 'features' are required")
        for feature in row["features"]:
            if feature not in FEATURES:
                raise ImportFormatError(path, None, f"release {row['tag']}: unknown feature {feature!r}")
    sources: dict[str, Source] = {SOURCE.id: SOURCE}
    nodes: list[Node] = []
    facts: list[Fact] = []

    def node_id(row: dict, feature: str) -> str:
        return f"bitsandbytes-{row['tag']}-{feature}"

    for row in rows:
        for feature in row["features"]:
            nodes.append(Node(id=node_id(row, feature), layer=Layer.app,
                              name=f"bitsandbytes {row['tag']} {FEATURES[feature]}", family="bitsandbytes",
                              version=row["tag"], backend="cuda", source=SOURCE.id))

    def cite(run: Run, file: str) -> str:
        src = tag_source(REPO, "bitsandbytes-foundation", "bitsandbytes", file, run.first["tag"], run.first["commit"], "bnb")
        sources.setdefault(src.id, src)
        return src.id

    def through(run: Run) -> str:
        return f"Read at {run.first['tag']}" + ("." if run.first is run.last else
                                                   f"; the same at every release tag through {run.last['tag']}.")

    def subjects(run: Run, features) -> list[str]:
        return [node_id(r, f) for r in run.rows for f in features if f in r["features"]]

    for feature in FEATURES:
        for run in runs(rows, lambda r: r["features"].get(feature)):
            subject = subjects(run, [feature])
            if run.value.startswith("all GPUs"):
                facts.append(Fact(id=f"bnb-{run.first['tag']}-{feature}-all-gpus", relation=Relation.supports,
                                  subject=subject, object=Selector(layer=Layer.arch, vendor="nvidia"),
                                  source=cite(run, "CHANGELOG.md"), section="0.37.0: Int8 Matmul + backward support for all GPUs",
                                  caveat="On GPUs with compute capability below 7.5 the int8 weights are cast to 16/32-bit "
                                         "for the matrix multiplication (slower, not the int8 kernel).",
                                  note=("The README at 0.37.0 still says LLM.int8() requires Turing or Ampere GPUs; the "
                                        "CHANGELOG entry of the same release, which describes the change, is followed. "
                                        + through(run))))
                continue
            spec = cc_spec(run.value)
            if spec is None:
                raise ImportFormatError(path, None, f"release {run.first['tag']}: cannot read the {feature} row {run.value!r}")
            facts.append(Fact(id=f"bnb-{run.first['tag']}-{feature}-cc", relation=Relation.requires, subject=subject,
                              object=Selector(layer=Layer.arch, vendor="nvidia", compute_capability=spec),
                              domain=Selector(layer=Layer.arch, vendor="nvidia"),
                              source=cite(run, run.first["features_file"]),
                              section=f"Hardware requirements, {FEATURES[feature]} row",
                              note=f"Row: {run.value.rstrip(' *')}. {through(run)}"))
    every = list(FEATURES)
    for run in runs(rows, lambda r: (r.get("torch"), r.get("torch_file")) if r.get("torch") else None):
        requirement, file = run.value
        facts.append(Fact(id=f"bnb-{run.first['tag']}-torch", relation=Relation.requires, subject=subjects(run, every),
                          object=Selector(layer=Layer.framework, family="torch", version=torch_spec(requirement)),
                          source=cite(run, file), section="torch requirement",
                          note=f"Requirement: {requirement}. {through(run)}"))
    for run in runs(rows, lambda r: r["features_file"] if r.get("linux") else None):
        facts.append(Fact(id=f"bnb-{run.first['tag']}-os-linux", relation=Relation.runs_on, subject=subjects(run, every),
                          object=Selector(layer=Layer.os, platform="linux"),
                          source=cite(run, "README.md" if run.value == "CHANGELOG.md" else run.value),
                          section="Requirements (Linux)", note=through(run)))
    return KBFile(sources=list(sources.values()), nodes=nodes, facts=facts)
