"""The shipped AMD files in gpulane/data: regenerated from ../shared, and spot checks.

The regeneration test needs the published files in ``shared/sources`` next to the
repository (``/work/shared`` beside ``/work/main``); it is skipped without them.
The spot checks read the committed YAML only.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpulane.graph.compat import build_target_kind
from gpulane.loaders.importers import AMD_ARCH_FILE, AMD_GPU_FILE, DATA_DIR, IMPORTERS, OS_FILE, render_all
from gpulane.model import KBFile, Layer, Relation, Status

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
SOURCES = SHARED / "sources"

GENERATED = sorted([imp.target for imp in IMPORTERS.values()] + [OS_FILE, AMD_ARCH_FILE, AMD_GPU_FILE])


def load(name: str) -> KBFile:
    return KBFile.model_validate(yaml.safe_load((DATA_DIR / name).read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def kb() -> dict[str, KBFile]:
    return {name: load(name) for name in GENERATED}


def facts(kb, name):
    return {f.id: f for f in kb[name].facts}


def nodes(kb, name):
    return {n.id: n for n in kb[name].nodes}


# ------------------------------------------------- (b) regenerate from shared/


@pytest.mark.skipif(not SOURCES.is_dir(), reason=f"needs the published source files in {SOURCES} (../shared)")
def test_shipped_files_equal_a_fresh_import():
    fresh = render_all(SOURCES)
    assert sorted(fresh) == GENERATED
    for name, text in fresh.items():
        shipped = (DATA_DIR / name).read_text(encoding="utf-8")
        assert shipped == text, f"{name} differs from a fresh import; run the importers and commit the result"


# ---------------------------------------------------------- consistency


def test_every_fact_cites_a_defined_source(kb):
    # generated files may cite a source another data file defines (the catalogue importers cite
    # NVIDIA's CUDA GPUs page, defined with the hand-written NVIDIA nodes)
    defined = {s.id for f in kb.values() for s in f.sources}
    for path in DATA_DIR.glob("*.yaml"):
        defined |= {s.id for s in load(path.name).sources}
    for name, file in kb.items():
        for fact in file.facts:
            assert fact.source in defined, (name, fact.id)
        for node in file.nodes:
            assert node.source is None or node.source in defined, (name, node.id)


def test_ids_are_unique_and_aliases_do_not_collide(kb):
    seen: dict[str, str] = {}
    for name, file in kb.items():
        for item in list(file.nodes) + list(file.facts) + list(file.sources):
            key = f"{type(item).__name__}:{item.id}"
            assert key not in seen, f"{key} in {name} and {seen.get(key)}"
            seen[key] = name
    names: dict[str, str] = {}
    for file in kb.values():
        for node in file.nodes:
            for label in [node.id, node.name, *node.aliases]:
                key = label.casefold()
                assert names.get(key, node.id) == node.id, f"{label!r} names {names[key]} and {node.id}"
                names[key] = node.id


def test_referenced_gpus_archs_toolkits_and_oses_exist(kb):
    # Generated files may name nodes that hand-written files define (NVIDIA archs for torch builds).
    defined = {n.id for path in DATA_DIR.glob("*.yaml") for n in load(path.name).nodes}
    for name, file in kb.items():
        if name.endswith("-releases.yaml"):
            continue  # app releases refer to archs, toolkits and frameworks of the whole KB; kb check covers them
        for fact in file.facts:
            refs = list(fact.subjects) + list(fact.object.ids or [])
            for sel in fact.when.values():
                refs += sel.ids or []
            # as in kb check: a kernel list may name an NVIDIA build target (compute_90: PTX) that is no node
            missing = [r for r in refs if r not in defined and not (
                fact.relation is Relation.ships_kernels_for and r in (fact.object.ids or []) and build_target_kind(r))]
            assert not missing, (name, fact.id, missing)


def test_os_nodes_live_only_in_the_os_file(kb):
    for name, file in kb.items():
        if name != OS_FILE:
            assert not [n.id for n in file.nodes if n.layer is Layer.os], name
    oses = nodes(kb, OS_FILE)
    for want in ("ubuntu-24.04", "ubuntu-22.04", "ubuntu-20.04", "rhel-8.10", "rhel-9.4", "rhel-9.6", "sles-15-sp6",
                 "oracle-linux-8", "debian-12", "rocky-9", "windows-10", "windows-11", "windows-server-2022"):
        assert want in oses
    # 5.x lists 22.04.0-22.04.3 with 5.15, 5.17 OEM, 5.19 (5.19.0-45 in 5.5.1+), 6.2; 6.0.x 22.04.2-22.04.4 with
    # 5.19, 6.2, 6.6; 6.1.x 5.15 GA, 6.2/6.5 HWE; 6.2.x adds 6.8 HWE
    assert oses["ubuntu-22.04"].kernels == ["5.15", "5.15 GA", "5.17 OEM", "5.19", "5.19.0-45", "6.2", "6.2 HWE",
                                            "6.5 HWE", "6.6", "6.8 HWE"]
    # 6.11 HWE from ROCm 6.3.x's kernel table (and 6.4.1's page), 6.14 HWE from the 7.0.0/7.0.1 page
    # (24.04.3), 6.17 HWE from ROCm 7.2.2's page (24.04.4)
    assert oses["ubuntu-24.04"].kernels == ["6.8 GA", "6.11 HWE", "6.14 HWE", "6.17 HWE"]
    assert oses["windows-11"].platform.value == "windows" and oses["ubuntu-24.04"].platform.value == "linux"


# ------------------------------------------------------------ (e) spot checks


def targets(kb, release):
    return {
        f.object.ids[0] for f in kb["rocm-matrix.yaml"].facts
        if f.subject == f"rocm-{release}" and f.id.startswith(f"rocm-{release}-arch-")
    }


def test_rocm_7_2_targets(kb):
    got = targets(kb, "7.2.0")
    assert got == {"gfx950", "gfx1201", "gfx1200", "gfx1101", "gfx1100", "gfx1030", "gfx942", "gfx90a", "gfx908"}
    assert "gfx1031" not in got
    # A summary row (the per-release GPU tables decide), Linux only: never a complete list.
    row = [f for f in kb["rocm-matrix.yaml"].facts if f.id.startswith("rocm-7.2.0-arch-")]
    assert row and not any(f.exhaustive for f in row)
    assert all(f.when[Layer.os].platform.value == "linux" for f in row)


def test_24_rocm_releases(kb):
    toolkits = [n for n in kb["rocm-matrix.yaml"].nodes if n.layer is Layer.toolkit]
    assert len(toolkits) == 24
    assert {"rocm-7.0.0", "rocm-7.0.1", "rocm-6.0.0", "rocm-7.2.0"} <= {n.id for n in toolkits}


def test_rdna4_first_in_6_4_1(kb):
    releases = [n.version for n in kb["rocm-matrix.yaml"].nodes if n.layer is Layer.toolkit]
    from packaging.version import Version

    with_rdna4 = sorted((r for r in releases if "gfx1201" in targets(kb, r)), key=Version)
    assert with_rdna4[0] == "6.4.1"
    assert "gfx1200" in targets(kb, "6.4.1") and "gfx1201" not in targets(kb, "6.4.0")
    with_cdna4 = sorted((r for r in releases if "gfx950" in targets(kb, r)), key=Version)
    assert with_cdna4[0] == "7.0.0"


def test_ubuntu_24_04_first_in_6_2_0(kb):
    from packaging.version import Version

    f = facts(kb, "rocm-matrix.yaml")
    releases = sorted((n.version for n in kb["rocm-matrix.yaml"].nodes if n.layer is Layer.toolkit), key=Version)
    first = next(r for r in releases if f"rocm-{r}-os-ubuntu-24.04" in f)
    assert first == "6.2.0"
    assert "rocm-6.1.5-os-ubuntu-24.04" not in f
    assert "24.04.3" in f["rocm-7.2.0-os-ubuntu-24.04"].note


def test_gpu_specs_spot_checks(kb):
    n = nodes(kb, AMD_GPU_FILE)  # AMD GPU nodes live in the shared AMD GPU file
    f = facts(kb, "rocm-gpu-specs.yaml")
    assert n["instinct-mi355x"].vram_gb == 288
    assert f["instinct-mi355x-has-gfx950"].object.ids == ["gfx950"]
    assert f["radeon-rx-6700-xt-has-gfx1031"].object.ids == ["gfx1031"]
    archs = nodes(kb, AMD_ARCH_FILE)
    assert archs["gfx950"].family == "CDNA4" and archs["gfx1201"].family == "RDNA4"
    assert f["radeon-rx-9070-xt-has-gfx1201"].object.ids == ["gfx1201"]
    assert {"MI300X"} <= set(n["instinct-mi300x"].aliases)
    assert {"W7900", "PRO W7900"} <= set(n["radeon-pro-w7900"].aliases)
    assert {"RX 7900 XTX", "7900 XTX", "7900xtx"} <= set(n["radeon-rx-7900-xtx"].aliases)
    assert len([x for x in n.values() if x.source == "rocm-gpu-arch-specs"]) == 57
    assert n["instinct-mi355x"].segment == "datacenter" and n["ryzen-7-7840u"].segment == "integrated"
    assert not nodes(kb, "rocm-gpu-specs.yaml")  # GPU and arch nodes live in the shared AMD files


def test_matrix_footnotes_in_real_data(kb):
    f = facts(kb, "rocm-matrix.yaml")
    stop = f["rocm-7.0.2-framework-tensorflow-2.17.1-not-on-mi350x-mi355x"]
    assert stop.status is Status.unsupported and stop.when[Layer.gpu].ids == ["instinct-mi350x", "instinct-mi355x"]
    assert "rocm-7.0.0-app-llama.cpp" in f and "rocm-7.0.1-app-llama.cpp" not in f
    # Rows for what the knowledge base has no nodes for (DGL, JAX versions, ...) emit no facts.
    assert not [i for i in f if "-app-dgl" in i or "-framework-jax" in i or "-framework-onnxruntime" in i]
    assert f["rocm-7.2.0-driver-amdgpu"].object.version.startswith("==30.30.0 || ")
    assert f["rocm-6.0.0-driver-amdgpu"].object.version.endswith("==5.6.*")


def test_sysreq_spot_checks(kb):
    f = facts(kb, "rocm-linux-sysreq.yaml")
    # written from the pages: the RX 7900 XTX is listed from 6.0.0, the RX 7900 GRE from 6.0.2
    for release in ("6.0.0", "6.0.2", "6.1.0", "6.1.1", "6.1.2", "6.2.0", "6.2.1", "6.2.2", "6.2.4"):
        assert f[f"rocm-{release}-sysreq-gpu-radeon-rx-7900-xtx"].status is Status.supported
        assert f[f"rocm-{release}-sysreq-gpu-instinct-mi25"].status is Status.unsupported
        assert f"rocm-{release}-sysreq-gpu-radeon-rx-6800" not in f  # not listed -> not supported (exhaustive)
    assert "rocm-6.0.0-sysreq-gpu-radeon-rx-7900-gre" not in f and "rocm-6.0.2-sysreq-gpu-radeon-rx-7900-gre" in f
    assert f["rocm-6.0.0-sysreq-gpu-instinct-mi50-32gb"].status is Status.deprecated
    assert f["rocm-6.0.0-sysreq-gpu-radeon-pro-vii"].status is Status.supported  # deprecated from 6.0.2
    assert f["rocm-6.0.2-sysreq-gpu-radeon-pro-vii"].status is Status.deprecated
    for release in ("6.2.0", "6.2.1", "6.2.2", "6.2.4"):
        assert f[f"rocm-{release}-sysreq-os-oracle-linux-8"].when[Layer.gpu].ids == ["instinct-mi300x"]
        assert f[f"rocm-{release}-sysreq-os-ubuntu-24.04"].kernels == ["6.8 GA"]
    assert "rocm-6.1.2-sysreq-os-ubuntu-24.04" not in f
    # ROCm 6.4.1 (the rendered page): the RX 6800 is not in the Radeon tab, the W6800 is in the PRO tab;
    # the RX 9070 XT is limited by the release notes to Ubuntu 24.04.2, 22.04.5 and RHEL 9.6, 9.5, 9.4
    assert "rocm-6.4.1-sysreq-gpu-radeon-rx-6800" not in f
    assert f["rocm-6.4.1-sysreq-gpu-radeon-pro-w6800"].status is Status.supported
    assert "radeon-rx-9070-xt" in f["rocm-6.4.1-sysreq-os-sles-15-sp6-other-gpus"].when[Layer.gpu].ids
    assert "radeon-rx-9070-xt" in f["rocm-6.4.1-sysreq-os-rhel-9.5"].when[Layer.gpu].ids
    assert "radeon-rx-7900-xtx" in f["rocm-6.4.1-sysreq-os-sles-15-sp6"].when[Layer.gpu].ids
    # OS releases the glibc survey does not cover take the Glibc column of the newest ROCm page
    oses = nodes(kb, OS_FILE)
    assert oses["rhel-9.6"].glibc == "2.34" and oses["rhel-9.6"].attribute_sources["glibc"] == "rocm-linux-sysreq-7.2.2"
    assert oses["sles-15-sp7"].glibc == "2.38"
    assert oses["debian-13"].glibc == "2.41"  # measured; the 7.2.2 page's "2.35" stays in its fact's note only
    # ROCm 7.2.2 (the rendered page with its footnotes)
    assert "rocm-7.2.2-sysreq-gpu-radeon-rx-6800" not in f
    assert "radeon-rx-9070-xt" in f["rocm-7.2.2-sysreq-os-rhel-9.6-other-gpus"].when[Layer.gpu].ids
    # ROCm 7.0.0 and 7.0.1 (one stored version of the page, read for both): the RX 7700 XT joins the
    # Radeon tab, the RX 6800 is not in it; the RDNA footnote keeps the Radeon cards off RHEL 9.4
    for release in ("7.0.0", "7.0.1"):
        assert f[f"rocm-{release}-sysreq-gpu-radeon-rx-7700-xt"].status is Status.supported
        assert f"rocm-{release}-sysreq-gpu-radeon-rx-6800" not in f
        assert f[f"rocm-{release}-sysreq-os-ubuntu-24.04"].kernels == ["6.8 GA", "6.14 HWE"]
        assert "radeon-rx-7900-xtx" in f[f"rocm-{release}-sysreq-os-rhel-9.4-other-gpus"].when[Layer.gpu].ids
        assert f[f"rocm-{release}-sysreq-os-oracle-linux-9"].when[Layer.gpu].ids == [
            "instinct-mi300x", "instinct-mi350x", "instinct-mi355x"]
    gpus = nodes(kb, AMD_GPU_FILE)  # AMD GPU nodes live in the shared AMD GPU file
    assert gpus["radeon-rx-7900-xtx"].segment == "consumer" and gpus["instinct-mi300x"].segment == "datacenter"
    assert gpus["radeon-pro-w7900"].segment == "workstation" and gpus["ryzen-ai-max-plus-pro-395"].segment == "integrated"


def test_hip_sdk_spot_checks(kb):
    f = facts(kb, "hip-sdk-windows.yaml")
    assert f["hip-sdk-6.2-gpu-radeon-rx-7900-xtx"].status is Status.supported
    assert f["hip-sdk-6.2-gpu-radeon-rx-6700-xt"].status is Status.unsupported
    assert "runtime: supported" in f["hip-sdk-6.2-gpu-radeon-rx-6700-xt"].note
    assert f["hip-sdk-6.2-gpu-radeon-pro-w5500"].status is Status.unsupported
    assert {x.object.ids[0] for x in f.values() if x.relation.value == "runs_on" and x.subject == "hip-sdk-6.2"} == {
        "windows-10", "windows-11", "windows-server-2022"}
    # The runtime of the Windows driver is its own toolkit node, with the Runtime column:
    # the RX 6700 XT has the runtime but not the SDK libraries.
    assert f["hip-runtime-6.2-gpu-radeon-rx-6700-xt"].status is Status.supported
    assert f["hip-runtime-6.2-gpu-radeon-rx-6700-xt"].exhaustive
    assert f["hip-runtime-6.2-gpu-radeon-pro-w5500"].status is Status.unsupported


def test_hip_sdk_every_windows_page_read():
    """Each readable Windows page (ROCm/ROCm win-5.5 and docs/5.7.1, docs/6.0.0, docs/6.1.1, the 6.2
    one, and the 6.4.2, 7.1.1 and 7.2 ones of rocm-install-on-windows) is its own SDK and runtime
    release; the shipped file restates exactly what the bundled pages say."""
    from gpulane.loaders.importers import INPUTS_DIR, hip_sdk_windows

    fresh = hip_sdk_windows.parse(INPUTS_DIR / "hip-sdk-windows")
    shipped = load("hip-sdk-windows.yaml")
    assert {f.id for f in fresh.facts} == {f.id for f in shipped.facts}
    toolkits = {n.id for n in fresh.nodes if n.layer is Layer.toolkit}
    assert toolkits == {f"hip-{kind}-{label}" for kind in ("sdk", "runtime")
                        for label in ("5.5", "5.7", "6.0.0", "6.1.1", "6.2", "6.4.2", "7.1.1", "7.2")}
    f = {x.id: x for x in fresh.facts}
    # The RX 6700 XT: the runtime of the Windows driver yes, the HIP SDK libraries no, on every page read.
    for label in ("5.5", "5.7", "6.1.1", "6.2"):
        assert f[f"hip-runtime-{label}-gpu-radeon-rx-6700-xt"].status is Status.supported
        assert f[f"hip-sdk-{label}-gpu-radeon-rx-6700-xt"].status is Status.unsupported
    # win-5.5 (HIP SDK 5.5 for Windows): the RX 7900 XT and RX 6950 XT are marked ❌ for both;
    # the ROCm 5.7.1 page marks both ✅ and adds the RX 7600.
    for gid in ("radeon-rx-7900-xt", "radeon-rx-6950-xt"):
        assert f[f"hip-sdk-5.5-gpu-{gid}"].status is Status.unsupported
        assert f[f"hip-runtime-5.5-gpu-{gid}"].status is Status.unsupported
        assert f[f"hip-sdk-5.7-gpu-{gid}"].status is Status.supported
    assert "hip-sdk-5.5-gpu-radeon-rx-7600" not in f and f["hip-sdk-5.7-gpu-radeon-rx-7600"].exhaustive
    # The 5.5 page's Windows Server 2022 row names no validated update.
    assert "no validated update" in f["hip-sdk-5.5-os-windows-server-2022"].note
    # The 5.7 page's "RX 6750" row: the 6.0.0 page lists the RX 6750 XT there with the same marks.
    assert f["hip-runtime-5.7-gpu-radeon-rx-6750-xt"].status is Status.supported
    assert "'Radeon RX 6750'" in f["hip-sdk-5.7-gpu-radeon-rx-6750-xt"].note
    # The HIP SDK 6.4.2 page (e80ca81): Windows 10, 11 and Server 2022; RDNA4 and the RX 7600 XT and
    # RX 7650 GRE added; RDNA2 as on the 6.2 page.
    assert {x.object.ids[0] for x in fresh.facts if x.relation.value == "runs_on" and x.subject == "hip-sdk-6.4.2"} \
        == {"windows-10", "windows-11", "windows-server-2022"}
    for gid in ("radeon-rx-9070-xt", "radeon-rx-7600-xt", "radeon-rx-7650-gre", "radeon-ai-pro-r9700",
                "radeon-rx-6800"):
        assert f[f"hip-sdk-6.4.2-gpu-{gid}"].status is Status.supported and f[f"hip-sdk-6.4.2-gpu-{gid}"].exhaustive
    assert f["hip-sdk-6.4.2-gpu-radeon-rx-6600"].status is Status.unsupported
    assert f["hip-runtime-6.4.2-gpu-radeon-rx-6600"].status is Status.supported
    # The HIP SDK 7.1.1 page (rocm-install-on-windows f704f28): Windows 11 only; a debugger column;
    # the RX 6950 XT row three times; an APU tab of Ryzen AI processors.
    assert {x.object.ids[0] for x in fresh.facts if x.relation.value == "runs_on" and x.subject == "hip-sdk-7.1.1"} \
        == {"windows-11"}
    assert f["hip-sdk-7.1.1-gpu-radeon-rx-7900-xtx"].status is Status.supported
    assert f["hip-sdk-7.1.1-gpu-radeon-rx-7900-xtx"].exhaustive
    assert "Debugger: not supported" in f["hip-sdk-7.1.1-gpu-radeon-rx-7900-xtx"].note
    assert "Debugger: supported" in f["hip-sdk-7.1.1-gpu-radeon-rx-9070-gre"].note  # "AMD RX 9070 GRE" on the page
    assert f["hip-sdk-7.1.1-gpu-radeon-pro-w6800"].status is Status.supported
    assert f["hip-runtime-7.1.1-gpu-radeon-rx-6700-xt"].status is Status.supported
    assert f["hip-sdk-7.1.1-gpu-radeon-rx-6700-xt"].status is Status.unsupported
    assert "3 times" in f["hip-sdk-7.1.1-gpu-radeon-rx-6950-xt"].note
    assert "hip-sdk-7.1.1-gpu-radeon-rx-7900-gre" not in f
    # APU rows: the Ryzen AI Max+ 395 stands for its Radeon 8060S; no APU fact makes a complete list.
    assert f["hip-sdk-7.1.1-gpu-radeon-8060s"].status is Status.supported
    assert not f["hip-sdk-7.1.1-gpu-radeon-8060s"].exhaustive
    assert not f["hip-sdk-7.1.1-gpu-ryzen-ai-max-plus-pro-395"].exhaustive
    assert "Ryzen AI Max 390" in next(n for n in fresh.nodes if n.id == "hip-sdk-7.1.1").note
    # The HIP SDK 7.2.0 page (0ebf988): RDNA2 is ❌ in both columns; the RX 7900 XTX stays ✅; rows
    # indented with a tab (Ryzen AI 300 and 400 series) belong to the APU table.
    assert f["hip-sdk-7.2-gpu-radeon-rx-7900-xtx"].status is Status.supported
    assert f["hip-sdk-7.2-gpu-radeon-rx-7900-xtx"].exhaustive
    for gid in ("radeon-rx-6800", "radeon-rx-6700-xt", "radeon-pro-w6800"):
        assert f[f"hip-sdk-7.2-gpu-{gid}"].status is Status.unsupported
        assert f[f"hip-runtime-7.2-gpu-{gid}"].status is Status.unsupported
    assert f["hip-sdk-7.2-arch-gfx1150"].status is Status.supported
    assert "Ryzen AI 300 Series" in f["hip-sdk-7.2-arch-gfx1150"].note
    assert {x.object.ids[0] for x in fresh.facts if x.relation.value == "runs_on" and x.subject == "hip-sdk-7.2"} \
        == {"windows-11"}
