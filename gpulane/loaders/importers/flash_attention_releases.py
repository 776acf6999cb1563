"""Importer for FlashAttention 2.x releases: one app node per (release, backend).

Input: the pinned scan of the ``v2.*`` tags of ``Dao-AILab/flash-attention``
(``scripts/scan_flash_attention_tags.py``; committed in ``data-inputs/``):
per tag the commit and what README.md states: the CUDA and PyTorch floors, the NVIDIA
GPU generations ("Ampere, Ada, or Hopper"), whether Linux is named, and the ROCm
section (ROCm floor, "MI200 or MI300" for the CK backend) where there is one.

Nodes: ``flash-attention-<version>-cuda`` ("FlashAttention 2.7.4 (CUDA)") for every tag,
``-rocm`` for the tags with a ROCm section. Facts, one per run of tags that say the same,
cited at the first tag's commit:

* CUDA: ``requires`` compute capability 8.0 to 9.0 (Ampere 8.x, Ada 8.9, Hopper 9.0),
  complete over NVIDIA archs; ``requires`` CUDA at or above the floor;
* ROCm: ``supports`` gfx90a (MI200) and gfx942 (MI300), complete over AMD archs;
  ``requires`` ROCm at or above the floor;
* both: ``requires`` torch at or above the floor; ``runs_on`` Linux where the README says
  so (from v2.3.2; Windows is only "might work", so it is not loaded).
"""

from __future__ import annotations

import re
from pathlib import Path

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .app_releases import REVIEWED, Run, read_json, runs, tag_source
from .errors import ImportFormatError

REPO = "https://github.com/Dao-AILab/flash-attention"
INPUT = "flash-attention-tags.json"
SOURCE = Source(id="flash-attention-release-tags", url=f"{REPO}/tags", publisher="Dao-AILab",
                title="FlashAttention release tags (v2.0.0 onwards)", version="tags up to v2.8.3.post1", reviewed=REVIEWED)
GPU_SPECS = {"Ampere, Ada, or Hopper": ">=8.0,<=9.0"}
ROCM_GPUS = {"MI200 or MI300": ["gfx90a", "gfx942"]}


def parse(path: Path) -> KBFile:
    path = Path(path)
    _, rows = read_json(path, "releases")
    for i, row in enumerate(rows):
        if not isinstance(row.get("tag"), str) or not re.fullmatch(r"v2\.\d+\.\d+(\.post\d+)?", row["tag"]):
            raise ImportFormatError(path, None, f"releases[{i}]: 'tag' missing or not a v2.x release tag")
        if not isinstance(row.get("commit"), str):
            raise ImportFormatError(path, None, f"release {row['tag']}: 'commit' is required")
        if row.get("nvidia_gpus") and row["nvidia_gpus"] not in GPU_SPECS:
            raise ImportFormatError(path, None, f"release {row['tag']}: unknown GPU line {row['nvidia_gpus']!r}")
        if row.get("rocm_gpus") and row["rocm_gpus"] not in ROCM_GPUS:
            raise ImportFormatError(path, None, f"release {row['tag']}: unknown ROCm GPU line {row['rocm_gpus']!r}")
    sources: dict[str, Source] = {SOURCE.id: SOURCE}
    nodes: list[Node] = []
    facts: list[Fact] = []

    def version(row: dict) -> str:
        return row["tag"].lstrip("v")

    def backends(row: dict) -> list[str]:
        return ["cuda"] + (["rocm"] if row.get("rocm_gpus") else [])

    for row in rows:
        for backend in backends(row):
            nodes.append(Node(id=f"flash-attention-{version(row)}-{backend}", layer=Layer.app,
                              name=f"FlashAttention {version(row)} ({'CUDA' if backend == 'cuda' else 'ROCm'})",
                              family="flash-attention", version=version(row), backend=backend, source=SOURCE.id))

    def cite(run: Run) -> str:
        src = tag_source(REPO, "Dao-AILab", "FlashAttention", "README.md", run.first["tag"], run.first["commit"], "fa")
        sources.setdefault(src.id, src)
        return src.id

    def subjects(run: Run, only: str | None = None) -> list[str]:
        return [f"flash-attention-{version(r)}-{b}" for r in run.rows for b in backends(r) if only in (None, b)]

    def through(run: Run) -> str:
        return f"Read at {run.first['tag']}" + ("." if run.first is run.last else
                                                   f"; the same at every release tag through {run.last['tag']}.")

    def fid(run: Run, what: str) -> str:
        return f"fa-{version(run.first)}-{what}"

    for run in runs(rows, lambda r: r.get("nvidia_gpus")):
        facts.append(Fact(id=fid(run, "cuda-gpus"), relation=Relation.requires, subject=subjects(run, "cuda"),
                          object=Selector(layer=Layer.arch, vendor="nvidia", compute_capability=GPU_SPECS[run.value]),
                          domain=Selector(layer=Layer.arch, vendor="nvidia"), source=cite(run),
                          section="Installation and features: CUDA GPUs",
                          note=f"{run.value} GPUs (compute capability 8.x and 9.0); Turing is named as not yet "
                               f"supported. {through(run)}"))
    for run in runs(rows, lambda r: r.get("cuda_floor")):
        facts.append(Fact(id=fid(run, "cuda-toolkit"), relation=Relation.requires, subject=subjects(run, "cuda"),
                          object=Selector(layer=Layer.toolkit, family="cuda", version=f">={run.value}"),
                          source=cite(run), section="Requirements: CUDA", note=through(run)))
    for run in runs(rows, lambda r: r.get("rocm_gpus")):
        facts.append(Fact(id=fid(run, "rocm-gpus"), relation=Relation.supports, subject=subjects(run, "rocm"),
                          object=Selector(ids=ROCM_GPUS[run.value]), exhaustive=True,
                          domain=Selector(layer=Layer.arch, vendor="amd"), source=cite(run),
                          section="AMD ROCm support (composable_kernel backend)",
                          note=f"{run.value} GPUs: MI200 is gfx90a, MI300 gfx942. {through(run)}"))
    for run in runs(rows, lambda r: r.get("rocm_floor") if r.get("rocm_gpus") else None):
        facts.append(Fact(id=fid(run, "rocm-toolkit"), relation=Relation.requires, subject=subjects(run, "rocm"),
                          object=Selector(layer=Layer.toolkit, family="rocm", version=f">={run.value}"),
                          source=cite(run), section="AMD ROCm support: requirements", note=through(run)))
    for run in runs(rows, lambda r: r.get("torch_floor")):
        facts.append(Fact(id=fid(run, "torch"), relation=Relation.requires, subject=subjects(run),
                          object=Selector(layer=Layer.framework, family="torch", version=f">={run.value}"),
                          source=cite(run), section="Requirements: PyTorch", note=through(run)))
    for run in runs(rows, lambda r: r.get("linux")):
        facts.append(Fact(id=fid(run, "os-linux"), relation=Relation.runs_on, subject=subjects(run),
                          object=Selector(layer=Layer.os, platform="linux"), source=cite(run),
                          section="Requirements: Linux", note=through(run)))
    return KBFile(sources=list(sources.values()), nodes=nodes, facts=facts)
