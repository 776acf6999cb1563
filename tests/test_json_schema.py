"""The published JSON Schema (gpulane/cli/output.schema.json) describes what every command
prints with --json: each command's output is checked against its entry."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest
from typer.testing import CliRunner

from gpulane.cli import app as cli_app
from gpulane.cli import probe_commands

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the [test] extra")


@pytest.fixture(scope="module")
def schema():
    text = resources.files("gpulane.cli").joinpath("output.schema.json").read_text(encoding="utf-8")
    data = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(data)
    return data


def _validate(schema, name: str, data) -> None:
    validator = jsonschema.Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": schema["$defs"]})
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message[:200]}" for e in errors[:5]]
    # The whole document is also one of the published shapes.
    jsonschema.validate(data, schema)


COMMANDS = [
    ("find", ["find", "gpu where vendor = AMD and app = vLLM"]),
    ("find", ["find", 'toolkit where arch = gfx1100 and os = "Ubuntu 24.04"']),
    ("find", ["find", 'driver where toolkit = "CUDA 12.8"']),
    ("find", ["find", "gpu, driver where app = Ollama"]),
    ("find", ["find", "gpu where vram >= 200"]),  # an empty answer with its reason
    ("find", ["query", "find framework where gpu = \"RTX 4090\""]),
    ("paths", ["paths", 'where gpu = "RX 7900 XTX" and app = vLLM limit 3']),
    ("explain", ["explain", 'gpu = "GTX 1050", os = "Ubuntu 24.04", framework = "torch 2.8.0+cu128"']),
    ("explain", ["why", 'gpu = "RX 7900 XTX", os = "Ubuntu 24.04", app = vLLM']),
    ("fix", ["fix", 'gpu = "RX 7900 XTX", os = "Windows 11", app = vLLM keep gpu']),
    ("show", ["show", "RX 7900 XTX"]),
    ("list", ["list", "gpu", "--vendor", "amd"]),
    ("list", ["list", "os where platform = windows"]),
    ("sources", ["sources"]),
    ("kb_stats", ["kb", "stats"]),
    ("explain_error", ["explain", "--error", "hipErrorNoBinaryForGpu"]),
]


@pytest.mark.parametrize("name, args", COMMANDS, ids=[" ".join(a)[:50] for _, a in COMMANDS])
def test_command_json_matches_the_schema(schema, shipped, monkeypatch, name, args):
    monkeypatch.setattr(cli_app, "_graph", lambda: shipped)
    monkeypatch.setattr(probe_commands, "_graph", lambda kg=None: shipped)
    result = CliRunner().invoke(cli_app.app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    _validate(schema, name, json.loads(result.stdout))


def test_record_json_matches_the_schema(schema, shipped, monkeypatch):
    monkeypatch.setattr(probe_commands, "_graph", lambda kg=None: shipped)
    result = CliRunner().invoke(cli_app.app, ["record", 'gpu = "RX 7900 XTX", os = "Ubuntu 24.04", app = vLLM',
                                              "--format", "json"])
    assert result.exit_code == 0, result.output
    _validate(schema, "record", json.loads(result.stdout))


def test_probe_json_matches_the_schema(schema, shipped):
    from gpulane.probe import probe_machine

    found = probe_machine()
    data = probe_commands.probe_json(shipped, found)
    _validate(schema, "probe", json.loads(json.dumps(data, default=str)))


def test_kb_check_json_matches_the_schema(schema, tmp_path):
    from tests.conftest import MINI

    out = subprocess.run([sys.executable, "-m", "gpulane", "--data", str(MINI), "kb", "check", "--json"],
                         capture_output=True, text=True)
    _validate(schema, "kb_check", json.loads(out.stdout))


@pytest.mark.parametrize("args", [["find", 'gpu where gpu = "RX 7900XTXX"'], ["find", "gpu wher vendor = AMD"],
                                  ["explain", 'gpu = "RTX 6000", os = "Ubuntu 24.04"']])
def test_an_error_with_json_is_json_too(schema, args):
    out = subprocess.run([sys.executable, "-m", "gpulane", *args, "--json"], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.startswith("error: ")
    _validate(schema, "error", json.loads(out.stdout))
