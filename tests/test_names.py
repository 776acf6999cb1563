"""Names resolve through aliases, normalisation, families and versions."""

from __future__ import annotations

import re

import pytest

from gpulane.graph.names import _series_key, normalise
from gpulane.model import Layer


@pytest.mark.parametrize("text", ["7900xtx", "RX 7900 XTX", "Radeon RX 7900 XTX", "7900 XTX", "radeon rx7900xtx"])
def test_one_gpu_many_spellings(shipped, text):
    ids = {i for r in shipped.names.resolve(text, Layer.gpu) for i in r.ids}
    assert ids == {"radeon-rx-7900-xtx"}


@pytest.mark.parametrize("text, expected", [
    ("w7900", "radeon-pro-w7900"),
    ("PRO W7900", "radeon-pro-w7900"),
    ("4090", "geforce-rtx-4090"),
    ("RTX 4090", "geforce-rtx-4090"),
    ("RTX PRO 6000", "rtx-pro-6000-blackwell"),
    ("MI300X", "instinct-mi300x"),
    ("Tesla T4", "t4"),
    ("GTX 1080 Ti", "geforce-gtx-1080-ti"),
])
def test_loose_gpu_names(shipped, text, expected):
    ids = {i for r in shipped.names.resolve(text, Layer.gpu) for i in r.ids}
    assert ids == {expected}


@pytest.mark.parametrize("text", ["Ubuntu 24.04", "24.04", "noble", "ubuntu24.04"])
def test_os_names(shipped, text):
    assert {i for r in shipped.names.resolve(text, Layer.os) for i in r.ids} == {"ubuntu-24.04"}


def test_compact_toolkit_names(shipped):
    cu124 = {i for r in shipped.names.resolve("cu124", Layer.toolkit) for i in r.ids}
    assert cu124 == {"cuda-12.4.0", "cuda-12.4.1"}
    rocm62 = {i for r in shipped.names.resolve("rocm6.2", Layer.toolkit) for i in r.ids}
    assert rocm62 == {"rocm-6.2.0", "rocm-6.2.1", "rocm-6.2.2", "rocm-6.2.4"}
    assert {i for r in shipped.names.resolve("ROCm 6.2", Layer.toolkit) for i in r.ids} == rocm62


def test_family_with_specifier(shipped):
    ids = {i for r in shipped.names.resolve("torch 2.5.*", Layer.framework) for i in r.ids}
    assert ids and all(i.startswith("torch-2.5.") for i in ids)
    newer = {i for r in shipped.names.resolve("rocm >=7.0", Layer.toolkit) for i in r.ids}
    assert "rocm-7.2.0" in newer and "rocm-6.4.3" not in newer


def test_suggestions_for_typos(shipped):
    assert "Radeon RX 7900 XTX" in shipped.names.suggestions("RX 7900 XTXX", Layer.gpu)
    assert shipped.names.resolve("Radeon RX 9999", Layer.gpu) == []


def test_kernel_matching_against_listed_kernel_series():
    from gpulane.versions import kernel_matches

    assert kernel_matches("6.8.0-45-generic", "6.8 GA") and kernel_matches("6.11.0-21-generic", "6.11 HWE")
    assert not kernel_matches("6.11.0-21-generic", "6.8 GA") and not kernel_matches("6.8.0-45-generic", "6.11 HWE")
    assert kernel_matches("5.14.0-570.12.1.el9_6.x86_64", "5.14.0-570")
    assert not kernel_matches("5.14.0-427.13.1.el9_4.x86_64", "5.14.0-570")
    assert kernel_matches("4.18.0-513.5.1.el8_9.x86_64", "4.18-513")  # the page leaves out the .0
    assert kernel_matches("5.15.0-200.131.27.el8uek.x86_64", "5.15.0 UEK")
    assert not kernel_matches("banana", "6.8 GA")


@pytest.mark.parametrize("name, version", [
    ("Ollama 0.12.4 (ROCm)", "0.12.4"), ("llama.cpp b5000 (HIP)", "5000"), ("tool v1.2", "1.2"),
    ("x1.2 and 1.2", "1.2"), ("1.2.3", "1.2"), ("a-1.2_b", "1.2"), ("bb5000 b5000", "b5000"),
    ("v1.2v1.2 v1.2", "1.2"), ("1.21.2", "1.2"), ("é1.2 ١1.2 1.2٣", "1.2"), ("no version here", "9.9"),
])
def test_series_key_takes_out_the_version_word(name, version):
    """A release's series key: its name with the version taken out where the version stands as a
    word (optionally v1.2 or b5000), as the regular expression the key was first written with."""
    stripped, count = re.subn(rf"(?<![\w.])[vb]?{re.escape(version)}(?![\w.])", " ", name)
    assert _series_key(name, version) == (normalise(stripped) if count else None)
