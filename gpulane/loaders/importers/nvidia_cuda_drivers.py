"""Importer for CUDA toolkit releases before 11.4 and their minimum drivers.

NVIDIA's CUDA release notes carry a table, "CUDA Toolkit and Corresponding Driver
Versions", with the minimum Linux and Windows driver of every toolkit release back to
CUDA 7.0. The knowledge base takes 11.4.0 and later from a transcription of that table
(``nvidia-cuda-release-notes.yaml``); the older rows were not readable from NVIDIA's
pages here. Meson's CUDA module (``mesonbuild/modules/cuda.py``) keeps the whole table
as data (``_DRIVER_TABLE_VERSION``, one ``_CudaVersion(release, windows, linux)`` per
row, a comment where later updates share a row) and says it is copied from NVIDIA's
release notes.

Input: a pinned JSON file (``cuda-driver-table.json``) that restates Meson's rows at a
tagged commit. :func:`extract` rebuilds it from the text of Meson's file (run it again to
refresh). :func:`parse` turns the rows for CUDA 10.0 up to, not including, 11.4.0 into
toolkit nodes and ``requires`` driver facts per platform; the rows from 11.4.0 on are
read and checked but emit nothing, because the release-notes file holds them.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .common import read_json_object
from .errors import ImportFormatError

__all__ = ["parse", "extract", "SOURCE", "FIRST_RELEASE", "HELD_ELSEWHERE_FROM"]

REVIEWED = date(2026, 12, 1)
MESON_TAG = "1.11.0"
MESON_COMMIT = "6ac66b9cbe36e861a4b10cf62d75ec181dfb291a"
MESON_PATH = "mesonbuild/modules/cuda.py"

SOURCE = Source(
    id="meson-cuda-driver-table",
    url=f"https://github.com/mesonbuild/meson/blob/{MESON_COMMIT}/{MESON_PATH}",
    publisher="mesonbuild/meson (third party, transcribing NVIDIA)",
    title="Meson CUDA module, _DRIVER_TABLE_VERSION (NVIDIA's CUDA Toolkit and Corresponding Driver Versions)",
    version=f"{MESON_TAG} ({MESON_COMMIT})",
    reviewed=REVIEWED,
    note=("Meson's comment says the table is copied from NVIDIA's CUDA Toolkit release notes. Its rows for "
          "CUDA 10.0-11.3 agree with other copies of NVIDIA's table on the web; NVIDIA's own page was not "
          "readable here past its opening."),
)

#: The oldest release imported: TensorFlow 2.0 (CUDA 10.0) is the oldest build the KB names.
FIRST_RELEASE = Version("10.0")
#: Releases from here on come from the release-notes transcription (nvidia-cuda-release-notes.yaml).
HELD_ELSEWHERE_FROM = Version("11.4.0")

_ROW = re.compile(
    r"""_CudaVersion\(\s*'(?P<release>[^']+)'\s*,\s*'(?P<windows>[^']+)'\s*,\s*'(?P<linux>[^']+)'\s*\)\s*,?"""
    r"""(?:\s*\#\s*(?P<same>[\d.]+)\s+is\s+identical)?""")
_DRIVER = re.compile(r"\d{3}\.\d{2,3}(?:\.\d{2})?")
_RELEASE = re.compile(r"\d+\.\d+\.\d+")


def extract(text: str) -> dict[str, Any]:
    """The input JSON's rows from the text of Meson's ``mesonbuild/modules/cuda.py``.

    One row per ``_CudaVersion(...)`` entry of ``_DRIVER_TABLE_VERSION``, in the file's
    order; ``same_as`` holds the release a trailing "# X is identical" comment names."""
    start = text.find("_DRIVER_TABLE_VERSION")
    start = text.find("= [", start) if start >= 0 else -1
    end = text.find("\n]", start) if start >= 0 else -1
    if start < 0 or end < 0:
        raise ValueError("no _DRIVER_TABLE_VERSION table in this file")
    rows = []
    for m in _ROW.finditer(text[start:end]):
        row = {"release": m["release"], "linux": m["linux"], "windows": m["windows"]}
        if m["same"]:
            row["same_as"] = [m["same"]]
        rows.append(row)
    return {
        "source": {"repository": "mesonbuild/meson", "tag": MESON_TAG, "commit": MESON_COMMIT, "path": MESON_PATH},
        "rows": rows,
    }


