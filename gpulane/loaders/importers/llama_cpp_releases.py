"""Importer for llama.cpp build tags (bNNNN): app nodes where the build facts change.

Input: the pinned scan of the build tags of ``ggml-org/llama.cpp``
(``scripts/scan_llama_cpp_tags.py``; committed as ``data-inputs/llama-cpp-tags.json``).
Per tag it holds the commit, the GPU backends the CMake build offers, the CMake block
that sets the default ``CMAKE_CUDA_ARCHITECTURES``, what the workflow that publishes
the release archives builds (CUDA versions of the Windows CUDA archive, GPU targets of
the Windows HIP and Linux ROCm archives, Vulkan archives), which backends the CI builds
on Ubuntu, and the README's "Supported backends" table.

llama.cpp tags a build for every merge to master (thousands of tags), and the facts
change only at a few of them. So the nodes are per backend (CUDA, HIP, Vulkan, as the
versionless ``llama.cpp (CUDA)`` etc.) at the *first tag of every run of tags whose
build facts are the same*, plus the newest tag; a node stands for the builds from its
tag up to the next node of its backend (its note names them). Facts are range facts
over those nodes (``{layer: app, family: llama.cpp, backend: cuda, version:
">=4751,<5298"}``), one per run of tags that say the same, cited at the first tag's
commit. Versions are the build numbers (``b5298`` → ``5298``).

Facts:

* CUDA — ``ships_kernels_for``: the default architecture list of a non-native build
  (what the release archives use), evaluated from the CMake block with the CUDA
  version conditions kept as ``when`` conditions on the toolkit; ``requires`` the CUDA
  toolkit (the CMake file builds with it); ``supports`` NVIDIA (README table, "Nvidia
  GPU"); ``runs_on`` Windows where a Windows CUDA archive is published, Linux where CI
  builds CUDA on Ubuntu.
* HIP — ``ships_kernels_for``: the GPU targets of the published Windows HIP archives
  (``when`` Windows) and of the Linux ROCm archives (``when`` Linux), complete lists of
  what those archives were compiled for — never a support statement (the README says
  only "AMD GPU"); ``runs_on`` where archives are published or CI builds on Ubuntu;
  ``requires`` ROCm on Linux (the CI and release jobs build in ROCm's container or
  from its apt repository).
* Vulkan — ``supports`` NVIDIA and AMD GPUs where the README table says "GPU" (with
  the versionless node's caveat); ``runs_on`` where archives are published (Windows,
  Linux) or CI builds on Ubuntu.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Hashable

from gpulane.model import Fact, KBFile, Layer, Node, Relation, Selector, Source

from .app_releases import read_json, release_selector, tag_source
from .errors import ImportFormatError
from .ollama_releases import cuda_targets

REVIEWED = dt.date(2026, 12, 1)
REPO = "https://github.com/ggml-org/llama.cpp"
FAMILY = "llama.cpp"
INPUT = "llama-cpp-tags.json"
BACKENDS = {"cuda": "CUDA", "rocm": "HIP", "vulkan": "Vulkan"}
SOURCE = Source(id="llamacpp-release-tags", url=f"{REPO}/tags", publisher="ggml-org",
                title="llama.cpp build tags (bNNNN)", version="tags b1046 to b9402", reviewed=REVIEWED,
                note="Every build tag from b1046 to b9402 that the scanned clone holds (5235 tags).")
PUBLISHER = "ggml-org"


# ------------------------------------------------------------ the CMake default block

class CMakeBlockError(ValueError):
    """A statement of the CUDA default block this reader does not understand."""


@dataclass(frozen=True)
class _Cond:
    text: str

    def holds(self, cuda: tuple[int, ...]) -> bool:
        return _eval_condition(self.text, cuda)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


def _eval_atom(atom: str, cuda: tuple[int, ...]) -> bool:
    atom = atom.strip()
    if re.fullmatch(r"NOT DEFINED CMAKE_CUDA_ARCHITECTURES", atom):
        return True
    m = re.fullmatch(r'CUDAToolkit_VERSION (VERSION_GREATER_EQUAL|VERSION_LESS|VERSION_GREATER|VERSION_LESS_EQUAL) "?([\d.]+)"?',
                     atom)
    if m:
        op, value = m.group(1), _version(m.group(2))
        width = max(len(value), len(cuda))
        a, b = cuda + (0,) * (width - len(cuda)), value + (0,) * (width - len(value))
        return {"VERSION_GREATER_EQUAL": a >= b, "VERSION_LESS": a < b, "VERSION_GREATER": a > b,
                "VERSION_LESS_EQUAL": a <= b}[op]
    if re.fullmatch(r'CMAKE_VERSION VERSION_GREATER_EQUAL "?[\d.]+"?', atom):
        return True  # any CMake recent enough to matter; only ever ANDed with GGML_NATIVE
    # Build options (GGML_NATIVE, GGML_CUDA_F16, LLAMA_CUDA_DMMV_F16 ...): off, as in a
    # non-native default build.
    if re.fullmatch(r"(GGML|LLAMA)_[A-Z0-9_]+", atom):
        return False
    raise CMakeBlockError(f"condition '{atom}' is not one this reader knows")


def _eval_condition(text: str, cuda: tuple[int, ...]) -> bool:
    return any(all(_eval_atom(a, cuda) for a in re.split(r"\s+AND\s+", part)) for part in re.split(r"\s+OR\s+", text))


def default_cuda_architectures(block: str, cuda: tuple[int, ...]) -> list[str]:
    """The CMAKE_CUDA_ARCHITECTURES a default, non-native build gets with CUDA ``cuda``.

    ``block`` is the scan's ``if (NOT DEFINED CMAKE_CUDA_ARCHITECTURES) ... endif()`` block,
    one statement a line. Build options are off (the defaults); only the CUDA version
    conditions are evaluated."""
    archs: list[str] = []
    # A stack of [taking this branch, some branch already taken, enclosing branch live].
    stack: list[list[bool]] = []

    def live() -> bool:
        return all(frame[0] for frame in stack)

    for stmt in block.splitlines():
        if m := re.fullmatch(r"if\s*\((.*)\)", stmt):
            outer = live()
            take = outer and _Cond(m.group(1)).holds(cuda)
            stack.append([take, take, outer])
        elif m := re.fullmatch(r"elseif\s*\((.*)\)", stmt):
            frame = stack[-1]
            take = frame[2] and not frame[1] and _Cond(m.group(1)).holds(cuda)
            frame[0], frame[1] = take, frame[1] or take
        elif re.fullmatch(r"else\s*\(\s*\)", stmt):
            frame = stack[-1]
            frame[0] = frame[2] and not frame[1]
            frame[1] = True
        elif re.fullmatch(r"endif\s*\(\s*\)", stmt):
            stack.pop()
        elif m := re.fullmatch(r'set\s*\(\s*CMAKE_CUDA_ARCHITECTURES\s+"([^"]*)"\s*\)', stmt):
            if live():
                archs = [a for a in m.group(1).split(";") if a]
        elif m := re.fullmatch(r"list\s*\(\s*APPEND CMAKE_CUDA_ARCHITECTURES\s+([^)]*)\)", stmt):
            if live():
                archs += m.group(1).split()
        elif re.fullmatch(r"message\s*\(.*\)", stmt):
            continue
        else:
            raise CMakeBlockError(f"statement '{stmt}' is not one this reader knows")
    if "native" in archs:
        raise CMakeBlockError("the default list evaluated to a native build")
    return archs


def cuda_build_groups(block: str) -> list[tuple[tuple[str, ...], str | None]]:
    """The default non-native architecture entries, grouped by the CUDA versions they are built
    with: [(entries, CUDA version spec or None for every version)]."""
    thresholds = sorted({_version(v) for v in re.findall(r'CUDAToolkit_VERSION \w+ "?([\d.]+)"?', block)})
    probes = [(0,)] + thresholds
    present: dict[str, list[bool]] = {}
    for i, probe in enumerate(probes):
        for entry in default_cuda_architectures(block, probe):
            present.setdefault(entry, [False] * len(probes))[i] = True
    groups: dict[str | None, list[str]] = {}
    for entry, flags in present.items():
        on = [i for i, f in enumerate(flags) if f]
        if on != list(range(on[0], on[-1] + 1)):
            raise CMakeBlockError(f"entry {entry} is built for CUDA versions that are not one range")
        parts = []
        if on[0] > 0:
            parts.append(">=" + ".".join(map(str, probes[on[0]])))
        if on[-1] < len(probes) - 1:
            parts.append("<" + ".".join(map(str, probes[on[-1] + 1])))
        groups.setdefault(",".join(parts) or None, []).append(entry)
    return [(tuple(v), k) for k, v in groups.items()]


# ------------------------------------------------------------------- the importer

def _num(row: dict) -> int:
    return int(row["tag"][1:])


def _runs(rows: list[dict], value_of: Callable[[dict], Hashable]) -> list[tuple[Hashable, int, int]]:
    """(value, index of the first row, index past the last row) for each run of equal values."""
    out, start = [], 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or value_of(rows[i]) != value_of(rows[start]):
            out.append((value_of(rows[start]), start, i))
            start = i
    return out


def parse(path: Path) -> KBFile:
    path = Path(path)
    _, rows = read_json(path, "releases")
    for i, row in enumerate(rows):
        if not isinstance(row.get("tag"), str) or not re.fullmatch(r"b\d+", row["tag"]):
            raise ImportFormatError(path, None, f"releases[{i}]: 'tag' missing or not a build tag bNNNN")
        for field, kind in (("commit", str), ("backends", list), ("linux_ci", list), ("readme_backends", dict),
                            ("windows_cuda", list), ("windows_hip", list), ("linux_rocm", list)):
            if not isinstance(row.get(field), kind):
                raise ImportFormatError(path, None, f"release {row['tag']}: field '{field}' missing or not a "
                                                    f"{kind.__name__}")
        if i and _num(row) <= _num(rows[i - 1]):
            raise ImportFormatError(path, None, f"release {row['tag']}: tags must be in increasing build order")
    cuda_groups: dict[str, list] = {}
    for row in rows:
        block = row.get("cuda_default")
        if block and block not in cuda_groups:
            try:
                cuda_groups[block] = cuda_build_groups(block)
            except CMakeBlockError as err:
                raise ImportFormatError(path, None, f"release {row['tag']}: CUDA default block: {err}") from None

    sources: dict[str, Source] = {SOURCE.id: SOURCE}
    nodes: list[Node] = []
    facts: list[Fact] = []

    def cite(row: dict, file: str) -> str:
        src = tag_source(REPO, PUBLISHER, "llama.cpp", file, row["tag"], row["commit"], "llamacpp")
        src = src.model_copy(update={"reviewed": REVIEWED})
        sources.setdefault(src.id, src)
        return src.id

    def readme_row(r: dict, name: str) -> str | None:
        return r["readme_backends"].get(name)

    signatures: dict[str, Callable[[dict], Hashable]] = {
        "cuda": lambda r: (r.get("cuda_file"), r.get("cuda_default"), tuple(r["windows_cuda"]),
                           "cuda" in r["linux_ci"], readme_row(r, "CUDA")),
        "rocm": lambda r: (tuple(map(tuple, r["windows_hip"])), r.get("hip_sdk"), tuple(map(tuple, r["linux_rocm"])),
                           tuple(r.get("linux_rocm_version") or ()), "rocm" in r["linux_ci"], readme_row(r, "HIP")),
        "vulkan": lambda r: (bool(r.get("windows_vulkan")), bool(r.get("linux_vulkan")), "vulkan" in r["linux_ci"],
                             readme_row(r, "Vulkan")),
    }
    for backend, label in BACKENDS.items():
        pool = [r for r in rows if backend in r["backends"]]
        if not pool:
            continue
        starts = [start for _, start, _ in _runs(pool, signatures[backend])]
        if starts[-1] != len(pool) - 1:
            starts.append(len(pool) - 1)  # the newest tag
        for k, start in enumerate(starts):
            row = pool[start]
            last = pool[starts[k + 1] - 1].get("through", pool[starts[k + 1] - 1]["tag"]) if k + 1 < len(starts) else None
            span = ("The newest scanned build." if last is None else
                    f"Stands for build {row['tag']} alone." if last == row["tag"] else
                    f"Stands for builds {row['tag']} through {last}: the scan found the same {label} build facts "
                    f"at every tag in between.")
            nodes.append(Node(id=f"llama.cpp-{row['tag']}-{'hip' if backend == 'rocm' else backend}",
                              layer=Layer.app, name=f"llama.cpp {row['tag']} ({label})", family=FAMILY,
                              version=str(_num(row)), backend=backend,
                              layers={Layer.framework: "not_used",
                                      **({Layer.toolkit: "not_used"} if backend == "vulkan" else {})},
                              release_date=row.get("date") or None, source=SOURCE.id, note=span))

        def add(value_of: Callable[[dict], Hashable], make: Callable[[Hashable, dict, Selector, str], list[Fact]],
                _pool: list[dict] = pool, _backend: str = backend) -> None:
            for value, start, end in _runs(_pool, value_of):
                if value in (None, (), "", False, frozenset()):
                    continue
                first = _pool[start]
                spec = f">={_num(first)}" + (f",<{_num(_pool[end])}" if end < len(_pool) else "")
                last = _pool[end - 1].get("through", _pool[end - 1]["tag"])
                through = f"Read at {first['tag']}" + ("." if last == first["tag"] else
                                                       f"; the same at every build tag through {last}.")
                for fact in make(value, first, release_selector(FAMILY, spec, _backend), through):
                    facts.append(fact)

        def os_fact(platform: str, file_of: Callable[[dict], str], section: str, fid: str, extra: str = ""):
            def make(value, first, subject, through):
                return [Fact(id=f"{fid}-{first['tag']}", relation=Relation.runs_on, subject=subject,
                             object=Selector(layer=Layer.os, platform=platform), source=cite(first, file_of(first)),
                             section=section, note=" ".join(x for x in (extra, through) if x), reviewed=REVIEWED)]
            return make

        prefix = f"llamacpp-{'hip' if backend == 'rocm' else backend}"
        if backend == "cuda":
            def ships(value, first, subject, through):
                block = value[1]
                out = []
                for entries, spec in cuda_groups[block]:
                    targets = cuda_targets(list(entries))
                    if not targets:
                        continue
                    when = {Layer.toolkit: Selector(layer=Layer.toolkit, family="cuda", version=spec)} if spec else {}
                    suffix = re.sub(r"[^0-9a-z]+", "", spec or "all")
                    skipped = [e for e in entries if not cuda_targets([e])]
                    out.append(Fact(
                        id=f"{prefix}-ships-{first['tag']}-{suffix}", relation=Relation.ships_kernels_for,
                        subject=subject, object=Selector(ids=targets), exhaustive=True,
                        domain=Selector(layer=Layer.arch, vendor="nvidia"), when=when,
                        source=cite(first, value[0]), section="default CMAKE_CUDA_ARCHITECTURES (non-native build)",
                        reviewed=REVIEWED,
                        note=" ".join(x for x in (
                            f"CMake entries {', '.join(entries)}"
                            + (f" with CUDA {spec}" if spec else "") + ": the list a build gets when "
                            "CMAKE_CUDA_ARCHITECTURES is not given and the build is not native (the release "
                            "archives are not native builds); entries without a suffix build machine code and "
                            "PTX, -virtual ones PTX only, -real ones machine code only.",
                            f"{', '.join(skipped)} (family-specific PTX) is not modelled." if skipped else None,
                            "With the GGML_CUDA_F16/DMMV_F16 options on, the file names another list."
                            if "F16" in block else None, through) if x)))
                return out
            add(lambda r: (r.get("cuda_file"), r.get("cuda_default")) if r.get("cuda_default") else None, ships)
            add(lambda r: r.get("cuda_file") if r.get("cuda_default") else None,
                lambda value, first, subject, through: [Fact(
                    id=f"{prefix}-toolkit-{first['tag']}", relation=Relation.requires, subject=subject,
                    object=Selector(layer=Layer.toolkit, family="cuda"), source=cite(first, value),
                    section="CUDA build (CUDAToolkit)", reviewed=REVIEWED,
                    note=f"The CUDA backend is compiled with the CUDA toolkit; no minimum version is stated. {through}")])
            add(lambda r: tuple(r["windows_cuda"]),
                lambda value, first, subject, through: os_fact(
                    "windows", lambda f: f["workflow"], "Windows CUDA release archives", f"{prefix}-os-windows",
                    f"Release archives are built with CUDA {', '.join(value)}.")(value, first, subject, through))
        elif backend == "rocm":
            def hip_ships(platform, key):
                def make(value, first, subject, through):
                    targets = list(dict.fromkeys(t for group in value for t in group))
                    sdk = (f" with the HIP SDK installer {first['hip_sdk']}" if platform == "windows" and
                           first.get("hip_sdk") else
                           f" with ROCm {', '.join(first['linux_rocm_version'])}" if platform == "linux" and
                           first.get("linux_rocm_version") else "")
                    per = " (one archive per target)" if len(value) > 1 else ""
                    return [Fact(
                        id=f"{prefix}-ships-{platform}-{first['tag']}", relation=Relation.ships_kernels_for,
                        subject=subject, object=Selector(ids=targets), exhaustive=True,
                        domain=Selector(layer=Layer.arch, vendor="amd"),
                        when={Layer.os: Selector(layer=Layer.os, platform=platform)},
                        source=cite(first, first["workflow"]), reviewed=REVIEWED,
                        section=f"{'Windows HIP' if platform == 'windows' else 'Linux ROCm'} release archives, GPU targets",
                        note=f"The published {platform.capitalize()} archives are compiled for these targets{per}{sdk}; "
                             f"a source build can set GPU_TARGETS to others. The README names no AMD GPU beyond "
                             f"\"AMD GPU\", so this is a build list, not a support statement. {through}")]
                return make
            add(lambda r: (tuple(map(tuple, r["windows_hip"])) or None), hip_ships("windows", "windows_hip"))
            add(lambda r: (tuple(map(tuple, r["linux_rocm"])) or None), hip_ships("linux", "linux_rocm"))
            add(lambda r: bool(r["windows_hip"]),
                os_fact("windows", lambda f: f["workflow"], "Windows HIP release archives", f"{prefix}-os-windows"))

            def rocm_linux(r: dict):
                if r["linux_rocm"]:
                    return ("release", r["workflow"])
                return ("ci", ".github/workflows/build.yml") if "rocm" in r["linux_ci"] else None
            add(rocm_linux, lambda value, first, subject, through: [
                *os_fact("linux", lambda f: value[1],
                         "Linux ROCm release archives" if value[0] == "release" else "CI: HIP build on Ubuntu",
                         f"{prefix}-os-linux")(value, first, subject, through),
                Fact(id=f"{prefix}-toolkit-linux-{first['tag']}", relation=Relation.requires, subject=subject,
                     object=Selector(layer=Layer.toolkit, family="rocm"),
                     when={Layer.os: Selector(layer=Layer.os, platform="linux")}, source=cite(first, value[1]),
                     section="Linux ROCm release archives" if value[0] == "release" else "CI: HIP build on Ubuntu",
                     reviewed=REVIEWED, note=f"Built on Ubuntu against ROCm (ROCm's container or apt repository). {through}")])
        else:
            for vendor in ("nvidia", "amd"):
                add(lambda r: readme_row(r, "Vulkan") if readme_row(r, "Vulkan") == "GPU" else None,
                    lambda value, first, subject, through, vendor=vendor: [Fact(
                        id=f"{prefix}-arch-{vendor}-{first['tag']}", relation=Relation.supports, subject=subject,
                        object=Selector(layer=Layer.arch, vendor=vendor), source=cite(first, "README.md"),
                        section="Supported backends: Vulkan -> GPU", reviewed=REVIEWED,
                        caveat="The README gives only \"GPU\" as the target; the GPU needs a working Vulkan driver.",
                        note=through)])
            add(lambda r: bool(r.get("windows_vulkan")),
                os_fact("windows", lambda f: f["workflow"], "Windows Vulkan release archive", f"{prefix}-os-windows"))

            def vulkan_linux(r: dict):
                if r.get("linux_vulkan"):
                    return ("release", r["workflow"])
                return ("ci", ".github/workflows/build.yml") if "vulkan" in r["linux_ci"] else None
            add(vulkan_linux, lambda value, first, subject, through: os_fact(
                "linux", lambda f: value[1],
                "Linux Vulkan release archive" if value[0] == "release" else "CI: Vulkan build on Ubuntu",
                f"{prefix}-os-linux")(value, first, subject, through))
        if backend == "cuda":
            add(lambda r: readme_row(r, "CUDA") if readme_row(r, "CUDA") == "Nvidia GPU" else None,
                lambda value, first, subject, through: [Fact(
                    id=f"{prefix}-arch-nvidia-{first['tag']}", relation=Relation.supports, subject=subject,
                    object=Selector(layer=Layer.arch, vendor="nvidia"), exhaustive=True,
                    domain=Selector(layer=Layer.arch, vendor="nvidia"), source=cite(first, "README.md"),
                    section="Supported backends: CUDA -> Nvidia GPU", reviewed=REVIEWED, note=through)])
            add(lambda r: ("ci", ".github/workflows/build.yml") if "cuda" in r["linux_ci"] else None,
                lambda value, first, subject, through: os_fact(
                    "linux", lambda f: value[1], "CI: CUDA build on Ubuntu", f"{prefix}-os-linux")(
                    value, first, subject, through))
    return KBFile(sources=list(sources.values()), nodes=nodes, facts=facts)
