"""A file's code highlighted line by line (a blame page gives each line its own row and anchor).

The whole file is lexed once (a token may span lines: a docstring, a block comment) and the
tokens are cut at each line break, so every line's HTML is complete on its own.
"""

from __future__ import annotations

from sessite.render.markup import _CSS_CLASS, HIGHLIGHT_LIMIT, escape_text, lexer_for


def highlight_lines(code: str, filename: str) -> list[str]:
    """One HTML string per line of ``code`` (escaped; spans by pygments class where a lexer fits)."""
    lines = code.split("\n")
    if code.endswith("\n"):
        lines.pop()
    lexer = lexer_for(None, filename) if len(code) <= HIGHLIGHT_LIMIT else None
    if lexer is None:
        return [escape_text(line) for line in lines]
    out: list[str] = []
    current: list[str] = []
    for _, token, value in lexer.get_tokens_unprocessed(code):
        cls = _CSS_CLASS[token]
        pieces = value.split("\n")
        for i, piece in enumerate(pieces):
            if i:
                out.append("".join(current))
                current = []
            if piece:
                text = escape_text(piece)
                current.append(f'<span class="{cls}">{text}</span>' if cls else text)
    if current:
        out.append("".join(current))
    out.extend("" for _ in range(len(lines) - len(out)))
    return out[: len(lines)]
