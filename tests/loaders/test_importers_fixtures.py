"""The AMD importers on small hand-written files in the vendors' formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulane.loaders.importers import IMPORTERS, INPUTS_DIR, ImportFormatError, plan_import, write_import
from gpulane.loaders.importers import hip_sdk_windows, rocm_gpu_specs, rocm_linux_sysreq, rocm_matrix
from gpulane.model import KBFile, Layer, Status

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "importers"


def facts_by_id(kb: KBFile):
    return {f.id: f for f in kb.facts}


def nodes_by_id(kb: KBFile):
    return {n.id: n for n in kb.nodes}


# ------------------------------------------------------------------ ROCm matrix


@pytest.fixture(scope="module")
def matrix() -> KBFile:
    return rocm_matrix.parse(FIX / "rocm-matrix-small.csv")


def test_matrix_releases_split_the_shared_column(matrix):
    toolkits = sorted(n.id for n in matrix.nodes if n.layer is Layer.toolkit)
    assert toolkits == ["rocm-6.1.5", "rocm-6.4.1", "rocm-7.0.0", "rocm-7.0.1", "rocm-7.1.0"]
    node = nodes_by_id(matrix)["rocm-6.1.5"]  # the header cell is " 6.1.5"
    assert node.version == "6.1.5" and node.family == "rocm" and node.vendor == "amd" and node.name == "ROCm 6.1.5"
    assert "HIP 6.1.40093" in node.note


def test_matrix_target_row_is_a_summary_not_a_complete_list(matrix):
    # The matrix sends readers to each release's GPU tables, which list more targets
    # (6.1.x and 6.2.x list gfx906 as deprecated): the row never says "not listed".
    facts = facts_by_id(matrix)
    for release in ("7.0.0", "7.0.1"):
        fact = facts[f"rocm-{release}-arch-gfx950"]
        assert not fact.exhaustive and fact.domain is None
        assert fact.when[Layer.os].platform.value == "linux"
    assert "rocm-6.4.1-arch-gfx950" not in facts
    assert "rocm-6.4.1-arch-gfx1201" in facts
    assert "rocm-6.1.5-arch-gfx1201" not in facts
    assert facts["rocm-6.1.5-arch-gfx942"].object.ids == ["gfx942"]  # the cell is " gfx942"


def test_matrix_os_rows(matrix):
    facts = facts_by_id(matrix)
    nodes = nodes_by_id(matrix)
    assert facts["rocm-7.1.0-os-rhel-10.0"].exhaustive
    assert facts["rocm-7.1.0-os-rhel-10.0"].domain.platform.value == "linux"  # complete over Linux releases
    assert "rocm-6.1.5-os-ubuntu-24.04" not in facts  # blank cell
    assert "22.04.5, 22.04.4" in facts["rocm-6.1.5-os-ubuntu-22.04"].note
    assert facts["rocm-6.1.5-os-sles-15-sp4"].object.ids == ["sles-15-sp4"]
    assert nodes["sles-15-sp4"].version == "15.4" and nodes["sles-15-sp4"].family == "sles"
    assert nodes["ubuntu-24.04"].platform.value == "linux"
    # the OS footnote says support can depend on the GPU: every OS fact carries it
    assert facts["rocm-7.1.0-os-ubuntu-24.04"].caveat


def test_matrix_frameworks_and_footnotes(matrix):
    facts = facts_by_id(matrix)
    torch = facts["rocm-7.1.0-framework-torch"].object
    assert (torch.layer, torch.family, torch.version) == (Layer.framework, "torch", "==2.8.* || ==2.7.* || ==2.6.*")
    tf = facts["rocm-7.0.1-framework-tensorflow"].object
    assert tf.version == "==2.19.1 || ==2.18.1 || ==2.17.1"
    stop = facts["rocm-7.0.1-framework-tensorflow-2.17.1-not-on-mi350x-mi355x"]
    assert stop.status is Status.unsupported
    assert stop.when[Layer.gpu].ids == ["instinct-mi350x", "instinct-mi355x"]
    assert stop.source == "rocm-compat-matrix-footnotes"
    # the TensorFlow row names AMD's tensorflow-rocm builds: its facts select ROCm builds only
    assert tf.backend == "rocm" and stop.object.backend == "rocm"
    assert torch.backend is None  # the PyTorch row keeps selecting every torch build of those versions
    # llama.cpp: "only on 7.0.0 and 6.4.x" -> the shared 7.0.1/7.0.0 column counts for 7.0.0 only
    assert "rocm-7.0.0-app-llama.cpp" in facts
    assert "rocm-7.0.1-app-llama.cpp" not in facts
    assert "b6652" in facts["rocm-7.0.0-app-llama.cpp"].note
    assert facts["rocm-7.0.0-app-llama.cpp"].object.version is None  # a build tag, not a PEP 440 version
    assert "rocm-6.1.5-app-llama.cpp" not in facts  # N/A


def test_matrix_tensorflow_row_names_rocm_builds(matrix):
    nodes = nodes_by_id(matrix)
    # every version the fixture's TensorFlow cells name, once each
    named = ["2.20.0", "2.19.1", "2.18.1", "2.17.1", "2.16.2", "2.15.0", "2.14.0", "2.13.1"]
    builds = {n.id: n for n in nodes.values() if n.family == "tensorflow"}
    assert sorted(builds) == sorted(f"tensorflow-rocm-{v}" for v in named)
    node = builds["tensorflow-rocm-2.18.1"]
    assert (node.layer, node.vendor, node.backend, node.version) == (Layer.framework, "amd", "rocm", "2.18.1")
    assert node.name == "tensorflow-rocm 2.18.1" and node.source == "rocm-compat-matrix"
    assert "rocm-tensorflow-compat" in {s.id for s in matrix.sources}


def test_matrix_driver_row(matrix):
    facts = facts_by_id(matrix)
    fact = facts["rocm-7.1.0-driver-amdgpu"]
    assert fact.exhaustive
    sel = fact.object
    assert (sel.layer, sel.vendor, sel.family) == (Layer.driver, "amd", "amdgpu")
    assert sel.version == "==30.20.0 || ==30.10.2 || ==30.10 || ==6.4.*"
    assert "KVM" in fact.note  # the MI325X footnote stays a note
    assert facts["rocm-6.1.5-driver-amdgpu"].object.version.endswith("==5.7.*")


def test_matrix_every_fact_has_a_source(matrix):
    source_ids = {s.id for s in matrix.sources}
    assert all(f.source in source_ids for f in matrix.facts)


@pytest.mark.parametrize(
    "name, line, words",
    [
        ("rocm-matrix-bad-target.csv", 12, ["GPU / LLVM target", "7.0.1/7.0.0", "gfx11OO"]),
        ("rocm-matrix-bad-header.csv", 1, ["column 3", "7.0.x"]),
        ("rocm-matrix-unknown-footnote.csv", 17, ["tf-mi999", "TensorFlow"]),
        ("rocm-matrix-bad-os.csv", 4, ["Slackware 15", "6.4.1"]),
        ("rocm-matrix-short-row.csv", 13, ["4 cells", "expected 5"]),
    ],
)
def test_matrix_malformed(name, line, words):
    with pytest.raises(ImportFormatError) as err:
        rocm_matrix.parse(FIX / name)
    assert err.value.line == line
    for word in words:
        assert word in str(err.value)
    assert f"{name}:{line}:" in str(err.value)


# ------------------------------------------------------------------ GPU specs


@pytest.fixture(scope="module")
def specs() -> KBFile:
    return rocm_gpu_specs.parse(FIX / "gpu-specs-small.rst")


def test_specs_nodes(specs):
    nodes = nodes_by_id(specs)
    mi355x = nodes["instinct-mi355x"]
    assert (mi355x.name, mi355x.vram_gb, mi355x.vendor, mi355x.aliases) == ("Instinct MI355X", 288, "amd", ["MI355X"])
    xtx = nodes["radeon-rx-7900-xtx"]
    assert xtx.aliases == ["RX 7900 XTX", "7900 XTX", "7900xtx"] and xtx.vram_gb == 24
    assert nodes["radeon-pro-vii"].name == "Radeon PRO VII"
    assert nodes["instinct-mi50-32gb"].aliases == ["MI50 32GB"]
    apu = nodes["ryzen-ai-7-350"]  # the source's "Ryzen Al" slip is corrected, and said so
    assert apu.vram_gb is None and "Ryzen Al 7 350" in apu.note and "Radeon 860M" in apu.note
    gfx = nodes["gfx1100"]
    assert (gfx.layer, gfx.family, gfx.llvm_target, gfx.name) == (Layer.arch, "RDNA3", "gfx1100", "gfx1100 (RDNA3)")
    assert nodes["gfx803"].family == "GCN3.0/GCN4.0" and nodes["gfx803"].note


def test_specs_has_arch(specs):
    facts = facts_by_id(specs)
    assert facts["radeon-rx-6700-xt-has-gfx1031"].object.ids == ["gfx1031"]
    assert facts["instinct-mi355x-has-gfx950"].relation.value == "has_arch"
    assert len(specs.facts) == 8


@pytest.mark.parametrize(
    "name, line, words",
    [
        ("gpu-specs-bad-vram.rst", 59, ["Radeon RX 7900 XTX", "VRAM (GiB)", "24 GB"]),
        ("gpu-specs-bad-target.rst", 64, ["Radeon RX 6700 XT", "LLVM target name", "navi22"]),
    ],
)
def test_specs_malformed(name, line, words):
    with pytest.raises(ImportFormatError) as err:
        rocm_gpu_specs.parse(FIX / name)
    assert err.value.line == line
    for word in words:
        assert word in str(err.value)


# ------------------------------------------------------------ Linux sysreq

PAGES = INPUTS_DIR / "rocm-linux-sysreq"  # the pinned release pages the shipped file is built from


@pytest.fixture(scope="module")
def sysreq() -> KBFile:
    return rocm_linux_sysreq.parse(FIX / "linux-sysreq-small")


def test_sysreq_gpus(sysreq):
    facts = facts_by_id(sysreq)
    fact = facts["rocm-6.2.4-sysreq-gpu-radeon-rx-7900-xtx"]
    assert fact.subject == "rocm-6.2.4" and fact.exhaustive and fact.status is Status.supported
    # complete over the tab's segment only, and only for Linux
    assert fact.domain.segment == "consumer" and fact.domain.vendor == "amd"
    assert fact.when[Layer.os].platform.value == "linux"
    assert facts["rocm-6.2.4-sysreq-gpu-instinct-mi300x"].domain.segment == "datacenter"
    assert facts["rocm-6.2.4-sysreq-gpu-instinct-mi50-16gb"].status is Status.deprecated
    assert facts["rocm-6.2.4-sysreq-gpu-instinct-mi50-32gb"].status is Status.deprecated
    assert facts["rocm-6.2.4-sysreq-gpu-instinct-mi25"].status is Status.unsupported
    assert facts["rocm-6.2.4-sysreq-arch-gfx906"].status is Status.deprecated
    assert "ESXi 8.0.3" in facts["rocm-6.2.4-sysreq-gpu-instinct-mi210"].note
    assert {s.id for s in sysreq.sources} == {"rocm-linux-sysreq-6.2.4"}


def test_sysreq_os_kernels_and_footnotes(sysreq):
    nodes = nodes_by_id(sysreq)
    assert nodes["ubuntu-22.04"].kernels == ["5.15 GA", "6.8 HWE"]
    assert nodes["rhel-9.4"].kernels == ["5.14.0"]
    facts = facts_by_id(sysreq)
    # Oracle Linux 8.9: only MI300X, stated unsupported for the other listed GPUs
    only = facts["rocm-6.2.4-sysreq-os-oracle-linux-8"]
    assert only.when[Layer.gpu].ids == ["instinct-mi300x"]
    other = facts["rocm-6.2.4-sysreq-os-oracle-linux-8-other-gpus"]
    assert other.status is Status.unsupported and "instinct-mi300x" not in other.when[Layer.gpu].ids
    assert "radeon-rx-7900-xtx" in other.when[Layer.gpu].ids and "instinct-mi25" not in other.when[Layer.gpu].ids
    # MI300X on Ubuntu 22.04: a fact of its own, limited to the GA kernel (a fact, not a caveat)
    mi300x = facts["rocm-6.2.4-sysreq-os-ubuntu-22.04-instinct-mi300x"]
    assert mi300x.when[Layer.gpu].ids == ["instinct-mi300x"] and mi300x.kernels == ["5.15 GA"]
    assert mi300x.caveat is None
    general = facts["rocm-6.2.4-sysreq-os-ubuntu-22.04"]
    assert "instinct-mi300x" not in general.when[Layer.gpu].ids and general.kernels == ["5.15 GA", "6.8 HWE"]
    assert not facts["rocm-6.2.4-sysreq-os-rhel-9.4"].when  # no footnote: every GPU


def test_sysreq_every_release_page_reads():
    kb = rocm_linux_sysreq.parse(PAGES)
    assert {s.id for s in kb.sources} == {p.source.id for p in rocm_linux_sysreq.PAGES.values()} | {
        "rocm-releases-5", "rocm-release-notes-6.4.1"}
    subjects = {f.subject for f in kb.facts}
    assert subjects == {f"rocm-{r}" for r in rocm_linux_sysreq.RELEASES}


def test_sysreq_6_0_footnotes():
    """6.0.0: :sup: footnotes; MI300A 'not officially supported on RHEL 9.x'; a preview HWE kernel."""
    facts = facts_by_id(rocm_linux_sysreq.parse(PAGES / "6.0.0.rst"))
    for rhel in ("rhel-9.3", "rhel-9.2"):
        blocked = facts[f"rocm-6.0.0-sysreq-os-{rhel}-other-gpus"]
        assert blocked.status is Status.unsupported and blocked.when[Layer.gpu].ids == ["instinct-mi300a"]
        assert "instinct-mi300a" not in facts[f"rocm-6.0.0-sysreq-os-{rhel}"].when[Layer.gpu].ids
    assert not facts["rocm-6.0.0-sysreq-os-rhel-8.9"].when  # RHEL 8 unaffected
    ubuntu = facts["rocm-6.0.0-sysreq-os-ubuntu-22.04"]
    assert ubuntu.kernels == ["5.19", "6.2", "6.6"] and "preview" in ubuntu.note
    assert facts["rocm-6.0.0-sysreq-gpu-radeon-rx-7900-xtx"].status is Status.supported
    assert "rocm-6.0.0-sysreq-gpu-radeon-rx-7900-gre" not in facts  # added in 6.0.2
    assert facts["rocm-6.0.0-sysreq-os-rhel-9.3"].kernels == ["5.14.0-362"]


def test_sysreq_6_1_footnotes():
    """6.1.1: MI300X only on Ubuntu 22.04.4 (GA kernel) and Oracle Linux 8.9; MI300A on a list; RHEL 9.4 only MI300A."""
    facts = facts_by_id(rocm_linux_sysreq.parse(PAGES / "6.1.1.rst"))
    assert facts["rocm-6.1.1-sysreq-os-ubuntu-22.04-instinct-mi300x"].kernels == ["5.15 GA"]
    assert facts["rocm-6.1.1-sysreq-os-ubuntu-22.04-instinct-mi300a"].kernels == ["5.15 GA", "6.5 HWE"]
    assert facts["rocm-6.1.1-sysreq-os-oracle-linux-8"].when[Layer.gpu].ids == ["instinct-mi300x"]
    assert facts["rocm-6.1.1-sysreq-os-rhel-9.4"].when[Layer.gpu].ids == ["instinct-mi300a"]
    rhel92 = facts["rocm-6.1.1-sysreq-os-rhel-9.2-other-gpus"]
    assert rhel92.when[Layer.gpu].ids == ["instinct-mi300a", "instinct-mi300x"]
    sles = facts["rocm-6.1.1-sysreq-os-sles-15-sp5-other-gpus"]  # MI300A's list names SLES 15 SP5, MI300X's does not
    assert sles.when[Layer.gpu].ids == ["instinct-mi300x"]


def test_sysreq_7_0_page_from_the_code_index():
    """ROCm 7.0.0/7.0.1: one stored version of the RST page (no commit named), read for both releases;
    a Series column in the Instinct tab, a Glibc column in the OS table, footnotes on GPUs and OSes."""
    kb = rocm_linux_sysreq.parse(PAGES / "7.0.0.rst")
    assert [s.id for s in kb.sources] == ["rocm-linux-sysreq-7.0.0", "rocm-linux-sysreq-7.0.1"]
    assert all("66125256899" in s.note and "7.0.1/7.0.0" in s.note for s in kb.sources)
    facts = facts_by_id(kb)
    for release in ("7.0.0", "7.0.1"):
        assert facts[f"rocm-{release}-sysreq-gpu-instinct-mi355x"].status is Status.supported
        assert facts[f"rocm-{release}-sysreq-arch-gfx950"].status is Status.supported
        assert facts[f"rocm-{release}-sysreq-gpu-radeon-vii"].status is Status.unsupported
        # "RHEL 8.10 is only supported on AMD Instinct MI300X, MI300A, MI250X, MI250, MI210, and MI100 GPUs"
        assert facts[f"rocm-{release}-sysreq-os-rhel-8.10"].when[Layer.gpu].ids == [
            "instinct-mi100", "instinct-mi210", "instinct-mi250", "instinct-mi250x", "instinct-mi300a",
            "instinct-mi300x"]
        # the V620 only on Ubuntu 24.04.3 and 22.04.5
        assert facts[f"rocm-{release}-sysreq-os-rhel-9.6-other-gpus"].when[Layer.gpu].ids == ["radeon-pro-v620"]
        assert not facts[f"rocm-{release}-sysreq-os-ubuntu-24.04"].when  # every listed GPU
        assert facts[f"rocm-{release}-sysreq-os-sles-15-sp7"].kernels == ["6.4.0-150700.51"]
        assert "Glibc 2.38" in facts[f"rocm-{release}-sysreq-os-sles-15-sp7"].note
    oses = {n.id: n for n in kb.nodes}
    assert oses["rocky-9"].glibc == "2.34" and oses["rocky-9"].attribute_sources["glibc"] == "rocm-linux-sysreq-7.0.1"


def test_sysreq_5x_markdown_pages():
    """ROCm 5.x: Markdown pages; '(Ubuntu 22.04 only)' marks; RHEL ranges; the Unsupported tab."""
    kb = rocm_linux_sysreq.parse(PAGES)
    facts = facts_by_id(kb)
    nodes = nodes_by_id(kb)
    # 5.7.1 lists the RX 7900 XTX and XT and the PRO W7900 for Ubuntu 22.04 only
    assert facts["rocm-5.7.1-sysreq-gpu-radeon-rx-7900-xtx"].status is Status.supported
    assert not facts["rocm-5.7.1-sysreq-os-ubuntu-22.04"].when  # every listed GPU
    blocked = facts["rocm-5.7.1-sysreq-os-rhel-9.2-other-gpus"]
    assert blocked.status is Status.unsupported
    assert blocked.when[Layer.gpu].ids == ["radeon-pro-w7900", "radeon-rx-7900-xt", "radeon-rx-7900-xtx"]
    assert "rocm-5.7.0-sysreq-gpu-radeon-rx-7900-xtx" not in facts  # 5.7.0: Radeon VII only
    # "RHEL 8.6 to 8.7" (5.4.0) names both releases; "RHEL 8.5, 8.4" (5.0.0) both
    assert {"rocm-5.4.0-sysreq-os-rhel-8.6", "rocm-5.4.0-sysreq-os-rhel-8.7"} <= set(facts)
    assert {"rocm-5.0.0-sysreq-os-rhel-8.5", "rocm-5.0.0-sysreq-os-rhel-8.4"} <= set(facts)
    assert facts["rocm-5.0.0-sysreq-os-ubuntu-18.04"].kernels == ["5.4.0"]
    # 5.5.1: exact validated kernels; the Unsupported tab is a stated no where no listed point release shares the node
    assert facts["rocm-5.5.1-sysreq-os-ubuntu-22.04"].kernels == ["5.19.0-45"]
    assert facts["rocm-5.5.1-sysreq-os-rhel-9.2"].kernels == ["5.14.0-284.11.1.el9_2"]
    assert facts["rocm-5.5.1-sysreq-os-rhel-9.0"].status is Status.unsupported
    assert facts["rocm-5.5.1-sysreq-os-ubuntu-22.04"].status is Status.supported  # 22.04.0/.1 dropped, 22.04.2 listed
    # toolkit nodes for every 5.x release, the three unread ones without facts
    assert nodes["rocm-5.7.1"].family == "rocm" and nodes["rocm-5.7.1"].version == "5.7.1"
    assert "rocm-5.1.1" in nodes and not [f for f in kb.facts if f.subject == "rocm-5.1.1"]
    assert len([n for n in kb.nodes if n.layer is Layer.toolkit and n.id.startswith("rocm-5.")]) == 22


def test_sysreq_6_3_kernel_tables():
    """ROCm 6.3.x: only the compatibility matrix's OS/kernel lookup table (unbracketed 'GA'/'HWE')."""
    facts = facts_by_id(rocm_linux_sysreq.parse(PAGES / "6.3.3.rst"))
    assert facts["rocm-6.3.3-kernels-os-ubuntu-24.04"].kernels == ["6.8 GA", "6.11 HWE"]
    assert facts["rocm-6.3.3-kernels-os-sles-15-sp6"].kernels == ["6.4.0"]
    assert facts["rocm-6.3.3-kernels-os-azure-linux-3.0"].kernels == ["6.6"]
    assert not [f for f in facts.values() if "-sysreq-gpu-" in f.id]  # no per-card table for 6.3.x
    assert all(not f.exhaustive for f in facts.values())  # the matrix importer's OS row is the complete list


