"""Compare GPUs side by side: one explanation per (row, GPU, OS) cell, as data.

Rows are app or framework families (PyTorch, vLLM, llama.cpp, ...), columns one
group per GPU with one column per OS. Each cell is the engine's own verdict for
``explain gpu = G, os = O, app = A`` (or ``framework = F``), reduced to four
states: ``supported`` (with the path's toolkit and build, newest first as the
solver orders them), ``workaround`` (not officially supported, but a workaround
or community fact verifiably opens a path), ``not_supported`` (with the breaking
edge) and ``unknown``. An OS that the knowledge base does not hold yet (WSL2 on
an older knowledge base) becomes a column of unknown cells with a note, not an
error. Renderers word this data (gpulane/cli/render_compare.py).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from gpulane.errors import AmbiguousNameError, QueryError, Span, UnknownNameError
from gpulane.graph.kb import CompiledFact, KnowledgeGraph
from gpulane.model import Layer
from gpulane.queries.ast import Condition, Statement, Value
from gpulane.queries.explain import Break, ExplainAnswer, Workaround, explain
from gpulane.queries.parser import parse
from gpulane.queries.plan import plan

__all__ = ["CompareRow", "CompareColumn", "CompareCell", "CompareResult", "compare", "compare_statement",
           "compare_text", "default_rows", "default_oses", "main_break", "break_facts", "DEFAULT_ROWS", "COMPARE_BUDGET_S", "MAX_GPUS",
           "MAX_CELLS", "quote_name"]

# The families people ask about first, as (label, layer, family name in the data).
DEFAULT_ROWS: tuple[tuple[str, Layer, str], ...] = (
    ("PyTorch", Layer.framework, "torch"),
    ("vLLM", Layer.app, "vllm"),
    ("llama.cpp", Layer.app, "llama.cpp"),
    ("Ollama", Layer.app, "ollama"),
    ("ComfyUI", Layer.app, "comfyui"),
    ("FlashAttention", Layer.app, "flash-attention"),
    ("bitsandbytes", Layer.app, "bitsandbytes"),
    ("xFormers", Layer.app, "xformers"),
)
# The OS columns asked for when none are named; the first is found, not named (the newest Ubuntu LTS).
DEFAULT_OS_NAMES: tuple[str, ...] = ("Windows 11", "WSL2")
COMPARE_BUDGET_S = 30.0  # for the whole grid; cells left when it runs out are unknown, marked so
MAX_GPUS = 6
MAX_CELLS = 200
_ROW_LAYERS = (Layer.app, Layer.framework)


@dataclass
class CompareRow:
    """One row: an app or framework (a family or one node), as the user or the defaults named it."""

    label: str
    layer: Layer
    name: str  # the name resolved by the engine (a family, a node name or id)
    ids: tuple[str, ...]


@dataclass
class CompareColumn:
    """One column: a GPU and an OS (or any OS). ``os_ids`` is empty when the OS is not in the knowledge base."""

    gpu: str  # node id
    gpu_name: str
    os_label: str | None  # None: any OS
    os_ids: tuple[str, ...] = ()
    missing_note: str | None = None

    @property
    def absent(self) -> bool:
        return self.missing_note is not None


@dataclass
class CompareCell:
    """The verdict for one row and column, with what the renderers need to word it."""

    status: str  # supported | workaround | not_supported | unknown, or a finer status the engine gives
    answer: ExplainAnswer | None  # None when the column's OS is absent or the time ran out
    config: dict[str, str]  # layer → the name used, e.g. {"gpu": "radeon-rx-7900-xtx", "os": "Windows 11", "app": "vllm"}
    toolkit: str | None = None  # the path's toolkit hop in words ("ROCm 7.2.0", "bundled by Ollama")
    build: str | None = None  # the path's framework hop in words ("torch 2.13.0+rocm7.2")
    breaking: Break | None = None
    workaround: Workaround | None = None
    note: str | None = None  # why a cell has no answer (absent OS, time bound)

    def facts(self) -> list[CompiledFact]:
        """The facts that decide this cell: the break's, the workaround's, or the row's own statements."""
        if self.breaking is not None:
            # An unknown edge is one no source covers: the lists it was checked against are not its evidence.
            return [] if self.breaking.kind == "unknown" else break_facts(self.breaking)[:3]
        if self.workaround is not None:
            return [self.workaround.fact]
        if self.answer is None or self.answer.path is None or self.answer.verdict != "supported":
            return []
        row_layer = Layer.framework if "framework" in self.config and "app" not in self.config else Layer.app
        out: list[CompiledFact] = []
        for e in self.answer.path.edges:
            if e.upper is row_layer and e.verdict == "ok":
                out.extend(cf for cf in e.facts if cf not in out)
        return out


