"""Importer for vLLM releases on PyPI: one app node per release, its torch pin.

Input: ``vllm-releases.json`` (committed in ``data-inputs/``): per
release the wheel METADATA PyPI serves (Requires-Dist, Requires-Python, the wheel file
name), read with ``pip install --dry-run --no-deps --report``, and, for the releases
whose versioned installation docs were read on docs.vllm.ai, the GPU requirement.

PyPI's vLLM wheels are CUDA builds (ROCm builds are not published there), so each node
is ``vllm-<version>`` with backend ``cuda``. Facts, one per release:

* ``requires`` torch ``==X`` — the ``torch`` Requires-Dist line (``torch==2.5.1``; a few
  early releases state a floor, ``torch >=2.1.0``); the pin has no local label, so any
  build of that torch release matches it;
* ``runs_on`` Linux — the wheel's platform tag is ``manylinux``;
* ``requires`` NVIDIA compute capability ``>=X`` — only for releases whose docs were read.

Two releases (0.2.1, 0.21.0) were published as source distributions only: their rows have
``wheel: null`` and ``sdist`` and give the Requires-Dist lines of the sdist's PKG-INFO; the
platform fact comes from the sdist's setup.py where a row quotes it (``linux_only``), else
there is none (0.2.1's setup.py names no platform).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .app_releases import REVIEWED, read_json
from .errors import ImportFormatError

INPUT = "vllm-releases.json"
SOURCE = Source(id="vllm-pypi", url="https://pypi.org/project/vllm/", publisher="vLLM project (PyPI)",
                title="vllm on PyPI: release files and their METADATA", version="releases 0.2.0 to 0.33.0",
                reviewed=REVIEWED)


def _torch_requirement(path: Path, version: str, requires: list[str]) -> Requirement | None:
    """The ``torch`` line of the Requires-Dist list, parsed (``torch (==2.3.1)``, ``torch==2.5.1;
    platform_machine != "aarch64"`` and ``torch ==2.1.2`` all occur); None where torch is not named."""
    for line in requires:
        try:
            req = Requirement(line)
        except InvalidRequirement as exc:
            raise ImportFormatError(path, None, f"release {version}: unreadable Requires-Dist line {line!r}: {exc}") from None
        if req.name == "torch":
            return req
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
        if not isinstance(version, str) or not re.fullmatch(r"\d+(\.\d+)+(\.post\d+)?", version):
            raise ImportFormatError(path, None, f"releases[{i}]: 'version' missing or not a release number")
        sdist = row.get("sdist")
        if not isinstance(requires, list) or not (isinstance(wheel, str) or (wheel is None and isinstance(sdist, str))):
            raise ImportFormatError(path, None, f"release {version}: 'requires_dist' and a 'wheel' (or, for a release "
                                                "without wheels, 'wheel': null and an 'sdist') are required")
        if version in seen:
            raise ImportFormatError(path, None, f"release {version} is listed twice")
        seen.add(version)
        node_id = f"vllm-{version}"
        reviewed = REVIEWED
        if row.get("reviewed") is not None:
            try:
                reviewed = dt.date.fromisoformat(row["reviewed"])
            except (TypeError, ValueError):
                raise ImportFormatError(path, None, f"release {version}: 'reviewed' is not a date (YYYY-MM-DD)") from None
        read = f"Wheel read: {wheel}" if wheel else f"No wheel on PyPI; source distribution read: {sdist} (PKG-INFO)"
        src = Source(id=f"vllm-pypi-{version}", url=f"https://pypi.org/project/vllm/{version}/",
                     publisher="vLLM project (PyPI)",
                     title=f"vllm {version} on PyPI ({'wheel METADATA' if wheel else 'sdist PKG-INFO'})",
                     version=version, reviewed=reviewed, note=read)
        sources.append(src)
        nodes.append(Node(id=node_id, layer=Layer.app, name=f"vLLM {version}", family="vllm", version=version,
                          backend="cuda", source=src.id,
                          note=("The PyPI wheel (a CUDA build); ROCm builds of vLLM are not published on PyPI." if wheel
                                else "Published on PyPI as a source distribution only (no wheel): its platform is not "
                                     "stated there.")))
        torch = _torch_requirement(path, version, requires)
        if torch is not None and str(torch.specifier):
            note = "The pin names no local label: any build of that torch release satisfies it."
            if torch.marker is not None:
                note += f" The line carries the marker `{torch.marker}`, which holds for this x86-64 wheel."
            facts.append(Fact(id=f"vllm-{version}-torch-pin", relation=Relation.requires, subject=node_id,
                              object=Selector(layer=Layer.framework, family="torch", version=str(torch.specifier)),
                              source=src.id, section="Requires-Dist: torch", note=note))
        if wheel is None and isinstance(row.get("linux_only"), str):
            facts.append(Fact(id=f"vllm-{version}-os-linux", relation=Relation.runs_on, subject=node_id,
                              object=Selector(layer=Layer.os, platform="linux"), source=src.id, exhaustive=True,
                              domain=Selector(layer=Layer.os, platform="windows"),
                              section="setup.py in the source distribution", note=row["linux_only"]))
        if wheel and "manylinux" in wheel:
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
