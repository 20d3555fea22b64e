"""sessite/speedups/quickmd.py: the common markdown drawn without mistune, with mistune's bytes."""

import pytest
from helpers import message_texts

import sessite.render.markup as m
from sessite.speedups import quickmd

QUICK = [
    "## The fix\n\nThe parser dropped the **last** field: see `parse()`.\n\n- **one**: a\n- `two()` b",
    "Fix issue #18 in `branch_search.ts`.",
    "```python\ndef f(x):\n    return x\n```\n\nDone.",
    "```\nplain\n\n\twith a tab\n```",
    'a `x<y> & "z"` b',
    "`x`**b** and **b**`x`: c",
    "- a\n\nPara",
    "Para\n\n- a",
    "## a #b",
    "it's `a'b` (ok)",
    "| file | change |\n|---|---|\n| `src/a.py` | Record **x** export. |\n| b | c |",
    "|a|b|\n|-|-|\n|1|2|",
]
MISTUNE = [
    "- a\n\n- b",  # one loose list
    "## H\nPara",  # a heading and a paragraph with no blank line between
    "```py\nx\n```\nafter",  # a paragraph right after a fence
    "```py\nunclosed",
    "```py\n ```\n```",  # a fence-like line inside
    "a\n```py\nx\n```",  # a fence interrupting a paragraph
    "Title\n===",
    "- * nested",
    "- 1. nested",
    "*em* and _em_",
    "**not bold **",
    "a\n**b**",
    "x ``y`` z",
    "`` ` ``",
    "[link](https://example.com)",
    "see https://example.com",
    "a & b <b>",
    "trailing  ",
    "a\r\nb",
    "## closed ##",
    "- ",
    "#  spaced heading",
    "`c``c` two backticks between",
    "| a | b |\n|:---|---:|\n| 1 | 2 |",  # aligned columns
    "| a | b |\n| --- | --- |\n| 1 |",  # a short row
    "| a | b |\n|---|---|",  # no body
    "| `a|b` | c |\n|---|---|\n| 1 | 2 |",
]


@pytest.mark.parametrize("text", QUICK)
def test_common_markdown_is_drawn_here_as_mistune_draws_it(text: str) -> None:
    assert quickmd.render(text, m._block_code) == m._markdown(text)


@pytest.mark.parametrize("text", MISTUNE)
def test_anything_beyond_the_grammar_goes_to_mistune(text: str) -> None:
    assert quickmd.render(text, m._block_code) is None


def test_every_message_of_the_test_data_is_drawn_as_mistune_draws_it() -> None:
    texts = message_texts()
    quick = [(t, quickmd.render(t, m._block_code)) for t in texts]
    drawn = [(t, html) for t, html in quick if html is not None]
    assert len(drawn) > 100
    assert [html for _, html in drawn] == [m._markdown(t) for t, _ in drawn]
