"""The rich renderer keeps the words and colours the verdicts."""

from __future__ import annotations

from gpulane.cli.render_explain import explain_text
from gpulane.cli.render_rich import styled
from gpulane.queries import run
from gpulane.queries.explain import explain


def test_rich_text_has_the_same_words_and_styles(mini):
    text = explain_text(mini, explain(mini, run.compile_query(mini, 'explain gpu = "Nu 61", framework = "torch 2.8.0+cu128"')))
    rich_text = styled(text)
    assert rich_text.plain == text
    styles = {str(span.style) for span in rich_text.spans}
    assert "bold red" in styles and "green" in styles