def test_sysreq_6_3_0_and_6_3_1_pages():
    """ROCm 6.3.0 (docs/6.3.0) and 6.3.1 (develop when 6.3.1 was documented): the full pages."""
    kb = rocm_linux_sysreq.parse(PAGES / "6.3.0.rst")
    facts = facts_by_id(kb)
    # read from the page: three Radeon cards, all gfx1100; the MI50 and Radeon VII deprecated
    assert facts["rocm-6.3.0-sysreq-gpu-radeon-rx-7900-xtx"].status is Status.supported
    assert facts["rocm-6.3.0-sysreq-gpu-radeon-pro-v710"].status is Status.supported
    assert facts["rocm-6.3.0-sysreq-gpu-radeon-vii"].status is Status.deprecated
    assert "rocm-6.3.0-sysreq-gpu-instinct-mi325x" not in facts  # added in 6.3.1
    assert facts["rocm-6.3.0-sysreq-os-ubuntu-24.04"].kernels == ["6.8 GA", "6.11 HWE"]
    assert facts["rocm-6.3.0-sysreq-os-sles-15-sp5"].kernels == ["5.14.21"]
    assert facts["rocm-6.3.0-sysreq-os-oracle-linux-8"].when[Layer.gpu].ids == ["instinct-mi300x"]
    assert "rocm-6.3.0-sysreq-os-rhel-8.9" not in facts  # removed from the page before the release
    assert kb.sources[0].url.endswith("/9bd0f9aaf1b3e17bc47e0eee38b28f4b218df792/docs/reference/system-requirements.rst")
    facts = facts_by_id(rocm_linux_sysreq.parse(PAGES / "6.3.1.rst"))
    assert facts["rocm-6.3.1-sysreq-gpu-instinct-mi325x"].status is Status.supported
    # "MI325X is supported only on Ubuntu 22.04.5 [5.15 GA]": that kernel only, no other OS
    assert facts["rocm-6.3.1-sysreq-os-ubuntu-22.04-instinct-mi325x"].kernels == ["5.15 GA"]
    assert "instinct-mi325x" in facts["rocm-6.3.1-sysreq-os-ubuntu-24.04-other-gpus"].when[Layer.gpu].ids
    # "Oracle Linux 8.10 and Debian 12 are supported only on AMD Instinct MI300X"
    assert facts["rocm-6.3.1-sysreq-os-debian-12"].when[Layer.gpu].ids == ["instinct-mi300x"]
    assert facts["rocm-6.3.1-sysreq-os-debian-12"].kernels == ["6.1"]


