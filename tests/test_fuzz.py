"""Any text given to the parser, the resolver or the engine yields an answer or a
QueryError — never another exception."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpulane.errors import QueryError
from gpulane.queries import run
from gpulane.queries.parser import parse

WORDS = ["find", "paths", "explain", "fix", "show", "list", "why", "where", "and", "in", "limit", "order", "by",
         "allow", "keep", "gpu", "arch", "os", "driver", "toolkit", "framework", "app", "vendor", "vram", "family",
         "platform", "cc", "=", "==", "!=", ">=", "<=", ">", "<", ",", "{", "}", "@", '"', "'", "Alpha 100",
         "AppX", "AppY", "rocm6.2", "cu124", "torch", "2.8.*", "24.04", "noble", "550.54.14", "gfx1100", "sm_86",
         "workaround", "unknown", "asc", "desc", "5", "Nu 61", '"Beta 200"', "amd", "nvidia", "24"]

settings.register_profile("gpulane", deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.load_profile("gpulane")


@given(st.text(alphabet=string.printable + "éü→✓", max_size=80))
def test_parser_on_any_text(text):
    try:
        parse(text)
    except QueryError as err:
        assert err.render().startswith("error: ")


@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=14))
@settings(max_examples=300)
def test_engine_on_near_valid_statements(mini, words):
    text = " ".join(words)
    try:
        plan = run.compile_query(mini, text)
        verb = plan.statement.verb
        if verb == "find" and plan.project:
            run.find(mini, plan)
        elif verb == "paths":
            run.paths(mini, plan)
        elif verb in ("explain", "why"):
            from gpulane.queries.explain import explain

            explain(mini, plan, budget_s=0.5)
        elif verb == "fix":
            from gpulane.queries.fix import fix

            fix(mini, plan, budget_s=0.5)
    except QueryError as err:
        assert err.message


@given(st.text(max_size=30))
def test_resolver_on_any_name(mini, name):
    from gpulane.model import Layer

    for layer in (None, Layer.gpu, Layer.toolkit, Layer.os):
        for resolution in mini.names.resolve(name, layer):
            assert all(i in mini.nodes for i in resolution.ids)
        mini.names.suggestions(name, layer)
