"""Importer for JAX's published builds: per release, the CUDA builds and the CPU-only build.

Input: the pinned scan of the release tags of ``jax-ml/jax`` (``scripts/scan_jax_tags.py``;
committed as ``data-inputs/jax-builds.json``). A release counts when its ``setup.py`` names
the jaxlib of the same version as the current jaxlib (jax 0.4.5, 0.4.8, 0.4.37 and 0.5.2
shipped no jaxlib of their own and are left out). Per release tag the scan holds the
commit, the CUDA majors of the ``setup.py`` pip extras, the CUDA configs of ``.bazelrc``
(compute capabilities; hermetic CUDA and cuDNN versions where set), what the installation
instructions at the tag say (platforms of the CUDA wheels, the CUDA wheel variants, the
platforms of the jaxlib wheels) and whether ``ci/build_artifacts.sh`` builds the
release wheels with the ``.bazelrc`` defaults.

Output: ``jax-builds.yaml`` with one framework node per build, named like PyTorch's
(``jax-0.4.30+cuda12``, ``jax-0.4.30+cpu``): a CUDA build is what the ``cudaN`` pip extras
install for one CUDA major (up to 0.4.29 the monolithic ``jaxlib==X+cudaN.cudnnM`` wheel,
from 0.4.22 also or instead jaxlib with the ``jax-cudaN-plugin`` wheel); the extras are
the evidence that the major was published. Facts, each cited at the tag's commit:

* ``built_with`` the CUDA toolkit: the minor release of the hermetic
  ``HERMETIC_CUDA_VERSION`` of the build config where ``.bazelrc`` sets one (the patch
  release is in the note: not every patch release is a toolkit node); else the CUDA releases the installation text lists
  as wheel variants for that major; else the major the pip extra names;
* ``runs_on`` Linux (supported) and Windows (unsupported): the installation text says
  the pre-built CUDA wheels are for Linux only;
* ``ships_kernels_for`` the CUDA compute capabilities of the build config (sm_XY: machine
  code; compute_XY: PTX as well). The list is the default of ``.bazelrc``, which
  build/build.py uses unless told otherwise. It is marked complete only where
  ``ci/build_artifacts.sh`` at the tag builds the release wheels through build.py without
  overriding it; before that the release wheels were built by scripts outside the
  repository, so the list is kept, not complete, with a caveat. ``sm_101`` in a CUDA 12
  config (CUDA 12's name for Jetson Thor, renamed ``sm_110`` in CUDA 13.0) is written as
  ``sm_110``, the id of that architecture's node;
* a CPU-only build ships no GPU kernels (empty lists, complete for both GPU vendors) and
  uses no CUDA toolkit; it runs on Linux, and on Windows where the installation text
  lists Windows x86-64 among the platforms jaxlib wheels are released for.

ROCm builds are not modelled: their architecture lists are not in ``.bazelrc``.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source, Status

from .app_releases import read_json
from .errors import ImportFormatError

__all__ = ["parse", "SOURCE", "INPUT"]

REPO = "https://github.com/jax-ml/jax"
INPUT = "jax-builds.json"
REVIEWED = dt.date(2026, 12, 1)
SOURCE = Source(id="jax-release-tags", url=f"{REPO}/tags", publisher="JAX (jax-ml)",
                title="JAX release tags (jax-v0.4.0 onwards)", version="tags up to jax-v0.11.0", reviewed=REVIEWED)

_TAG = re.compile(r"^jax-v(\d+\.\d+\.\d+(?:\.\d+)?)$")
_TARGET = re.compile(r"^(sm|compute)_\d+[af]?$")
_VERSION = re.compile(r"^\d+\.\d+(\.\d+)?$")


def _source(row: dict, path: str, sources: dict[str, Source]) -> str:
    version, commit = row["version"], row["commit"]
    slug = path.lstrip(".").replace("/", "-").replace(".", "-").lower()
    sid = f"jax-{slug}-{version}"
    if sid not in sources:
        sources[sid] = Source(id=sid, url=f"{REPO}/blob/{commit}/{path}", publisher="JAX (jax-ml)",
                              title=f"JAX {path} at jax-v{version}", version=f"jax-v{version} ({commit})",
                              reviewed=REVIEWED)
    return sid


def _need(path: Path, row: dict, key: str, kind: type | tuple, label: str) -> Any:
    value = row.get(key)
    if not isinstance(value, kind):
        raise ImportFormatError(path, None, f"release {label}: field '{key}' missing or of the wrong type")
    return value


def _check(path: Path, row: dict, i: int) -> None:
    tag = row.get("tag")
    m = _TAG.match(tag) if isinstance(tag, str) else None
    if not m or row.get("version") != m.group(1):
        raise ImportFormatError(path, None, f"releases[{i}]: 'tag' must be jax-vX.Y.Z and 'version' X.Y.Z")
    label = tag
    if not re.fullmatch(r"[0-9a-f]{40}", str(row.get("commit"))):
        raise ImportFormatError(path, None, f"release {label}: 'commit' must be 40 hex digits")
    for key, kind in (("setup_cuda_majors", list), ("cuda_configs", list), ("install_doc", str),
                      ("doc_cuda_variants", list), ("jaxlib_linux_wheels", bool), ("jaxlib_windows_wheels", bool),
                      ("ci_release_build", bool)):
        _need(path, row, key, kind, label)
    for major in row["setup_cuda_majors"]:
        if not (isinstance(major, str) and major.isdigit()):
            raise ImportFormatError(path, None, f"release {label}: CUDA major '{major}' is not a number")
    for n, cfg in enumerate(row["cuda_configs"]):
        where = f"{label} cuda_configs[{n}]"
        if not isinstance(cfg, dict) or not isinstance(cfg.get("config"), str):
            raise ImportFormatError(path, None, f"release {where}: expected an object with 'config'")
        caps = cfg.get("capabilities")
        if not isinstance(caps, list) or not caps or not all(isinstance(c, str) and _TARGET.match(c) for c in caps):
            raise ImportFormatError(path, None, f"release {where}: 'capabilities' must list sm_XY / compute_XY")
        for key in ("cuda", "cudnn"):
            if cfg.get(key) is not None and not _VERSION.match(str(cfg[key])):
                raise ImportFormatError(path, None, f"release {where}: '{key}' is not a version")
    for n, var in enumerate(row["doc_cuda_variants"]):
        if not isinstance(var, dict) or not _VERSION.match(str(var.get("cuda"))):
            raise ImportFormatError(path, None, f"release {label} doc_cuda_variants[{n}]: 'cuda' is not a version")


def _configs_by_major(row: dict) -> dict[str, dict] | None:
    """CUDA major -> the hermetic build config for it; None before hermetic CUDA (one
    unversioned config for every CUDA build of the tag)."""
    configs = row["cuda_configs"]
    if not any(c.get("cuda") for c in configs):
        return None
    return {c["cuda"].split(".")[0]: c for c in configs if c.get("cuda")}


def parse(path: Path) -> KBFile:
    path = Path(path)
    _, rows = read_json(path, "releases")
    for i, row in enumerate(rows):
        _check(path, row, i)
    versions = [r["version"] for r in rows]
    if len(set(versions)) != len(versions):
        raise ImportFormatError(path, None, "a release is listed twice")
    sources: dict[str, Source] = {SOURCE.id: SOURCE}
    nodes: list[Node] = []
    facts: list[Fact] = []
    for row in rows:
        _release(path, row, sources, nodes, facts)
    return KBFile(sources=list(sources.values()), nodes=nodes, facts=facts)


def _release(path: Path, row: dict, sources: dict[str, Source], nodes: list[Node], facts: list[Fact]) -> None:
    version, tag = row["version"], row["tag"]
    setup = _source(row, "setup.py", sources)
    doc_path = row["install_doc"]
    doc = _source(row, doc_path, sources)
    bazelrc = _source(row, ".bazelrc", sources)
    hermetic = _configs_by_major(row)
    platforms = row.get("cuda_wheel_platforms")
    linux_only = isinstance(platforms, str) and "Linux" in platforms and "only" in platforms

    for major in row["setup_cuda_majors"]:
        nid = f"jax-{version}+cuda{major}"
        if hermetic is not None and major not in hermetic:
            # setup.py names the extra, but no build config at the tag makes this major:
            # no build is claimed (jax 0.7.0 and 0.7.1 name cuda13 extras; .bazelrc sets CUDA 12 only).
            continue
        kinds = row.get("setup_cuda_wheels", {}).get(major, [])
        wheels = " or ".join(w for k, w in (("monolithic", f"the jaxlib {version}+cuda{major} wheel"),
                                            ("plugin", f"jaxlib with the jax-cuda{major}-plugin wheel"))
                             if k in kinds)
        nodes.append(Node(id=nid, layer=Layer.framework, name=f"jax {version}+cuda{major}", family="jax",
                          version=f"{version}+cuda{major}", vendor="nvidia", backend="cuda", source=setup,
                          note=f"JAX {version} for NVIDIA GPUs with CUDA {major}: the cuda{major} pip extras of "
                               f"setup.py at {tag}" + (f" install {wheels}." if wheels else ".")))
        base = dict(subject=nid, status=Status.supported)
        cfg = hermetic[major] if hermetic is not None else (row["cuda_configs"][0] if row["cuda_configs"] else None)
        # built_with
        if cfg is not None and cfg.get("cuda"):
            cudnn = f", cuDNN {cfg['cudnn']}" if cfg.get("cudnn") else ""
            facts.append(Fact(id=f"{nid}-toolkit", relation=Relation.built_with,
                              object=Selector(layer=Layer.toolkit, family="cuda",
                                              version=f"=={'.'.join(cfg['cuda'].split('.')[:2])}.*"),
                              source=bazelrc, section=f"build config '{cfg['config']}': HERMETIC_CUDA_VERSION",
                              note=f"The hermetic CUDA the build config downloads and builds with: CUDA "
                                   f"{cfg['cuda']}{cudnn}. The fact names the minor release, as a wheel label "
                                   f"would.", **base))
        else:
            listed = [v for v in row["doc_cuda_variants"] if v["cuda"].split(".")[0] == major]
            if listed:
                spec = " || ".join(f"=={v['cuda']}.*" for v in listed)
                text = "; ".join(f"CUDA {v['cuda']}" + (f" with cuDNN {v['cudnn']}" if v.get("cudnn") else "")
                                 for v in listed)
                facts.append(Fact(id=f"{nid}-toolkit", relation=Relation.built_with,
                                  object=Selector(layer=Layer.toolkit, family="cuda", version=spec),
                                  source=doc, section="NVIDIA GPU: the CUDA wheel variants JAX ships",
                                  note=f"The installation text at {tag} lists the CUDA {major} wheels as built for "
                                       f"{text}.", **base))
            else:
                facts.append(Fact(id=f"{nid}-toolkit", relation=Relation.built_with,
                                  object=Selector(layer=Layer.toolkit, family="cuda", version=f"=={major}.*"),
                                  source=setup, section=f"extras_require: cuda{major} extras",
                                  note=f"The pip extras name the CUDA major only; the exact toolkit release of "
                                       f"these wheels is not stated at {tag}.", **base))
        # platforms
        if linux_only:
            where = dict(source=doc, section="NVIDIA GPU: pre-built CUDA wheels")
            facts.append(Fact(id=f"{nid}-platform-linux", relation=Relation.runs_on,
                              object=Selector(layer=Layer.os, platform="linux"),
                              note=f"Pre-built CUDA wheels are published for {platforms}.", **base, **where))
            facts.append(Fact(id=f"{nid}-platform-windows", relation=Relation.runs_on,
                              object=Selector(layer=Layer.os, platform="windows"),
                              note=f"Pre-built CUDA wheels are published for {platforms}; there is no native "
                                   f"Windows CUDA wheel.",
                              **{**base, "status": Status.unsupported}, **where))
        # kernels
        if cfg is not None:
            complete = bool(row["ci_release_build"])
            caps = cfg["capabilities"]
            note = (f"{cfg['config']} config in .bazelrc: {','.join(caps)} (sm_XY: machine code for that "
                    f"architecture; compute_XY: PTX too, which the driver compiles for newer GPUs).")
            caveat = None
            ids = list(caps)
            if "sm_101" in caps and (cfg.get("cuda") or "").startswith("12."):
                # CUDA 12.9 and older call Jetson Thor sm_101; CUDA 13.0 renamed it sm_110, the id of its node.
                ids = ["sm_110" if c == "sm_101" else c for c in caps]
                note += (" sm_101 is CUDA 12's name for Jetson Thor, renamed sm_110 from CUDA 13.0 (see the "
                         "sm_110 node), so it is given here as sm_110.")
            if complete:
                note += (" ci/build_artifacts.sh at this tag, which also builds release-tagged wheels, runs "
                         "build/build.py with the CI CUDA configs of .bazelrc (they include this one) and without "
                         "--cuda_compute_capabilities, so this is the list of the wheels it builds.")
            else:
                caveat = ("This is the default list of the repository's build configuration; the release wheels "
                          "were built by scripts that are not in the repository at this tag, so whether they "
                          "used exactly this list is not stated.")
            facts.append(Fact(id=f"{nid}-linux-kernels", relation=Relation.ships_kernels_for,
                              object=Selector(ids=ids), exhaustive=complete,
                              domain=Selector(layer=Layer.arch, vendor="nvidia") if complete else None,
                              when={Layer.os: Selector(layer=Layer.os, platform="linux")},
                              source=bazelrc,
                              section=f"build:{cfg['config']} "
                                      + ("HERMETIC_CUDA_COMPUTE_CAPABILITIES" if cfg.get("cuda")
                                         else "TF_CUDA_COMPUTE_CAPABILITIES"),
                              note=note, caveat=caveat, **base))

    # the CPU-only build
    nid = f"jax-{version}+cpu"
    nodes.append(Node(id=nid, layer=Layer.framework, name=f"jax {version}+cpu", family="jax",
                      version=f"{version}+cpu", backend="cpu", source=setup,
                      layers={Layer.toolkit: "not_used"},
                      note=f"JAX {version} with the CPU-only jaxlib from PyPI (pip install jax, or the cpu extra)."))
    base = dict(subject=nid, status=Status.supported)
    for vendor in ("nvidia", "amd"):
        facts.append(Fact(id=f"{nid}-no-{vendor}-kernels", relation=Relation.ships_kernels_for,
                          object=Selector(ids=[]), exhaustive=True,
                          domain=Selector(layer=Layer.arch, vendor=vendor), source=setup,
                          section="extras_require: cpu",
                          note="A CPU-only build: it ships no GPU kernels and uses no GPU.", **base))
    for platform, flag in (("linux", "jaxlib_linux_wheels"), ("windows", "jaxlib_windows_wheels")):
        if row[flag]:
            facts.append(Fact(id=f"{nid}-platform-{platform}", relation=Relation.runs_on,
                              object=Selector(layer=Layer.os, platform=platform), source=doc,
                              section="Supported platforms: jaxlib wheels",
                              note=f"The installation text at {tag} lists {platform.capitalize()} x86-64 among the "
                                   f"platforms jaxlib wheels are released for.", **base))