@pytest.mark.parametrize(
    "name, line, words",
    [
        ("linux-sysreq-bad-mark", 17, ["AMD Instinct MI50", "Support", "maybe"]),
        ("linux-sysreq-bad-kernel", 36, ["Ubuntu 24.04", "Kernel", "six-eight"]),
    ],
)
def test_sysreq_malformed(name, line, words):
    with pytest.raises(ImportFormatError) as err:
        rocm_linux_sysreq.parse(FIX / name)
    assert err.value.line == line
    for word in words:
        assert word in str(err.value)


def test_sysreq_page_of_an_unknown_release(tmp_path):
    page = tmp_path / "6.2.3.rst"
    page.write_text((PAGES / "6.2.4.rst").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ImportFormatError) as err:
        rocm_linux_sysreq.parse(page)
    assert "6.2.3.rst" in str(err.value) and "6.2.4" in str(err.value)


def test_sysreq_rst_glibc_column_is_checked(tmp_path):
    page = tmp_path / "7.0.0.rst"
    text = (PAGES / "7.0.0.rst").read_text(encoding="utf-8")
    page.write_text(text.replace('"6.4.0-150700.51", "2.38"', '"6.4.0-150700.51", "two"'), encoding="utf-8")
    with pytest.raises(ImportFormatError) as err:
        rocm_linux_sysreq.parse(page)
    assert "SLES 15 SP7" in str(err.value) and "Glibc" in str(err.value) and "two" in str(err.value)
    assert err.value.line == text.splitlines().index('    "SLES 15 SP7", "6.4.0-150700.51", "2.38", "✅ [#sles-db-700]_"') + 1


