"""Gemini's answer as Takeout gives it (``safeHtmlItem[].html``) turned back into Markdown.

The page renders Markdown safely (escaped, links to an allow-list); the export's HTML is
never put on a page as HTML. Paragraphs, headings, lists, emphasis, code, tables, rules,
quotations and links become their Markdown; images become image blocks (their files sit
beside the export); the text itself is escaped so that it reads as written.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from sessite.model import Block

_BLOCKS = frozenset({"p", "div", "section", "article", "h1", "h2", "h3", "h4", "h5", "h6", "table", "figure"})
_SPECIAL = re.compile(r"([\\`*_\[\]<>|])")
_SPACE = re.compile(r"\s+")


def html_markdown(html: str) -> tuple[str, list[Block]]:
    """The Markdown of an answer, and its images."""
    parser = _Markdown()
    parser.feed(html)
    parser.close()
    text = re.sub(r"\n{3,}", "\n\n", "".join(parser.out)).strip()
    return text, parser.images


class _Markdown(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.images: list[Block] = []
        self.lists: list[list[int]] = []  # per open list: [number of the next item, or -1 for bullets]
        self.pre = 0
        self.code_language = ""
        self.links: list[str | None] = []
        self.row: list[str] | None = None  # the cells of the table row being read
        self.cell: list[str] | None = None
        self.rows = 0
        self.quote = 0
        self.code = 0  # inside inline code: text as it is (Markdown escapes would show there)

    # ---- where text goes

    def _put(self, text: str) -> None:
        if self.cell is not None:
            self.cell.append(text)
        else:
            self.out.append(text)

    def _break(self) -> None:
        """End the current block: a blank line (inside a list item, a line at its indent)."""
        if self.cell is not None:
            self.cell.append(" ")
        elif self.lists:
            self.out.append("\n" + "   " * len(self.lists))
        elif self.quote:
            self.out.append("\n>\n> ")
        else:
            self.out.append("\n\n")

    # ---- tags

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "blockquote":
            self.out.append("\n\n> " if not self.quote else "\n>\n> ")
            self.quote += 1
        elif tag in _BLOCKS:
            self._break()
            if tag[0] == "h" and tag[1:].isdigit():
                self._put("#" * int(tag[1:]) + " ")
        elif tag in ("ul", "ol"):
            self._break()
            self.lists.append([1 if tag == "ol" else -1])
        elif tag == "li":
            depth = max(len(self.lists) - 1, 0)
            current = self.lists[-1] if self.lists else [-1]
            mark = f"{current[0]}. " if current[0] > 0 else "- "
            if current[0] > 0:
                current[0] += 1
            self.out.append("\n" + "   " * depth + mark)
        elif tag in ("strong", "b"):
            self._put("**")
        elif tag in ("em", "i"):
            self._put("*")
        elif tag == "code" and not self.pre:
            self._put("`")
            self.code += 1
        elif tag == "code":
            language = found.get("class") or ""
            self.code_language = language.removeprefix("language-") if language.startswith("language-") else ""
        elif tag == "pre":
            self._break()
            self.pre += 1
            self.out.append("\x00fence\x00")
        elif tag == "br":
            self._put("  \n" if self.cell is None and not self.pre else ("\n" if self.pre else " "))
        elif tag == "hr":
            self._break()
            self.out.append("---")
            self._break()
        elif tag == "a":
            href = found.get("href")
            self.links.append(href if href and href.startswith(("http://", "https://")) else None)
            if self.links[-1]:
                self._put("[")
        elif tag == "img":
            self.images.append(Block("image", uri=found.get("src") or None, title=found.get("alt") or "image"))
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "blockquote":
            self.quote = max(self.quote - 1, 0)
            self._break()
        elif tag in _BLOCKS:
            self._break()
        elif tag in ("ul", "ol"):
            if self.lists:
                self.lists.pop()
            self._break()
        elif tag in ("strong", "b"):
            self._put("**")
        elif tag in ("em", "i"):
            self._put("*")
        elif tag == "code" and not self.pre:
            self._put("`")
            self.code = max(self.code - 1, 0)
        elif tag == "pre":
            self._close_fence()
        elif tag == "a":
            href = self.links.pop() if self.links else None
            if href:
                self._put(f"]({href.replace(')', '%29').replace(' ', '%20')})")
        elif tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.out.append("\n| " + " | ".join(self.row) + " |")
            if self.rows == 0:
                self.out.append("\n|" + "---|" * len(self.row))
            self.rows += 1
            self.row = None
        if tag == "table":
            self.rows = 0

    def _close_fence(self) -> None:
        """The code block: fenced with more backticks than it holds, its language kept."""
        self.pre = max(self.pre - 1, 0)
        start = len(self.out) - 1 - self.out[::-1].index("\x00fence\x00") if "\x00fence\x00" in self.out else None
        if start is None:
            return
        code = "".join(self.out[start + 1 :]).strip("\n")
        longest = max((len(run) for run in re.findall(r"`{3,}", code)), default=2)
        fence = "`" * (longest + 1)
        self.out[start:] = [f"{fence}{self.code_language}\n{code}\n{fence}"]
        self.code_language = ""
        self._break()

    def handle_data(self, data: str) -> None:
        if self.pre:
            self.out.append(data)
            return
        text = _SPACE.sub(" ", data)
        if not text.strip() and (not self.out or self.out[-1].endswith(("\n", " ", "> "))):
            return
        self._put(text if self.code else _SPECIAL.sub(r"\\\1", text))
