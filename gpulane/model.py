"""The knowledge-base schema: layers, nodes, sources, facts and selectors.

Everything that the loaders produce and the graph consumes is one of these
pydantic models. Field names here are the field names of the YAML files in
``gpulane/data`` (see docs/kb-format.md).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator


class Layer(str, Enum):
    """The seven layers of a path, bottom (hardware) to top (application)."""

    gpu = "gpu"
    arch = "arch"
    os = "os"
    driver = "driver"
    toolkit = "toolkit"
    framework = "framework"
    app = "app"


LAYER_ORDER: tuple[Layer, ...] = tuple(Layer)
LAYER_NAMES: tuple[str, ...] = tuple(layer.value for layer in Layer)
_LAYER_VALUES = frozenset(LAYER_NAMES)


class Status(str, Enum):
    """How a source stands behind a fact."""

    supported = "supported"
    deprecated = "deprecated"
    workaround = "workaround"
    community = "community"
    unsupported = "unsupported"


OFFICIAL_POSITIVE = frozenset({Status.supported, Status.deprecated})
UNOFFICIAL_POSITIVE = frozenset({Status.workaround, Status.community})


class Platform(str, Enum):
    linux = "linux"
    windows = "windows"
    wsl2 = "wsl2"


class Relation(str, Enum):
    """What a fact says about its subject and object.

    The relation names the kind of claim; whether an unlisted object counts as
    "not supported" is decided by ``exhaustive`` (``requires``, ``built_with``,
    ``bundles`` and ``has_arch`` are exhaustive by nature).
    """

    has_arch = "has_arch"  # gpu -> arch (hardware fact)
    supports = "supports"  # a support statement by the subject's publisher
    ships_kernels_for = "ships_kernels_for"  # a build list: compiled for these archs
    runs_on = "runs_on"  # X -> os
    requires = "requires"  # X needs the object (a floor, a platform, a family)
    built_with = "built_with"  # a build was compiled against this toolkit/framework
    bundles = "bundles"  # X ships this layer inside itself (container, Ollama)


ALWAYS_EXHAUSTIVE = frozenset(
    {Relation.has_arch, Relation.requires, Relation.built_with, Relation.bundles}
)

Vendor = Literal["amd", "nvidia", "intel", "any"]
# Market segment of a GPU product, as its vendor's own catalogue groups it.
Segment = Literal["consumer", "workstation", "datacenter", "embedded", "integrated"]
# The compute backend an app release or feature uses (llama.cpp (HIP) is "rocm").
Backend = Literal["cuda", "rocm", "vulkan", "metal", "sycl", "cpu"]


# The validation context of data gpulane itself wrote after validating it (its compile cache,
# whose entries are checked against a digest first): the checks that only read a value
# (id, spec and selector shape, when-key layers) ran when the data was first read and are not
# run again. Types are still validated.
TRUSTED = "gpulane-validated"


def _trusted(info: ValidationInfo) -> bool:
    return bool(info.context) and info.context.get(TRUSTED) is True


class Source(BaseModel):
    """A published document that facts restate."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    url: str
    publisher: str
    title: str
    version: str = Field(description="document version, release or commit")
    reviewed: Optional[dt.date] = None
    note: Optional[str] = None

    @field_validator("url")
    @classmethod
    def _url_is_web(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")):
            raise ValueError("expected an http(s) URL")
        return value


class Node(BaseModel):
    """One thing in one layer: a GPU, an architecture, an OS release, ..."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    layer: Layer
    name: str
    aliases: list[str] = Field(default_factory=list)
    vendor: Optional[Vendor] = None
    family: Optional[str] = None
    version: Optional[str] = None
    vram_gb: Optional[float] = None
    # A product sold in several memory sizes under one name (GeForce RTX 3060: 8 and 12 GB), as
    # its vendor's page lists them; `vram_gb` stays empty then. `vram >= N` holds for such a GPU
    # only when every size meets it (see docs/query-language.md).
    vram_sizes_gb: list[float] = Field(default_factory=list)
    segment: Optional[Segment] = None
    # A PCI function that exists only when a board is shared between virtual machines (SR-IOV): AMD's
    # "MxGPU" and "VF" device names. Not a board anyone buys; not counted among discrete GPUs.
    virtual_function: Optional[bool] = None
    # A device name its source gives only as a family, brand and line words with no model ("AMD Radeon
    # RX Series" in amdgpu.ids): it names no single product, so no single memory size; not counted
    # among discrete GPUs. Set only where the source's own wording is such a family name.
    generic_name: Optional[bool] = None
    # PCI device ids ("10de:2684", "1002:744c"), lower-case hex, vendor:device.
    pci_ids: list[str] = Field(default_factory=list)
    backend: Optional[Backend] = None
    llvm_target: Optional[str] = None
    compute_capability: Optional[str] = None
    platform: Optional[Platform] = None
    kernels: list[str] = Field(default_factory=list)
    # For an OS release: the GNU C library version it ships ("2.39"); binary wheels state the
    # oldest glibc they run on (manylinux_2_28 needs 2.28 or newer).
    glibc: Optional[str] = None
    release_date: Optional[dt.date] = None
    # Layers this node does not use or ships inside itself (Ollama bundles its
    # CUDA/ROCm runtime; llama.cpp's HIP build uses no framework).
    layers: dict[Layer, Literal["not_used", "bundled"]] = Field(default_factory=dict)
    source: Optional[str] = None
    # Attributes stated by another document than `source`: {vram_gb: nvidia-nim-llm-gpu-specs}.
    attribute_sources: dict[str, str] = Field(default_factory=dict)
    note: Optional[str] = None

    @field_validator("id")
    @classmethod
    def _id_is_simple(cls, value: str, info: ValidationInfo) -> str:
        if _trusted(info):
            return value
        if not value or any(ch.isspace() for ch in value):
            raise ValueError("expected an id without spaces")
        return value

    @field_validator("compute_capability")
    @classmethod
    def _cc_shape(cls, value: Optional[str]) -> Optional[str]:
        if value is not None:
            major, _, minor = value.partition(".")
            if not (major.isdigit() and minor.isdigit()):
                raise ValueError("expected a compute capability such as '8.9'")
        return value

    @model_validator(mode="after")
    def _one_memory_statement(self) -> "Node":
        if self.vram_sizes_gb:
            if self.vram_gb is not None:
                raise ValueError("give vram_gb (one size) or vram_sizes_gb (several), not both")
            if len(set(self.vram_sizes_gb)) < 2:
                raise ValueError("vram_sizes_gb lists the sizes of a product sold in several; "
                                 "for one size write vram_gb")
            if any(size <= 0 for size in self.vram_sizes_gb):
                raise ValueError("expected memory sizes in GB above 0")
        return self


class Selector(BaseModel):
    """Picks nodes of one layer: by id, or by attributes and a version spec.

    In the YAML files a selector is written as a node id, a list of ids, or a
    mapping such as ``{layer: toolkit, family: cuda, version: ">=12.8"}``.
    Attribute fields combine with AND.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    layer: Optional[Layer] = None
    ids: Optional[list[str]] = None
    vendor: Optional[Vendor] = None
    family: Optional[str] = None
    version: Optional[str] = Field(default=None, description="PEP 440 specifier set")
    platform: Optional[Platform] = None
    compute_capability: Optional[str] = Field(default=None, description="specifier")
    segment: Optional[Segment] = None
    backend: Optional[Backend] = None
    glibc: Optional[str] = Field(default=None, description="specifier on an OS release's glibc version")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: object) -> object:
        if isinstance(value, str):
            return {"ids": [value]}
        if isinstance(value, list):
            return {"ids": value}
        return value

    @field_validator("version", "compute_capability", "glibc")
    @classmethod
    def _spec_reads(cls, value: Optional[str], info: ValidationInfo) -> Optional[str]:
        # A spec that cannot be read is an error here, with its file and line, not later in a query.
        if value is not None and not _trusted(info):
            from gpulane.versions import InvalidSpecError, parse_spec

            try:
                parse_spec(value)
            except InvalidSpecError as exc:
                raise ValueError(str(exc)) from None
        return value

    @model_validator(mode="after")
    def _not_empty(self, info: ValidationInfo) -> "Selector":
        if _trusted(info):
            return self
        attrs = (self.ids, self.vendor, self.family, self.version, self.platform, self.compute_capability,
                 self.segment, self.backend, self.glibc)
        if all(a is None for a in attrs):
            raise ValueError("a selector needs ids or at least one attribute")
        if self.ids is None and self.layer is None:
            raise ValueError("a selector by attributes needs 'layer'")
        return self