# ------------------------------------------------------------------ HIP SDK


@pytest.fixture(scope="module")
def hipsdk() -> KBFile:
    return hip_sdk_windows.parse(FIX / "hip-sdk-small.rst")


def test_hip_sdk(hipsdk):
    tid = hip_sdk_windows.TOOLKIT_ID
    nodes = nodes_by_id(hipsdk)
    assert nodes[tid].family == "hip-sdk" and nodes[tid].layer is Layer.toolkit
    assert {n.id for n in hipsdk.nodes if n.layer is Layer.os} == {"windows-10", "windows-11", "windows-server-2022"}
    assert all(n.platform.value == "windows" for n in hipsdk.nodes if n.layer is Layer.os)
    facts = facts_by_id(hipsdk)
    assert facts[f"{tid}-os-windows-11"].relation.value == "runs_on"
    assert facts[f"{tid}-os-windows-11"].exhaustive
    ok = facts[f"{tid}-gpu-radeon-rx-7900-xtx"]
    assert ok.status is Status.supported and ok.exhaustive
    runtime_only = facts[f"{tid}-gpu-radeon-rx-6700-xt"]
    assert runtime_only.status is Status.unsupported and "runtime: supported" in runtime_only.note
    assert facts[f"{tid}-arch-gfx1031"].status is Status.unsupported
    assert facts[f"{tid}-arch-gfx1100"].status is Status.supported
    # nothing Linux
    assert not any(n.layer is Layer.os and n.platform.value == "linux" for n in hipsdk.nodes)


