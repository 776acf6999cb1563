"""The cache stores what compiling computed (issue 18, start-up): a warm start reads the compiled
facts and the name index back instead of matching every selector again, gives the same graph as
a fresh compile, and an entry that is not exactly what gpulane wrote is rebuilt, never trusted."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil

import pytest

from gpulane.api import build_graph, load_graph
from gpulane.graph.kb import KnowledgeGraph
from gpulane.graph.names import NameIndex
from gpulane.graph.synthetic import generate
from gpulane.loaders.cache import cache_dir
from gpulane.model import Layer
from tests.conftest import MINI


def _facts(kg: KnowledgeGraph) -> list:
    return [(cf.index, cf.fact, cf.subject_layer, cf.subjects, cf.target, cf.when, cf.via, cf.domain, cf.names_known,
             cf.id, cf.relation, cf.status, cf.runs_as, cf.caveat, cf.exhaustive, cf.positive, cf.is_build_list)
            for cf in kg.facts]


def _index(table: dict) -> dict:
    return {key: [cf.index for cf in cfs] for key, cfs in table.items()}


def _same_graph(a: KnowledgeGraph, b: KnowledgeGraph) -> None:
    assert _facts(a) == _facts(b)
    assert list(a.fact_by_id) == list(b.fact_by_id)
    assert {k: v.index for k, v in a.fact_by_id.items()} == {k: v.index for k, v in b.fact_by_id.items()}
    assert a.nodes == b.nodes and a.sources == b.sources and a.by_layer == b.by_layer
    assert a.generic_members == b.generic_members
    assert _index(a.by_subject) == _index(b.by_subject) and _index(a.by_node) == _index(b.by_node)
    assert list(a.by_subject) == list(b.by_subject)
    assert a.positive_pairs == b.positive_pairs and a.official_pairs == b.official_pairs
    assert list(a.positive_pairs) == list(b.positive_pairs) and list(a.official_pairs) == list(b.official_pairs)
    assert _index(a.overrides) == _index(b.overrides) and list(a.overrides) == list(b.overrides)
    assert a.conditional_pairs == b.conditional_pairs
    assert a.names == b.names
    assert a.selection_table() == b.selection_table()
    assert all(a.layer_order(layer) == b.layer_order(layer) for layer in Layer)


def _round_trip(kg: KnowledgeGraph) -> KnowledgeGraph:
    """The graph back from its compiled state written as JSON text and read again with its types."""
    from gpulane.graph.kb import CompiledState
    from gpulane.loaders.stored import validator

    state = validator(CompiledState).validate_json(json.dumps(kg.compiled_state()))
    return KnowledgeGraph.from_compiled(kg.kb, state, kg.selection_table())


def test_compiled_state_gives_the_same_graph_shipped(shipped):
    # A freshly compiled graph: the shared fixture's selection memo grows with the queries other
    # tests ran on it, so comparing it with a fresh compile would depend on the test order.
    fresh = KnowledgeGraph(shipped.kb)
    _same_graph(_round_trip(fresh), KnowledgeGraph(shipped.kb))


def test_compiled_state_gives_the_same_graph_synthetic():
    kg = KnowledgeGraph(generate(3000, seed=4))
    _same_graph(_round_trip(kg), kg)


def _fact_fields(cf) -> tuple:
    return (cf.index, cf.fact, cf.subject_layer, cf.subjects, cf.target, cf.when, cf.via, cf.domain, cf.names_known,
            cf.id, cf.relation, cf.status, cf.runs_as, cf.caveat, cf.exhaustive, cf.positive, cf.is_build_list)


@pytest.mark.parametrize("source", ["shipped", "synthetic"])
def test_facts_read_one_by_one_from_the_cache_are_those_compiled(source, shipped, tmp_path):
    """A graph read from the cache makes each fact, condition and facts-by-subject entry when
    first read: read one at a time (last first, before any pass over them all), they equal a
    cold compile's, and reading one again gives the same object."""
    from gpulane.graph.kb import CompiledState
    from gpulane.loaders.stored import validator

    cold = KnowledgeGraph(shipped.kb if source == "shipped" else generate(3000, seed=6))
    state = validator(CompiledState).validate_json(json.dumps(cold.compiled_state()))
    warm = KnowledgeGraph.from_compiled(cold.kb, state, cold.selection_table())
    for key in reversed(list(cold.by_subject)):
        assert [cf.index for cf in warm.by_subject[key]] == [cf.index for cf in cold.by_subject[key]]
        assert warm.by_subject.get(key) is warm.by_subject[key]
    assert warm.by_subject.get(("no-such-node", Layer.gpu)) is None and ("no-such-node", Layer.gpu) not in warm.by_subject
    for at in reversed(range(len(cold.facts))):
        assert _fact_fields(warm.facts[at]) == _fact_fields(cold.facts[at])
        assert warm.facts[at] is warm.facts[at]
    assert warm.facts[-1] is warm.facts[len(cold.facts) - 1]
    assert [cf.index for cf in warm.facts[2:5]] == [cf.index for cf in cold.facts[2:5]]
    made = [warm.facts[at] for at in range(0, len(cold.facts), 7)]
    assert all(a is b for a, b in zip(made, list(warm.facts)[::7]))  # a pass over all keeps those made
    some = next(iter(cold.fact_by_id))
    assert warm.fact_by_id[some].index == cold.fact_by_id[some].index
    _same_graph(warm, cold)


