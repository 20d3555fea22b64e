"""Markdown and code to safe HTML.

Session text is untrusted: mistune runs with escaping on (raw HTML is shown as
text), link and image URLs pass an allow-list of schemes, and code goes through
pygments with CSS classes. Tool output never comes here: it is plain text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import groupby
from operator import itemgetter
from urllib.parse import unquote

import mistune
from markupsafe import Markup, escape
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Token, Whitespace, _TokenType
from pygments.util import ClassNotFound

from sessite import speedups
from sessite.speedups import fastlex, quickmd

# Beyond this, highlighting costs more than it helps: plain escaped <pre>.
HIGHLIGHT_LIMIT = 64 * 1024
# Markdown beyond this is shown as plain text (a pasted log is not prose).
MARKDOWN_LIMIT = 256 * 1024

_SAFE_SCHEMES = ("http:", "https:", "mailto:")
# An absolute path on the machine that wrote the text (``/Users/…``, ``~/…``, ``C:\\…``), never a page of the site.
_LOCAL_PATH = re.compile(r"\s*(?:/(?!/)|~/|[A-Za-z]:(?:[\\/]|%5[Cc]))")
# The highlighting themes of pygments.css: light, and dark under prefers-color-scheme.
LIGHT_STYLE, DARK_STYLE = "default", "monokai"


def safe_url(url: str) -> str | None:
    """The URL if it is safe to link to from a published page, else None.

    Allows http(s), mailto, and relative/fragment links; everything else
    (javascript:, data:, vbscript:, file:, obfuscated variants) is refused.
    """
    cleaned = re.sub(r"[\x00-\x20\x7f]+", "", url or "").lower()
    if not cleaned:
        return None
    if cleaned.startswith(_SAFE_SCHEMES):
        return url.strip()
    scheme = re.match(r"^([a-z][a-z0-9+.\-]*):", cleaned)
    if scheme:
        return None
    if cleaned.startswith("//"):
        return url.strip()
    if "&#" in cleaned or "&colon" in cleaned:
        return None
    return url.strip()


@lru_cache(maxsize=256)
def _lexer_by_name(name: str) -> Lexer | None:
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=512)
def _lexer_by_ext(ext: str) -> Lexer | None:
    try:
        return get_lexer_for_filename(f"x{ext}", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def lexer_for(language: str | None = None, filename: str | None = None) -> Lexer | None:
    """Pick a lexer from a fence language or a file name; never guess from content."""
    if language:
        lexer = _lexer_by_name(language.strip().split()[0].lower())
        if lexer is not None:
            return lexer
    if filename and "." in filename.rsplit("/", 1)[-1]:
        return _lexer_by_ext("." + filename.rsplit(".", 1)[-1].lower())
    return None


def _looks_plain(token: _TokenType) -> bool:
    """True when both themes draw this standard token type exactly like plain text, as
    they do Name, Punctuation and Text: a span for it would change nothing on screen.
    Whitespace is plain too: its colour only shows with visible-whitespace options."""
    if token in Whitespace:
        return True
    styles = (get_style_by_name(LIGHT_STYLE), get_style_by_name(DARK_STYLE))
    return all(style.style_for_token(token) == style.style_for_token(Token) for style in styles)


class _CssClasses(dict[_TokenType, str]):
    """pygments' short CSS class of each token type (its nearest standard ancestor's), or ""
    when the themes do not colour it (most tokens of code are names and punctuation,
    so leaving their spans out is a good part of a session page's size). A dict that
    fills itself: one lookup per token, not a function call."""

    def __missing__(self, token: _TokenType) -> str:
        standard = token
        while standard not in STANDARD_TYPES and standard.parent is not None:  # the root, Token, is standard
            standard = standard.parent
        found = self[token] = "" if _looks_plain(standard) else STANDARD_TYPES[standard]
        return found


_CSS_CLASS = _CssClasses()


def escape_text(value: str) -> str:
    """Escaped for an element's content (quotes need no escaping there; never use in an attribute)."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def element_text(value: object) -> Markup:
    """Untrusted text as the content of an element such as <pre>: like autoescaping, but
    quotes stay quotes (JSON and code are full of them). Markup passes through as it is."""
    if hasattr(value, "__html__"):
        return Markup(value)
    return Markup(escape_text(str(value)))


def _spans(pieces: Iterable[tuple[str, str]]) -> Iterator[str]:
    """Escaped text from (class, text) pieces, where neighbours of one class share a
    span and the class "" gets none."""
    for cls, run in groupby(pieces, key=itemgetter(0)):
        text = escape_text("".join([piece[1] for piece in run]))
        yield f'<span class="{cls}">{text}</span>' if cls else text


def _highlighted(code: str, lexer: Lexer) -> str:
    """What pygments' HtmlFormatter gives, leaner: runs of one class share a span, and
    tokens the themes do not colour get none. A page of code is mostly spans, so this
    is a good part of a session page's size."""
    classes = _CSS_CLASS
    out: list[str] = []
    run_class = ""
    run: list[str] = []  # the text of the tokens of one class so far (``_spans``, inlined: one call per block)
    tokens = fastlex.tokens(lexer, code) if speedups.ENABLED else lexer.get_tokens_unprocessed(code)
    for _, token, value in tokens:
        cls = classes[token]
        if cls != run_class:
            if run:
                out.append(_span(run_class, run))
                run = []
            run_class = cls
        run.append(value)
    if run:
        out.append(_span(run_class, run))
    return f'<div class="hl"><pre>{"".join(out)}</pre></div>\n'


def _span(cls: str, texts: list[str]) -> str:
    """One run of a class: its text escaped, in a span unless the class is "" (as ``_spans``)."""
    text = escape_text("".join(texts))
    return f'<span class="{cls}">{text}</span>' if cls else text


def highlight_code(code: str, language: str | None = None, filename: str | None = None) -> Markup:
    """Code as highlighted HTML; plain escaped <pre> when too big or unknown."""
    lexer = lexer_for(language, filename) if len(code) <= HIGHLIGHT_LIMIT else None
    if lexer is None:
        return Markup(f'<pre class="code">{escape_text(code)}</pre>')
    return Markup(_highlighted(code, lexer))


_DIFF_CLASSES = {"+": "gi", "-": "gd", "@": "gu"}


def _diff_class(line: str) -> str:
    if line.startswith(("---", "+++", "diff ", "index ", "*** ")):
        return "gh"
    return _DIFF_CLASSES.get(line[:1], "")


def render_diff(diff: str) -> Markup:
    """A unified diff, each line classed by its kind (pygments' class names, so the same
    stylesheet colours it); far cheaper than lexing it. Consecutive lines of one kind
    share a span: the classes only colour text, and a new file is all added lines."""
    body = "".join(_spans((_diff_class(line), line) for line in diff.splitlines(keepends=True)))
    return Markup(f'<div class="hl diff"><pre>{body}</pre></div>')


class _SafeRenderer(mistune.HTMLRenderer):
    """mistune's HTML renderer with escaping, an URL allow-list and pygments."""

    def __init__(self) -> None:
        super().__init__(escape=True)

    def safe_url(self, url: str) -> str:
        allowed = safe_url(url)
        return escape(allowed) if allowed is not None else "#unsafe-link-removed"

    def link(self, text: str, url: str, title: str | None = None) -> str:
        if _LOCAL_PATH.match(url):  # a file on the agent's machine: a link to it would be broken here
            return f'<span class="path" title="{escape(unquote(url))}">{text}</span>'
        allowed = safe_url(url)
        if allowed is None:
            return f'<span class="unsafe-link" title="link removed: unsafe scheme">{text}</span>'
        attrs = f' title="{escape(title)}"' if title else ""
        return f'<a href="{escape(allowed)}"{attrs} rel="nofollow noopener">{text}</a>'

    def image(self, text: str, url: str, title: str | None = None) -> str:
        # Remote images would be fetched by every reader of the page; show a link instead.
        label = escape(text or url)
        if _LOCAL_PATH.match(url):
            return f'<span class="path" title="{escape(unquote(url))}">[image: {label}]</span>'
        allowed = safe_url(url)
        if allowed is None:
            return f'<span class="unsafe-link">[image: {label}]</span>'
        return f'<a class="image-link" href="{escape(allowed)}" rel="nofollow noopener">[image: {label}]</a>'

    def block_code(self, code: str, info: str | None = None) -> str:
        return _block_code(code, info)

    def heading(self, text: str, level: int, **attrs: object) -> str:
        # A message's "# Title" sits below the page's own h1 (the session's title): one level down.
        tag = f"h{min(level + 1, 6)}"
        return f"<{tag}>{text}</{tag}>\n"

    def block_html(self, html: str) -> str:
        return f"<p>{escape(html)}</p>\n"

    def inline_html(self, html: str) -> str:
        return str(escape(html))


_markdown = mistune.create_markdown(
    renderer=_SafeRenderer(),
    escape=True,
    plugins=["strikethrough", "table", "url", "task_lists"],
)


def markdown(text: str) -> Markup:
    """Untrusted markdown as safe HTML."""
    if not text:
        return Markup("")
    if len(text) > MARKDOWN_LIMIT:
        return Markup('<pre class="plain">') + escape(text) + Markup("</pre>")
    if _PLAIN_PROSE.fullmatch(text) and not _NOT_PLAIN.search(text):
        return Markup(_paragraphs(text))
    quick = quickmd.render(text, _block_code) if speedups.ENABLED else None
    return Markup(_markdown(text) if quick is None else quick)


_hard_markdown = mistune.create_markdown(
    renderer=_SafeRenderer(),
    escape=True,
    hard_wrap=True,
    plugins=["strikethrough", "table", "url", "task_lists"],
)


def prose(text: str) -> Markup:
    """A person's or a hook's text as it was written: markdown, but every line break kept
    (mistune's hard wrap), and runs of lines that are clearly preformatted (aligned columns,
    an ASCII layout, compiler output) shown as a <pre>. Text without a line break inside a
    paragraph is drawn exactly as ``markdown`` draws it."""
    if not text or len(text) > MARKDOWN_LIMIT or "\n" not in _BLANK_LINES.sub("", text.strip("\n")):
        return markdown(text)
    return Markup(_hard_markdown(_fence_preformatted(text)))


def _block_code(code: str, info: str | None) -> str:
    """A fenced block's HTML, for mistune's renderer and sessite/speedups/quickmd.py alike."""
    return str(highlight_code(code, info))


# Prose in which markdown finds nothing to do: words, digits and sentence punctuation, no
# space at a line's ends (indented code, a hard break), no line that starts a numbered
# list. Most of a session's messages are such prose; they skip mistune, with the same
# bytes out (tests/render/test_markup.py compares the two on every message of the test data).
_PLAIN_PROSE = re.compile(r"[A-Za-z0-9,.;:?!'\"() \n]*")
_NOT_PLAIN = re.compile(r"^ | $|  |^[0-9]+[.)]", re.MULTILINE)
_BLANK_LINES = re.compile(r"\n{2,}")


def _paragraphs(text: str) -> str:
    """What mistune makes of plain prose: one <p> per run of non-empty lines."""
    blocks = _BLANK_LINES.split(text.strip("\n"))
    return "".join(f"<p>{escaped}</p>\n" for escaped in (b.replace('"', "&quot;") for b in blocks) if escaped)


def pygments_css() -> str:
    """Light and dark highlighting styles, switched by the page's colour scheme."""
    light = HtmlFormatter(style=LIGHT_STYLE).get_style_defs(".hl")
    dark = HtmlFormatter(style=DARK_STYLE).get_style_defs(".hl")
    dark_scoped = "\n".join("  " + line for line in dark.splitlines())
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark_scoped}\n}}\n"