@dataclass
class CompareResult:
    gpus: list[tuple[str, str]]  # (id, name)
    rows: list[CompareRow]
    columns: list[CompareColumn]
    cells: dict[tuple[int, int], CompareCell]
    text: str  # the statement, as written or as built from the command line
    notes: list[str] = field(default_factory=list)
    complete: bool = True

    def cell(self, row: int, column: int) -> CompareCell:
        return self.cells[(row, column)]


def quote_name(name: str) -> str:
    """A name as a quoted value of the language (which has no escapes inside quotes)."""
    if '"' not in name:
        return f'"{name}"'
    if "'" not in name:
        return f"'{name}'"
    raise QueryError(f"a name cannot hold both kinds of quote: {name}", code="bad_name")


def compare_text(gpus: list[str], oses: list[str] | None = None, apps: list[str] | None = None,
                 frameworks: list[str] | None = None) -> str:
    """The compare statement for command-line style arguments."""
    def group(layer: str, names: list[str]) -> str:
        return f"{layer} in {{{', '.join(quote_name(n) for n in names)}}}"

    text = "compare " + group("gpu", gpus)
    where = [group(layer, names) for layer, names in (("os", oses), ("app", apps), ("framework", frameworks))
             if names]
    if where:
        text += " where " + " and ".join(where)
    return text


def compare(kg: KnowledgeGraph, gpus: list[str], oses: list[str] | None = None, apps: list[str] | None = None,
            frameworks: list[str] | None = None, budget_s: float = COMPARE_BUDGET_S) -> CompareResult:
    """The grid for GPUs named as on the command line (rows and OS columns default when not given)."""
    if len(gpus) < 1:
        raise QueryError("compare needs at least one GPU", hint='for example: gpulane compare "RX 7900 XTX" "RTX 4090"',
                         code="no_gpu")
    return compare_statement(kg, parse(compare_text(gpus, oses, apps, frameworks)), budget_s)


def default_rows(kg: KnowledgeGraph) -> list[CompareRow]:
    """The default families that exist in this knowledge base, in the default order."""
    rows = []
    for label, layer, family in DEFAULT_ROWS:
        found = [r for r in kg.names.resolve(family, layer) if r.ids]
        if found:
            ids = tuple(sorted({i for r in found for i in r.ids}))
            # Name the row as people write it ("vLLM") where that name means the same nodes.
            by_label = tuple(sorted({i for r in kg.names.resolve(label, layer) for i in r.ids}))
            rows.append(CompareRow(label, layer, label if by_label == ids else family, ids))
    return rows


def newest_ubuntu_lts(kg: KnowledgeGraph) -> str | None:
    """The newest Ubuntu LTS release among the OS nodes (an even year, April: 24.04)."""
    best: tuple[int, str] | None = None
    for node_id in kg.by_layer[Layer.os]:
        node = kg.nodes[node_id]
        match = re.fullmatch(r"(\d\d)\.04", node.version or "")
        if node.family == "ubuntu" and match and int(match.group(1)) % 2 == 0:
            if best is None or int(match.group(1)) > best[0]:
                best = (int(match.group(1)), node.name)
    return best[1] if best else None


def default_oses(kg: KnowledgeGraph) -> list[str]:
    """The default OS columns: the newest Ubuntu LTS in the knowledge base, Windows 11, WSL2."""
    lts = newest_ubuntu_lts(kg)
    return ([lts] if lts else []) + list(DEFAULT_OS_NAMES)


def _one_gpu(kg: KnowledgeGraph, value: Value, text: str) -> str:
    found = kg.names.resolve(value.text, Layer.gpu)
    ids = sorted({i for r in found for i in r.ids})
    if not ids:
        raise UnknownNameError(value.text, "gpu", kg.names.suggestions(value.text, Layer.gpu), text, value.span)
    if len(ids) > 1:
        raise AmbiguousNameError(value.text, [kg.nodes[i].name for i in ids], text, value.span)
    return ids[0]