def test_warm_load_gives_the_same_graph_as_a_cold_one(tmp_path):
    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    cold = build_graph(folder)
    load_graph(folder)
    warm = load_graph(folder)
    _same_graph(warm, cold)


def test_name_index_from_its_key_tables_and_nodes_is_the_whole_index(shipped):
    """The stored key tables and the nodes give back every table of the index."""
    from gpulane.graph.names import NameKeyTables
    from gpulane.loaders.stored import validator

    tables = validator(NameKeyTables).validate_json(json.dumps(shipped.names.key_tables()))
    again = NameIndex.of_key_tables(tables, shipped.nodes.values())
    assert again == shipped.names
    assert all(getattr(again, f.name) for f in dataclasses.fields(NameIndex) if f.name != "series")


def _entry():
    (path,) = cache_dir().glob("graph-*.json")
    header, _, payload = path.read_bytes().partition(b"\n")
    return path, header, payload


def _rewrite(path, header: bytes, payload: bytes) -> None:
    """An entry under the right key with a matching digest: what a buggy or foreign writer leaves."""
    key_part = header.rsplit(b" ", 1)[0]
    path.write_bytes(key_part + b" " + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)


def _document(payload: bytes) -> dict:
    """An entry's parts as one document: {"kb": {files, sources, nodes, steps, facts, origins},
    "compiled": ..., "selections": ...} (the entry itself is a core line, then each fact's text, the
    origins and the selections: see gpulane.api._encode)."""
    core_text, _, rest = payload.partition(b"\n")
    core = json.loads(core_text)
    ends = core.pop("fact_ends")
    starts = [0, *ends[:-1]]
    facts_end = ends[-1] if ends else 0
    origins_end, selections_end = core.pop("origins_end"), core.pop("selections_end")
    assert selections_end == len(rest)
    kb = {k: core.pop(k) for k in ("files", "sources", "nodes", "steps") if k in core}
    kb["facts"] = [json.loads(rest[a:b]) for a, b in zip(starts, ends)]
    kb["origins"] = json.loads(rest[facts_end:origins_end])
    return {"kb": kb, "compiled": core.pop("compiled"), "selections": json.loads(rest[origins_end:]), **core}


def _entry_of(doc: dict) -> bytes:
    """The payload of a document ``_document`` read (the reverse of it)."""
    kb = dict(doc["kb"])
    facts = [json.dumps(f).encode() for f in kb.pop("facts")]
    origins = json.dumps(kb.pop("origins")).encode()
    selections = json.dumps(doc["selections"]).encode()
    ends, end = [], 0
    for text in facts:
        end += len(text)
        ends.append(end)
    rest = {k: v for k, v in doc.items() if k not in ("kb", "compiled", "selections")}
    core = {**kb, "compiled": doc["compiled"], **rest, "fact_ends": ends, "origins_end": end + len(origins),
            "selections_end": end + len(origins) + len(selections)}
    return json.dumps(core).encode() + b"\n" + b"".join(facts) + origins + selections


