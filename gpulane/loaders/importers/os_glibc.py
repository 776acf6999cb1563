"""The GNU C library version each Linux release ships, from the pep600_compliance survey.

pep600_compliance (maintained by a manylinux maintainer) runs each distribution's x86_64
container image and records, among other things, the glibc version it finds
(``cache/x86_64/<image>.json``, key ``glibc_version``). The pinned input
``data-inputs/os-glibc.json`` holds, per OS release the knowledge base models, the image it
was read from, the commit and the version; :func:`extract` reads them again from a checkout.

The output is OS nodes carrying ``glibc`` (merged into the shared OS file, citing this source
for that attribute) and the sources. A wheel built for ``manylinux_2_28`` runs only where glibc
is 2.28 or newer (PEP 600); the PyTorch importer states that floor per build.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from pathlib import Path

from gpulane.model import KBFile, Node, Source

from .common import os_node, parse_os_list, read_json_object
from .errors import ImportFormatError

__all__ = ["parse", "extract", "SOURCES"]

_PUBLISHER = "pep600_compliance (a manylinux maintainer's survey of distribution images)"
_REVIEWED = dt.date(2026, 12, 1)


def _source(commit: str) -> Source:
    return Source(
        id=f"pep600-compliance-{commit[:7]}",
        url=f"https://github.com/mayeut/pep600_compliance/tree/{commit}/cache/x86_64",
        publisher=_PUBLISHER,
        title="pep600_compliance cache: the glibc version measured in each distribution's x86_64 container image",
        version=commit,
        reviewed=_REVIEWED,
    )


# Two snapshots: the older one still holds the images of releases that have since reached end of
# life (CentOS 7, UBI 7); the newer one adds Debian 13 and Oracle Linux 10.
SOURCES = (_source("3ccd8f865f8513bcea9ccc1361ad20595392e9a2"), _source("2d70275ac1292c0f8750c0863df9d367a4967ebd"))


def parse(path: Path) -> KBFile:
    """OS nodes with their glibc version, from the pinned input JSON at ``path``."""
    path = Path(path)
    data = read_json_object(path, "'releases'")
    if not isinstance(data.get("releases"), list):
        raise ImportFormatError(path, None, "expected a JSON object with 'releases'")
    known = {s.id for s in SOURCES}
    nodes: list[Node] = []
    for index, rel in enumerate(data["releases"], 1):
        where = f"release {index}"
        name, src, glibc = rel.get("os"), rel.get("source"), rel.get("glibc")
        refs = parse_os_list(name) if isinstance(name, str) else None
        if not refs or len(refs) != 1:
            raise ImportFormatError(path, None, f"{where}: 'os' must name one OS release such as 'Ubuntu 24.04', "
                                                f"found {name!r}")
        if src not in known:
            raise ImportFormatError(path, None, f"{where} ({name}): source {src!r} is not in 'sources'")
        if not isinstance(glibc, str) or not re.fullmatch(r"\d+\.\d+", glibc):
            raise ImportFormatError(path, None, f"{where} ({name}): expected a glibc version such as '2.39', "
                                                f"found {glibc!r}")
        node = os_node(refs[0], None)
        nodes.append(node.model_copy(update={"glibc": glibc, "attribute_sources": {"glibc": src}}))
    return KBFile(sources=list(SOURCES), nodes=nodes)


def extract(repo: Path, rows: list[tuple[str, str, str]]) -> list[dict]:
    """Read ``glibc_version`` for each (OS name, image, commit) from a pep600_compliance checkout."""
    out = []
    for name, image, commit in rows:
        text = subprocess.run(["git", "--git-dir", str(repo), "show", f"{commit}:cache/x86_64/{image}.json"],
                              capture_output=True, text=True, check=True, timeout=60).stdout
        out.append({"os": name, "image": image, "source": f"pep600-compliance-{commit[:7]}",
                    "glibc": json.loads(text)["glibc_version"]})
    return out
