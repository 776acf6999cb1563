"""Memory sizes from vendor spec pages (data-inputs/vram-vendor-pages.csv), products sold in several
sizes (``vram_sizes_gb``) and how `vram` conditions treat them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from gpulane.api import build_graph
from gpulane.loaders.importers import INPUTS_DIR, ImportFormatError
from gpulane.loaders.importers import vram_table
from gpulane.model import Layer, Node
from gpulane.queries.parser import parse
from gpulane.queries.plan import plan

HEADER = "gpu,vram_gb,source,publisher,party,title,url,where\n"
PAGE = "nv-page,NVIDIA,vendor,A spec page,https://www.nvidia.com/example/"


def write(tmp_path: Path, rows: str) -> Path:
    path = tmp_path / vram_table.PAGES_FILE
    path.write_text("# a comment line\n" + HEADER + rows)
    return path


def test_rows_give_one_size_or_every_size_a_product_is_sold_in(tmp_path):
    path = write(tmp_path, f"gpu-one,24,{PAGE},Specs table: 24 GB\n"
                           f"gpu-two,12;8,{PAGE},\"Specs table: 8 GB, 12 GB\"\n")
    pages = vram_table.load_pages(path)
    assert pages["gpu-one"].attributes() == {"vram_gb": 24.0, "attribute_sources": {"vram_gb": "nv-page"}}
    assert pages["gpu-two"].attributes() == {"vram_sizes_gb": [8.0, 12.0],
                                             "attribute_sources": {"vram_sizes_gb": "nv-page"}}
    assert "8 or 12 GB" in pages["gpu-two"].sentence()
    kb = vram_table.parse_pages(path)
    assert [s.id for s in kb.sources] == ["nv-page"] and not kb.nodes and not kb.facts
    assert kb.sources[0].url == "https://www.nvidia.com/example/" and kb.sources[0].note is None


def test_a_third_party_page_carries_the_caveat(tmp_path):
    path = write(tmp_path, "gpu-x,8,press,A magazine,third-party,Review,https://press.example/x,spec table\n")
    row = vram_table.load_pages(path)["gpu-x"]
    assert row.source.note == vram_table.THIRD_PARTY_NOTE and "(third party)" in row.sentence()


@pytest.mark.parametrize("rows, line, words", [
    (f"gpu-a,,{PAGE},somewhere\n", 3, "filled cells"),
    (f"gpu-a,lots,{PAGE},somewhere\n", 3, "expected a size in GB"),
    (f"gpu-a,0,{PAGE},somewhere\n", 3, "above 0"),
    (f"gpu-a,8,{PAGE},somewhere\ngpu-a,8,{PAGE},elsewhere\n", 4, "earlier row"),
    (f"gpu-a,8,{PAGE},somewhere\ngpu-b,8,nv-page,NVIDIA,vendor,Another title,https://x.org/,w\n", 4, "another url"),
    ("gpu-a,8,p,NVIDIA,vendor,T,ftp://x.org/,w\n", 3, "http"),
    ("gpu-a,8,p,NVIDIA,somebody,T,https://x.org/,w\n", 3, "expected one of vendor, third-party"),
    (f"gpu-a,8,{PAGE},w,extra\n", 3, "filled cells"),
])
def test_bad_rows_are_named_by_line(tmp_path, rows, line, words):
    path = write(tmp_path, rows)
    with pytest.raises(ImportFormatError) as err:
        vram_table.load_pages(path)
    assert err.value.line == line and words in err.value.message


def test_wrong_columns_are_an_error(tmp_path):
    path = tmp_path / vram_table.PAGES_FILE
    path.write_text("gpu,size,url\nx,8,https://x.org/\n")
    with pytest.raises(ImportFormatError, match="expected the columns"):
        vram_table.load_pages(path)


def test_a_node_states_one_size_or_several_never_both():
    Node(id="g", layer=Layer.gpu, name="G", vram_sizes_gb=[8, 12])
    with pytest.raises(ValidationError, match="not both"):
        Node(id="g", layer=Layer.gpu, name="G", vram_gb=8, vram_sizes_gb=[8, 12])
    with pytest.raises(ValidationError, match="several"):
        Node(id="g", layer=Layer.gpu, name="G", vram_sizes_gb=[8])


# ------------------------------------------------------------------ queries

KB_TEXT = """\
sources:
  - {id: test, url: https://example.org/t, publisher: tests, title: T, version: "1", reviewed: 2026-12-01}
nodes:
  - {id: arch-x, layer: arch, name: Arch X, vendor: nvidia, source: test}
  - {id: two-sizes, layer: gpu, name: Two Sizes 60, vendor: nvidia, vram_sizes_gb: [8, 12], source: test}
  - {id: one-size, layer: gpu, name: One Size 90, vendor: nvidia, vram_gb: 24, source: test}
  - {id: no-size, layer: gpu, name: No Size 50, vendor: nvidia, source: test}
facts:
  - {id: a1, relation: has_arch, subject: two-sizes, object: arch-x, status: supported, source: test}
  - {id: a2, relation: has_arch, subject: one-size, object: arch-x, status: supported, source: test}
  - {id: a3, relation: has_arch, subject: no-size, object: arch-x, status: supported, source: test}
"""


@pytest.fixture(scope="module")
def sized(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kb")
    (folder / "kb.yaml").write_text(KB_TEXT)
    return build_graph(folder)


def gpus_where(kg, condition: str) -> set[str]:
    return set(plan(kg, parse(f"find gpu where {condition}")).problem.pins[Layer.gpu])


@pytest.mark.parametrize("condition, expected", [
    # every size meets it: the GPU qualifies
    ("vram >= 8", {"two-sizes", "one-size"}),
    ("vram > 4", {"two-sizes", "one-size"}),
    ("vram <= 12", {"two-sizes"}),
    ("vram != 16", {"two-sizes", "one-size"}),
    # some sizes meet it, some do not: unknown, so it is not counted as meeting it
    ("vram >= 12", {"one-size"}),
    ("vram < 10", set()),
    ("vram != 8", {"one-size"}),
    # no size meets it
    ("vram >= 16", {"one-size"}),
])
def test_a_condition_holds_for_a_product_of_several_sizes_only_if_it_holds_for_each(sized, condition, expected):
    assert gpus_where(sized, condition) == expected


def test_a_gpu_of_several_sizes_matches_equal_to_none_of_them(sized):
    # `vram = 8` would be a wrong "yes" for the 12 GB boards
    assert "two-sizes" not in gpus_where(sized, "vram = 24")
    from gpulane.errors import QueryError
    with pytest.raises(QueryError):
        gpus_where(sized, "vram = 8")  # no GPU has exactly 8 GB: the usual "no gpu has" error


# ------------------------------------------------------------------ shipped knowledge base


@pytest.fixture(scope="module")
def kg():
    return build_graph()


def test_every_vendor_page_row_is_on_its_node(kg):
    """Each row of the hand-kept CSV: the node exists, carries exactly that memory, cites the page."""
    pages = vram_table.load_pages(INPUTS_DIR / vram_table.PAGES_FILE)
    assert pages
    for gid, row in pages.items():
        assert gid in kg.nodes and kg.nodes[gid].layer is Layer.gpu, gid
        node = kg.nodes[gid]
        attrs = row.attributes()
        field = "vram_gb" if "vram_gb" in attrs else "vram_sizes_gb"
        assert getattr(node, field) == attrs[field], gid
        assert node.attribute_sources.get(field) == row.source.id, gid
        assert row.source.id in kg.sources, gid


def test_shipped_products_of_several_sizes(kg):
    """Vendor spec pages that list two memory sizes under one product name."""
    assert kg.nodes["h100-pcie"].vram_sizes_gb == [80.0, 94.0]
    assert kg.nodes["v100"].vram_sizes_gb == [16.0, 32.0] and kg.nodes["tesla-p100"].vram_sizes_gb == [12.0, 16.0]


def test_a_memory_filter_never_admits_a_board_that_may_lack_the_memory(kg):
    """V100: 16 and 32 GB boards. `vram >= 16` holds for every V100, `vram >= 32` not (unknown)."""
    assert "v100" in gpus_where(kg, "vram >= 16")
    assert "v100" not in gpus_where(kg, "vram >= 32")
    assert "h100-pcie" in gpus_where(kg, "vram >= 80") and "h100-pcie" not in gpus_where(kg, "vram >= 94")
