"""Importers: published vendor files -> generated knowledge-base YAML.

Each importer module has a pure ``parse(path) -> KBFile`` that raises
:class:`ImportFormatError` on input it cannot read. :data:`IMPORTERS` maps the
``KIND`` of ``gpulane kb import KIND FILE`` to the parse function, the file it
writes in ``gpulane/data`` and its source metadata.

Operating-system nodes are shared by several AMD sources, so no importer writes
them into its own file: :func:`plan_import` moves them into :data:`OS_FILE`,
merging them with the OS nodes already there (kernels are united), so that each
OS id is defined once. AMD architecture nodes are shared the same way (AMD's GPU
specification table and LLVM's processor table both define ``gfx1100``): they go
to :data:`AMD_ARCH_FILE`, where a node takes each attribute from the first source
in :data:`_ARCH_SOURCE_PRIORITY` that states it.

Importers marked ``bundled`` read a pinned input kept in the repository's
``data-inputs`` folder (small excerpts of vendor files); the others read
``shared/sources``.

The CLI is meant to be::

    plan = plan_import(kind, path, data_dir)
    print(plan.summary())
    if not dry_run:
        write_import(plan)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import yaml

from gpulane.model import KBFile, Layer, Node, Source

from . import (amd_llvm_processors, amd_products, bitsandbytes_releases, comfyui_releases, flash_attention_releases,
               hip_sdk_windows, jax_builds, llama_cpp_releases, nvidia_cuda_drivers, nvidia_legacy_branches, nvidia_products,
               ollama_releases, os_glibc, pytorch_builds, rocm_gpu_specs, rocm_linux_sysreq, rocm_matrix,
               vllm_releases, vram_table, xformers_releases)
from .common import sort_kernels
from .errors import ImportFormatError

__all__ = [
    "IMPORTERS", "OS_FILE", "Importer", "ImportFormatError", "ImportPlan", "FilePlan", "KBDiff",
    "plan_import", "write_import", "run_import", "dump_kbfile", "render_all", "load_kbfile", "DATA_DIR",
    "AMD_ARCH_FILE", "AMD_GPU_FILE", "SHARED_FILES", "INPUTS_DIR", "input_path",
]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
# Pinned inputs of the bundled importers (outside the installed package).
INPUTS_DIR = Path(__file__).resolve().parents[3] / "data-inputs"
OS_FILE = "rocm-os.yaml"
AMD_ARCH_FILE = "amd-archs.yaml"
AMD_GPU_FILE = "amd-gpus.yaml"


@dataclass(frozen=True)
class Importer:
    kind: str
    parse: Callable[[Path], KBFile]
    target: str  # file name in gpulane/data
    sources: tuple[Source, ...]  # what the generated file cites
    default_input: str  # the file's name in shared/sources (or in data-inputs when bundled)
    bundled: bool = False  # the pinned input lives in the repository's data-inputs folder


IMPORTERS: dict[str, Importer] = {
    imp.kind: imp
    for imp in (
        Importer("rocm-matrix", rocm_matrix.parse, "rocm-matrix.yaml",
                 (rocm_matrix.SOURCE, rocm_matrix.FOOTNOTE_SOURCE, rocm_matrix.TF_COMPAT_SOURCE),
                 "rocm-compatibility-matrix-historical.csv"),
        Importer("rocm-gpu-specs", rocm_gpu_specs.parse, "rocm-gpu-specs.yaml",
                 (rocm_gpu_specs.SOURCE,), "rocm-gpu-arch-specs.rst"),
        Importer("rocm-linux-sysreq", rocm_linux_sysreq.parse, "rocm-linux-sysreq.yaml",
                 rocm_linux_sysreq.SOURCES, "rocm-linux-sysreq", bundled=True),
        Importer("hip-sdk-windows", hip_sdk_windows.parse, "hip-sdk-windows.yaml",
                 hip_sdk_windows.SOURCES, "hip-sdk-windows", bundled=True),
        Importer("amd-llvm-processors", amd_llvm_processors.parse, "amd-llvm-generic-targets.yaml",
                 (amd_llvm_processors.SOURCE,), "AMDGPUUsage-processors.rst", bundled=True),
        Importer("os-glibc", os_glibc.parse, "os-glibc.yaml", os_glibc.SOURCES, "os-glibc.json", bundled=True),
        Importer("pytorch-builds", pytorch_builds.parse, "pytorch-builds.yaml",
                 (pytorch_builds.SOURCE,), "pytorch-builds.json", bundled=True),
        # JAX: the pinned input is a scan of the release tags (scripts/scan_jax_tags.py).
        Importer("jax-builds", jax_builds.parse, "jax-builds.yaml",
                 (jax_builds.SOURCE,), jax_builds.INPUT, bundled=True),
        Importer("amd-products", amd_products.parse, "amd-products.yaml",
                 (amd_products.SOURCE, amd_products.PCIIDS, amd_products.MESA, amd_products.THEROCK),
                 "amdgpu.ids", bundled=True),
        Importer("nvidia-products", nvidia_products.parse, "nvidia-products.yaml",
                 (nvidia_products.SOURCE, nvidia_products.PCIIDS, nvidia_products.NIXPKGS, nvidia_products.RTX_SPARK_UMA),
                 "open-gpu-kernel-modules-README.md", bundled=True),
        Importer("vram-vendor-pages", vram_table.parse_pages, vram_table.PAGES_TARGET, (),
                 vram_table.PAGES_FILE, bundled=True),
        Importer("nvidia-legacy-branches", nvidia_legacy_branches.parse, nvidia_legacy_branches.TARGET,
                 (nvidia_legacy_branches.SOURCE,), "supported-gpus-525-legacy.json", bundled=True),
        Importer("nvidia-cuda-drivers", nvidia_cuda_drivers.parse, "nvidia-cuda-driver-table.yaml",
                 (nvidia_cuda_drivers.SOURCE,), "cuda-driver-table.json", bundled=True),
        # App releases: the pinned inputs are scans of the projects' release tags (scripts/scan_*.py)
        # and, for vLLM, the PyPI wheel metadata read per release.
        Importer("ollama-releases", ollama_releases.parse, "ollama-releases.yaml",
                 (ollama_releases.SOURCE,), ollama_releases.INPUT, bundled=True),
        Importer("vllm-releases", vllm_releases.parse, "vllm-releases.yaml",
                 (vllm_releases.SOURCE,), vllm_releases.INPUT, bundled=True),
        Importer("bitsandbytes-releases", bitsandbytes_releases.parse, "bitsandbytes-releases.yaml",
                 (bitsandbytes_releases.SOURCE,), bitsandbytes_releases.INPUT, bundled=True),
        Importer("flash-attention-releases", flash_attention_releases.parse, "flash-attention-releases.yaml",
                 (flash_attention_releases.SOURCE,), flash_attention_releases.INPUT, bundled=True),
        Importer("xformers-releases", xformers_releases.parse, "xformers-releases.yaml",
                 (xformers_releases.SOURCE,), xformers_releases.INPUT, bundled=True),
        Importer("comfyui-releases", comfyui_releases.parse, "comfyui-releases.yaml",
                 (comfyui_releases.SOURCE,), comfyui_releases.INPUT, bundled=True),
        Importer("llama-cpp-releases", llama_cpp_releases.parse, "llama-cpp-releases.yaml",
                 (llama_cpp_releases.SOURCE,), llama_cpp_releases.INPUT, bundled=True),
    )
}


def input_path(imp: Importer, sources_dir: Path, inputs_dir: Path = INPUTS_DIR) -> Path:
    """Where the pinned input of an importer lives."""

    return Path(inputs_dir if imp.bundled else sources_dir) / imp.default_input

# When several importers describe one OS node, the node cites the first of these.
_OS_SOURCE_PRIORITY = [*reversed([s.id for s in rocm_linux_sysreq.SOURCES]), rocm_matrix.SOURCE.id,
                       *(s.id for s in reversed(hip_sdk_windows.SOURCES))]
# An AMD architecture node takes each attribute from the first of these that states it.
_ARCH_SOURCE_PRIORITY = [rocm_gpu_specs.SOURCE.id, amd_llvm_processors.SOURCE.id]
# Likewise an AMD GPU node.
_AMD_GPU_SOURCE_PRIORITY = [rocm_gpu_specs.SOURCE.id, amd_products.SOURCE.id, amd_llvm_processors.SOURCE.id]


# --------------------------------------------------------------------- dumping

_LAYER_RANK = {layer: i for i, layer in enumerate(Layer)}


class _Flow(dict):
    """A mapping written on one line (selectors)."""


class _FlowList(list):
    """A list written on one line (lists of scalars)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Flow, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v.items(), flow_style=True))