@pytest.mark.parametrize(
    "name, line, words",
    [
        ("hip-sdk-bad-row.rst", 36, ["4 cells", "expected 5"]),
        ("hip-sdk-bad-os.rst", 12, ["Windows Eleven", "Distribution"]),
    ],
)
def test_hip_sdk_malformed(name, line, words):
    with pytest.raises(ImportFormatError) as err:
        hip_sdk_windows.parse(FIX / name)
    assert err.value.line == line
    for word in words:
        assert word in str(err.value)


def test_hip_sdk_markdown_page_malformed(tmp_path):
    """A ROCm 5.x Markdown page (HIP SDK 5.5/5.7) with a mark the importer does not know names the row."""
    from gpulane.loaders.importers import INPUTS_DIR

    text = (INPUTS_DIR / "hip-sdk-windows" / "5.5.md").read_text(encoding="utf-8")
    bad = tmp_path / "5.5.md"
    bad.write_text(text.replace("| AMD Radeon™ RX 6800     | RDNA2  | gfx1030 | ✅ | ✅ |",
                                "| AMD Radeon™ RX 6800     | RDNA2  | gfx1030 | yes | ✅ |"), encoding="utf-8")
    with pytest.raises(ImportFormatError) as err:
        hip_sdk_windows.parse(bad)
    assert "Radeon™ RX 6800" not in str(err.value) and "RX 6800" in str(err.value) and "'yes'" in str(err.value)
    assert err.value.line == text.splitlines().index(
        "| AMD Radeon™ RX 6800     | RDNA2  | gfx1030 | ✅ | ✅ |") + 1