def test_entry_document_helpers_read_back_what_they_write(tmp_path):
    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    load_graph(folder)
    _path, _header, payload = _entry()
    doc = _document(payload)
    assert _document(_entry_of(doc)) == doc and doc["kb"]["facts"] and doc["kb"]["origins"]["facts"]


def test_payload_changed_under_its_header_is_rebuilt(tmp_path, monkeypatch):
    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    load_graph(folder)
    path, header, payload = _entry()
    path.write_bytes(header + b"\n" + payload.replace(b'"Alpha 100"', b'"Alpha 999"', 1))
    kg = load_graph(folder)
    assert kg.nodes["gpu-a"].name == "Alpha 100"  # the planted name was not read


@pytest.mark.parametrize("damage", [
    lambda d: d["compiled"]["facts"]["index"].append(0),
    lambda d: d["compiled"]["facts"]["index"].__setitem__(0, 10_000),
    lambda d: d["compiled"]["facts"]["index"].__setitem__(0, -1),
    lambda d: d["compiled"]["facts"]["target"].__setitem__(0, 10_000),
    lambda d: d["compiled"]["facts"]["target"].__setitem__(0, -1),
    lambda d: d["compiled"]["facts"]["subjects"].__setitem__(0, 10**6),
    lambda d: d["compiled"]["facts"]["subjects"].__setitem__(0, -1),
    lambda d: d["compiled"]["facts"]["subjects"].append(0),
    lambda d: d["compiled"]["facts"]["subject_ends"].__setitem__(0, 10**6),
    lambda d: d["compiled"]["facts"]["subject_ends"].__setitem__(1, 0),
    # A fact whose subjects are an id the stored table holds but no node of the knowledge base.
    lambda d: (d["compiled"]["extra_ids"].append("ghost"),
               d["compiled"]["facts"]["subjects"].__setitem__(
                   slice(0, d["compiled"]["facts"]["subject_ends"][0]),
                   [len(d["kb"]["nodes"])] * d["compiled"]["facts"]["subject_ends"][0])),
    lambda d: d["compiled"]["facts"]["subject_layer"].__setitem__(0, "not-a-layer"),
    lambda d: d["compiled"]["facts"]["when"].append(10_000),
    lambda d: (d["compiled"]["facts"]["when"].append(10_000),
               d["compiled"]["facts"]["when_ends"].__setitem__(-1, d["compiled"]["facts"]["when_ends"][-1] + 1)),
    lambda d: d["compiled"]["facts"]["relation"].__setitem__(0, "not-a-relation"),
    lambda d: d["compiled"]["facts"]["status"].__setitem__(0, "maybe"),
    lambda d: d["compiled"]["facts"]["exhaustive"].append("yes"),
    lambda d: d["compiled"]["facts"]["exhaustive"].append(10_000),
    lambda d: d["compiled"]["facts"]["domain"].append([0, 10_000]),
    lambda d: d["compiled"]["facts"]["caveat"].append([-1, "x"]),
    lambda d: d["compiled"]["facts"]["id"].pop(),
    lambda d: d["compiled"]["facts"].pop("via"),
    lambda d: d["compiled"].pop("extra_ids"),
    lambda d: d["compiled"]["by_subject"]["facts"].append(0),
    lambda d: d["compiled"]["by_subject"]["facts"].__setitem__(0, 10**6),
    lambda d: d["compiled"]["by_subject"]["facts"].__setitem__(0, -1),
    lambda d: d["compiled"]["by_subject"]["subjects"].__setitem__(0, -1),
    lambda d: d["compiled"]["by_subject"]["subjects"].__setitem__(0, 10**6),
    lambda d: d["compiled"]["by_subject"]["subjects"].__setitem__(1, d["compiled"]["by_subject"]["subjects"][0]),
    lambda d: d["compiled"]["by_subject"]["layers"].__setitem__(0, "not-a-layer"),
    lambda d: d["compiled"]["by_subject"]["layers"].pop(),
    lambda d: d["compiled"]["by_subject"]["ends"].__setitem__(0, 10**6),
    lambda d: d["compiled"].pop("by_subject"),
    lambda d: d["compiled"]["official_reverse"]["subjects"].__setitem__(0, 10**6),
    lambda d: d["compiled"]["official_reverse"]["subjects"].__setitem__(0, -1),
    lambda d: d["compiled"]["official_reverse"]["objects"].__setitem__(0, -1),
    lambda d: d["compiled"]["official_reverse"]["objects"].append(0),
    lambda d: d["compiled"]["official_reverse"]["objects"].__setitem__(1, d["compiled"]["official_reverse"]["objects"][0]),
    lambda d: d["compiled"]["official_reverse"]["pairs"].append(["gpu", "arch"]),
    lambda d: d["compiled"]["official_reverse"]["pairs"].__setitem__(0, ["gpu", "not-a-layer"]),
    lambda d: d["compiled"]["official_reverse"]["subject_ends"].__setitem__(0, 10**6),
    lambda d: d["compiled"]["official_reverse"]["object_ends"].__setitem__(0, 10**6),
    lambda d: d["compiled"].pop("official_reverse"),
    lambda d: d["compiled"]["conditions"].__setitem__(0, ["not-a-layer", None, None, None]),
    lambda d: d["compiled"]["conditions"].__setitem__(0, ["driver", None, None, None]),
    lambda d: d["compiled"]["conditions"].__setitem__(0, ["driver", None, ">>1", None]),
    lambda d: d["compiled"]["conditions"].__setitem__(0, ["gpu", [10**6], None, None]),
    lambda d: d["compiled"]["conditions"].__setitem__(0, ["gpu", [-1], None, None]),
    lambda d: d["compiled"]["conditions"].__setitem__(0, ["gpu", ["gpu-a"], None, None]),
    lambda d: d["compiled"]["names"].pop("exact"),
    lambda d: d["compiled"]["names"]["exact"].update({"x": {"gpu": 5}}),
    lambda d: d["compiled"]["names"]["exact"].update({"x": {"not-a-layer": ["gpu-a"]}}),
    lambda d: d["compiled"].__setitem__("facts", "nope"),
    lambda d: d["compiled"]["orders"].pop("gpu"),
    lambda d: d["compiled"]["orders"]["gpu"].append(0),
    lambda d: d["compiled"]["orders"]["gpu"].__setitem__(0, 10**6),
    lambda d: d["compiled"]["orders"].__setitem__("not-a-layer", []),
])
def test_malformed_compiled_state_is_rebuilt_not_a_traceback(tmp_path, damage):
    _damaged_entry_is_rebuilt(tmp_path, damage)


