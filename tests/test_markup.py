"""Markdown and code rendering: escaping, URL allow-list, highlighting."""

from bs4 import BeautifulSoup

from sitegen.markup import highlight_code, lexer_for, markdown, render_diff, safe_url


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
    for url in ("javascript:alert(1)", "JaVaScRiPt:alert(1)", "java\tscript:alert(1)", "data:text/html,<script>x</script>", "vbscript:msgbox", " javascript:alert(1)"):
        doc = soup(markdown(f"[click me]({url})"))
        assert all(not a.get("href", "").lower().replace("\t", "").strip().startswith(("javascript", "data", "vbscript")) for a in doc.find_all("a")), url
        assert "click me" in doc.get_text()
    doc = soup(markdown("<javascript:alert(1)>"))
    assert all("javascript" not in (a.get("href") or "") for a in doc.find_all("a"))


def test_safe_links_survive():
    doc = soup(markdown("[docs](https://example.com/a?b=1) and [rel](../x.html) and [frag](#e-1) <https://example.org>"))
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