def _os_column_ids(kg: KnowledgeGraph, name: str) -> tuple[tuple[str, ...], str | None]:
    """The OS nodes a column name stands for, or a note saying why there are none."""
    found = [r for r in kg.names.resolve(name, Layer.os) if r.ids]
    if found:
        return tuple(sorted({i for r in found for i in r.ids})), None
    if name.strip().lower() in ("wsl2", "wsl", "wsl 2"):
        wsl = tuple(sorted(i for i in kg.by_layer[Layer.os]
                           if kg.nodes[i].platform is not None and kg.nodes[i].platform.value == "wsl2"))
        if wsl:
            return wsl, None
    close = kg.names.suggestions(name, Layer.os)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return (), f"{name} is not an OS in this knowledge base yet{hint}; its cells are unknown"


def _axes(st: Statement) -> tuple[list[Layer], bool]:
    """The row layers (app/framework) the grid varies over, and whether OSes make columns."""
    if not st.over:
        return [], True
    rows: list[Layer] = []
    by_os = False
    for name, span in st.over:
        key = name.lower()
        if key == "os":
            by_os = True
        elif key in ("app", "framework"):
            rows.append(Layer(key))
        else:
            raise QueryError(f"compare cannot go over '{name}'", st.text, span,
                             "compare goes over app, framework and os, for example: over app, os",
                             code="bad_axis")
    return rows, by_os


def compare_statement(kg: KnowledgeGraph, st: Statement, budget_s: float = COMPARE_BUDGET_S) -> CompareResult:
    """Run a parsed compare statement: resolve the axes, explain every cell."""
    text = st.text
    if st.verb != "compare":
        raise QueryError("not a compare statement", text, code="not_compare")
    for clause, items in (("keep", st.keep), ("order by", [st.order[:2]] if st.order else [])):
        if items:
            raise QueryError(f"'{clause}' does not belong to compare", text, items[0][1], code="misplaced_clause")
    gpu_conds = [c for c in st.conditions if c.name.lower() == "gpu"]
    if not gpu_conds or gpu_conds[0].op not in ("=", "==", "in"):
        raise QueryError("compare needs the GPUs to compare", text, st.conditions[0].span if st.conditions else None,
                         'for example: compare gpu in {"RX 7900 XTX", "RTX 4090"}', code="no_gpu")
    if len(gpu_conds) > 1:
        raise QueryError("name the GPUs once, in one gpu in {...}", text, gpu_conds[1].span, code="bad_condition")
    gpu_values = list(gpu_conds[0].values)
    if len(gpu_values) > MAX_GPUS:
        raise QueryError(f"compare takes at most {MAX_GPUS} GPUs", text, gpu_values[MAX_GPUS].span, code="too_many")
    gpu_ids: list[str] = []
    for v in gpu_values:
        gid = _one_gpu(kg, v, text)
        if gid not in gpu_ids:
            gpu_ids.append(gid)

    row_layers, by_os = _axes(st)
    rows: list[CompareRow] = []
    os_names: list[str] | None = None
    extra: list[Condition] = []
    for cond in st.conditions:
        key = cond.name.lower()
        if key == "gpu":
            continue
        if key in ("app", "framework") and cond.op in ("=", "==", "in") and cond.version is None:
            layer = Layer(key)
            for v in cond.values:
                ids = _resolve_row(kg, layer, v, text)
                rows.append(CompareRow(v.text, layer, v.text, ids))
        elif key == "os" and cond.op in ("=", "==", "in") and cond.version is None:
            os_names = (os_names or []) + [v.text for v in cond.values]
        else:
            extra.append(cond)  # any other condition holds in every cell (toolkit = ROCm 7.2, driver >= 570)
    if not rows:
        rows = [r for r in default_rows(kg) if not row_layers or r.layer in row_layers]
        if st.over and not row_layers:
            rows = [CompareRow("any app", Layer.app, "", ())]
    if os_names is None:
        os_names = default_oses(kg) if by_os else []
    if len(rows) * max(1, len(os_names)) * len(gpu_ids) > MAX_CELLS:
        raise QueryError(f"the grid would have more than {MAX_CELLS} cells", text, None,
                         "compare fewer GPUs, apps or OSes", code="too_many")

    notes: list[str] = []
    os_columns: list[tuple[str | None, tuple[str, ...], str | None]] = []
    for name in dict.fromkeys(os_names):
        ids, missing = _os_column_ids(kg, name)
        label = kg.nodes[ids[0]].name if len(ids) == 1 else name
        os_columns.append((label, ids, missing))
        if missing:
            notes.append(missing)
    if not os_columns:
        os_columns = [(None, (), None)]
    columns = [CompareColumn(g, kg.nodes[g].name, label, ids, missing)
               for g in gpu_ids for label, ids, missing in os_columns]

    deadline = time.perf_counter() + budget_s
    cells: dict[tuple[int, int], CompareCell] = {}
    complete = True
    for r, row in enumerate(rows):
        for c, col in enumerate(columns):
            config = {"gpu": col.gpu_name}
            if col.os_label is not None:
                config["os"] = col.os_label
            if row.name:
                config[row.layer.value] = row.name
            if col.absent:
                cells[(r, c)] = CompareCell("unknown", None, config, note=col.missing_note)
                continue
            if time.perf_counter() > deadline:
                complete = False
                cells[(r, c)] = CompareCell("unknown", None, config,
                                            note="not computed: the comparison reached its time bound")
                continue
            cells[(r, c)] = _cell(kg, st, col, row, config, extra, deadline)
    return CompareResult([(g, kg.nodes[g].name) for g in gpu_ids], rows, columns, cells, text, notes, complete)