# ----------------------------------------------- malformed input writes nothing


@pytest.mark.parametrize(
    "kind, name",
    [
        ("rocm-matrix", "rocm-matrix-bad-target.csv"),
        ("rocm-gpu-specs", "gpu-specs-bad-vram.rst"),
        ("rocm-linux-sysreq", "linux-sysreq-bad-mark"),
        ("hip-sdk-windows", "hip-sdk-bad-row.rst"),
    ],
)
def test_malformed_input_writes_nothing(tmp_path, kind, name):
    target = tmp_path / IMPORTERS[kind].target
    target.write_text("# the old file\n", encoding="utf-8")
    with pytest.raises(ImportFormatError):
        write_import(plan_import(kind, FIX / name, tmp_path))
    assert target.read_text(encoding="utf-8") == "# the old file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_unknown_kind(tmp_path):
    with pytest.raises(KeyError):
        plan_import("nvidia-matrix", FIX / "rocm-matrix-small.csv", tmp_path)


# ------------------------------------------- Linux sysreq: a captured rendered page (6.4.1)
# Expectations written from the page (rendered, ROCm 6.4.1: tabs, marks, footnote marks, the OS
# table with Kernel and Glibc) and from the 6.4.1 release notes ("These GPUs are supported on
# Ubuntu 24.04.2, Ubuntu 22.04.5, RHEL 9.6, RHEL 9.5, and RHEL 9.4").


@pytest.fixture(scope="module")
def rendered() -> KBFile:
    return rocm_linux_sysreq.parse(FIX / "linux-sysreq-rendered")