class Fact(BaseModel):
    """One cited claim relating a subject node to the nodes of another layer."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    relation: Relation
    # One node id, a list of ids, or a selector over the subject's layer
    # ({layer: app, family: ollama, backend: rocm, version: ">=0.12.4"}): one fact
    # then covers every release the selector picks, expanded when the graph is compiled.
    subject: Union[str, list[str], Selector]
    object: Selector
    when: dict[Layer, Selector] = Field(default_factory=dict)
    status: Status = Status.supported
    source: Optional[str] = None
    section: Optional[str] = None
    reviewed: Optional[dt.date] = None
    exhaustive: bool = False
    # For an exhaustive list: the nodes the source's list is complete over. A node outside
    # the domain is neither listed nor "not listed": the list says nothing about it
    # (AMD's Radeon table is complete for Radeon cards, silent about Instinct ones).
    domain: Optional[Selector] = None
    note: Optional[str] = None
    # A limit of the claim that every answer using it must show.
    caveat: Optional[str] = None
    # For workaround facts: what the user must do ("HSA_OVERRIDE_GFX_VERSION=10.3.0").
    action: Optional[str] = None
    # For toolkit -> os support: the Linux kernels the source lists for this OS and this
    # case ("5.15 GA", "6.8 HWE", "5.14.0-570"); empty when the source names none.
    kernels: list[str] = Field(default_factory=list)
    # For an override workaround: the architecture the runtime is told to run as
    # (HSA_OVERRIDE_GFX_VERSION=10.3.0 runs a gfx1031 card as gfx1030). Builds that ship code
    # for it then count, and the override never applies to that target itself.
    runs_as: Optional[str] = None
    # For a GPU list: the names exactly as the source lists them. `kb check` errors on a name
    # that names no GPU of the object, so a list never silently misses a card.
    listed: list[str] = []
    # Names the source lists that the knowledge base has no GPU for (said, not silent); `kb check`
    # errors once one of them names a GPU (it then belongs in `listed` and the object).
    unmatched: list[str] = []

    @model_validator(mode="before")
    @classmethod
    def _when_layers_from_keys(cls, value: object) -> object:
        # `when: {os: {platform: linux}}` names its layer by its key.
        if isinstance(value, dict) and isinstance(value.get("when"), dict):
            when = {}
            for key, sel in value["when"].items():
                if isinstance(sel, dict) and "layer" not in sel:
                    sel = {**sel, "layer": key}
                elif isinstance(sel, dict) and sel["layer"] is not None and \
                        getattr(sel["layer"], "value", sel["layer"]) != getattr(key, "value", key) and \
                        getattr(key, "value", key) in _LAYER_VALUES:
                    layer, on = getattr(sel["layer"], "value", sel["layer"]), getattr(key, "value", key)
                    raise ValueError(f"when.{on} selects layer '{layer}': a condition on {on} must select {on} "
                                     "nodes")
                when[key] = sel
            value = {**value, "when": when}
        return value

    @property
    def subjects(self) -> list[str]:
        """The subject ids written in the fact (a selector's ids, if it names any).

        A selector by attributes names no ids here; the compiled fact
        (``CompiledFact.subjects``) holds the nodes it picks.
        """
        if isinstance(self.subject, str):
            return [self.subject]
        if isinstance(self.subject, Selector):
            return list(self.subject.ids or [])
        return list(self.subject)

    @property
    def subject_selector(self) -> Optional[Selector]:
        """The subject when it is written as a selector by attributes, else None."""
        if isinstance(self.subject, Selector) and self.subject.ids is None:
            return self.subject
        return None

    @property
    def is_exhaustive(self) -> bool:
        return self.exhaustive or self.relation in ALWAYS_EXHAUSTIVE


def _selectors_named_by_key(value: object, field: str) -> object:
    """`{os: {platform: linux}}` names each selector's layer by its key."""
    if isinstance(value, dict) and isinstance(value.get(field), dict):
        named = {}
        for key, sel in value[field].items():
            if isinstance(sel, dict) and "layer" not in sel:
                sel = {**sel, "layer": key}
            named[key] = sel
        value = {**value, field: named}
    return value


# The layers a set-up step can put in place, in the order a machine gets them.
SETUP_LAYERS: tuple[Layer, ...] = (Layer.driver, Layer.toolkit, Layer.framework, Layer.app)


class StepCheck(BaseModel):
    """A read-only probe that tells whether a step is already satisfied on this machine.

    ``probe`` names what to read: ``nvidia-smi`` or ``rocminfo`` (a GPU driver answers),
    ``python`` (``module`` imports in an isolated interpreter; with ``version``, its
    ``__version__`` must equal it) or ``command`` (``program`` is on PATH).
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    probe: Literal["nvidia-smi", "rocminfo", "python", "command"]
    module: Optional[str] = None
    version: Optional[str] = None
    program: Optional[str] = None

    @model_validator(mode="after")
    def _needs_its_target(self) -> "StepCheck":
        if self.probe == "python" and not self.module:
            raise ValueError("a python check needs 'module'")
        if self.probe == "command" and not self.program:
            raise ValueError("a command check needs 'program'")
        return self


class Step(BaseModel):
    """One cited set-up step: the commands (or the manual action) that put one layer of a path
    in place, as its source writes them, and the paths it applies to.

    ``applies_to`` selects paths like a fact's ``when``: every selector must hold for the
    path's node of that layer. ``also_sets_up`` names further layers the same commands
    install (``sudo apt install amdgpu-dkms rocm`` installs the driver and the toolkit).
    ``alternative_to`` makes this step another way of doing that step (the uv command
    beside the pip one). ``method`` separates native installs from container ones.
    A command may name the path's values as ``{arch.llvm_target}``, ``{framework.local}``
    (the build label, ``cu128``) or ``{framework.public}`` (``2.8.0``), only where the
    source documents that part of the command as the user's choice.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    layer: Layer
    applies_to: dict[Layer, Selector] = {}
    method: Literal["native", "container", "any"] = "native"
    order: int = 0
    tool: Optional[str] = None
    command: Optional[str] = None
    instruction: Optional[str] = None
    also_sets_up: list[Layer] = []
    alternative_to: Optional[str] = None
    status: Status = Status.supported
    source: Optional[str] = None
    section: Optional[str] = None
    reviewed: Optional[dt.date] = None
    note: Optional[str] = None
    caveat: Optional[str] = None
    check: Optional[StepCheck] = None
    # shellcheck codes that a command, printed as its source writes it, trips ("SC2086").
    shellcheck_disable: list[str] = []

    @model_validator(mode="before")
    @classmethod
    def _applies_to_layers_from_keys(cls, value: object) -> object:
        return _selectors_named_by_key(value, "applies_to")

    @model_validator(mode="after")
    def _says_what_to_do(self) -> "Step":
        if not (self.command or self.instruction):
            raise ValueError("a step needs 'command' or 'instruction'")
        if self.layer not in SETUP_LAYERS:
            raise ValueError("a step sets up a driver, toolkit, framework or app")
        if self.status is Status.unsupported:
            raise ValueError("a step cannot be 'unsupported'")
        if Layer.driver in self.applies_to:
            # A path's driver is a version range, not a node: select by the toolkit, OS or GPU.
            raise ValueError("applies_to cannot select the driver layer; select by toolkit, os or gpu")
        return self


class KBFile(BaseModel):
    """The content of one knowledge-base file."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    sources: list[Source] = Field(default_factory=list)
    nodes: list[Node] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)


# The loaded knowledge base as one value: what the loaders produce and the graph compiles. Defined
# here, below both, so that the graph never imports the loaders.

@dataclass(frozen=True)
class Origin:
    """Where an item was written: file and line."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass
class KnowledgeBase:
    """Every source, node and fact of a knowledge base, with where each was written.

    Ids are not yet checked for uniqueness here: ``kb check`` reports duplicates,
    so the lists keep every item as written.
    """

    sources: list[Source] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    origins: dict[tuple[str, int], Origin] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def origin(self, kind: str, index: int) -> Origin | None:
        """Where the index-th item of a kind ("sources", "nodes", "facts", "steps") was written."""
        return self.origins.get((kind, index))
