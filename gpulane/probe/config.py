"""What was found → a configuration in the knowledge base's names, and the statement to explain.

Names that do not resolve are kept as notes, never errors: a probe explains
what it can and says what it could not place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpulane.graph.kb import KnowledgeGraph
from gpulane.model import LAYER_ORDER, Layer
from gpulane.probe import readers as r
from gpulane.probe.runner import PACKAGES, Found

__all__ = ["Configuration", "Pin", "configuration_from", "APP_ORDER"]

# When several apps are installed, the one the configuration names first (the others are
# explained one by one beside it).
APP_ORDER = ("vllm", "flash-attn", "bitsandbytes", "xformers")
_VENDOR_WORDS = ("AMD ", "NVIDIA ", "ATI ")


@dataclass
class Pin:
    """One layer of the configuration: what was found, and the node(s) it resolved to."""

    layer: Layer
    found: str  # as the machine reported it
    ids: list[str] = field(default_factory=list)
    query: str = ""  # how the statement names it (a name that resolves to exactly ids)

    @property
    def resolved(self) -> bool:
        return bool(self.ids)


@dataclass
class Configuration:
    """The probed configuration: pins per layer, installed apps, and notes for what did not resolve."""

    pins: dict[Layer, Pin] = field(default_factory=dict)
    driver: str | None = None  # an NVIDIA driver version, pinned as `driver = X`
    apps: list[Pin] = field(default_factory=list)
    kernel: str | None = None
    notes: list[str] = field(default_factory=list)
    has_gpu: bool = False

    def statement(self, app: Pin | None = None) -> str | None:
        """The configuration as query text (without the verb); None when nothing resolved."""
        parts = []
        for layer in LAYER_ORDER:
            if layer is Layer.driver and self.driver:
                parts.append(f"driver = {self.driver}")
            pin = self.pins.get(layer)
            if pin is not None and pin.resolved:
                parts.append(f'{layer.value} = "{_quoted(pin)}"')
        chosen = app if app is not None else next((a for a in self.apps if a.resolved), None)
        if chosen is not None and chosen.resolved:
            parts.append(f'app = "{_quoted(chosen)}"')
        return ", ".join(parts) or None

    def to_json(self) -> dict:
        out: dict = {}
        for layer in LAYER_ORDER:
            if layer is Layer.driver and self.driver:
                out["driver"] = {"found": self.driver}
            pin = self.pins.get(layer)
            if pin is not None:
                out[layer.value] = {"found": pin.found, "resolved": pin.ids}
        out["apps"] = [{"found": a.found, "resolved": a.ids} for a in self.apps]
        out["kernel"] = self.kernel
        out["has_gpu"] = self.has_gpu
        out["notes"] = list(self.notes)
        return out


def _quoted(pin: Pin) -> str:
    return (pin.query or pin.found).replace('"', "")


def _pin(kg: KnowledgeGraph, layer: Layer, found: str, ids: list[str], asked: str | None = None) -> Pin:
    """A pin whose query text is the node's display name when that name means exactly this node."""
    query = asked or found
    if len(ids) == 1:
        name = kg.nodes[ids[0]].name
        query = name if _resolve(kg, name, layer) == ids else ids[0]
    return Pin(layer, found, ids, query)


def _resolve(kg: KnowledgeGraph, text: str, layer: Layer) -> list[str]:
    found = kg.names.resolve(text, layer)
    return sorted({i for res in found for i in res.ids})


def _resolve_gpu(kg: KnowledgeGraph, name: str) -> list[str]:
    ids = _resolve(kg, name, Layer.gpu)
    for word in _VENDOR_WORDS:
        if not ids and name.upper().startswith(word):
            ids = _resolve(kg, name[len(word):], Layer.gpu)
    return ids


def configuration_from(kg: KnowledgeGraph, found: Found) -> Configuration:
    """Resolve what the machine reported through the knowledge base's names."""
    cfg = Configuration(has_gpu=found.has_gpu)
    _gpu(kg, found, cfg)
    _os(kg, found, cfg)
    _framework(kg, found, cfg)
    for dist in APP_ORDER:
        version = found.packages.get(dist)
        if version is None:
            continue
        ids = _resolve(kg, PACKAGES[dist], Layer.app)
        cfg.apps.append(_pin(kg, Layer.app, f"{dist} {version}", ids))
        if not ids:
            cfg.notes.append(f"{dist} {version} is installed, but the knowledge base has no app of that name")
    return cfg