_Dumper.add_representer(_FlowList, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))


def _compact_selector(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"ids"}:
        ids = value["ids"]
        return ids[0] if len(ids) == 1 else _FlowList(ids)
    return _Flow(value) if isinstance(value, dict) else value


def _clean(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, _Flow):
        return _Flow({k: _clean(v) for k, v in value.items()})
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [_clean(v) for v in value]
        if all(not isinstance(v, (dict, list)) for v in items):
            return _FlowList(items)
        return items
    return value


def sorted_kbfile(kb: KBFile) -> KBFile:
    """The same content in the stable order the generated files use."""

    return KBFile(
        sources=sorted(kb.sources, key=lambda s: s.id),
        nodes=sorted(kb.nodes, key=lambda n: (_LAYER_RANK[n.layer], n.id)),
        facts=sorted(kb.facts, key=lambda f: f.id),
    )


def dump_kbfile(kb: KBFile, header: Optional[str] = None) -> str:
    """Deterministic YAML for a KBFile (stable order, defaults left out)."""

    kb = sorted_kbfile(kb)
    data = kb.model_dump(mode="json", exclude_defaults=True)
    for fact in data.get("facts", []):
        fact["object"] = _compact_selector(fact["object"])
        for key in ("subject",):
            if isinstance(fact.get(key), dict):
                fact[key] = _compact_selector(fact[key])
        if "when" in fact:
            fact["when"] = {k: _compact_selector(v) for k, v in fact["when"].items()}
    data = {k: v for k, v in _clean(data).items() if v}
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)
    if header:
        body = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines()) + "\n" + body
    return body


