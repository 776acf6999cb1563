"""CUDA releases before 11.4 and their minimum drivers, from Meson's copy of NVIDIA's table.

Expected values were read in Meson's mesonbuild/modules/cuda.py at tag 1.11.0 (6ac66b9),
row by row, and agree with copies of NVIDIA's "CUDA Toolkit and Corresponding Driver
Versions" table: CUDA 11.2.0 needs 460.27.03 (Linux) / 460.82 (Windows), 11.0.3 needs
450.51.06 / 451.82, 10.0.130 needs 410.48 / 411.31.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulane.api import build_graph
from gpulane.graph.check import check_graph
from gpulane.loaders.importers import DATA_DIR, IMPORTERS, INPUTS_DIR, ImportFormatError, _header, dump_kbfile
from gpulane.loaders.importers.nvidia_cuda_drivers import extract, parse

IMP = IMPORTERS["nvidia-cuda-drivers"]
FIX = Path(__file__).resolve().parents[1] / "fixtures" / "importers"


def test_shipped_file_equals_a_fresh_import():
    kb = IMP.parse(INPUTS_DIR / IMP.default_input)
    assert (DATA_DIR / IMP.target).read_text(encoding="utf-8") == dump_kbfile(kb, _header(IMP, IMP.default_input))


def test_extract_reads_every_row_and_the_identical_comments():
    data = extract((FIX / "cuda-driver-table-small.py.txt").read_text())
    rows = {r["release"]: r for r in data["rows"]}
    assert list(rows) == ["13.0.0", "11.4.0", "11.3.0", "11.2.0", "11.0.3", "10.1.105", "9.2.148"]
    assert rows["11.2.0"] == {"release": "11.2.0", "linux": "460.27.03", "windows": "460.82"}
    assert rows["11.3.0"]["same_as"] == ["11.3.1"]
    assert rows["13.0.0"]["windows"] == "unknown"


def _input(tmp_path, text):
    data = extract(text)
    path = tmp_path / "table.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_parse_keeps_10_0_up_to_11_4_only(tmp_path):
    kb = parse(_input(tmp_path, (FIX / "cuda-driver-table-small.py.txt").read_text()))
    nodes = {n.id: n for n in kb.nodes}
    # 11.4.0 and 13.0.0 are the release-notes file's; 9.2 is older than any build the KB names;
    # 11.3.1 shares 11.3.0's row; 11.0.3.1 (a four-part re-spin) gets no node of its own.
    assert sorted(nodes) == ["cuda-10.1.105", "cuda-11.0.3", "cuda-11.2.0", "cuda-11.3.0", "cuda-11.3.1"]
    assert nodes["cuda-10.1.105"].aliases == ["CUDA 10.1"]
    facts = {f.id: f for f in kb.facts}
    linux = facts["cuda-11.2.0-linux-driver-min"]
    assert (linux.object.vendor, linux.object.version) == ("nvidia", ">=460.27.03")
    assert linux.when["os"].platform.value == "linux"
    assert facts["cuda-11.2.0-windows-driver-min"].object.version == ">=460.82"
    assert facts["cuda-11.3.1-linux-driver-min"].object.version == ">=465.19.01"
    assert "11.3.1 is identical" in facts["cuda-11.3.1-linux-driver-min"].section


@pytest.mark.parametrize("bad, message", [
    ("_CudaVersion('11.2.0', '460.82', 'N/A')", "not a driver version"),
    ("_CudaVersion('eleven', '460.82', '460.27.03')", "not a CUDA release"),
])
def test_bad_rows_are_named(tmp_path, bad, message):
    text = f"_DRIVER_TABLE_VERSION: T.List[_CudaVersion] = [\n    {bad},\n]\n"
    with pytest.raises(ImportFormatError, match=message):
        parse(_input(tmp_path, text))


def test_shipped_releases_and_floors():
    kg = build_graph()
    # TensorFlow's tested builds name CUDA 10.0, 10.1, 11.0 and 11.2: each now selects a release.
    for node_id in ("cuda-10.0.130", "cuda-10.1.105", "cuda-11.0.3", "cuda-11.2.0", "cuda-11.2.2", "cuda-11.3.1"):
        assert kg.nodes[node_id].family == "cuda"
    assert kg.fact_by_id["cuda-10.0.130-linux-driver-min"].fact.object.version == ">=410.48"
    assert kg.fact_by_id["cuda-10.0.130-windows-driver-min"].fact.object.version == ">=411.31"
    assert kg.fact_by_id["cuda-11.0.3-windows-driver-min"].fact.object.version == ">=451.82"
    assert not [p for p in check_graph(kg) if "tensorflow" in p.message]
