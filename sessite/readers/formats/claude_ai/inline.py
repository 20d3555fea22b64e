"""2024-style message text: ``<antThinking>`` and ``<antArtifact>`` inline in the prose.

Thinking becomes a thinking event and an artifact a code block, with the prose
around them kept in order.
"""

from __future__ import annotations

import re
from datetime import datetime

from sessite.model import Block, Event, Kind
from sessite.readers.formats.claude_ai.builder import MessageBuilder

# <antThinking>…</antThinking>, <antArtifact …/>, <antArtifact …>…</antArtifact>
# (an unclosed tag runs to the end of the text: a cut-off response).
_INLINE = re.compile(
    r"<antThinking>(?P<think>.*?)(?:</antThinking>|\Z)"
    r"|<antArtifact\b(?P<sattrs>[^>]*?)/>"
    r"|<antArtifact\b(?P<attrs>[^>]*)>(?P<art>.*?)(?:</antArtifact>|\Z)",
    re.S,
)
_ATTR = re.compile(r"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")

# Artifact MIME types whose language is not their subtype.
_TYPE_LANG = {
    "text/html": "html",
    "image/svg+xml": "xml",
    "application/vnd.ant.react": "jsx",
    "application/vnd.ant.mermaid": "mermaid",
    "text/markdown": "markdown",
    "application/javascript": "javascript",
    "text/javascript": "javascript",
    "application/json": "json",
    "application/xml": "xml",
}


def inline_text(builder: MessageBuilder, text: str, ts: datetime | None) -> None:
    """Split 2024-style text into prose, thinking events and artifact blocks, in order."""
    pos = 0
    thinking = 0
    for match in _INLINE.finditer(text):
        builder.add_text(text[pos : match.start()], ts)
        pos = match.end()
        if match.group("think") is not None:
            thinking += 1
            body = match.group("think").strip()
            if body:
                builder.add_event(
                    Event(
                        id=f"{builder.mid}-think{thinking}",
                        kind=Kind.THINKING,
                        timestamp=ts,
                        text=body,
                        model=builder.model,
                    )
                )
        else:
            attrs = _attrs(match.group("sattrs") if match.group("sattrs") is not None else match.group("attrs"))
            builder.add_block(_artifact_block(attrs, (match.group("art") or "").strip("\n")))
    builder.add_text(text[pos:], ts)


def _attrs(text: str | None) -> dict[str, str]:
    return {m.group(1): m.group(2) if m.group(2) is not None else m.group(3) for m in _ATTR.finditer(text or "")}


def _artifact_block(attrs: dict[str, str], content: str) -> Block:
    mime = attrs.get("type") or None
    extra = {k: v for k, v in attrs.items() if k not in ("type", "title", "language")}
    return Block(
        "code",
        text=content,
        language=attrs.get("language") or lang_from_type(mime),
        mime=mime,
        title=attrs.get("title") or attrs.get("identifier"),
        data=extra or None,
    )


def lang_from_type(mime: str | None) -> str | None:
    """The highlighting language of an artifact's MIME type (None when the type does not say)."""
    if not mime:
        return None
    mime = mime.lower()
    if mime in _TYPE_LANG:
        return _TYPE_LANG[mime]
    if mime.startswith("application/vnd.ant."):
        return None  # e.g. vnd.ant.code: the language attribute says which
    if "/" in mime:
        sub = mime.split("/", 1)[1]
        return sub[2:] if sub.startswith("x-") else sub
    return None