def _header(imp: Importer, input_name: str) -> str:
    lines = [f"Generated by `gpulane kb import {imp.kind} {input_name}`; do not edit by hand."]
    if imp.sources:
        lines.append("Source:")
        lines += [f"  {s.url}" for s in imp.sources]
    else:  # the sources are the file's own content (vendor pages listed in the input)
        lines.append(f"Sources: the pages data-inputs/{input_name} cites, listed below.")
    return "\n".join(lines)


AMD_ARCH_HEADER = (
    "Generated by `gpulane kb import` (rocm-gpu-specs, amd-llvm-processors); do not edit by hand.\n"
    "AMD architectures (LLVM targets), defined once for all AMD sources. A node takes each attribute from\n"
    "AMD's GPU specification table where it states one, else from LLVM's processor table (attribute_sources says which)."
)

AMD_GPU_HEADER = (
    "Generated by `gpulane kb import` (rocm-gpu-specs, amd-products); do not edit by hand.\n"
    "AMD GPU products, defined once for all AMD sources. A node takes each attribute from AMD's GPU\n"
    "specification table where it states one, else from libdrm's amdgpu.ids (attribute_sources says which)."
)

OS_HEADER = (
    "Generated by `gpulane kb import` (rocm-matrix, rocm-linux-sysreq, hip-sdk-windows, os-glibc); do not edit by hand.\n"
    "Operating-system releases named by AMD's ROCm and HIP SDK pages, defined once for all of them.\n"
    "Kernels come from the ROCm Linux system requirements, glibc versions from the pep600_compliance survey;\n"
    "each node cites where its attributes come from."
)


def load_kbfile(path: Path) -> Optional[KBFile]:
    """The KBFile at ``path`` (``None`` if there is no such file).

    Read like any knowledge-base file (regular file, size cap, schema); a target that is a
    folder or does not load raises ImportFormatError naming it, not a traceback.
    """
    from gpulane.loaders.kbfiles import read_kb_file

    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return None
    model, _, problems = read_kb_file(path)
    if problems:
        first = problems[0]
        raise ImportFormatError(path, first.line, f"the existing file cannot be read ({first.message}); "
                                                  "fix or remove it, then import again")
    return model


# ---------------------------------------------------------------------- OS merge


def split_os(kb: KBFile) -> tuple[KBFile, list[Node]]:
    """Move OS nodes out of an importer's KBFile."""

    rest = [n for n in kb.nodes if n.layer is not Layer.os]
    oses = [n for n in kb.nodes if n.layer is Layer.os]
    return KBFile(sources=kb.sources, nodes=rest, facts=kb.facts), oses


@dataclass(frozen=True)
class SharedFile:
    """Nodes that several importers define, kept in one file and merged attribute by attribute."""

    name: str
    layer: Layer
    vendor: str
    header: str
    priority: tuple[str, ...]  # source ids, first wins

    def holds(self, node: Node) -> bool:
        return node.layer is self.layer and node.vendor == self.vendor


