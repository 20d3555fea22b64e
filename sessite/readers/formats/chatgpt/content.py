"""A message's ``content``: its text, its attachments as blocks, and whether it reports an error.

ChatGPT types every content (``content_type``): prose in ``parts`` (``text``, and
``multimodal_text`` whose parts may also be images or audio), code sent to a tool
(``code``), what a tool gave back (``execution_output``, ``tether_browsing_display``,
``tether_quote``, ``sonic_webpage``, ``system_error``), reasoning (``thoughts``,
``reasoning_recap``) and the user's settings sent along (``user_editable_context``,
``model_editable_context``). Each is read here into one shape; a type this reader
does not know keeps whatever text it has, and says it is unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sessite.model import Block
from sessite.readers._util import obj, text_of
from sessite.readers.base import as_text
from sessite.readers.labels import humanize


@dataclass
class Shown:
    """What a message's content shows."""

    text: str = ""  # markdown for prose and reasoning; plain text for tool output
    blocks: list[Block] = field(default_factory=list)
    error: bool = False
    code: str | None = None  # the bare code of a ``code`` content (a call's input)
    language: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    known: bool = True  # False for a content type this reader does not know

    @property
    def empty(self) -> bool:
        return not self.text.strip() and not self.blocks


def read_content(content: Any) -> Shown:
    """The content of one message, whatever its type."""
    if content is None:
        return Shown()
    if not isinstance(content, dict):
        return Shown(text=as_text(content), known=False)
    handler = _HANDLERS.get(text_of(content.get("content_type")) or "")
    return handler(content) if handler is not None else _unknown(content)


