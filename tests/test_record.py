import datetime as dt
import json
from pathlib import Path

import pytest

from gpulane.cli.probe_commands import RecordWriteError, record_command
from gpulane.errors import QueryError

SNAPSHOTS = Path(__file__).resolve().parent / "fixtures" / "record"
TODAY = dt.date(2026, 12, 1)
RX = 'gpu = "RX 7900 XTX", os = "Ubuntu 24.04", app = vLLM'
GTX = 'gpu = "GTX 1050", os = "Ubuntu 24.04", framework = "torch 2.8.0+cu128"'


@pytest.fixture(scope="module")
def kg():
    from gpulane.api import load_graph
    return load_graph()


def test_rx7900xtx_vllm_markdown_snapshot(kg, capsys):
    record_command(RX, "markdown", "safetensors", "AWQ 4-bit", "32k", None, kg=kg, today=TODAY)
    assert capsys.readouterr().out == (SNAPSHOTS / "rx7900xtx-ubuntu2404-vllm.md").read_text(encoding="utf-8")


def test_gtx1050_torch_break_markdown_snapshot(kg, capsys):
    record_command(GTX, "markdown", None, None, None, None, kg=kg, today=TODAY)
    out = capsys.readouterr().out
    assert out == (SNAPSHOTS / "gtx1050-torch280cu128.md").read_text(encoding="utf-8")
    assert "**Verdict:** ✗ not supported" in out
    assert "  arch -.->|✗| framework" in out


def test_json_record_has_the_same_facts_and_an_empty_test_log(kg, capsys, tmp_path):
    target = tmp_path / "record.json"
    record_command(GTX, "json", "GGUF", "Q4_K_M", "8k", target, kg=kg, today=TODAY)
    assert capsys.readouterr().out == f"wrote {target}\n"
    data = json.loads(target.read_text())
    assert data["verdict"] == "not_supported"
    assert data["stated"] == {"model format": "GGUF", "quantization": "Q4_K_M", "context": "8k"}
    assert [c["test"] for c in data["checklist"]] == ["model load", "prompt processing", "generation", "memory use",
                                                      "second cold start"]
    assert data["date_tested"] is None
    kernels = next(s for s in data["statements"] if s["fact"] == "torch-2.8.0+cu128-kernels")
    assert kernels["url"].startswith("https://github.com/pytorch/pytorch/") and kernels["reviewed"] == "2026-11-30"
    assert list(tmp_path.iterdir()) == [target]  # no temporary file left behind


def test_bad_format_empty_config_and_unwritable_output(kg, tmp_path):
    with pytest.raises(QueryError, match="unknown record format 'pdf'"):
        record_command(RX, "pdf", None, None, None, None, kg=kg)
    with pytest.raises(QueryError, match="record needs a configuration"):
        record_command("  ", "markdown", None, None, None, None, kg=kg)
    with pytest.raises(RecordWriteError, match="cannot write the record"):
        record_command(RX, "markdown", None, None, None, tmp_path / "missing-dir" / "r.md", kg=kg, today=TODAY)