SHARED_FILES: tuple[SharedFile, ...] = (
    SharedFile(AMD_ARCH_FILE, Layer.arch, "amd", AMD_ARCH_HEADER, tuple(_ARCH_SOURCE_PRIORITY)),
    SharedFile(AMD_GPU_FILE, Layer.gpu, "amd", AMD_GPU_HEADER, tuple(_AMD_GPU_SOURCE_PRIORITY)),
)


def split_shared(kb: KBFile) -> tuple[KBFile, dict[str, list[Node]]]:
    """Move the nodes that live in a shared file out of an importer's KBFile."""

    shared: dict[str, list[Node]] = {}
    rest = []
    for node in kb.nodes:
        home = next((f for f in SHARED_FILES if f.holds(node)), None)
        if home is None:
            rest.append(node)
        else:
            shared.setdefault(home.name, []).append(node)
    return KBFile(sources=kb.sources, nodes=rest, facts=kb.facts), shared


def split_amd_archs(kb: KBFile) -> tuple[KBFile, list[Node]]:
    """Move AMD architecture nodes out of an importer's KBFile."""

    rest, shared = split_shared(kb)
    return rest, shared.get(AMD_ARCH_FILE, [])


_MERGED_ATTRIBUTES = ("family", "segment", "virtual_function", "generic_name", "llvm_target", "vram_gb", "vram_sizes_gb", "pci_ids",
                      "aliases", "note")
# One memory statement per node: a node that states one size (or several) takes neither from another source.
_MEMORY = ("vram_gb", "vram_sizes_gb")


def _unset(value: Any) -> bool:
    return value is None or value == []


def _combine(primary: Node, other: Node) -> Node:
    """``primary`` with each attribute it lacks taken from ``other`` (recorded in attribute_sources)."""

    update: dict[str, Any] = {}
    sources = dict(primary.attribute_sources)
    for name in _MERGED_ATTRIBUTES:
        if name in _MEMORY and any(not _unset(getattr(primary, m)) for m in _MEMORY):
            continue
        if _unset(getattr(primary, name)) and not _unset(getattr(other, name)):
            update[name] = getattr(other, name)
            sources[name] = other.attribute_sources.get(name, other.source)
    update["attribute_sources"] = dict(sorted(sources.items()))
    return primary.model_copy(update=update)


def _without_source(node: Node, source: Optional[str]) -> Node:
    """A merged node less the attributes it took from ``source``."""

    update: dict[str, Any] = {name: ([] if name == "aliases" else None)
                              for name, src in node.attribute_sources.items()
                              if src == source and name in _MERGED_ATTRIBUTES}
    update["attribute_sources"] = {k: v for k, v in node.attribute_sources.items() if v != source}
    return node.model_copy(update=update)


def _merge_pair(old: Node, new: Node, priority: tuple[str, ...]) -> Node:
    def rank(source: Optional[str]) -> int:
        return priority.index(source) if source in priority else len(priority)

    if new.source == old.source:
        # a re-import of the primary source: keep what other sources added
        return _combine(new, old)
    stripped = _without_source(old, new.source)
    if rank(new.source) < rank(old.source):
        return _combine(new, stripped)
    return _combine(stripped, new)


def merge_shared_nodes(existing: list[Node], new: list[Node], priority: tuple[str, ...]) -> list[Node]:
    """Union by id; where two sources define one node, each attribute comes from the
    first source in ``priority`` that states it.

    Re-importing a source replaces what that source contributed, so the result does
    not depend on the order in which the importers run.
    """

    merged: dict[str, Node] = {}
    for node in list(existing) + list(new):
        old = merged.get(node.id)
        merged[node.id] = node if old is None else _merge_pair(old, node, priority)
    return sorted(merged.values(), key=lambda n: n.id)


def merge_arch_nodes(existing: list[Node], new: list[Node]) -> list[Node]:
    """:func:`merge_shared_nodes` for AMD architecture nodes."""

    return merge_shared_nodes(existing, new, tuple(_ARCH_SOURCE_PRIORITY))


def _source_rank(source: Optional[str]) -> int:
    return _OS_SOURCE_PRIORITY.index(source) if source in _OS_SOURCE_PRIORITY else len(_OS_SOURCE_PRIORITY)


def _glibc_rank(node: Node) -> int:
    return 0 if (node.attribute_sources.get("glibc") or "").startswith("pep600-compliance-") else 1


