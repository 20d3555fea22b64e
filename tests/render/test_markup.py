"""Markdown and code rendering: escaping, URL allow-list, highlighting."""

import re

from bs4 import BeautifulSoup
from helpers import message_texts
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter

from sessite.render.markup import DARK_STYLE, LIGHT_STYLE, highlight_code, lexer_for, markdown, render_diff, safe_url


def soup(html) -> BeautifulSoup:
    return BeautifulSoup(str(html), "html.parser")


def test_raw_html_is_shown_as_text_not_markup():
    html = markdown('Hello <script>alert(1)</script> <img src=x onerror="alert(2)">\n\n<div onclick="x()">block</div>')
    doc = soup(html)
    assert doc.find("script") is None
    assert doc.find("img") is None
    assert doc.find("div") is None
    assert "<script>alert(1)</script>" in doc.get_text()


def test_javascript_links_are_removed_but_text_kept():
    for url in (
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "java\tscript:alert(1)",
        "data:text/html,<script>x</script>",
        "vbscript:msgbox",
        " javascript:alert(1)",
    ):
        doc = soup(markdown(f"[click me]({url})"))
        assert all(
            not a.get("href", "").lower().replace("\t", "").strip().startswith(("javascript", "data", "vbscript"))
            for a in doc.find_all("a")
        ), url
        assert "click me" in doc.get_text()
    doc = soup(markdown("<javascript:alert(1)>"))
    assert all("javascript" not in (a.get("href") or "") for a in doc.find_all("a"))


def test_safe_links_survive():
    doc = soup(
        markdown("[docs](https://example.com/a?b=1) and [rel](../x.html) and [frag](#e-1) <https://example.org>")
    )
    hrefs = [a["href"] for a in doc.find_all("a")]
    assert hrefs == ["https://example.com/a?b=1", "../x.html", "#e-1", "https://example.org"]


def test_images_become_links_so_pages_load_nothing_remote():
    doc = soup(markdown("![a chart](https://tracker.example/pixel.png)"))
    assert doc.find("img") is None
    assert doc.find("a")["href"] == "https://tracker.example/pixel.png"


def test_fenced_code_is_highlighted_with_classes():
    doc = soup(markdown("```python\ndef f(x):\n    return x\n```"))
    block = doc.find("div", class_="hl")
    assert block is not None
    assert block.find("span", class_="k") is not None  # keyword span from pygments
    assert "def f(x):" in block.get_text()


def _colours_per_character(html: str, style: str) -> list[tuple[str, tuple]]:
    """Each character of a highlighted block with the CSS declarations that style it
    (the block's own, overlaid with its span's class rule from pygments' stylesheet).
    A space shows no colour, weight or slant, so those are not compared for it."""
    rules = {}
    for line in HtmlFormatter(style=style).get_style_defs(".hl").splitlines():
        match = re.match(r"\.hl(?: \.(\w+))? \{ (.*?) \}", line)
        if match:
            rules[match.group(1) or ""] = dict(
                decl.split(":", 1) for decl in match.group(2).replace(" ", "").split(";") if decl
            )
    out = []
    for node in soup(html).find("pre").descendants:
        if isinstance(node, str):
            cls = (node.parent.get("class") or [""])[0] if node.parent.name == "span" else ""
            look = {**rules[""], **rules.get(cls, {})}
            unseen_on_space = ("color", "font-weight", "font-style")
            for ch in node:
                shown = {k: v for k, v in look.items() if not (ch.isspace() and k in unseen_on_space)}
                out.append((ch, tuple(sorted(shown.items()))))
    return out


def test_highlighting_looks_the_same_as_pygments_own_formatter():
    """Spans are left out only where they change nothing on screen, in both themes."""
    samples = {
        "python": 'import os\nclass A(B):\n    """doc"""\n    def f(self, x=None, *a, **k) -> int:\n'
        '        return os.path.join(x, "s", f"{x!r}") + 0x1F  # c\n',
        "rust": "pub fn f(ctx: &mut Ctx, n: usize) -> Result<Vec<u8>> {\n    let mut v = Vec::new(); Ok(v?) // c\n}\n",
        "typescript": "export async function f(x: string): Promise<void> {\n"
        "  const y = await fetch(`/a/${x}`); if (!y) throw new Error('e');\n}\n",
        "go": "func (s *S) F(ctx context.Context, id int64) error {\n"
        '\tif err := s.g(ctx, id); err != nil {\n\t\treturn fmt.Errorf("x: %w", err)\n\t}\n}\n',
        "json": '{"a": [1, 2.5, true, null], "b": {"c": "d"}}\n',
        "bash": 'for f in *.py; do echo "$f" | grep -q x && rm -- "$f"; done # c\n',
        "html": '<div class="a" onclick="x()"><!-- c --><b>t</b>&amp;</div>\n',
    }
    for language, code in samples.items():
        ours = str(highlight_code(code, language))
        theirs = pygments_highlight(code, lexer_for(language), HtmlFormatter())
        assert ours.count("<span") < theirs.count("<span"), language
        for style in (LIGHT_STYLE, DARK_STYLE):
            assert _colours_per_character(ours, style) == _colours_per_character(theirs, style), (language, style)


