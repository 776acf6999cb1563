"""Importer for vLLM releases on PyPI: one app node per release, its torch pin.

Input: ``vllm-releases.json`` (committed in ``data-inputs/``): per
release the wheel METADATA PyPI serves (Requires-Dist, Requires-Python, the wheel file
name), read with ``pip install --dry-run --no-deps --report``, and, for the releases
whose versioned installation docs were read on docs.vllm.ai, the GPU requirement.

PyPI's vLLM wheels are CUDA builds (ROCm builds are not published there), so each node
is ``vllm-<version>`` with backend ``cuda``. Facts, one per release:

* ``requires`` torch ``==X`` — the ``torch`` Requires-Dist line (``torch==2.5.1``); the
  pin has no local label, so any build of that torch release matches it;
* ``runs_on`` Linux — the wheel's platform tag is ``manylinux``;
* ``requires`` NVIDIA compute capability ``>=X`` — only for releases whose docs were read.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .app_releases import REVIEWED, read_json
from .errors import ImportFormatError

INPUT = "vllm-releases.json"
SOURCE = Source(id="vllm-pypi", url="https://pypi.org/project/vllm/", publisher="vLLM project (PyPI)",
                title="vllm on PyPI: release files and their METADATA", version="releases 0.2.0 to 0.33.0",
                reviewed=REVIEWED)


def _torch_spec(path: Path, version: str, requires: list[str]) -> str | None:
    for line in requires:
        m = re.fullmatch(r"torch\s*([<>=!~].*)", line.strip())
        if m:
            return m.group(1).replace(" ", "")
    return None


def parse(path: Path) -> KBFile:
    path = Path(path)
    data, rows = read_json(path, "releases")
    sources: list[Source] = [SOURCE]
    nodes: list[Node] = []
    facts: list[Fact] = []
    seen: set[str] = set()
    for i, row in enumerate(rows):
        version, wheel, requires = row.get("version"), row.get("wheel"), row.get("requires_dist")
        if not isinstance(version, str) or not re.fullmatch(r"\d+(\.\d+)+", version):
            raise ImportFormatError(path, None, f"releases[{i}]: 'version' missing or not a release number")
        if not isinstance(wheel, str) or not isinstance(requires, list):
            raise ImportFormatError(path, None, f"release {version}: 'wheel' and 'requires_dist' are required")
        if version in seen:
            raise ImportFormatError(path, None, f"release {version} is listed twice")
        seen.add(version)
        node_id = f"vllm-{version}"
        src = Source(id=f"vllm-pypi-{version}", url=f"https://pypi.org/project/vllm/{version}/",
                     publisher="vLLM project (PyPI)", title=f"vllm {version} on PyPI (wheel METADATA)",
                     version=version, reviewed=REVIEWED, note=f"Wheel read: {wheel}")
        sources.append(src)
        nodes.append(Node(id=node_id, layer=Layer.app, name=f"vLLM {version}", family="vllm", version=version,
                          backend="cuda", source=src.id,
                          note="The PyPI wheel (a CUDA build); ROCm builds of vLLM are not published on PyPI."))
        spec = _torch_spec(path, version, requires)
        if spec is not None:
            facts.append(Fact(id=f"vllm-{version}-torch-pin", relation=Relation.requires, subject=node_id,
                              object=Selector(layer=Layer.framework, family="torch", version=spec),
                              source=src.id, section="Requires-Dist: torch",
                              note="The pin names no local label: any build of that torch release satisfies it."))
        if "manylinux" in wheel:
            facts.append(Fact(id=f"vllm-{version}-os-linux", relation=Relation.runs_on, subject=node_id,
                              object=Selector(layer=Layer.os, platform="linux"), source=src.id, exhaustive=True,
                              domain=Selector(layer=Layer.os, platform="windows"),
                              section="wheel platform tag (manylinux)",
                              note=f"Wheel file {wheel}: PyPI has Linux (manylinux) wheels of vLLM only."))
    docs = data.get("docs") or []
    for j, doc in enumerate(docs):
        version = doc.get("version")
        if version not in seen or not isinstance(doc.get("url"), str):
            raise ImportFormatError(path, None, f"docs[{j}]: needs a 'version' of a listed release and a 'url'")
        src = Source(id=f"vllm-docs-installation-{version}", url=doc["url"], publisher="vLLM project",
                     title=f"vLLM {version} documentation: Installation", version=f"v{version}", reviewed=REVIEWED)
        sources.append(src)
        if doc.get("cuda_cc_floor"):
            facts.append(Fact(id=f"vllm-{version}-cuda-cc-floor", relation=Relation.requires, subject=f"vllm-{version}",
                              object=Selector(layer=Layer.arch, vendor="nvidia",
                                              compute_capability=f">={doc['cuda_cc_floor']}"),
                              source=src.id, section=doc.get("section") or "Requirements",
                              note="GPU requirement of the CUDA build (the PyPI wheel)."))
    return KBFile(sources=sources, nodes=nodes, facts=facts)