def _damaged_entry(tmp_path, damage):
    """Fill the cache from a copy of the mini KB and damage the stored document: (folder, the
    graph a cold build gives, the entry's path)."""
    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    cold = build_graph(folder)
    load_graph(folder)
    path, header, payload = _entry()
    doc = _document(payload)
    damage(doc)
    _rewrite(path, header, _entry_of(doc))
    return folder, cold, path


def _damaged_entry_is_rebuilt(tmp_path, damage) -> None:
    """Damage the stored document and check the next load gives the graph a cold build gives."""
    folder, cold, _path = _damaged_entry(tmp_path, damage)
    _same_graph(load_graph(folder), cold)
    _same_graph(load_graph(folder), cold)  # and the rebuilt entry is good again


def test_trusted_validation_reads_the_stored_kb_as_full_validation_does(shipped):
    """The cache's own entries are validated with the TRUSTED context (value checks that ran when
    the files were read are skipped): the models are the same as a full validation gives."""
    from gpulane.loaders.kbfiles import StoredKB
    from gpulane.model import TRUSTED

    dumped = StoredKB.of(shipped.kb).model_dump_json(exclude_unset=True)
    trusted = StoredKB.model_validate_json(dumped, context={TRUSTED: True})
    full = StoredKB.model_validate_json(dumped)
    assert trusted == full
    assert [f.model_fields_set for f in trusted.facts] == [f.model_fields_set for f in full.facts]


