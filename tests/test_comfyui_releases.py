"""ComfyUI releases: nodes per release, range facts from the README and requirements.txt at
each version-bump commit.

Expectations are written from the files read in comfyanonymous/ComfyUI: README.md at the
0.3.62 commit (bab8ba2: AMD on Linux through ROCm wheels, DirectML for AMD on Windows) and
at the 0.3.63 commit (6bd3f8e: "AMD GPUs (Experimental: Windows and Linux), RDNA 3, 3.5 and
4 only.", DirectML gone); the NVIDIA stable index cu124 at 0.3.10 and cu128 at 0.3.30.
"""

from __future__ import annotations

import pytest

from gpulane.loaders.importers import INPUTS_DIR, ImportFormatError
from gpulane.loaders.importers.comfyui_releases import parse
from gpulane.queries import run
from gpulane.queries.explain import explain

PINNED = INPUTS_DIR / "comfyui-releases.json"


def test_one_node_per_release():
    kb = parse(PINNED)
    versions = [n.version for n in kb.nodes]
    assert versions[0] == "0.3.10" and versions[-1] == "0.3.64"
    assert len(versions) == 55  # 0.3.10 ... 0.3.64, every version comfyui_version.py was set to


def test_windows_amd_statement_starts_at_0_3_63():
    kb = parse(PINNED)
    windows = [f for f in kb.facts if f.id.startswith("comfyui-arch-amd-windows-")]
    assert {f.object.family for f in windows} == {"RDNA3", "RDNA3.5", "RDNA4"}
    assert {f.subject.version for f in windows} == {">=0.3.63"}
    nvidia = {f.id: f for f in kb.facts if f.id.startswith("comfyui-arch-nvidia-")}
    assert "whl/cu124" in nvidia["comfyui-arch-nvidia-0.3.10"].note
    assert "whl/cu128" in nvidia["comfyui-arch-nvidia-0.3.30"].note


@pytest.mark.parametrize("content, message", [
    ("{}", "non-empty 'releases'"),
    ('{"releases": [{"version": "v1"}]}', "not X.Y.Z"),
    ('{"releases": [{"version": "0.3.1"}]}', "field 'commit'"),
])
def test_bad_scan_input_is_named(tmp_path, content, message):
    path = tmp_path / "scan.json"
    path.write_text(content)
    with pytest.raises(ImportFormatError, match=message):
        parse(path)


def _explain(kg, text):
    return explain(kg, run.compile_query(kg, text))


def test_rdna3_on_windows_from_0_3_63(shipped):
    # 0.3.62's README offers AMD on Windows only through DirectML (not modelled): unknown,
    # never "not supported". 0.3.63 states RDNA 3 on Windows, as experimental.
    before = _explain(shipped, 'explain gpu = "RX 7900 XTX", app = "ComfyUI 0.3.62", os = "Windows 11"')
    assert before.verdict == "unknown"
    after = _explain(shipped, 'explain gpu = "RX 7900 XTX", app = "ComfyUI 0.3.63", os = "Windows 11"')
    assert after.verdict == "supported"
    linux = _explain(shipped, 'explain gpu = "RX 7900 XTX", app = "ComfyUI 0.3.62", os = "Ubuntu 24.04"')
    assert linux.verdict == "supported"