def _need(obj: dict, key: str, where: str, path: Path) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise ImportFormatError(path, None, f"{where}: missing '{key}'")
    return obj[key]


def _release(value: Any, where: str, path: Path) -> Version:
    try:
        return Version(str(value))
    except InvalidVersion:
        raise ImportFormatError(path, None, f"{where}: {value!r} is not a CUDA release such as '11.2.1'") from None


def _driver(value: Any, where: str, path: Path) -> str | None:
    """The driver version, or None where the table gives none ('unknown')."""
    if value == "unknown":
        return None
    if not isinstance(value, str) or not _DRIVER.fullmatch(value):
        raise ImportFormatError(path, None, f"{where}: {value!r} is not a driver version such as '460.27.03'")
    return value


def parse(path: Path) -> KBFile:
    """The KBFile for the pinned input JSON at ``path``."""
    path = Path(path)
    data = read_json_object(path, "'source' and 'rows'")
    src = _need(data, "source", "top level", path)
    if _need(src, "commit", "source", path) != MESON_COMMIT:
        raise ImportFormatError(path, None, f"source: the input restates Meson {src.get('commit')!r}, this importer "
                                            f"cites {MESON_COMMIT}; update both together")
    nodes: list[Node] = []
    facts: list[Fact] = []
    seen: set[Version] = set()
    for number, row in enumerate(_need(data, "rows", "top level", path), start=1):
        where = f"row {number}"
        release = _release(_need(row, "release", where, path), where, path)
        where = f"row {number} (CUDA {release})"
        linux = _driver(_need(row, "linux", where, path), where, path)
        windows = _driver(_need(row, "windows", where, path), where, path)
        if release in seen:
            raise ImportFormatError(path, None, f"{where}: CUDA {release} appears twice")
        seen.add(release)
        if not FIRST_RELEASE <= release < HELD_ELSEWHERE_FROM:
            continue
        # A row stands for its own release and for the later updates Meson says are identical;
        # four-part labels (11.0.3.1, a re-spin) name no separate release node.
        releases = [str(release)] + [s for s in row.get("same_as", []) if _RELEASE.fullmatch(s)]
        for version in releases:
            node_id = f"cuda-{version}"
            major, minor, _ = version.split(".")
            # CUDA 10.x numbers releases by build (10.2.89); people name them by major.minor.
            aliases = [f"CUDA {major}.{minor}"] if int(major) < 11 else []
            nodes.append(Node(id=node_id, layer=Layer.toolkit, name=f"CUDA {version}", aliases=aliases,
                              vendor="nvidia", family="cuda", version=version, source=SOURCE.id))
            section = f"_DRIVER_TABLE_VERSION, row '{release}'"
            if version != str(release):
                section += f" (Meson's comment: {version} is identical)"
            for platform, floor in (("linux", linux), ("windows", windows)):
                if floor is None:
                    continue
                facts.append(Fact(
                    id=f"{node_id}-{platform}-driver-min", relation=Relation.requires, subject=node_id,
                    object=Selector(layer=Layer.driver, vendor="nvidia", version=f">={floor}"),
                    when={Layer.os: Selector(layer=Layer.os, platform=platform)},
                    source=SOURCE.id, section=f"{section}, {platform} column",
                    note=(f"NVIDIA's minimum {platform.capitalize()} driver for CUDA {version}, from the release "
                          "notes' toolkit and driver table as Meson transcribes it.")))
    return KBFile(sources=[SOURCE], nodes=nodes, facts=facts)