def test_rendered_page_gpu_tables(rendered):
    facts = facts_by_id(rendered)
    xtx = facts["rocm-6.4.1-sysreq-gpu-radeon-rx-7900-xtx"]
    assert xtx.status is Status.supported and xtx.exhaustive and xtx.domain.segment == "consumer"
    assert xtx.when[Layer.os].platform.value == "linux" and xtx.source == "rocm-linux-sysreq-6.4.1"
    assert facts["rocm-6.4.1-sysreq-gpu-radeon-ai-pro-r9700"].domain.segment == "workstation"
    assert facts["rocm-6.4.1-sysreq-gpu-instinct-mi325x"].domain.segment == "datacenter"
    assert facts["rocm-6.4.1-sysreq-gpu-instinct-mi50-32gb"].status is Status.unsupported
    assert "rocm-6.4.1-sysreq-gpu-radeon-rx-6800" not in facts  # not in the Radeon tab
    assert facts["rocm-6.4.1-sysreq-arch-gfx1200"].status is Status.supported  # RX 9060 XT
    assert {s.id for s in rendered.sources} == {"rocm-linux-sysreq-6.4.1", "rocm-release-notes-6.4.1"}
    page = next(s for s in rendered.sources if s.id == "rocm-linux-sysreq-6.4.1")
    assert "/en/docs-6.4.1/reference/system-requirements.html" in str(page.url) and "2025-06-03" in page.note


def test_rendered_page_os_limits_from_release_notes(rendered):
    facts = facts_by_id(rendered)
    # the RDNA4 cards, the W7700 and the RX 7800 XT: Ubuntu 24.04.2, 22.04.5, RHEL 9.6, 9.4 (9.5 not in this excerpt)
    ubuntu = facts["rocm-6.4.1-sysreq-os-ubuntu-24.04"]
    assert {"radeon-rx-9070-xt", "radeon-rx-7900-xtx", "instinct-mi300x"} <= set(ubuntu.when[Layer.gpu].ids)
    assert ubuntu.kernels == ["6.8 GA", "6.11 HWE"] and "Glibc 2.39" in ubuntu.note
    assert "radeon-rx-9070-xt" in facts["rocm-6.4.1-sysreq-os-rhel-9.6"].when[Layer.gpu].ids
    sles = facts["rocm-6.4.1-sysreq-os-sles-15-sp6-other-gpus"]
    assert sles.status is Status.unsupported and sles.source == "rocm-release-notes-6.4.1"
    assert set(sles.when[Layer.gpu].ids) == {"radeon-ai-pro-r9700", "radeon-pro-w7700", "radeon-rx-9070-xt",
                                             "radeon-rx-9070-gre", "radeon-rx-9070", "radeon-rx-9060-xt",
                                             "radeon-rx-7800-xt"}
    assert "radeon-rx-7900-xtx" in facts["rocm-6.4.1-sysreq-os-sles-15-sp6"].when[Layer.gpu].ids
    # "5.14+" names no kernel series: kept in the note, no kernels on the fact
    assert facts["rocm-6.4.1-sysreq-os-rhel-9.6"].kernels == [] and "5.14+" in facts["rocm-6.4.1-sysreq-os-rhel-9.6"].note


def test_rendered_page_unread_footnotes_leave_unknown(rendered):
    """The capture has no footnote texts: MI325X [ub2204] and RX 7900 GRE [rdna-os, not named by the
    release notes] get no OS facts, and Oracle Linux 9 / Debian 12 (footnoted rows) no facts at all."""
    facts = facts_by_id(rendered)
    for fact in facts.values():
        gpus = set(fact.when[Layer.gpu].ids) if Layer.gpu in fact.when else set()
        assert not gpus & {"instinct-mi325x", "radeon-rx-7900-gre"}, fact.id
        if "-sysreq-os-" in fact.id:
            assert Layer.gpu in fact.when, fact.id  # with some GPUs unread, every OS fact names the GPUs it holds for
    assert not any(f.startswith("rocm-6.4.1-sysreq-os-oracle-linux-9") or f.startswith("rocm-6.4.1-sysreq-os-debian-12")
                   for f in facts)
    assert facts["rocm-6.4.1-sysreq-gpu-instinct-mi325x"].status is Status.supported  # the card is still listed
    nodes = nodes_by_id(rendered)
    assert nodes["oracle-linux-9"].kernels == ["5.15.0 UEK"]


@pytest.mark.parametrize("folder, line, words", [
    ("linux-sysreq-rendered-no-notes", None, ["6.4.1.release-notes.md"]),
    ("linux-sysreq-rendered-bad-glibc", 72, ["Glibc", "SLES 15 SP6", "two"]),
])
def test_rendered_page_bad_input(folder, line, words):
    with pytest.raises(ImportFormatError) as err:
        rocm_linux_sysreq.parse(FIX / folder)
    assert err.value.line == line
    for word in words:
        assert word in str(err.value)


# ------------------------------------- Linux sysreq: a pandoc capture with footnote texts (7.2.2)
# Expectations written from the captured page (cross-references "(in ROCm Documentation v7.2.2)").