def break_facts(b: Break) -> list[CompiledFact]:
    """A break's facts, those about the edge's own two nodes first (a break over a family, such as
    every torch build, also carries the facts of the other builds it stood for)."""
    own = [cf for cf in b.facts if {b.edge.upper_node, b.edge.lower_node} & set(cf.subjects)]
    return own + [cf for cf in b.facts if cf not in own]


def main_break(answer: ExplainAnswer) -> Break | None:
    """The break that answers "why not" in one line: the one behind the engine's minimal conflict,
    else the first stated "no", else the engine's first break."""
    if not answer.breaks:
        return None
    conflict = {cf.id for cf in answer.conflict.facts} if answer.conflict else set()
    return next((b for b in answer.breaks if conflict & {cf.id for cf in b.facts}), None) \
        or next((b for b in answer.breaks if b.kind == "stated"), None) or answer.breaks[0]


def _resolve_row(kg: KnowledgeGraph, layer: Layer, value: Value, text: str) -> tuple[str, ...]:
    found = [r for r in kg.names.resolve(value.text, layer) if r.ids]
    if not found:
        raise UnknownNameError(value.text, layer.value, kg.names.suggestions(value.text, layer), text, value.span)
    return tuple(sorted({i for r in found for i in r.ids}))


def _cell(kg: KnowledgeGraph, st: Statement, col: CompareColumn, row: CompareRow, config: dict[str, str],
          extra: list[Condition], deadline: float) -> CompareCell:
    """Explain one cell with the engine and reduce its answer to the cell's state."""
    from gpulane.queries.explain import EXPLAIN_BUDGET_S
    from gpulane.queries.results import hop_list

    span = Span(1, 1, 1)
    conditions = [Condition("gpu", span, "=", (Value(col.gpu, span),))]
    if col.os_ids:
        conditions.append(Condition("os", span, "in", tuple(Value(i, span) for i in col.os_ids)))
    if row.ids:
        conditions.append(Condition(row.layer.value, span, "in", tuple(Value(i, span) for i in row.ids)))
    cell_plan = plan(kg, Statement("explain", st.text, conditions=conditions + extra, allow=list(st.allow)))
    # The labels are what the explanation's headline and links show: names, not the ids used to pin.
    cell_plan.labels[Layer.gpu] = col.gpu_name
    if col.os_label is not None:
        cell_plan.labels[Layer.os] = col.os_label
    if row.name:
        cell_plan.labels[row.layer] = row.label
    budget = max(0.05, min(EXPLAIN_BUDGET_S, deadline - time.perf_counter()))
    answer = explain(kg, cell_plan, budget_s=budget)
    # The engine's own status where it has one (supported, builds_only, workaround, community, ...).
    cell = CompareCell(getattr(answer, "status", answer.verdict), answer, config)
    if answer.path is not None and answer.verdict == "supported":
        hops = {h["layer"]: h for h in hop_list(kg, answer.path)}
        cell.toolkit = hops["toolkit"]["name"] if "toolkit" in hops else None
        build = hops.get("framework")
        cell.build = build["name"] if build and build.get("node") else None
        return cell
    verified = [w for w in answer.workarounds if w.verified]
    if verified and answer.verdict != "supported":
        cell.status = "workaround"
        cell.workaround = verified[0]
        return cell
    if answer.breaks:
        cell.breaking = main_break(answer)
    elif answer.verdict == "not_supported" and answer.path is None:
        cell.note = "no path in the knowledge base gets near this configuration"
    return cell
