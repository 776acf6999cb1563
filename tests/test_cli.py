"""The command line on the shipped knowledge base: JSON shapes, names, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import os
import tempfile

import pytest

# One cache for every command here: the first call compiles the graph, the rest reuse it.
_CACHE = tempfile.mkdtemp(prefix="gpulane-cli-cache-")


def gpulane(*args: str, check: int | None = 0) -> subprocess.CompletedProcess:
    env = {**os.environ, "GPULANE_CACHE_DIR": _CACHE}
    env.pop("GPULANE_DATA", None)
    out = subprocess.run([sys.executable, "-m", "gpulane", *args], capture_output=True, text=True, env=env)
    if check is not None:
        assert out.returncode == check, out.stderr
    assert "Traceback" not in out.stderr
    return out


def test_kb_stats_json_meets_the_coverage_targets():
    stats = json.loads(gpulane("kb", "stats", "--json").stdout)
    assert set(stats) >= {"nodes", "facts", "sources"}
    assert set(stats["nodes"]) == {"gpu", "arch", "os", "driver", "toolkit", "framework", "app"}
    assert stats["nodes"]["gpu"] >= 150
    assert stats["nodes"]["framework"] >= 40
    assert stats["nodes"]["app"] >= 15


def test_stats_count_releases(shipped):
    rocm = [n for n in shipped.nodes.values() if n.family == "rocm"]
    cuda = [n for n in shipped.nodes.values() if n.family == "cuda"]
    assert len({n.version for n in rocm}) >= 23
    assert len(cuda) >= 40


@pytest.mark.parametrize("name, node_id", [("7900 XTX", "radeon-rx-7900-xtx"), ("w7900", "radeon-pro-w7900"),
                                           ("4090", "geforce-rtx-4090"), ("RTX PRO 6000", "rtx-pro-6000-blackwell")])
def test_show_json_has_attributes_and_cited_facts(name, node_id):
    data = json.loads(gpulane("show", name, "--json").stdout)
    assert data["id"] == node_id and data["layer"] == "gpu"
    assert data["attributes"]["vram_gb"] > 0 and data["attributes"]["arch"]
    assert data["facts"] and all(f["source"]["url"].startswith("https://") for f in data["facts"])
    assert all(f["source"]["reviewed"] for f in data["facts"])


def test_the_pre_purchase_gpus_have_arch_family_and_vram(shipped):
    names = ["RTX A6000", "Radeon PRO W7900", "Instinct MI210", "RTX PRO 6000 Blackwell", "B300", "Instinct MI355X",
             "Instinct MI300X", "Radeon RX 7900 XTX", "RTX 3090", "RTX 4090", "RTX 5090", "RTX 5080",
             "RTX 4080 SUPER", "RTX 4070 Ti SUPER"]
    from gpulane.model import Layer

    for name in names:
        (resolution,) = shipped.names.resolve(name, Layer.gpu)
        (gpu,) = resolution.ids
        node = shipped.nodes[gpu]
        assert node.vram_gb, name
        assert node.source or node.attribute_sources.get("vram_gb"), name
        (arch,) = shipped.arch_of(gpu)
        assert shipped.attribute(gpu, "family"), name
        assert shipped.nodes[arch].llvm_target or shipped.nodes[arch].compute_capability, name


def test_show_text_cites_sources():
    out = gpulane("show", "MI300X").stdout
    assert out.startswith("AMD Instinct MI300X  [gpu · instinct-mi300x]") or "instinct-mi300x" in out.splitlines()[0]
    assert "reviewed 2026-11-30" in out


def test_unknown_name_suggests():
    out = gpulane("show", "RX 7900XTXX", check=2)
    assert 'unknown name "RX 7900XTXX"' in out.stderr
    assert 'did you mean "Radeon RX 7900 XTX"' in out.stderr


def test_list_json_and_filters():
    amd = json.loads(gpulane("list", "gpu", "--vendor", "amd", "--json").stdout)
    assert isinstance(amd, list) and amd and all(n["attributes"]["vendor"] == "amd" for n in amd)
    rdna3 = json.loads(gpulane("list", "gpu", "--family", "RDNA3", "--json").stdout)
    assert "radeon-rx-7900-xtx" in {n["id"] for n in rdna3}
    out = gpulane("list", "gpus", check=2)
    assert "did you mean 'gpu'?" in out.stderr


def test_sources_have_review_dates_and_ages():
    rows = json.loads(gpulane("sources", "--json").stdout)
    assert rows and all(r["url"].startswith("https://") and r["reviewed"] and r["age_days"] is not None for r in rows)


def test_find_json_shape():
    data = json.loads(gpulane("find", "gpu", "where", "vendor", "=", "AMD", "and", "app", "=", "vLLM", "and",
                              "os", "=", "Ubuntu 24.04", "--json").stdout)
    assert data["statement"] == "find"
    answer = data["answers"][0]
    assert set(answer["gpu"]) == {"id", "name"}
    assert [h["layer"] for h in answer["path"]] == ["gpu", "arch", "os", "driver", "toolkit", "framework", "app"]
    assert all("facts" in h for h in answer["path"])
    assert answer["path"][1]["facts"], "the arch hop is justified by has_arch"


def test_query_and_verbs_agree():
    a = gpulane("query", 'find toolkit where arch = gfx1100 and os = "Ubuntu 24.04"', "--json").stdout
    b = gpulane("find", "toolkit", "where", "arch", "=", "gfx1100", "and", "os", "=", "Ubuntu 24.04", "--json").stdout
    assert a == b


def test_syntax_error_exit_code_and_caret():
    out = gpulane("query", "find gpu wher vendor = AMD", check=2)
    assert out.stderr.splitlines()[2].strip() == "^^^^"


def test_console_script_keeps_exit_status_and_output_when_it_leaves_early():
    """`run` (the console script) skips the interpreter's teardown after read-only verbs; the
    answer, the error text and the exit status are those of `main`."""
    from gpulane.cli.app import _verb

    assert _verb(["--data", "find", "explain", "gpu = X"]) == "explain"
    assert _verb(["--width", "80", "find", "gpu"]) == "find"
    assert _verb(["kb", "stats"]) == "kb"
    found = gpulane("find", 'gpu where vendor = AMD and app = vLLM and os = "Ubuntu 24.04"')
    assert "gpu answers" in found.stdout.splitlines()[0] and "Instinct MI210" in found.stdout
    unknown = gpulane("explain", 'gpu = "RX 9999"', check=2)
    assert 'unknown gpu "RX 9999"' in unknown.stderr
    assert gpulane("kb", "stats").stdout.startswith("gpu")