def test_trusted_context_is_not_given_to_files(tmp_path):
    """A knowledge-base file is always checked in full: an unreadable version spec is an error."""
    from gpulane.errors import KBLoadError

    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    (folder / "bad.yaml").write_text("facts:\n  - {id: bad-spec, relation: supports, subject: gpu-a, "
                                     "object: {layer: toolkit, family: rocm, version: '>>1'}}\n")
    with pytest.raises(KBLoadError, match="bad-spec"):
        load_graph(folder)


def test_a_warm_find_reads_no_yaml(tmp_path):
    """A command answered from the cache imports neither the YAML reader nor the checker."""
    import subprocess
    import sys

    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    code = ("import sys\nfrom gpulane.cli.app import main\nsys.argv = ['gpulane', '--data', sys.argv[1], 'find', "
            "'gpu where app = AppX']\ntry:\n    main()\nexcept SystemExit:\n    pass\nprint(sorted(m for m in "
            "('yaml', 'gpulane.loaders.kbfiles', 'gpulane.graph.check') if m in sys.modules), file=sys.stderr)")
    runs = [subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True) for _ in range(2)]
    cold, warm = (r.stderr.strip().splitlines()[-1] for r in runs)
    assert runs[0].stdout == runs[1].stdout and runs[1].stdout.strip()
    assert "yaml" in cold  # the first run read the files
    assert warm == "[]"


