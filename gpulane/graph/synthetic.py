"""Synthetic knowledge bases of any size, for the benchmark and differential tests.

The shape follows the shipped knowledge base: GPUs with one architecture each,
toolkits (ROCm-like and CUDA-like) that list the architectures and OS releases
they support, framework builds compiled against one toolkit with their kernel
lists, applications over frameworks, driver floors and ceilings, conditional
facts ("on this OS only"), unsupported statements, and an Ollama-like app that
bundles its toolkit and uses no framework.

`generate` is deterministic for a seed, and "which AMD GPUs have a complete
path to app-0 on os-0" has answers at every size (os-0 and app-0 are wired in
on purpose).
"""

from __future__ import annotations

import datetime as dt
import random

from gpulane.model import KnowledgeBase, Origin
from gpulane.model import Fact, Layer, Node, Selector, Source, Status

__all__ = ["generate", "BENCH_QUESTION"]

BENCH_QUESTION = 'find gpu where vendor = AMD and app = app-0 and os = os-0'
_SOURCE = "synthetic"
_REVIEWED = dt.date(2026, 11, 30)


def generate(n_facts: int, seed: int = 0, *, gpus: int | None = None, archs: int | None = None,
             oses: int | None = None, toolkits: int | None = None, frameworks: int | None = None,
             apps: int | None = None, arch_fanout: int = 6, os_fanout: int = 4, framework_fanout: int = 8,
             conditional_share: float = 0.2, unsupported_share: float = 0.05) -> KnowledgeBase:
    """A valid knowledge base with about ``n_facts`` facts (layer sizes scale with it)."""
    rng = random.Random(seed)
    n = max(n_facts, 60)
    sizes = {
        "gpu": gpus or max(4, n // 6), "arch": archs or max(4, min(200, n // 60)),
        "os": oses or max(3, min(60, n // 150)), "toolkit": toolkits or max(4, n // 25),
        "framework": frameworks or max(4, n // 12), "app": apps or max(3, n // 150),
    }
    kb = KnowledgeBase()
    kb.files = ["synthetic.yaml"]
    kb.sources.append(Source(id=_SOURCE, url="https://gpulane.dev/synthetic", publisher="gpulane",
                             title="Synthetic knowledge base", version=f"n={n_facts} seed={seed}",
                             reviewed=_REVIEWED))
    facts: list[Fact] = []

    def node(layer: Layer, ident: str, **attrs) -> str:
        kb.nodes.append(Node(id=ident, layer=layer, name=ident, source=_SOURCE, **attrs))
        return ident

    def fact(relation: str, subject, obj, status: Status = Status.supported, **extra) -> None:
        facts.append(Fact(id=f"f{len(facts)}", relation=relation, subject=subject,
                          object=Selector.model_validate(obj), status=status, source=_SOURCE, **extra))

    vendors = ["amd", "nvidia"]
    arch_ids = [node(Layer.arch, f"arch-{i}", vendor=vendors[i % 2], family=f"fam{i % 5}")
                for i in range(sizes["arch"])]
    by_vendor = {v: [a for i, a in enumerate(arch_ids) if vendors[i % 2] == v] for v in vendors}
    os_ids = [node(Layer.os, f"os-{i}", family="ubuntu" if i % 2 == 0 else "rhel", version=f"{20 + i}.04",
                   platform="linux") for i in range(sizes["os"])]
    gpu_ids = []
    for i in range(sizes["gpu"]):
        vendor = vendors[i % 2]
        gpu_ids.append(node(Layer.gpu, f"gpu-{i}", vendor=vendor, vram_gb=float(8 * (1 + i % 6))))
        fact("has_arch", gpu_ids[-1], rng.choice(by_vendor[vendor]))
    toolkit_ids, toolkit_vendor = [], {}
    for i in range(sizes["toolkit"]):
        vendor = vendors[i % 2]
        family = "rocm" if vendor == "amd" else "cuda"
        tid = node(Layer.toolkit, f"tk-{i}", vendor=vendor, family=family, version=f"{1 + i // 20}.{i % 20}.0")
        toolkit_ids.append(tid)
        toolkit_vendor[tid] = vendor
        fact("supports", tid, _pick(rng, by_vendor[vendor], arch_fanout), exhaustive=True,
             domain={"layer": "arch", "vendor": vendor})
        fact("supports", tid, sorted({os_ids[0], *_pick(rng, os_ids, os_fanout)}), exhaustive=True,
             domain={"layer": "os", "platform": "linux"})
        fact("requires", tid, {"layer": "driver", "vendor": vendor, "version": f">={400 + (i % 7) * 20}"})
    for i, arch in enumerate(arch_ids):
        if i % 9 == 4:  # old architectures: a driver ceiling that newer toolkits conflict with
            fact("requires", arch, {"layer": "driver", "version": f"<{470 + (i % 3) * 20}"})
    framework_ids = []
    for i in range(sizes["framework"]):
        tk = toolkit_ids[i % len(toolkit_ids)]
        vendor = toolkit_vendor[tk]
        fid = node(Layer.framework, f"fw-{i}", family="torch", version=f"2.{i % 30}.{i // 30}")
        framework_ids.append(fid)
        fact("built_with", fid, tk)
        fact("ships_kernels_for", fid, _pick(rng, by_vendor[vendor], arch_fanout), exhaustive=True,
             domain={"layer": "arch", "vendor": vendor})
        fact("runs_on", fid, sorted({os_ids[0], *_pick(rng, os_ids, os_fanout)}))
    app_ids = []
    for i in range(sizes["app"]):
        if i == 1:
            aid = node(Layer.app, "app-1", family="ollama", layers={Layer.framework: "not_used",
                                                                    Layer.toolkit: "bundled"})
            fact("supports", aid, {"layer": "arch", "vendor": "amd"})
            fact("runs_on", aid, os_ids[: max(1, len(os_ids) // 2)])
            fact("requires", aid, {"layer": "driver", "version": ">=450"})
        elif i == 2:
            aid = node(Layer.app, "app-2", family="llama.cpp", layers={Layer.framework: "not_used"})
            fact("supports", aid, [t for t in toolkit_ids if toolkit_vendor[t] == "amd"][:framework_fanout])
            fact("supports", aid, {"layer": "arch", "vendor": "amd"})
            fact("runs_on", aid, {"layer": "os", "platform": "linux"})
        else:
            aid = node(Layer.app, f"app-{i}", family=f"family{i}")
            fws = _pick(rng, framework_ids, framework_fanout)
            if i == 0:  # the benchmark app: frameworks of both vendors, every arch
                fws = sorted(set(fws) | set(framework_ids[: 2 * len(vendors)]))
            fact("supports", aid, fws)
            fact("supports", aid, {"layer": "arch", "family": f"fam{i % 5}"} if i % 4 == 3
                 else {"layer": "arch", "vendor": "amd"} if i % 4 == 1 else arch_ids)
            fact("runs_on", aid, sorted({os_ids[0], *_pick(rng, os_ids, os_fanout)}))
        app_ids.append(aid)
    # Fill up: conditional support ("on this OS only") and unsupported statements.
    while len(facts) < n_facts:
        roll = rng.random()
        if roll < unsupported_share / max(conditional_share + unsupported_share, 1e-9):
            fw = rng.choice(framework_ids)
            # Conditional, so that it never contradicts the framework's own OS list.
            fact("runs_on", fw, rng.choice(os_ids[1:] or os_ids), status=Status.unsupported,
                 when={"gpu": rng.choice(gpu_ids)})
        else:
            tk = rng.choice(toolkit_ids)
            fact("supports", tk, rng.choice(by_vendor[toolkit_vendor[tk]]),
                 when={"os": {"family": rng.choice(["ubuntu", "rhel"])}},
                 status=Status.community if rng.random() < 0.2 else Status.supported)
    kb.facts = facts
    for kind in ("sources", "nodes", "facts"):
        for i, _ in enumerate(getattr(kb, kind)):
            kb.origins[(kind, i)] = Origin("synthetic.yaml", 0)
    return kb


def _pick(rng: random.Random, items: list[str], k: int) -> list[str]:
    return sorted(rng.sample(items, min(k, len(items))))
