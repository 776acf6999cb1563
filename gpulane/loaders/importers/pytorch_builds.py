"""Importer for PyTorch's published wheel builds: every release, patch and variant.

Input: a pinned JSON file (``pytorch-builds.json``) that restates, per release,
which compute variants were built and for which operating-system platforms, and
per variant the GPU architectures the Linux build script compiles for. The JSON
is extracted from PyTorch's own repositories by :func:`extract` (run it again to
refresh) and cites, for every release and list, the file and commit it was read
from:

* ``pytorch/pytorch.github.io`` ``_get_started/previous-versions.md``: the wheel
  variants advertised for each release (2.0.0 to 2.3.1 at the pinned commit);
* ``pytorch/test-infra`` ``tools/scripts/generate_binary_build_matrix.py`` on
  the ``release/2.X`` branches: the CUDA and ROCm variants of the release
  candidate (``CURRENT_CANDIDATE_VERSION``) and the platforms each kind of
  variant is built for (CUDA and CPU on Linux and Windows, ROCm on Linux only);
* ``pytorch/builder`` ``manywheel/build_cuda.sh`` on the ``release/2.0`` to
  ``release/2.5`` branches and ``manywheel/build_docker.sh`` on ``release/2.0`` to
  ``release/2.4``: ``TORCH_CUDA_ARCH_LIST`` and ``PYTORCH_ROCM_ARCH`` of the Linux
  wheels (these scripts build Linux wheels only, so the kernel facts are scoped to
  Linux; ``+PTX`` entries give the sm_XY machine code and compute_XY PTX). Later
  releases build with pytorch/pytorch's own ``.ci/manywheel/build_cuda.sh``;
  :func:`extract_pytorch_kernels` reads it at release tags of a checkout;
* ``kernel_lists``: architecture lists that other sources give for named builds
  (one list, the builds it covers, the source and its caveat), for releases whose
  build scripts could not be read at a release commit here.

Output: ``pytorch-builds.yaml`` with one framework node per build
(``torch-2.4.1+cu121``, ``torch-2.4.1+cpu``, ``torch-2.6.0+xpu``), ``built_with``
facts to the toolkit release family, ``runs_on`` facts per platform and, where a
build script covers the release, ``ships_kernels_for`` facts. A CPU build ships no
GPU kernels: its kernel lists are empty and complete for both GPU vendors. An XPU
build is for Intel GPUs (SYCL); no toolkit node models its oneAPI runtime, so it
gets no ``built_with`` fact.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source, Status

from .common import REVIEWED, read_json_object
from .errors import ImportFormatError

__all__ = ["parse", "extract", "SOURCE", "variant_kind"]

#: The generated file cites these; each release and list in the input names one of them.
SOURCE = Source(
    id="pytorch-binary-build-matrix",
    url="https://github.com/pytorch/test-infra/blob/main/tools/scripts/generate_binary_build_matrix.py",
    publisher="PyTorch",
    title="Binary build matrix generator (release branches), with the previous-versions page and builder scripts",
    version="per release branch commit; see each source below",
    reviewed=REVIEWED,
)

_VARIANT = re.compile(r"^(cu\d{3}|rocm\d+(?:\.\d+){1,2}|cpu|xpu)$")


def variant_kind(variant: str) -> str:
    """``cuda``, ``rocm``, ``xpu`` or ``cpu`` for a wheel variant label such as ``cu121``."""
    if variant.startswith("cu"):
        return "cuda"
    if variant.startswith("rocm"):
        return "rocm"
    if variant == "xpu":
        return "xpu"
    return "cpu"


#: The vendor and compute backend each kind of variant targets (XPU wheels are SYCL builds for Intel GPUs).
_KIND_VENDOR = {"cuda": "nvidia", "rocm": "amd", "xpu": "intel"}
_KIND_BACKEND = {"cuda": "cuda", "rocm": "rocm", "xpu": "sycl", "cpu": "cpu"}


def _toolkit_selector(variant: str) -> Selector:
    """The toolkit releases a variant label names: cu121 -> CUDA 12.1.x, rocm6.2.4 -> ROCm 6.2.4."""
    if variant.startswith("cu"):
        digits = variant[2:]
        return Selector(layer=Layer.toolkit, family="cuda", version=f"=={digits[:-1]}.{digits[-1]}.*")
    version = variant[4:]
    spec = f"=={version}" if version.count(".") >= 2 else f"=={version}.*"
    return Selector(layer=Layer.toolkit, family="rocm", version=spec)


def _arch_ids(kind: str, targets: list[str]) -> list[str]:
    """Architecture node ids for a build script's targets ("8.6" -> sm_86; "12.0+PTX" -> sm_120
    and compute_120, machine code plus PTX; gfx ids unchanged)."""
    if kind != "cuda":
        return list(targets)
    out = []
    for t in targets:
        number = t.removesuffix("+PTX").replace(".", "")
        out.append(f"sm_{number}")
        if t.endswith("+PTX"):
            out.append(f"compute_{number}")
    return out


def _need(obj: dict, key: str, where: str, path: Path) -> Any:
    if key not in obj:
        raise ImportFormatError(path, None, f"{where}: missing '{key}'")
    return obj[key]


def parse(path: Path) -> KBFile:
    """The KBFile for the pinned input JSON at ``path``."""
    path = Path(path)
    try:
        return _parse(path)
    except ValidationError as exc:  # a source, node or fact the input describes is malformed
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise ImportFormatError(path, None, f"{exc.title}: {where}: {first.get('msg')}") from None
    except (TypeError, AttributeError) as exc:  # a value of the wrong JSON type
        raise ImportFormatError(path, None, f"unexpected value type: {exc}") from None


def _parse(path: Path) -> KBFile:
    data = read_json_object(path, "'sources', 'releases' and 'kernels'")
    # A source may carry its own review date (those read later than the first extract).
    sources = [Source(**{"reviewed": REVIEWED, **s}) for s in _need(data, "sources", "top level", path)]
    known = {s.id for s in sources}
    kernels: dict[str, dict] = _need(data, "kernels", "top level", path)
    # test-infra source id -> the glibc floor its Linux wheel images impose (see wheel_glibc)
    glibc_floor: dict[str, str] = data.get("linux_wheel_glibc", {})
    for sid in glibc_floor:
        if sid not in known:
            raise ImportFormatError(path, None, f"linux_wheel_glibc: source '{sid}' is not in 'sources'")
    nodes: list[Node] = []
    facts: list[Fact] = []
    for rel in _need(data, "releases", "top level", path):
        version = _need(rel, "version", "release", path)
        where = f"release {version}"
        src = _need(rel, "source", where, path)
        if src not in known:
            raise ImportFormatError(path, None, f"{where}: source '{src}' is not in 'sources'")
        for variant, info in _need(rel, "variants", where, path).items():
            if not _VARIANT.match(variant):
                raise ImportFormatError(path, None,
                                        f"{where}: '{variant}' is not a wheel variant (cuXYZ, rocmX.Y, cpu, xpu)")
            kind = variant_kind(variant)
            vsrc = info.get("source", src)
            if vsrc not in known:
                raise ImportFormatError(path, None, f"{where}, {variant}: source '{vsrc}' is not in 'sources'")
            nid = f"torch-{version}+{variant}"
            nodes.append(Node(
                id=nid, layer=Layer.framework, name=f"torch {version}+{variant}", family="torch",
                version=f"{version}+{variant}", vendor=_KIND_VENDOR.get(kind),
                backend=_KIND_BACKEND[kind], source=vsrc, note=info.get("note"),
                # A CPU-only wheel links no CUDA or ROCm toolkit.
                layers={Layer.toolkit: "not_used"} if kind == "cpu" else {}))
            base = dict(subject=nid, status=Status.supported, source=vsrc, section=info.get("section", rel.get("section")))
            if kind in ("cuda", "rocm"):
                facts.append(Fact(id=f"{nid}-toolkit", relation=Relation.built_with, object=_toolkit_selector(variant),
                                  note=f"The variant label {variant} names the toolkit release the wheel was built with.",
                                  **base))
            platforms = _need(info, "platforms", f"{where}, {variant}", path)
            for platform in platforms:
                facts.append(Fact(
                    id=f"{nid}-platform-{platform}", relation=Relation.runs_on,
                    object=Selector(layer=Layer.os, platform=platform),
                    note=f"Wheels of this variant are built for {platform}.", **base))
            if "linux" in platforms and vsrc in glibc_floor:
                floor = glibc_floor[vsrc]
                facts.append(Fact(
                    id=f"{nid}-linux-glibc", relation=Relation.runs_on, status=Status.unsupported,
                    object=Selector(layer=Layer.os, platform="linux", glibc=f"<{floor}"),
                    note=f"The Linux wheels are built in the manylinux_{floor.replace('.', '_')} image, so pip "
                         f"installs them only where glibc is {floor} or newer; an OS release with an older "
                         f"glibc cannot run them.",
                    **{**{k: v for k, v in base.items() if k != "status"},
                       "section": "WHEEL_CONTAINER_IMAGES (x86_64 wheels built in pytorch/manylinux2_28-builder)"}))
            if kind == "rocm" and "windows" not in platforms:
                # Both sources say so in words or in code: ROCm wheels are "Linux only" on the
                # previous-versions page, and the matrix adds ROCm variants for Linux alone.
                facts.append(Fact(
                    id=f"{nid}-platform-windows", relation=Relation.runs_on, status=Status.unsupported,
                    object=Selector(layer=Layer.os, platform="windows"),
                    note="ROCm wheels are published for Linux only; there is no Windows wheel of this variant.",
                    **{k: v for k, v in base.items() if k != "status"}))
            facts.extend(_kernel_facts(path, nid, version, variant, kind, kernels, known, base))
    facts.extend(_listed_kernel_facts(path, data.get("kernel_lists", []), known, {n.id for n in nodes},
                                      {f.id for f in facts}))
    return KBFile(sources=sources, nodes=nodes, facts=facts)


def _listed_kernel_facts(path: Path, entries: list, known: set[str], builds: set[str],
                         taken: set[str]) -> list[Fact]:
    """``ships_kernels_for`` facts for the builds each ``kernel_lists`` entry names: the
    entry's targets, complete for the vendor, on Linux (the lists come from Linux wheel
    build scripts)."""
    if not isinstance(entries, list):
        raise ImportFormatError(path, None, "'kernel_lists' must be a list")
    facts = []
    for n, entry in enumerate(entries):
        where = f"kernel_lists[{n}]"
        if not isinstance(entry, dict):
            raise ImportFormatError(path, None, f"{where}: expected an object")
        src = _need(entry, "source", where, path)
        if src not in known:
            raise ImportFormatError(path, None, f"{where}: source '{src}' is not in 'sources'")
        kind = _need(entry, "kind", where, path)
        if kind not in ("cuda", "rocm"):
            raise ImportFormatError(path, None, f"{where}: kind must be 'cuda' or 'rocm', not '{kind}'")
        targets = _need(entry, "targets", where, path)
        if not targets or not all(isinstance(t, str) for t in targets):
            raise ImportFormatError(path, None, f"{where}: 'targets' must be a non-empty list of names")
        for build in _need(entry, "builds", where, path):
            if not isinstance(build, str) or "+" not in build:
                raise ImportFormatError(path, None, f"{where}: '{build}' is not a build (VERSION+VARIANT)")
            nid = f"torch-{build}"
            if nid not in builds:
                raise ImportFormatError(path, None, f"{where}: build '{build}' is not among the releases")
            if variant_kind(build.split("+", 1)[1]) != kind:
                raise ImportFormatError(path, None, f"{where}: build '{build}' is not a {kind} build")
            fid = f"{nid}-linux-kernels"
            if fid in taken:
                raise ImportFormatError(path, None, f"{where}: build '{build}' already has a kernel list")
            taken.add(fid)
            facts.append(Fact(
                id=fid, relation=Relation.ships_kernels_for, subject=nid,
                object=Selector(ids=_arch_ids(kind, targets)), exhaustive=True,
                domain=Selector(layer=Layer.arch, vendor="nvidia" if kind == "cuda" else "amd"),
                when={Layer.os: Selector(layer=Layer.os, platform="linux")},
                status=Status.supported, source=src, section=entry.get("section"),
                note=entry.get("note"), caveat=entry.get("caveat")))
    return facts


def _kernel_facts(path: Path, nid: str, version: str, variant: str, kind: str, kernels: dict,
                  known: set[str], base: dict) -> list[Fact]:
    if kind == "cpu":
        # The page's "CPU only" commands and the matrix's "cpu" variant: no GPU code at all.
        return [Fact(id=f"{nid}-no-{vendor}-kernels", relation=Relation.ships_kernels_for,
                     object=Selector(ids=[]), exhaustive=True,
                     domain=Selector(layer=Layer.arch, vendor=vendor),
                     note="A CPU-only build: it ships no GPU kernels and uses no GPU.", **base)
                for vendor in ("nvidia", "amd")]
    minor = ".".join(version.split(".")[:2])
    entry = kernels.get(minor, {}).get(kind)
    if not entry:
        return []
    if entry["source"] not in known:
        raise ImportFormatError(path, None, f"kernels {minor} {kind}: source '{entry['source']}' is not in 'sources'")
    if kind == "cuda":
        cuda = f"{variant[2:-1]}.{variant[-1]}"
        targets = entry["lists"].get(cuda)
        section = f"TORCH_CUDA_ARCH_LIST for CUDA {cuda}"
    else:
        rocm = variant[4:]
        targets = entry["base"] + [t for t, floor in entry.get("from_rocm", {}).items()
                                   if _version_tuple(rocm) >= _version_tuple(floor)]
        section = "PYTORCH_ROCM_ARCH"
    if targets is None:
        return []
    return [Fact(id=f"{nid}-linux-kernels", relation=Relation.ships_kernels_for, subject=nid,
                 object=Selector(ids=_arch_ids(kind, targets)), exhaustive=True,
                 domain=Selector(layer=Layer.arch, vendor="nvidia" if kind == "cuda" else "amd"),
                 when={Layer.os: Selector(layer=Layer.os, platform="linux")},
                 status=Status.supported, source=entry["source"], section=section,
                 note="Read from the Linux wheel build script of this release branch; it says nothing about "
                      "the Windows wheels.")]


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


# ----------------------------------------------------------------- extraction


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=60)
    return out.stdout


def _dict_list(text: str, name: str, channel: str) -> list[str] | None:
    m = re.search(name + r"\s*=\s*\{(.*?)\n\}", text, re.S)
    if not m:
        return None
    c = re.search(r'"%s"\s*:\s*\[(.*?)\]' % channel, m.group(1), re.S)
    return re.findall(r'"([^"]+)"', c.group(1)) if c else None


def wheel_glibc(matrix_text: str) -> str | None:
    """The oldest glibc the x86_64 Linux wheels of a build matrix run on, read from the images
    they are built in (``WHEEL_CONTAINER_IMAGES``): "2.28" when every x86_64 wheel image is
    ``pytorch/manylinux2_28-builder`` (PEP 600: manylinux_2_28 needs glibc 2.28 or newer);
    None when the images are mixed or older (then no floor is stated)."""
    # the dict ends at the closing brace indented like its name
    m = re.search(r"^([ \t]*)WHEEL_CONTAINER_IMAGES\s*=\s*\{(.*?)\n\1\}", matrix_text, re.S | re.M)
    if not m:
        return None
    images = {i for i in re.findall(r'"(pytorch/[^":]+)', m.group(2)) if "aarch64" not in i}
    return "2.28" if images == {"pytorch/manylinux2_28-builder"} else None


def xpu_platforms(matrix_text: str) -> list[str]:
    """The platforms the wheel matrix adds its XPU variant for: the condition in front of
    ``arches += [XPU]`` names Linux alone (release/2.5) or Linux and Windows (2.6 on);
    empty when the matrix has no XPU variant."""
    m = re.search(r"^\s*if ([^\n]*):\n\s*arches \+= \[XPU\]", matrix_text, re.M)
    if not m:
        return []
    cond = m.group(1)
    return [p for p, name in (("linux", "LINUX"), ("windows", "WINDOWS")) if re.search(rf"\b{name}\b", cond)]


def extract(test_infra: Path, builder: Path) -> dict:
    """Release candidates and their variants per ``release/2.X`` branch of test-infra, and
    the Linux kernel lists per ``release/2.X`` branch of builder (git checkouts).

    Returns the ``releases_from_matrix`` and ``kernels`` parts of the input JSON; the
    previous-versions releases are restated by hand from the pinned page."""
    matrix = "tools/scripts/generate_binary_build_matrix.py"
    releases: dict[str, dict] = {}
    for minor in range(1, 40):
        branch = f"release/2.{minor}"
        log = _git(test_infra, "log", "--format=%H", branch, "--", matrix).split()
        for commit in log:  # newest first: keep the newest commit naming each candidate
            text = _git(test_infra, "show", f"{commit}:{matrix}")
            cand = re.search(r'CURRENT_CANDIDATE_VERSION\s*=\s*"([^"]+)"', text)
            if not cand or not cand.group(1).startswith(f"2.{minor}.") or cand.group(1) in releases:
                continue
            releases[cand.group(1)] = {"commit": commit, "branch": branch,
                                       "cuda": _dict_list(text, "CUDA_ARCHES_DICT", "test"),
                                       "rocm": _dict_list(text, "ROCM_ARCHES_DICT", "test"),
                                       "xpu": xpu_platforms(text)}
    return {"releases_from_matrix": releases, "kernels": extract_builder_kernels(builder)}


def extract_builder_kernels(builder: Path, minors: range = range(0, 6)) -> dict[str, dict]:
    """The Linux kernel lists per ``release/2.X`` branch of pytorch/builder (2.0 to 2.5): the
    CUDA lists of ``manywheel/build_cuda.sh`` and, where the branch still has
    ``manywheel/build_docker.sh`` (2.0 to 2.4), its ``PYTORCH_ROCM_ARCH``. From 2.5 on the ROCm
    images are built in pytorch/pytorch (``.ci/docker/manywheel``), so builder gives no ROCm list."""
    kernels: dict[str, dict] = {}
    for minor in minors:
        branch = f"release/2.{minor}"
        commit = _git(builder, "rev-parse", branch).strip()
        cuda_sh = _git(builder, "show", f"{commit}:manywheel/build_cuda.sh")
        docker_sh = _git(builder, "show", f"{commit}:manywheel/build_docker.sh")
        entry: dict[str, Any] = {"commit": commit, "cuda_lists": cuda_arch_lists(cuda_sh)}
        rocm = re.search(r'PYTORCH_ROCM_ARCH="([^"]+)"', docker_sh)
        if rocm:
            entry["rocm_base"] = rocm.group(1).split(";")
        kernels[f"2.{minor}"] = entry
    return kernels


#: The manywheel CUDA script inside pytorch/pytorch from 2.5 on.
PYTORCH_CUDA_SCRIPT = ".ci/manywheel/build_cuda.sh"


def extract_pytorch_kernels(pytorch: Path, tags: list[str]) -> dict[str, dict]:
    """The Linux CUDA kernel lists of pytorch/pytorch's own manywheel script at each release
    tag (``v2.6.0``, ...) of a git checkout: ``{tag: {"commit", "path", "cuda_lists"}}``. Tags
    whose tree lacks the script are left out. Restate the result by hand in the input's
    ``kernels`` part (one entry per minor, with a source pinned to the commit)."""
    out: dict[str, dict] = {}
    for tag in tags:
        commit = _git(pytorch, "rev-parse", f"{tag}^{{commit}}").strip()
        text = _git(pytorch, "show", f"{commit}:{PYTORCH_CUDA_SCRIPT}")
        if not commit or not text:
            continue
        out[tag] = {"commit": commit, "path": PYTORCH_CUDA_SCRIPT, "cuda_lists": cuda_arch_lists(text)}
    return out


_ASSIGN = re.compile(r'^\s*(?:export\s+)?TORCH_CUDA_ARCH_LIST="(.*)"\s*(;;)?\s*$')
_ARM = re.compile(r'^\s*([\d.\[\]|*]+)\)\s*(.*)$')


def cuda_arch_lists(script: str) -> dict[str, list[str]]:
    """TORCH_CUDA_ARCH_LIST per CUDA version case of a manywheel ``build_cuda.sh``, as the x86_64
    Python wheel build sees it: a base assignment before ``case ${CUDA_VERSION} in``, then per
    case arm assignments that may reuse the base (``${TORCH_CUDA_ARCH_LIST}``), drop an entry
    from it (``${TORCH_CUDA_ARCH_LIST//10.0/}``) or pick an entry on aarch64 only (a
    ``$([[ "$ARCH" == "aarch64" ]] && echo A || echo B)`` substitution gives B). Inside an arm,
    an ``if`` on the aarch64 GPU type or the libtorch package type is skipped in favour of its
    ``else`` branch. Entries keep their ``+PTX`` suffix. Raises ValueError on anything else
    that sets the list, so a changed script is noticed rather than misread."""
    head, sep, rest = script.partition("case ${CUDA_VERSION} in")
    if not sep:
        raise ValueError("no 'case ${CUDA_VERSION} in' block")
    base: str | None = None
    for line in head.splitlines():
        m = _ASSIGN.match(line)
        if m:
            base = m.group(1)
    body = rest.split("\nesac", 1)[0]
    lists: dict[str, list[str]] = {}
    arms: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        m = _ARM.match(line)
        if m and not line.strip().startswith("#"):
            arms.append((m.group(1), [m.group(2)] if m.group(2) else []))
        elif arms:
            arms[-1][1].append(line)
    for pattern, lines in arms:
        if pattern == "*":
            continue
        value = _arm_value(lines, base)
        if value is None:
            continue
        for cuda in _expand_case(pattern):
            lists.setdefault(cuda, [t for t in value.split(";") if t])
    return lists


def _arm_value(lines: list[str], base: str | None) -> str | None:
    current = base
    assigned = False
    blocks: list[str] = []  # per open `if`: "skip" (aarch64/libtorch then-branch), "keep" or "other"
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("if "):
            blocks.append("skip" if re.search(r"aarch64|libtorch", line) else "other")
            continue
        if line == "else" and blocks:
            blocks[-1] = "keep" if blocks[-1] == "skip" else "other"
            continue
        if line.startswith("fi") and blocks:
            blocks.pop()
            continue
        if "TORCH_CUDA_ARCH_LIST=" not in line:
            continue
        m = _ASSIGN.match(line)
        if not m:
            raise ValueError(f"unsupported TORCH_CUDA_ARCH_LIST line: {line!r}")
        if "skip" in blocks:
            continue
        if "other" in blocks:
            raise ValueError(f"TORCH_CUDA_ARCH_LIST set under an unsupported condition: {line!r}")
        current = _substitute(m.group(1), current)
        assigned = True
    return current if assigned else None


def _substitute(value: str, current: str | None) -> str:
    value = re.sub(r'\$\(\[\[ "\$ARCH" == "aarch64" \]\] && echo "[^"]*" \|\| echo "([^"]*)"\)', r"\1", value)

    def prior(m: re.Match) -> str:
        if current is None:
            raise ValueError("the script reuses TORCH_CUDA_ARCH_LIST before setting it")
        if m.group(1):
            return ";".join(t for t in current.split(";") if t and t != m.group(1))
        return current

    value = re.sub(r"\$\{TORCH_CUDA_ARCH_LIST(?://([^/}]+)/)?\}", prior, value)
    if "$" in value:
        raise ValueError(f"unsupported shell expression in {value!r}")
    return value


def _expand_case(case: str) -> list[str]:
    """CUDA versions a case pattern names: "11.[67]" -> 11.6, 11.7; "12.8|12.9" -> both."""
    out = []
    for part in case.split("|"):
        m = re.fullmatch(r"(\d+)\.\[(\d+)\]", part)
        out.extend([f"{m.group(1)}.{d}" for d in m.group(2)] if m else [part])
    return out


if __name__ == "__main__":  # pragma: no cover - a refresh aid, run by hand
    import sys

    # TEST_INFRA BUILDER  |  --pytorch PYTORCH_CHECKOUT TAG...
    if sys.argv[1] == "--pytorch":
        print(json.dumps(extract_pytorch_kernels(Path(sys.argv[2]), sys.argv[3:]), indent=1))
    else:
        print(json.dumps(extract(Path(sys.argv[1]), Path(sys.argv[2])), indent=1, sort_keys=True))
