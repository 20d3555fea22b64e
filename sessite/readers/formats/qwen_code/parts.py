"""Gemini-style content (``message.parts``) as the model's text, thoughts, calls, responses and blocks; token counts.

Qwen Code keeps the model-facing content as Gemini's ``Content``: a list of parts, each a
text (a thought when ``thought`` is true), a ``functionCall``, a ``functionResponse``, or
inline data. ``usageMetadata`` counts the prompt with its cached part, and output with
its reasoning part (the OpenAI-compatible APIs Qwen Code talks to count it so).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sessite.model import Block, Usage
from sessite.readers._util import text_of, to_int
from sessite.readers.base import as_text


@dataclass
class Parts:
    """One message's parts, sorted by what they are."""

    texts: list[str] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The text parts as one text (parts of one message are fragments of one text)."""
        return "".join(self.texts)


def split(content: Any) -> Parts:
    """A message (``{role, parts}``), a part list, a part or a string, sorted into ``Parts``."""
    out = Parts()
    if isinstance(content, dict) and "parts" in content:
        content = content.get("parts")
    if content is None:
        return out
    if isinstance(content, (str, dict)):
        content = [content]
    if not isinstance(content, list):
        out.texts.append(as_text(content))
        return out
    for part in content:
        _one(part, out)
    return out


def _one(part: Any, out: Parts) -> None:
    if isinstance(part, str):
        out.texts.append(part)
    elif not isinstance(part, dict):
        out.texts.append(as_text(part))
    elif isinstance(part.get("text"), str):
        (out.thoughts if part.get("thought") is True else out.texts).append(part["text"])
    elif isinstance(part.get("functionCall"), dict):
        out.calls.append(part["functionCall"])
    elif isinstance(part.get("functionResponse"), dict):
        out.responses.append(part["functionResponse"])
    elif isinstance(part.get("inlineData"), dict):
        out.blocks.append(_inline(part["inlineData"]))
    elif isinstance(part.get("fileData"), dict):
        data = part["fileData"]
        out.blocks.append(Block("reference", uri=text_of(data.get("fileUri")), mime=text_of(data.get("mimeType"))))
    elif part:
        out.blocks.append(Block("json", title=str(next(iter(part))), data=part))


def _inline(data: dict[str, Any]) -> Block:
    mime = text_of(data.get("mimeType")) or "application/octet-stream"
    body = data.get("data")
    name = text_of(data.get("displayName"))
    if mime.startswith("image/") and isinstance(body, str):
        return Block("image", uri=f"data:{mime};base64,{body}", mime=mime, title=name)
    kind = mime.split("/", 1)[0]
    return Block(kind if kind in ("video", "audio") else "file", mime=mime, title=name or mime)


def usage_of(meta: Any) -> Usage | None:
    """``usageMetadata``: the prompt includes its cached part; the output includes the reasoning."""
    if not isinstance(meta, dict):
        return None
    prompt = to_int(meta.get("promptTokenCount"))
    cached = to_int(meta.get("cachedContentTokenCount"))
    usage = Usage(
        input_tokens=max(prompt - cached, 0),
        output_tokens=to_int(meta.get("candidatesTokenCount")),
        cache_read_tokens=cached,
        reasoning_tokens=to_int(meta.get("thoughtsTokenCount")),
    )
    return usage or None


def telemetry_usage(event: dict[str, Any]) -> Usage | None:
    """An ``api_response`` telemetry event's counts, read like ``usageMetadata``."""
    return usage_of(
        {
            "promptTokenCount": event.get("input_token_count"),
            "candidatesTokenCount": event.get("output_token_count"),
            "cachedContentTokenCount": event.get("cached_content_token_count"),
            "thoughtsTokenCount": event.get("thoughts_token_count"),
        }
    )


def ordered(content: Any) -> list[tuple[str, Any]]:
    """The parts in order as (kind, value): ``thought`` and ``text`` (runs of one kind joined),
    ``call`` and ``response`` (the part's object) and ``block``."""
    if isinstance(content, dict) and "parts" in content:
        content = content.get("parts")
    if isinstance(content, (str, dict)):
        content = [content]
    out: list[tuple[str, Any]] = []
    for part in content if isinstance(content, list) else ():
        one = Parts()
        _one(part, one)
        for kind, values in (("thought", one.thoughts), ("text", one.texts)):
            for value in values:
                if out and out[-1][0] == kind:
                    out[-1] = (kind, out[-1][1] + value)
                else:
                    out.append((kind, value))
        out += [("call", c) for c in one.calls] + [("response", r) for r in one.responses]
        out += [("block", b) for b in one.blocks]
    return out