def _gpu(kg: KnowledgeGraph, found: Found, cfg: Configuration) -> None:
    if found.nvidia.status == r.OK and found.nvidia.gpus:
        gpus = found.nvidia.gpus
        first = gpus[0]
        if len({g.name for g in gpus}) > 1:
            cfg.notes.append(f"{len(gpus)} different NVIDIA GPUs found; the configuration uses GPU 0 ({first.name})")
        _place_gpu(kg, cfg, first.name, f"sm_{first.compute_cap.replace('.', '')}" if first.compute_cap else None,
                   truncated=first.truncated)
        cfg.driver = found.nvidia.driver_version
        return
    if found.amd.status == r.OK and found.amd.agents:
        agents = found.amd.agents
        first = agents[0]
        if len({(a.gfx, a.marketing_name) for a in agents}) > 1:
            cfg.notes.append(f"{len(agents)} different AMD GPUs found; the configuration uses the first "
                             f"({first.marketing_name or first.gfx})")
        _place_gpu(kg, cfg, first.marketing_name, first.gfx)
        if found.amd.driver_version:
            # amdgpu's version numbering is not the one the knowledge base's AMD driver nodes use.
            cfg.notes.append(f"amdgpu driver {found.amd.driver_version} is reported but not used in the explanation")
        return
    cfg.notes.append("no GPU found (no nvidia-smi, rocminfo or amd-smi answered with a GPU); "
                     "only the OS and the Python stack are reported")


def _place_gpu(kg: KnowledgeGraph, cfg: Configuration, name: str | None, arch: str | None,
               truncated: bool = False) -> None:
    ids = _resolve_gpu(kg, name) if name and not truncated else []
    if name:
        cfg.pins[Layer.gpu] = _pin(kg, Layer.gpu, name, ids)
    if ids:
        return
    arch_ids = _resolve(kg, arch, Layer.arch) if arch else []
    if name:
        what = "its name was cut short by nvidia-smi" if truncated else "the knowledge base has no GPU of that name"
        tail = f"; using its architecture {arch} instead" if arch_ids else ""
        cfg.notes.append(f'GPU "{name}" is not placed: {what}{tail}')
    if arch:
        cfg.pins[Layer.arch] = _pin(kg, Layer.arch, arch, arch_ids)
        if not arch_ids:
            cfg.notes.append(f"architecture {arch} is not in the knowledge base")


def _os(kg: KnowledgeGraph, found: Found, cfg: Configuration) -> None:
    osr = found.os
    if found.kernel.status == r.OK:
        cfg.kernel = found.kernel.release
    if osr.status != r.OK:
        cfg.notes.append("the OS could not be read" + (f" ({osr.detail})" if osr.detail else ""))
        return
    label = osr.label or ""
    if osr.platform == "wsl2":
        # Linux support never implies WSL2: a WSL2 distribution is not the Linux release of the same name.
        cfg.pins[Layer.os] = Pin(Layer.os, f"{label} (WSL2)", [])
        cfg.notes.append(f"{label} runs under WSL2; the knowledge base has no WSL2 release to place it, "
                         "so the OS is left out of the explanation")
        return
    ids = _resolve(kg, label, Layer.os) if label else []
    cfg.pins[Layer.os] = _pin(kg, Layer.os, label, ids)
    if not ids:
        cfg.notes.append(f'OS "{label}" is not in the knowledge base')


def _framework(kg: KnowledgeGraph, found: Found, cfg: Configuration) -> None:
    t = found.torch
    if t.status == r.UNREADABLE:
        cfg.notes.append(f"torch is installed but could not be read ({t.detail})")
        return
    if t.status != r.OK or not t.version:
        return
    text = f"torch {t.version}"
    asked = text
    if "+" not in t.version:
        # PyPI's default wheels carry no local label; the runtime they were built with names the build.
        label = _build_label(t)
        if label:
            asked = f"{text}+{label}"
            cfg.notes.append(f"{text} has no build label; read as {asked} from torch.version.{'cuda' if t.cuda else 'hip'}")
    ids = _resolve(kg, asked, Layer.framework)
    if len(ids) > 1:
        ids = []  # one installed wheel is one build, not every build of that version
    cfg.pins[Layer.framework] = _pin(kg, Layer.framework, text, ids, asked)
    if not ids:
        build = "a CPU-only build" if not (t.cuda or t.hip) else "a build"
        cfg.notes.append(f'{asked} ({build}) is not in the knowledge base')


def _build_label(t: r.TorchReading) -> str | None:
    if t.cuda:
        parts = t.cuda.split(".")
        return f"cu{parts[0]}{parts[1] if len(parts) > 1 else '0'}" if parts[0].isdigit() else None
    if t.hip:
        parts = t.hip.split(".")
        return f"rocm{parts[0]}.{parts[1]}" if len(parts) > 1 and parts[0].isdigit() else None
    return None
