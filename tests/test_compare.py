"""compare: the grid of GPUs × OSes × apps, as data, text, Markdown and JSON, and as a statement."""

from __future__ import annotations

import json

import pytest

from gpulane.cli.render_compare import compare_json, compare_markdown, compare_text
from gpulane.errors import QueryError, UnknownNameError
from gpulane.model import Layer
from gpulane.queries.compare import compare, compare_statement, default_oses, default_rows, newest_ubuntu_lts
from gpulane.queries.parser import parse
from tests.test_cli import gpulane

STATES = {"supported", "workaround", "not_supported", "unknown"}


@pytest.fixture(scope="module")
def amd_vs_nvidia(shipped):
    return compare(shipped, ["RX 7900 XTX", "RTX 4090"])


def _cell(result, row_label, gpu_name, os_label):
    r = next(i for i, row in enumerate(result.rows) if row.label == row_label)
    c = next(i for i, col in enumerate(result.columns) if col.gpu_name == gpu_name and col.os_label == os_label)
    return result.cell(r, c)


def test_default_axes_are_the_families_and_oses_in_the_knowledge_base(shipped):
    labels = [r.label for r in default_rows(shipped)]
    # Every default family the shipped knowledge base holds, in the order.
    assert labels == ["PyTorch", "vLLM", "llama.cpp", "Ollama", "ComfyUI", "FlashAttention", "bitsandbytes",
                      "xFormers"]
    # Ubuntu 24.04 is the newest LTS release among the OS nodes (LTS releases are even years, April).
    assert newest_ubuntu_lts(shipped) == "Ubuntu 24.04"
    assert default_oses(shipped)[:2] == ["Ubuntu 24.04", "Windows 11"]


def test_every_cell_is_decided_or_unknown_and_every_cross_names_its_edge(amd_vs_nvidia):
    result = amd_vs_nvidia
    assert len(result.cells) == len(result.rows) * len(result.columns) == 8 * 6
    for cell in result.cells.values():
        assert cell.status in STATES
        if cell.status == "not_supported":
            assert cell.breaking is not None and cell.breaking.kind != "unknown"
        if cell.status == "supported":
            assert cell.toolkit  # the path's toolkit (or who bundles it)


def test_vllm_on_windows_breaks_on_the_app_os_edge(amd_vs_nvidia):
    # vLLM's GPU installation page: no native Windows support.
    cell = _cell(amd_vs_nvidia, "vLLM", "Radeon RX 7900 XTX", "Windows 11")
    assert cell.status == "not_supported"
    assert (cell.breaking.edge.upper, cell.breaking.edge.lower) == (Layer.app, Layer.os)
    assert "vllm-os-windows-native" in [cf.id for cf in cell.breaking.facts]
    # "vLLM" is every release; vLLM 0.2.1 (a CUDA build published as an sdist only) names no
    # platform in any file of it, so with an NVIDIA card the app → os edge is unknown, not "no".
    cell = _cell(amd_vs_nvidia, "vLLM", "GeForce RTX 4090", "Windows 11")
    assert cell.status == "unknown"
    assert (cell.breaking.edge.upper, cell.breaking.edge.lower) == (Layer.app, Layer.os)


def test_supported_cells_carry_the_toolkit_of_their_lane(amd_vs_nvidia):
    amd = _cell(amd_vs_nvidia, "PyTorch", "Radeon RX 7900 XTX", "Ubuntu 24.04")
    nvidia = _cell(amd_vs_nvidia, "PyTorch", "GeForce RTX 4090", "Ubuntu 24.04")
    assert amd.status == nvidia.status == "supported"
    assert amd.toolkit.startswith("ROCm") and "rocm" in amd.build
    assert nvidia.toolkit.startswith("CUDA") and "cu" in nvidia.build.split("+")[1]
    # Ollama ships its own runtime (its docs: the bundled libraries), so no toolkit is installed.
    # (by the backend the path uses, "Ollama (ROCm)", now that "Ollama" also names every release)
    assert _cell(amd_vs_nvidia, "Ollama", "Radeon RX 7900 XTX", "Ubuntu 24.04").toolkit.startswith("bundled by Ollama")