def fenced(code: str, language: str | None = None) -> str:
    """``code`` as a markdown code block whose fence no line of it can close."""
    longest = max((len(run) for run in re.findall(r"`{3,}", code)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{language or ''}\n{code.rstrip()}\n{fence}"


def _parts(content: dict[str, Any]) -> Shown:
    """``text`` and ``multimodal_text``: strings are prose, objects are images, audio or files."""
    shown = Shown()
    texts: list[str] = []
    parts = content.get("parts")
    for part in parts if isinstance(parts, list) else ([parts] if parts is not None else []):
        if isinstance(part, str):
            if part.strip():
                texts.append(part)
        elif isinstance(part, dict):
            said = _part(part, shown)
            if said:
                texts.append(said)
        else:
            texts.append(as_text(part))
    shown.text = "\n\n".join(texts)
    return shown


def _part(part: dict[str, Any], shown: Shown) -> str:
    """One object part: a block for media (its text returned when it has some, e.g. a transcript)."""
    kind = text_of(part.get("content_type")) or "part"
    pointer = text_of(part.get("asset_pointer"))
    if kind == "image_asset_pointer":
        dalle = obj(obj(part.get("metadata")).get("dalle"))
        title = text_of(dalle.get("prompt")) or "image"
        size = [part.get("width"), part.get("height")]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in size):
            title = f"{title} ({size[0]}×{size[1]})"
        shown.blocks.append(Block("image", uri=pointer, title=title))
        return ""
    if kind == "audio_transcription":
        return text_of(part.get("text")) or ""
    if kind in ("audio_asset_pointer", "real_time_user_audio_video_asset_pointer"):
        audio = obj(part.get("audio_asset_pointer")) or part
        title = humanize(kind, capital=False)
        shown.blocks.append(Block("audio", uri=text_of(audio.get("asset_pointer")), title=title))
        video = part.get("video_container_asset_pointer") or part.get("frames_asset_pointers")
        if video:
            shown.blocks.append(Block("json", data=video, title="video frames"))
        return ""
    shown.blocks.append(Block("json", data=part, title=humanize(kind, capital=False)))
    return text_of(part.get("text")) or ""


def _code(content: dict[str, Any]) -> Shown:
    code = as_text(content.get("text")) if content.get("text") is not None else ""
    language = text_of(content.get("language"))
    language = None if language in (None, "unknown") else language
    return Shown(text=fenced(code, language) if code.strip() else "", code=code, language=language)


def _plain(key: str) -> Callable[[dict[str, Any]], Shown]:
    def read(content: dict[str, Any]) -> Shown:
        value = content.get(key)
        return Shown(text=as_text(value) if value is not None else "")

    return read


def _browsing(content: dict[str, Any]) -> Shown:
    """What the browser shows the model: its result (a list of pages) or a summary."""
    parts = [as_text(content.get(k)) for k in ("result", "summary") if text_of(content.get(k))]
    shown = Shown(text="\n\n".join(parts))
    assets = content.get("assets")
    if isinstance(assets, list) and assets:
        shown.blocks.append(Block("json", data=assets, title="assets"))
    return shown


def _page(content: dict[str, Any]) -> Shown:
    """A quoted or fetched web page (``tether_quote``, ``sonic_webpage``): its text and a link."""
    url = text_of(content.get("url"))
    title = text_of(content.get("title")) or text_of(content.get("domain"))
    text = text_of(content.get("text")) or text_of(content.get("snippet")) or ""
    shown = Shown(text=text)
    if url or title:
        shown.blocks.append(Block("reference", uri=url, title=title))
    return shown


def _error(content: dict[str, Any]) -> Shown:
    name = text_of(content.get("name"))
    text = as_text(content.get("text")) if content.get("text") is not None else ""
    return Shown(text=f"{name}: {text}" if name and text else name or text, error=True)


def _thoughts(content: dict[str, Any]) -> Shown:
    """Reasoning: each thought's summary (a heading) and its content."""
    out: list[str] = []
    thoughts = content.get("thoughts")
    for thought in thoughts if isinstance(thoughts, list) else ():
        if isinstance(thought, str):
            out.append(thought)
            continue
        thought = obj(thought)
        summary = thought.get("summary")
        if isinstance(summary, list):  # [{type: summary, text}] in some exports
            summary = " ".join(text_of(obj(s).get("text")) or "" for s in summary).strip()
        body = text_of(thought.get("content")) or ""
        head = f"**{summary.strip()}**" if isinstance(summary, str) and summary.strip() else ""
        out.append("\n\n".join(p for p in (head, body) if p))
    return Shown(text="\n\n".join(p for p in out if p.strip()))


def _labelled(labels: tuple[tuple[str, str], ...]) -> Callable[[dict[str, Any]], Shown]:
    """Settings sent with the conversation (custom instructions, memory): each set one under its label."""

    def read(content: dict[str, Any]) -> Shown:
        out = []
        for key, label in labels:
            value = content.get(key)
            if value not in (None, "", [], {}):
                out.append(f"**{label}**\n\n{as_text(value).strip()}")
        return Shown(text="\n\n".join(out))

    return read


def _computer(content: dict[str, Any]) -> Shown:
    """What the computer-use tool saw: its screenshot and state."""
    shown = Shown()
    screenshot = obj(content.get("screenshot"))
    if screenshot:
        _part(screenshot, shown)
    state = content.get("state")
    if state:
        shown.blocks.append(Block("json", data=state, title="state"))
    return shown


def _unknown(content: dict[str, Any]) -> Shown:
    """A type this reader does not know: its parts or text if it has any."""
    shown = _parts(content) if "parts" in content else Shown(text=text_of(content.get("text")) or "")
    shown.known = False
    return shown


_HANDLERS: dict[str, Callable[[dict[str, Any]], Shown]] = {
    "text": _parts,
    "multimodal_text": _parts,
    "code": _code,
    "execution_output": _plain("text"),
    "tether_browsing_display": _browsing,
    "tether_quote": _page,
    "sonic_webpage": _page,
    "system_error": _error,
    "thoughts": _thoughts,
    "reasoning_recap": _plain("content"),
    "user_editable_context": _labelled((("user_profile", "About the user"), ("user_instructions", "How to respond"))),
    "model_editable_context": _labelled(
        (("model_set_context", "Memory"), ("repository", "Repository"), ("repo_summary", "Repository summary"))
    ),
    "computer_output": _computer,
}
