"""Importer for the legacy driver branch of NVIDIA GPUs, from NVIDIA's ``supported-gpus.json``.

NVIDIA ships ``supported-gpus/supported-gpus.json`` in every Linux driver package: one
entry per PCI device (and subsystem), with ``legacybranch`` naming the last driver branch
that supports a device no longer supported by the current one ("470.xx" for Kepler GPUs).
The copy read here comes from Ubuntu's ``nvidia-driver-525`` package for focal, as kept in
the alex-tu-cc/get-nvidia-supported-gpus-json repository (its script downloads the package
source and copies the file unchanged).

Input: ``data-inputs/supported-gpus-525-legacy.json``, the entries of that file whose device
has ``"legacybranch": "470.xx"`` or ``"367.xx"`` (the branches of the GPUs in the catalogue;
older ones are pre-Kepler), each entry byte for byte. Output: one ``requires`` fact per
branch, GPU -> NVIDIA driver older than the next major version, for every catalogue GPU
whose PCI devices are all listed with that branch. GPUs a hand-written fact already gives a
driver requirement keep it; a GPU with one device the file does not name keeps none.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import yaml

from gpulane.model import Fact, KBFile, Layer, Relation, Selector, Source

from .common import read_source
from .errors import ImportFormatError

__all__ = ["parse", "SOURCE", "TARGET"]

COMMIT = "40678c28e943cf34be39ee436b7a3cddf21bfebf"
TARGET = "nvidia-legacy-branches.yaml"
DATA_DIR = Path(__file__).resolve().parents[2] / "data"

SOURCE = Source(
    id="nvidia-supported-gpus-json-525",
    url=f"https://github.com/alex-tu-cc/get-nvidia-supported-gpus-json/blob/{COMMIT}/"
        "focal-nvidia-driver-525-supported-gpus.json",
    publisher="NVIDIA (copy from Ubuntu's nvidia-driver-525 package)",
    title="supported-gpus.json of the NVIDIA Linux driver 525 (Ubuntu focal package nvidia-driver-525): "
          "legacy driver branch per PCI device",
    version=COMMIT,
    reviewed=dt.date(2026, 12, 1),
    note="NVIDIA's own file, copied from the Ubuntu package into a third-party repository. An entry's "
         "legacybranch names the last driver branch that supports the device; devices without one are "
         "supported by driver 525 itself.",
)

_DEVID = re.compile(r"^0x[0-9A-Fa-f]{4}$")
_BRANCH = re.compile(r"^(\d+)(\.\d+)*\.xx$")


def _branches(path: Path) -> dict[str, set[str]]:
    """PCI id ("10de:0fc6") -> the legacy branches its entries name."""

    try:
        chips = json.loads(read_source(path))["chips"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ImportFormatError(path, None, f"expected a JSON object with a 'chips' list ({exc})") from None
    out: dict[str, set[str]] = {}
    for index, chip in enumerate(chips):
        if not isinstance(chip, dict):
            raise ImportFormatError(path, None, f"chips[{index}]: expected an object")
        devid, branch = chip.get("devid", ""), chip.get("legacybranch")
        if not _DEVID.match(str(devid)):
            raise ImportFormatError(path, None, f"chips[{index}]: expected a 'devid' such as \"0x1180\"")
        if branch is None or not _BRANCH.match(str(branch)):
            raise ImportFormatError(path, None, f"chips[{index}] ({devid}): expected a 'legacybranch' such as "
                                                f"\"470.xx\" (the input keeps only legacy entries)")
        out.setdefault(f"10de:{devid[2:].lower()}", set()).add(branch)
    return out


def _catalogue(data_dir: Path) -> tuple[dict[str, list[str]], set[str]]:
    """NVIDIA GPU id -> PCI ids, and the GPUs another file already gives a driver requirement."""

    gpus: dict[str, list[str]] = {}
    stated: set[str] = set()
    for path in sorted(Path(data_dir).glob("*.yaml")):
        if path.name == TARGET:
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for node in data.get("nodes", []) or []:
            if node.get("layer") == "gpu" and node.get("vendor") == "nvidia" and node.get("pci_ids"):
                gpus[node["id"]] = list(node["pci_ids"])
        for fact in data.get("facts", []) or []:
            target = fact.get("object")
            if fact.get("relation") == "requires" and isinstance(target, dict) and target.get("layer") == "driver":
                subject = fact.get("subject")
                stated.update([subject] if isinstance(subject, str) else subject or [])
    return gpus, stated


def parse(path: Path, data_dir: Path = DATA_DIR) -> KBFile:
    path = Path(path)
    branches = _branches(path)
    gpus, stated = _catalogue(data_dir)
    groups: dict[str, list[str]] = {}
    for gid, pci_ids in sorted(gpus.items()):
        if gid in stated or not all(p in branches for p in pci_ids):
            continue
        found = set().union(*(branches[p] for p in pci_ids))
        if len(found) == 1:
            groups.setdefault(found.pop(), []).append(gid)
    facts = []
    for branch, ids in sorted(groups.items(), key=lambda kv: int(kv[0].split(".")[0])):
        major = int(branch.split(".")[0])
        facts.append(Fact(
            id=f"nvidia-legacy-branch-r{major}",
            relation=Relation.requires, subject=ids,
            object=Selector(layer=Layer.driver, vendor="nvidia", version=f"<{major + 1}"),
            source=SOURCE.id, section=f'chips entries with "legacybranch": "{branch}"',
            note=f"Every PCI device of these GPUs is listed with legacy branch {branch}, read as 'driver "
                 f"{major}.x or older' (NVIDIA branch numbers are the driver major version).",
            caveat="From the file of driver 525: a device it lists without a legacy branch may have moved to "
                   "one in a later driver.",
        ))
    return KBFile(sources=[SOURCE] if facts else [], nodes=[], facts=facts)