# Lines that read as preformatted: two runs of them or more are fenced (see ``prose``).
_ALIGNED = re.compile(r"\S(?: {2,}|\t)\S")  # columns apart by several spaces or a tab
_INDENTED = re.compile(r"(?: {2,}|\t)(?![-+*] |[0-9]+[.)] )\S")  # not a nested list item
_BOX = re.compile(r"[\u2500-\u257f]|^\s*[+|].*[-=+|]\s*$|^\s*[-=+]{3,}\s*$")  # box drawing, +--+ rules
_DIAGNOSTIC = re.compile(
    r"^\s*(?:[\w./\\-]+:\d+(?::\d+)?:?\s|(?:error|warning|note|help)(?:\[\w+\])?:|-->\s|\d+\s+\|"
    r"|Traceback \(|File \"[^\"]+\", line \d+|[A-Z]\w*(?:Error|Exception):)"
)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$")  # a markdown table is markdown
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")


_LIST_ITEM = re.compile(r"^\s*(?:[-+*]|[0-9]+[.)]) ")


def _looks_preformatted(line: str, in_list: bool) -> bool:
    """In a list, an indented line continues an item: only the other signs count there."""
    if _LIST_ITEM.match(line):
        return False
    return bool(
        _ALIGNED.search(line) or (not in_list and _INDENTED.match(line)) or _BOX.search(line) or _DIAGNOSTIC.match(line)
    )