def test_an_os_missing_from_the_knowledge_base_is_a_column_of_unknowns_with_a_note(shipped):
    result = compare(shipped, ["RX 7900 XTX"], oses=["Ubuntu 24.04", "Plan 9"], apps=["vLLM"])
    absent = [c for c in result.columns if c.absent]
    assert [c.os_label for c in absent] == ["Plan 9"]
    cell = _cell(result, "vLLM", "Radeon RX 7900 XTX", "Plan 9")
    assert cell.status == "unknown" and cell.answer is None and "not an OS in this knowledge base" in cell.note
    assert result.notes and "Plan 9" in result.notes[0]
    assert "OS not in KB" in compare_text(shipped, result)


def test_the_statement_and_the_arguments_give_the_same_grid(shipped):
    by_args = compare(shipped, ["RX 7900 XTX", "RTX 4090"], oses=["Windows 11"], apps=["vLLM", "Ollama"])
    by_text = compare_statement(shipped, parse(
        'compare gpu in {"RX 7900 XTX", "RTX 4090"} where os = "Windows 11" and app in {vLLM, Ollama} over app, os'))
    assert [c.status for _, c in sorted(by_args.cells.items())] == [c.status for _, c in sorted(by_text.cells.items())]
    assert [r.label for r in by_text.rows] == ["vLLM", "Ollama"]


def test_over_app_alone_leaves_the_os_open(shipped):
    result = compare_statement(shipped, parse('compare gpu in {"RTX 4090"} where app = vLLM over app'))
    assert [c.os_label for c in result.columns] == [None]
    assert result.cell(0, 0).status == "supported"  # on some OS (Linux)


def test_mistakes_point_at_the_word(shipped):
    with pytest.raises(UnknownNameError) as err:
        compare_statement(shipped, parse('compare gpu in {"RX 7900 XTXX", "RTX 4090"}'))
    assert err.value.span.column == len('compare gpu in {"') and "Radeon RX 7900 XTX" in (err.value.hint or "")
    with pytest.raises(QueryError) as err:
        compare_statement(shipped, parse('compare gpu in {"RTX 4090"} over toolkit'))
    assert err.value.code == "bad_axis"


def test_family_synonyms_resolve_to_the_family(shipped):
    # "FlashAttention" is the family flash-attention (FlashAttention-2, -3, -4).
    found = shipped.names.resolve("FlashAttention", Layer.app)
    assert {i for r in found for i in r.ids} == set(shipped.names.families["flashattention"][Layer.app])


def test_markdown_and_json_carry_the_same_cells(shipped, amd_vs_nvidia):
    md = compare_markdown(shipped, amd_vs_nvidia)
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table) == 2 + 8 and all(line.count(" | ") == 6 for line in table if not line.startswith("|---"))
    data = compare_json(shipped, amd_vs_nvidia)
    assert len(data["cells"]) == 48 and {c["status"] for c in data["cells"]} <= STATES
    crosses = [c for c in data["cells"] if c["status"] == "not_supported"]
    assert crosses and all(c["breaking_edge"]["edge"] and c["reason"] and c["facts"] for c in crosses)
    for c in data["cells"]:
        assert all(1 <= n <= len(data["sources"]) for n in c["sources"])


@pytest.mark.parametrize("gpus", [("RX 7900 XTX", "RTX 4090"), ("Radeon PRO W7900", "RTX A6000")])
def test_the_command_prints_the_grid(gpus):
    out = gpulane("compare", *gpus).stdout
    assert "✗ app→os" in out  # vLLM on Windows 11, in both lanes
    assert "vLLM does not run on Windows 11" in out
    assert "sources:" in out and "https://" in out
    data = json.loads(gpulane("compare", *gpus, "--format", "json").stdout)
    assert len(data["cells"]) == len(data["rows"]) * len(data["columns"])


def test_the_command_and_the_query_statement_agree():
    out = gpulane("query", 'compare gpu in {"RX 7900 XTX", "RTX 4090"} where app = vLLM over app, os', "--json").stdout
    data = json.loads(out)
    assert [r["label"] for r in data["rows"]] == ["vLLM"]
    bad = gpulane("compare", "RX 7900 XTXX", "RTX 4090", check=2)
    assert "^" in bad.stderr and "did you mean" in bad.stderr
    assert "unknown format" in gpulane("compare", "RTX 4090", "--format", "html", check=2).stderr
