"""sessite/speedups/fastlex.py: the joined-regex loop yields exactly pygments' own tokens."""

import pytest
from pygments.lexers import get_all_lexers, get_lexer_by_name

from sessite.speedups import fastlex

SAMPLES = [
    'def f(x: int = 0x1F) -> str:\n    """doc"""\n    return rf"{x!r:>4}" + b\'\\x00\' # note\n',
    "fn main() { let s = r#\"raw \"# ; let c = b'\\n'; println!(\"{}\", 'a'); }\n",
    "export const f = async (a: string): Promise<void> => { await g(`x ${a}`); /re+/g.test(a) };\n",
    "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(`raw`, 1e3, 'c') }\n",
    "#!/bin/sh\nfor f in *.txt; do echo \"$f\" | grep -c 'x' >> out 2>&1; done\n",
    '{"a": [1, 2.5e3, null, true], "b": {"c": "d\\n"}}\n',
    '<div class="x">&amp; <b>bold</b><!-- c --></div>\n<?php echo $x; ?>\n',
    "SELECT a, COUNT(*) FROM t WHERE b LIKE 'x%' GROUP BY a;\n",
    "@@ -1,2 +1,2 @@\n-old\n+new\n unchanged\n\twith tab \\\n",
    "",
    "\n\n  \n",
    "unterminated 'string\n\"and\n/* comment",
]


@pytest.mark.parametrize("alias", sorted(aliases[0] for _, aliases, _, _ in get_all_lexers() if aliases))
def test_every_lexer_yields_pygments_own_tokens(alias: str) -> None:
    lexer = get_lexer_by_name(alias, stripnl=False, ensurenl=False)
    for text in SAMPLES:
        try:
            expected = list(lexer.get_tokens_unprocessed(text))
        except Exception:  # noqa: BLE001 - a lexer that fails on this text is not ours to test
            continue
        assert list(fastlex.tokens(lexer, text)) == expected, f"{alias}: {text[:40]!r}"


def test_plain_regex_lexers_are_joined_and_others_keep_their_loop() -> None:
    python = get_lexer_by_name("python", stripnl=False, ensurenl=False)
    list(fastlex.tokens(python, SAMPLES[0]))
    assert fastlex._machine(python)
    assert any(joined for _, _, joined in fastlex._machine(python)["root"])  # type: ignore[index]
    assert fastlex._machine(get_lexer_by_name("json")) is None  # not a RegexLexer: its own loop