def merge_os_nodes(existing: list[Node], new: list[Node]) -> list[Node]:
    """Union by id; kernels are united, the node cites the highest-priority source.

    The merge is commutative, so the OS file does not depend on import order.
    """

    merged: dict[str, Node] = {}
    for node in list(existing) + list(new):
        old = merged.get(node.id)
        if old is None:
            merged[node.id] = node
            continue
        keep = old if _source_rank(old.source) <= _source_rank(node.source) else node
        other = node if keep is old else old
        update: dict = {"kernels": sort_kernels(old.kernels + node.kernels)}
        if other.glibc is not None and (keep.glibc is None or _glibc_rank(other) < _glibc_rank(keep)):
            # an attribute only one importer states comes with its own citation; where two state it,
            # the glibc measured in the distribution's own image outranks a vendor's table
            update["glibc"] = other.glibc
            update["attribute_sources"] = {**keep.attribute_sources, "glibc": other.attribute_sources.get("glibc")}
        merged[node.id] = keep.model_copy(update=update)
    return sorted(merged.values(), key=lambda n: n.id)


# ------------------------------------------------------------------------- diff


@dataclass
class KBDiff:
    """Ids added, changed and removed, per section (sources, nodes, facts)."""

    added: dict[str, list[str]] = field(default_factory=dict)
    changed: dict[str, list[str]] = field(default_factory=dict)
    removed: dict[str, list[str]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not any(self.added.values()) and not any(self.changed.values()) and not any(self.removed.values())

    def counts(self) -> str:
        parts = []
        for section in ("sources", "nodes", "facts"):
            a, c, r = (len(d.get(section, [])) for d in (self.added, self.changed, self.removed))
            if a or c or r:
                parts.append(f"{section}: +{a} ~{c} -{r}")
        return "; ".join(parts) or "no change"


def diff_kbfiles(old: Optional[KBFile], new: KBFile, *, keep_removed: bool = False) -> KBDiff:
    diff = KBDiff()
    for section in ("sources", "nodes", "facts"):
        before = {item.id: item for item in (getattr(old, section) if old else [])}
        after = {item.id: item for item in getattr(new, section)}
        diff.added[section] = sorted(set(after) - set(before))
        diff.removed[section] = [] if keep_removed else sorted(set(before) - set(after))
        diff.changed[section] = sorted(
            i for i in set(before) & set(after)
            if before[i].model_dump(mode="json") != after[i].model_dump(mode="json")
        )
    return diff


# ------------------------------------------------------------------------- plans


@dataclass
class FilePlan:
    path: Path
    old: Optional[KBFile]
    new: KBFile
    text: str
    diff: KBDiff

    @property
    def unchanged(self) -> bool:
        try:
            return self.path.is_file() and self.path.read_text(encoding="utf-8") == self.text
        except (OSError, UnicodeDecodeError):
            return False


@dataclass
class ImportPlan:
    kind: str
    input: Path
    files: list[FilePlan]  # written in this order (the OS file first)

    def summary(self) -> str:
        lines = [f"gpulane kb import {self.kind} {self.input}"]
        for plan in self.files:
            state = "unchanged" if plan.unchanged else plan.diff.counts()
            lines.append(f"  {plan.path.name}: {state}")
            for label, ids in (("+", plan.diff.added), ("~", plan.diff.changed), ("-", plan.diff.removed)):
                for section, items in ids.items():
                    for item in items:
                        lines.append(f"    {label} {section[:-1]} {item}")
        return "\n".join(lines)


def _check(kb: KBFile, path: Path) -> None:
    for section in ("sources", "nodes", "facts"):
        seen: set[str] = set()
        for item in getattr(kb, section):
            if item.id in seen:
                raise ValueError(f"{path.name}: {section[:-1]} id {item.id!r} defined twice")
            seen.add(item.id)
    for fact in kb.facts:
        if not fact.source:
            raise ValueError(f"{path.name}: fact {fact.id!r} cites no source")


def _file_plan(path: Path, new: KBFile, header: str, *, keep_removed: bool = False) -> FilePlan:
    new = sorted_kbfile(new)
    _check(new, path)
    text = dump_kbfile(new, header)
    # the text must read back to the same content
    again = KBFile.model_validate(yaml.safe_load(text))
    if again.model_dump(mode="json") != new.model_dump(mode="json"):
        raise ValueError(f"{path.name}: the generated YAML does not read back to the same content")
    old = load_kbfile(path)
    return FilePlan(path, old, new, text, diff_kbfiles(old, new, keep_removed=keep_removed))


def plan_import(kind: str, path: Path, data_dir: Path = DATA_DIR) -> ImportPlan:
    """Parse ``path`` with the importer ``kind`` and compute what would change in ``data_dir``.

    Raises ``KeyError`` for an unknown kind and :class:`ImportFormatError` for bad input.
    Nothing is written.
    """

    if kind not in IMPORTERS:
        raise KeyError(f"unknown import kind {kind!r}; known: {', '.join(sorted(IMPORTERS))}")
    imp = IMPORTERS[kind]
    path, data_dir = Path(path), Path(data_dir)
    kb = KBFile.model_validate(imp.parse(path).model_dump())
    main, oses = split_os(kb)
    main, shared = split_shared(main)
    files = []
    if oses:
        os_path = data_dir / OS_FILE
        current = load_kbfile(os_path)
        merged = merge_os_nodes(current.nodes if current else [], oses)
        files.append(_file_plan(os_path, KBFile(nodes=merged), OS_HEADER, keep_removed=True))
    for home in SHARED_FILES:
        if home.name not in shared:
            continue
        shared_path = data_dir / home.name
        current = load_kbfile(shared_path)
        merged = merge_shared_nodes(current.nodes if current else [], shared[home.name], home.priority)
        files.append(_file_plan(shared_path, KBFile(nodes=merged), home.header, keep_removed=True))
    files.append(_file_plan(data_dir / imp.target, main, _header(imp, imp.default_input)))
    return ImportPlan(kind, path, files)


def write_import(plan: ImportPlan, *, validate: bool = True) -> list[Path]:
    """Write the plan's files as one unit; returns the paths written.

    The knowledge base the folder would hold afterwards is loaded and checked first
    (gpulane.api.folder_problems); any problem refuses the import with the problems listed
    and nothing replaced. Then every file is replaced together (see loaders.transaction):
    a failure or a kill leaves the old files, never a mix. ``validate=False`` skips the check
    (tests of the mechanics that import one fixture into an empty folder).
    """
    from gpulane.api import folder_problems
    from gpulane.loaders.transaction import replace_files

    changed = [fp for fp in plan.files if not fp.unchanged]
    if not changed:
        return []
    folders = {fp.path.parent for fp in changed}
    if len(folders) != 1:
        raise ValueError("an import writes into one folder")
    return replace_files(folders.pop(), {fp.path.name: fp.text for fp in changed},
                         validate=folder_problems if validate else None)


def run_import(kind: str, path: Path, data_dir: Path = DATA_DIR, *, dry_run: bool = False,
               validate: bool = True) -> tuple[ImportPlan, list[Path]]:
    """What ``gpulane kb import KIND FILE [--dry-run]`` does: plan, then write unless dry-run.

    The folder is locked from reading the files the import merges with until the new ones are
    in place, so two imports at once never lose each other's changes.
    Returns the plan (``plan.summary()`` is the text to print) and the paths written.
    """
    from gpulane.loaders.transaction import data_lock

    if dry_run:
        return plan_import(kind, path, data_dir), []
    with data_lock(Path(data_dir)):
        plan = plan_import(kind, path, data_dir)
        return plan, write_import(plan, validate=validate)


def render_all(sources_dir: Path, inputs_dir: Path = INPUTS_DIR) -> dict[str, str]:
    """Every generated file's text, built from scratch from ``sources_dir`` (and the
    bundled inputs in ``inputs_dir``).

    This is what the shipped files in ``gpulane/data`` must equal.
    """

    out: dict[str, str] = {}
    oses: list[Node] = []
    shared: dict[str, list[Node]] = {home.name: [] for home in SHARED_FILES}
    for imp in IMPORTERS.values():
        kb = imp.parse(input_path(imp, sources_dir, inputs_dir))
        main, found = split_os(kb)
        main, found_shared = split_shared(main)
        oses = merge_os_nodes(oses, found)
        for home in SHARED_FILES:
            shared[home.name] = merge_shared_nodes(shared[home.name], found_shared.get(home.name, []), home.priority)
        out[imp.target] = dump_kbfile(main, _header(imp, imp.default_input))
    out[OS_FILE] = dump_kbfile(KBFile(nodes=oses), OS_HEADER)
    for home in SHARED_FILES:
        out[home.name] = dump_kbfile(KBFile(nodes=shared[home.name]), home.header)
    return out