def test_pandoc_page_gpu_tables():
    kb = rocm_linux_sysreq.parse(PAGES / "7.2.2.md")
    facts = facts_by_id(kb)
    assert "rocm-7.2.2-sysreq-gpu-radeon-rx-6800" not in facts  # not in the Radeon tab
    assert facts["rocm-7.2.2-sysreq-gpu-radeon-pro-w6800"].domain.segment == "workstation"
    assert facts["rocm-7.2.2-sysreq-gpu-radeon-rx-9060"].status is Status.supported
    assert facts["rocm-7.2.2-sysreq-gpu-instinct-mi355x"].domain.segment == "datacenter"
    assert facts["rocm-7.2.2-sysreq-gpu-instinct-mi50-16gb"].status is Status.unsupported
    assert facts["rocm-7.2.2-sysreq-arch-gfx950"].status is Status.supported
    assert {s.id for s in kb.sources} == {"rocm-linux-sysreq-7.2.2"}
    toolkit = nodes_by_id(kb)["rocm-7.2.2"]  # the compatibility-matrix import stops at 7.2.0
    assert toolkit.layer is Layer.toolkit and toolkit.version == "7.2.2" and toolkit.source == "rocm-linux-sysreq-7.2.2"


def test_pandoc_page_footnotes():
    facts = facts_by_id(rocm_linux_sysreq.parse(PAGES / "7.2.2.md"))
    instinct = {"instinct-mi355x", "instinct-mi350x", "instinct-mi325x", "instinct-mi300x", "instinct-mi300a",
                "instinct-mi250x", "instinct-mi250", "instinct-mi210", "instinct-mi100"}
    ubuntu = facts["rocm-7.2.2-sysreq-os-ubuntu-24.04"]  # every listed GPU
    assert not ubuntu.when and ubuntu.kernels == ["6.8 GA", "6.17 HWE"] and "Glibc 2.39" in ubuntu.note
    # "SLES 15 SP7 is supported on all AMD Instinct GPUs listed"; Radeon "only support Ubuntu 24.04.4, 22.04.5, RHEL 10.1, 9.7"
    assert set(facts["rocm-7.2.2-sysreq-os-sles-15-sp7"].when[Layer.gpu].ids) == instinct
    assert "radeon-rx-9070-xt" in facts["rocm-7.2.2-sysreq-os-sles-15-sp7-other-gpus"].when[Layer.gpu].ids
    # "RHEL 10.1 and RHEL 9.7 are supported on all listed Supported GPUs except AMD Radeon PRO V620 GPU"
    assert facts["rocm-7.2.2-sysreq-os-rhel-10.1-other-gpus"].when[Layer.gpu].ids == ["radeon-pro-v620"]
    assert "radeon-rx-9070-xt" in facts["rocm-7.2.2-sysreq-os-rhel-10.1"].when[Layer.gpu].ids
    assert set(facts["rocm-7.2.2-sysreq-os-debian-12"].when[Layer.gpu].ids) == {
        "instinct-mi325x", "instinct-mi300x", "instinct-mi300a", "instinct-mi250x", "instinct-mi250", "instinct-mi210"}
    assert facts["rocm-7.2.2-sysreq-os-oracle-linux-8"].when[Layer.gpu].ids == ["instinct-mi300x"]
    # RHEL 9.6 is marked with the RHEL 10.1 / 9.7 footnote but named by the Instinct-only one: both kept
    rhel96 = facts["rocm-7.2.2-sysreq-os-rhel-9.6"]
    assert set(rhel96.when[Layer.gpu].ids) == instinct and "differ" in rhel96.note
    assert rhel96.kernels == ["5.14.0-570"]


def test_pandoc_page_marks_must_match_footnotes(tmp_path):
    text = (PAGES / "7.2.2.md").read_text(encoding="utf-8").replace("| ✅ [^44]  |", "| ✅        |")
    (tmp_path / "7.2.2.md").write_text(text, encoding="utf-8")
    with pytest.raises(ImportFormatError) as err:
        rocm_linux_sysreq.parse(tmp_path / "7.2.2.md")
    assert "footnote marks" in str(err.value) and "7.2.2.md" in str(err.value)


def test_rendered_page_glibc_on_os_nodes(rendered):
    """The page's Glibc column becomes the OS node's glibc, citing the page."""
    nodes = nodes_by_id(rendered)
    assert nodes["sles-15-sp6"].glibc == "2.38"
    assert nodes["sles-15-sp6"].attribute_sources["glibc"] == "rocm-linux-sysreq-6.4.1"
    assert nodes["rhel-8.10"].glibc == "2.28" and nodes["ubuntu-24.04"].glibc == "2.39"


def test_glibc_measured_in_the_image_outranks_a_vendor_table():
    """Merging OS nodes: where pep600_compliance measured the glibc of a release, that value is kept
    over the one a ROCm page gives (ROCm 7.2.2 lists Debian 13 with Glibc 2.35), whatever the order."""
    from gpulane.loaders.importers import merge_os_nodes
    from gpulane.model import Node

    amd = Node(id="debian-13", layer="os", name="Debian 13", glibc="2.35", source="rocm-linux-sysreq-7.2.2",
               attribute_sources={"glibc": "rocm-linux-sysreq-7.2.2"})
    pep = Node(id="debian-13", layer="os", name="Debian 13", glibc="2.41", source="pep600-compliance-2d70275",
               attribute_sources={"glibc": "pep600-compliance-2d70275"})
    for nodes in ([amd, pep], [pep, amd]):
        merged, = merge_os_nodes([], nodes)
        assert merged.glibc == "2.41" and merged.attribute_sources["glibc"] == "pep600-compliance-2d70275"
