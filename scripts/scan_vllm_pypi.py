"""Merge pip installation reports of vLLM releases into the pinned importer input
(data-inputs/vllm-releases.json).

A report per release is what pip writes when it resolves the release without installing
it; pip then reads only the wheel's METADATA file (PEP 658), not the wheel:

    pip install --dry-run --no-deps --ignore-installed --only-binary :all: --target /tmp/t \\
        --python-version 3.11 --platform manylinux1_x86_64 --platform manylinux2014_x86_64 \\
        --platform manylinux_2_28_x86_64 --platform manylinux_2_31_x86_64 \\
        --platform manylinux_2_35_x86_64 --report report-X.json vllm==X

Usage: python scripts/scan_vllm_pypi.py data-inputs/vllm-releases.json report-*.json

Rows already in the input are kept as they are (a report for the same version must agree
on the Requires-Dist list, or the script stops); new rows are added, and the list is
written oldest release first.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

from packaging.version import Version


# The Requires-Dist lines kept in the input: the torch family and the GPU kernel packages
# (the rest, tokenizers, web servers..., says nothing about the GPU stack).
KEPT = ("numpy", "torch", "xformers", "vllm-flash-attn", "flashinfer", "triton", "nvidia-")


def row_of(report_path: Path) -> dict:
    report = json.loads(report_path.read_text())
    (item,) = report["install"]
    meta = item["metadata"]
    if meta["name"].lower() != "vllm":
        raise SystemExit(f"{report_path}: not a vllm report ({meta['name']})")
    return {"version": meta["version"], "requires_python": meta.get("requires_python"),
            "requires_dist": [d for d in meta.get("requires_dist", []) if "extra ==" not in d and d.startswith(KEPT)],
            "wheel": item["download_info"]["url"].rsplit("/", 1)[1]}


def main() -> None:
    target, reports = Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]]
    data = json.loads(target.read_text())
    by_version = {r["version"]: r for r in data["releases"]}
    for path in reports:
        row = row_of(path)
        old = by_version.get(row["version"])
        if old is not None:
            if [d.replace(" ", "") for d in old["requires_dist"] if d.startswith("torch")] != \
               [d.replace(" ", "") for d in row["requires_dist"] if d.startswith("torch")]:
                raise SystemExit(f"{path}: the torch line differs from the pinned row of {row['version']}")
            continue
        row["reviewed"] = dt.date.today().isoformat()  # the day the METADATA was read
        by_version[row["version"]] = row
    rows = sorted(by_version.values(), key=lambda r: Version(r["version"]))
    out = ['{"note": ' + json.dumps(data["note"]) + ",", '"releases": [']
    out.append(",\n".join(json.dumps(r) for r in rows))
    out.append("],")
    out.append('"docs": [')
    out.append(",\n".join(json.dumps(d) for d in data.get("docs", [])))
    out.append("]}")
    target.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