def _fence_preformatted(text: str) -> str:
    """``text`` with each run of two or more preformatted lines (outside fences, outside a
    paragraph holding a markdown table) put in a fence of its own."""
    lines = text.split("\n")
    out: list[str] = []
    fence = ""  # the open fence's marker, while inside one
    run: list[str] = []
    block_start, has_table, in_list = True, False, False

    def flush() -> None:
        if len(run) >= 2:
            ticks = "`" * max(3, 1 + max((len(m) for line in run for m in re.findall(r"`+", line)), default=0))
            out.extend([ticks, *run, ticks])
        else:
            out.extend(run)
        run.clear()

    for i, line in enumerate(lines):
        opened = _FENCE_OPEN.match(line)
        if fence:
            out.append(line)
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            flush()
            fence = opened.group(1)
            out.append(line)
            block_start = True
            continue
        if not line.strip():
            flush()
            out.append(line)
            block_start = True
            continue
        if block_start:  # a paragraph's first line: does it hold a markdown table?
            block_start = False
            has_table = in_list = False
            for later in lines[i:]:
                if not later.strip() or _FENCE_OPEN.match(later):
                    break
                if _TABLE_RULE.match(later):
                    has_table = True
                    break
        in_list = in_list or bool(_LIST_ITEM.match(line))
        if not has_table and _looks_preformatted(line, in_list):
            run.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return "\n".join(out)
