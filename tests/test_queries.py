"""The query language on data files: query → answer, query → exact error text."""

from __future__ import annotations

import pytest
import yaml

from gpulane.errors import QueryError
from gpulane.queries import run
from gpulane.queries.results import hop_list
from tests.conftest import TESTS, graph_for

FIND = yaml.safe_load((TESTS / "queries" / "find_cases.yaml").read_text())
PATHS = yaml.safe_load((TESTS / "queries" / "path_cases.yaml").read_text())
ERRORS = yaml.safe_load((TESTS / "queries" / "error_cases.yaml").read_text())


@pytest.mark.parametrize("case", FIND, ids=[c["name"] for c in FIND])
def test_find_case(case, shipped, mini):
    kg = graph_for(case["kb"], shipped, mini)
    result = run.find(kg, run.compile_query(kg, case["query"]))
    got = {combo[0] for combo, _ in result.answers}
    if "answers" in case:
        assert got == set(case["answers"])
    for node in case.get("includes", []):
        assert node in got, node
    for node in case.get("excludes", []):
        assert node not in got, node
    if "unofficial" in case:
        assert {c[0] for c, path in result.answers if path.unofficial_used()} == set(case["unofficial"])
    status_of = {combo[0]: path.status for combo, path in result.answers}
    for node, status in case.get("statuses", {}).items():
        assert status_of.get(node) == status, (node, status_of.get(node))
    for _, path in result.answers:
        if "allow unknown" not in case["query"]:
            assert path.verdict == "supported"
        assert all(e.verdict != "no" for e in path.edges)


@pytest.mark.parametrize("case", PATHS, ids=[c["name"] for c in PATHS])
def test_paths_case(case, shipped, mini):
    kg = graph_for(case["kb"], shipped, mini)
    result = run.paths(kg, run.compile_query(kg, case["query"]))
    assert len(result.paths) == case["count"]
    for path in result.paths:
        assert path.verdict == "supported"
        for layer, node in case.get("every", {}).items():
            assert path.values[layer] == node
        if "framework_family" in case:
            assert kg.nodes[path.values["framework"]].family == case["framework_family"]
        hops = {h["layer"]: h["name"] for h in hop_list(kg, path)}
        for layer, name in case.get("hops", {}).items():
            assert hops[layer] == name
    if "toolkits_in_order" in case:
        assert [p.values["toolkit"] for p in result.paths] == case["toolkits_in_order"]


@pytest.mark.parametrize("case", ERRORS, ids=[c["query"] for c in ERRORS])
def test_error_case(case, mini):
    with pytest.raises(QueryError) as info:
        plan = run.compile_query(mini, case["query"])
        run.find(mini, plan)
    assert info.value.render() == case["error"]


def test_empty_answer_names_the_filter(mini):
    result = run.find(mini, run.compile_query(mini, 'find gpu where vendor = nvidia and toolkit = rocm6.2'))
    assert result.answers == []
    assert result.empty_reason == "no answer once 'toolkit = rocm6.2' is added; with 'vendor = nvidia' there are answers"


def test_empty_answer_says_when_knowledge_is_missing(mini):
    result = run.find(mini, run.compile_query(mini, "find gpu where app = AppZ"))
    assert result.empty_reason == ("no path is fully backed by sources, but 4 candidate(s) are blocked only by "
                                   "missing knowledge (app AppZ → framework, app AppZ → os, app AppZ → arch); "
                                   "add 'allow unknown' to list them, labelled")


@pytest.mark.parametrize("field", ["vendor", "family", "platform", "cc", "llvm_target", "distro", "gpu.segment",
                                   "toolkit.vendor", "framework.backend", "app.version", "os.version", "gpu.aliases"])
def test_text_attribute_filters_match_as_node_by_node(field, shipped, mini):
    """A text filter (=, !=, in) is tested once per distinct value (and a vendor read from the name
    index): the same nodes as testing every node, for every value the graph holds, on a graph
    compiled here and one read back from the cache."""
    from gpulane.api import load_graph
    from gpulane.queries.parser import parse
    from gpulane.queries.plan import _match_each, _match_text, _target
    from tests.conftest import MINI

    for kg in (shipped, mini, load_graph(MINI)):
        layer, attr = _target(kg, field, parse(f"find gpu where {field} = x").conditions[0], "")
        held = {str(getattr(v, "value", v)) for i in kg.by_layer[layer] if (got := kg.attribute(i, attr)) is not None
                for v in (got if isinstance(got, list) else [got])}
        assert held or kg is not shipped
        for value in sorted(held)[:12] + ["none-such"]:
            for op in ("=", "!=", "in"):
                rhs = f'{{"{value}", none-such}}' if op == "in" else f'"{value}"'
                cond = parse(f"find gpu where {field} {op} {rhs}").conditions[0]
                values = [v.text for v in cond.values]
                assert _match_text(kg, layer, attr, op, values) == _match_each(kg, layer, attr, cond, "", values)