def test_unknown_language_is_plain_escaped_pre():
    doc = soup(markdown("```no-such-lang\n<b>x</b>\n```"))
    assert doc.find("b") is None
    assert "<b>x</b>" in doc.get_text()


def test_lexer_chosen_by_name_or_extension_never_guessed():
    assert lexer_for("py").name == "Python"
    assert lexer_for(None, "src/app.rs").name == "Rust"
    assert lexer_for(None, "README") is None
    assert lexer_for("definitely-not-a-language") is None


def test_huge_code_is_not_highlighted():
    html = highlight_code("x = 1\n" * 20000, "python")
    assert str(html).startswith('<pre class="code">')


def test_diff_lines_are_classed():
    doc = soup(render_diff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"))
    assert doc.find("span", class_="gd") is not None and doc.find("span", class_="gi") is not None


def test_safe_url_rules():
    assert safe_url("https://x") == "https://x"
    assert safe_url("mailto:a@b") == "mailto:a@b"
    assert safe_url("page.html#x") == "page.html#x"
    assert safe_url("javascript:x") is None
    assert safe_url("file:///etc/passwd") is None
    assert safe_url("") is None


def test_edit_input_does_not_repeat_what_its_diff_shows():
    from sessite.readers._util import unified_diff
    from sessite.render.renderer import beside_diff

    old = "\n".join(f"line {i} of the old text" for i in range(7))  # within the diff's 3 lines of context
    new = old.replace("line 3 of", "line three of")
    edit = {"file_path": "a.py", "old_string": old, "new_string": new, "replace_all": False}
    shown = beside_diff(edit, unified_diff("a.py", old, new))
    assert shown["old_string"] == "(7 lines: the old side of the diff above)" and shown["new_string"].endswith(
        "new side of the diff above)"
    )
    assert (
        shown["file_path"] == "a.py" and shown["replace_all"] is False and edit["old_string"] == old
    )  # the event is untouched
    # a diff that shows only part of a text (context cut) leaves the text in the input
    far = "\n".join(f"unchanged line number {i}" for i in range(40))
    partial = unified_diff("b.py", far, far.replace("number 39", "number 39!"))
    assert beside_diff({"old_string": far}, partial) == {"old_string": far}
    assert beside_diff(edit, None) is edit and beside_diff(["x" * 100], "+x") == ["x" * 100]


PLAIN = [
    "hello world",
    "a\nb",
    "a\n\nb",
    "x\n\n\n",
    "\nx",
    'say "hi" it\'s',
    "1999 was a year",
    "(a) b: c; d!",
    "\n\n",
    "www.example.com",
]
NOT_PLAIN = [
    "1. a",
    "a\n2) b",
    "  indented",
    "hard  \nbreak",
    "a  b",
    "*em*",
    "a & b",
    "<b>",
    "a_b",
    "[x](y)",
    "`c`",
    "# h",
]


def test_plain_prose_skips_mistune_with_the_same_bytes_out() -> None:
    """Most messages are prose markdown has nothing to do with: they skip mistune, and what
    they become is exactly what mistune makes of them (every message of the test data)."""
    import sessite.render.markup as m

    assert [bool(m._PLAIN_PROSE.fullmatch(t) and not m._NOT_PLAIN.search(t)) for t in PLAIN] == [True] * len(PLAIN)
    assert not any(m._PLAIN_PROSE.fullmatch(t) and not m._NOT_PLAIN.search(t) for t in NOT_PLAIN)
    texts = message_texts() + PLAIN
    plain = [t for t in texts if m._PLAIN_PROSE.fullmatch(t) and not m._NOT_PLAIN.search(t)]
    assert len(plain) > 100
    assert [m._paragraphs(t) for t in plain] == [m._markdown(t) for t in plain]
    assert [str(markdown(t)) for t in plain] == [m._markdown(t) for t in plain]