def _fields_set_tree(model) -> object:
    """A model's set of given fields, with those of the models inside it."""
    from pydantic import BaseModel

    def walk(value):
        if isinstance(value, BaseModel):
            return (type(value).__name__, sorted(value.model_fields_set),
                    {k: walk(getattr(value, k)) for k in sorted(type(value).model_fields)})
        if isinstance(value, dict):
            return {str(k): walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return None

    return walk(model)


@pytest.mark.parametrize("which", ["shipped", "synthetic"])
def test_fast_reader_gives_the_models_a_cold_load_made(which, shipped):
    """A warm start reads the stored knowledge base with a typed-dictionary validator and builds the
    models from the checked data (gpulane.loaders.stored): the models the cold load made, field
    for field, in type and in their sets of given fields (which the next write's exclude_unset
    reads). (pydantic's own validation of the stored text differs: its `when` validator names the
    layer of an id shorthand, which the cold load leaves to the compiler, see
    test_when_shorthand_gives_the_same_graph_warm_and_cold.)"""
    from gpulane.loaders.kbfiles import StoredKB
    from gpulane.loaders.stored import validator

    kb = shipped.kb if which == "shipped" else generate(3000, seed=4)
    dumped = StoredKB.of(kb).model_dump_json(exclude_unset=True)
    fast = StoredKB.read(validator(StoredKB).validate_json(dumped))
    for kind in ("sources", "nodes", "facts", "steps"):
        mine, theirs = list(getattr(fast, kind)), getattr(kb, kind)
        assert mine == theirs, kind
        assert [type(x) for x in mine] == [type(x) for x in theirs]
        assert [_fields_set_tree(x) for x in mine] == [_fields_set_tree(x) for x in theirs], kind
    if which == "shipped":
        assert fast.origins == kb.origins and fast.files == kb.files
    # Written again, the models give the same text.
    assert StoredKB.of(fast).model_dump_json(exclude_unset=True) == dumped


@pytest.mark.parametrize("damage", [
    lambda core: core.__setitem__("fact_ends", core["fact_ends"][::-1]),
    lambda core: core.__setitem__("fact_ends", core["fact_ends"][:-1]),
    lambda core: core.__setitem__("origins_end", -1),
    lambda core: core.__setitem__("selections_end", core["selections_end"] + 1),
    lambda core: core.pop("fact_ends"),
])
def test_section_offsets_that_do_not_fit_the_entry_are_a_miss(tmp_path, damage):
    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    cold = build_graph(folder)
    load_graph(folder)
    path, header, payload = _entry()
    core_text, _, rest = payload.partition(b"\n")
    core = json.loads(core_text)
    damage(core)
    _rewrite(path, header, json.dumps(core).encode() + b"\n" + rest)
    _same_graph(load_graph(folder), cold)
    _same_graph(load_graph(folder), cold)


@pytest.mark.parametrize("damage", [
    lambda d: d["kb"]["nodes"][0].__setitem__("layer", "not-a-layer"),
    lambda d: d["kb"]["nodes"][0].__setitem__("vram_gb", "lots"),
    lambda d: d["kb"]["sources"][0].__setitem__("bogus", 1),
])
def test_a_stored_value_of_the_wrong_type_is_a_miss(tmp_path, damage):
    """The fast reader checks every value's type as full validation does: an entry whose text a
    buggy writer got wrong is rebuilt, never half-read."""
    _damaged_entry_is_rebuilt(tmp_path, damage)


@pytest.mark.parametrize("part, damage, read", [
    ("fact 0", lambda d: d["kb"]["facts"][0].__setitem__("object", "not-a-selector"),
     lambda kg: kg.kb.facts[0]),
    ("fact 0", lambda d: d["kb"]["facts"][0].__setitem__("bogus", 1), lambda kg: kg.facts[0].fact),
    ("fact 1", lambda d: d["kb"]["facts"][1].pop("id"), lambda kg: list(kg.kb.facts)),
    ("fact 0", lambda d: d["kb"]["facts"][0].__setitem__("when", {"os": {"layer": "os", "platform": "beos"}}),
     lambda kg: kg.kb.facts[0].when),
    ("origins", lambda d: d["kb"]["origins"].__setitem__("facts", [["x.yaml", "line"]]),
     lambda kg: kg.kb.origin("facts", 0)),
    ("selections", lambda d: d["selections"].__setitem__(0, [[None], "gpu", []]), lambda kg: kg.selection_table()),
])
def test_a_part_read_when_first_used_is_checked_then(tmp_path, part, damage, read):
    """The facts, their origins and the stored selections are read when first used (a warm start
    reads only what the command looks at): a value of the wrong type there is caught when the
    part is read, as a clear error naming the entry (never a half-read value), and the entry is
    removed, so the next load builds it again from the files."""
    from gpulane.errors import CacheEntryError

    folder, cold, path = _damaged_entry(tmp_path, damage)
    warm = load_graph(folder)
    with pytest.raises(CacheEntryError) as caught:
        read(warm)
    assert str(caught.value).startswith(f"the cached knowledge base {path} does not read back ({part}: ")
    assert str(caught.value).endswith("it has been removed: run the command again to rebuild it from the files")
    assert not path.exists()
    _same_graph(load_graph(folder), cold)
    _same_graph(load_graph(folder), cold)


def test_when_shorthand_gives_the_same_graph_warm_and_cold(tmp_path):
    """`when: {os: ubuntu-24.04}` (ids under a layer's key): the key names the layer when the fact is
    compiled. A warm load used to differ from the cold one here (its validator named the layer in
    the model, the cold load does not): both now hold the model as the file gives it."""
    from gpulane.model import Layer

    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    (folder / "short.yaml").write_text(
        "facts:\n"
        "  - {id: short-one, relation: runs_on, subject: app-z, object: [ubuntu-24.04], when: {os: ubuntu-24.04},"
        " source: test}\n"
        "  - {id: short-list, relation: runs_on, subject: app-z, object: [rhel-9.4], when: {os: [rhel-9.4]},"
        " source: test}\n"
        "steps:\n"
        "  - {id: short-step, layer: app, applies_to: {app: app-z}, command: 'pip install appz', source: test}\n")
    cold = build_graph(folder)
    load_graph(folder)
    warm = load_graph(folder)
    _same_graph(warm, cold)
    assert list(warm.kb.facts) == cold.kb.facts and warm.kb.steps == cold.kb.steps
    for kg in (cold, warm):
        for fid in ("short-one", "short-list"):
            cf = kg.fact_by_id[fid]
            (sel,) = cf.fact.when.values()
            assert sel.layer == cold.fact_by_id[fid].fact.when[Layer.os].layer
            assert [c.layer for c in cf.when] == [Layer.os]  # compiled on the key's layer
    answers = [run_find(kg, "find app where os = \"Ubuntu 24.04\"") for kg in (cold, warm)]
    assert answers[0] == answers[1]


def run_find(kg, text: str) -> list:
    from gpulane.queries import run

    return [values for values, _path in run.find(kg, run.compile_query(kg, text)).answers]


def test_warm_load_gives_the_same_graph_as_a_cold_one_shipped(tmp_path):
    """The shipped knowledge base, read cold (YAML) and warm (the cache): the same graph."""
    from gpulane.loaders.kbfiles import default_data_dir

    folder = tmp_path / "kb"
    shutil.copytree(default_data_dir(), folder)
    cold = load_graph(folder)
    warm = load_graph(folder)
    _same_graph(warm, cold)
    assert warm.kb.steps == cold.kb.steps and warm.kb.origins == cold.kb.origins


def _pair_table_copying_every_link(kg: KnowledgeGraph, statuses) -> dict:
    """The pair table as first written: plain dicts, every positive fact's links copied both ways,
    then the bundled toolkits linked to their apps' architectures."""
    from gpulane.model import Relation

    table: dict = {}

    def link(a, b, subjects, objects):
        fwd, back = table.setdefault((a, b), {}), table.setdefault((b, a), {})
        for s in subjects:
            fwd.setdefault(s, set()).update(objects)
        for o in objects:
            back.setdefault(o, set()).update(subjects)

    def counts(cf):
        return cf.positive and cf.target.ids is not None and (statuses is None or cf.status in statuses)

    for cf in kg.facts:
        if counts(cf):
            link(cf.subject_layer, cf.target.layer, cf.subjects, cf.target.ids)
    for app in kg.by_layer[Layer.app]:
        toolkits = {t for cf in kg.by_subject.get((app, Layer.toolkit), [])
                    if cf.relation is Relation.bundles and counts(cf) for t in cf.target.ids}
        archs = {a for cf in kg.by_subject.get((app, Layer.arch), []) if counts(cf) for a in cf.target.ids}
        for toolkit in toolkits:
            link(Layer.toolkit, Layer.arch, (toolkit,), archs)
    return table


def _open_override_pairs_walking_every_node(kg: KnowledgeGraph, table: dict) -> None:
    """The override pairs as first written: every node of the layer tested for runs_as."""
    for cfs in kg.overrides.values():
        for cf in cfs:
            for layer in (Layer.toolkit, Layer.framework, Layer.app):
                fwd = table.setdefault((layer, Layer.arch), {})
                back = table.setdefault((Layer.arch, layer), {})
                for node, archs in list(fwd.items()):
                    if cf.runs_as in archs:
                        archs.update(cf.target.ids)
                        for x in cf.target.ids:
                            back.setdefault(x, set()).add(node)


def test_override_pairs_read_from_the_reverse_table_are_the_same(shipped):
    """positive_pairs opens override pairs from the reverse table (arch -> nodes) instead of
    walking every node: the same table as the walk gives."""
    kg = KnowledgeGraph(shipped.kb)
    table = _pair_table_copying_every_link(kg, None)
    _open_override_pairs_walking_every_node(kg, table)
    assert kg.overrides  # the case is exercised
    assert kg.positive_pairs == table


@pytest.mark.parametrize("source", ["shipped", "mini", "synthetic", "shipped from cache"])
def test_pair_tables_made_lazily_hold_every_link(source, shipped):
    """The pair tables' subject -> object sides make a node's entry from its own facts when first
    asked for: asked for every node (in any order, or by iterating), they are the tables that copy
    every fact's links, with the same layer pairs in the same order, and the same entry asked
    twice is the same."""
    from gpulane.model import OFFICIAL_POSITIVE

    if source == "shipped from cache":
        load_graph()
        kg = load_graph()
        assert "_official_pairs" not in kg.__dict__
        assert "_stored_official_reverse" in kg.__dict__  # the official table's stored reverse side is read
    else:
        kg = {"shipped": shipped.kb, "mini": build_graph(MINI).kb, "synthetic": generate(2000, seed=5)}[source]
        kg = KnowledgeGraph(kg)
    for statuses in (OFFICIAL_POSITIVE, None):
        expected = _pair_table_copying_every_link(kg, statuses)
        if statuses is None:
            _open_override_pairs_walking_every_node(kg, expected)
        asked = KnowledgeGraph._pair_table(kg, statuses)
        if statuses is None:
            kg._open_override_pairs(asked)
        assert list(asked) == list(expected)
        nodes = sorted(kg.nodes, reverse=True) + ["no-such-node"]
        for pair, side in asked.items():
            # One at a time first (as a query asks), then the whole side.
            for node in nodes:
                assert side.get(node) == expected[pair].get(node)
                assert (node in side) == (node in expected[pair])
                assert side.get(node) is side.get(node) or side.get(node) is None
            assert side == expected[pair] and len(side) == len(expected[pair])
            assert set(side) == set(expected[pair])
        # Iterated before any entry was asked for.
        fresh = KnowledgeGraph._pair_table(kg, statuses)
        if statuses is None:
            kg._open_override_pairs(fresh)
        assert {pair: dict(side.items()) for pair, side in fresh.items()} == expected


def test_a_damaged_part_found_by_a_command_is_a_clear_error_then_rebuilt(tmp_path):
    """On the command line: the error names the entry (no traceback, status 2) and the next run
    answers as the first did."""
    import subprocess
    import sys

    folder = tmp_path / "kb"
    shutil.copytree(MINI, folder)
    argv = [sys.executable, "-m", "gpulane", "--data", str(folder), "show", "Alpha 100"]  # lists its facts
    env = {**__import__("os").environ, "GPULANE_CACHE_DIR": str(cache_dir())}
    first = subprocess.run(argv, capture_output=True, text=True, env=env)
    path, header, payload = _entry()
    doc = _document(payload)
    (fact,) = [f for f in doc["kb"]["facts"] if f["id"] == "a-arch"]  # Alpha 100's one fact
    fact["bogus"] = 1
    _rewrite(path, header, _entry_of(doc))
    damaged = subprocess.run(argv, capture_output=True, text=True, env=env)
    assert damaged.returncode == 2 and "Traceback" not in damaged.stderr
    assert f"the cached knowledge base {path} does not read back (fact " in damaged.stderr
    assert "bogus: Extra inputs are not permitted); it has been removed" in damaged.stderr
    again = subprocess.run(argv, capture_output=True, text=True, env=env)
    assert (again.returncode, again.stdout) == (first.returncode, first.stdout) and first.stdout.strip()


@pytest.mark.parametrize("which", ["shipped", "synthetic"])
def test_each_fact_is_stored_as_its_model_writes_it(which, shipped):
    """The writer cuts one list of facts into each fact's text: the same texts as writing each
    fact on its own."""
    from gpulane.api import _fact_texts
    from gpulane.loaders.kbfiles import StoredKB

    kb = shipped.kb if which == "shipped" else generate(3000, seed=4)
    stored = StoredKB.of(kb)
    assert _fact_texts(stored) == [f.model_dump_json(exclude_unset=True).encode() for f in stored.facts]


@pytest.mark.parametrize("ends", [[3, 2], [-1], [5, 100], [True], [1.0], [0, "3"]])
def test_stored_item_offsets_out_of_order_or_outside_the_text_are_refused(ends):
    from gpulane.loaders.stored import CheckedOnUse

    with pytest.raises(ValueError, match="item offsets"):
        CheckedOnUse(None, b"x" * 10, ends, None)


def test_stored_item_offsets_may_mark_empty_items():
    from gpulane.loaders.stored import CheckedOnUse

    assert len(CheckedOnUse(None, b"x" * 10, [0, 3, 3, 10], None)) == 4
