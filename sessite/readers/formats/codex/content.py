"""Message text: content lists, and the context Codex injects into the user channel.

``<environment_context>``, AGENTS.md instructions, ``<recommended_plugins>``
and similar arrive as role=user messages (several of them as items of one
message, next to the user's own words); each item is recognised here so it
becomes a SYSTEM event and never the session title.
"""

from __future__ import annotations

import re
from typing import Any

from sessite.model import Block, Kind, user_words
from sessite.readers._util import text_of
from sessite.readers.base import as_text
from sessite.readers.labels import humanize

_TEXT_ITEMS = ("input_text", "output_text", "text", "summary_text", "reasoning_text")
_IMAGE_ITEMS = ("input_image", "image")
# Codex brackets pasted images with "<image name=[Image #1]>" … "</image>" text items.
_IMAGE_BRACKET = re.compile(r"\s*(?:<image\b[^>]*>|</image>)\s*")
# Tags Codex wraps around text it injects into the user channel.
_INJECTED_TAGS = {
    "environment_context": "Environment context",
    "user_instructions": "User instructions (AGENTS.md)",
    "user_shell_command": "Shell command (run by the user)",
    "turn_aborted": "Turn aborted",
    "subagent_notification": "Sub-agent notification",
    "skill": "Skill instructions",
    "permissions instructions": "Permissions instructions",
    "collaboration_mode": "Collaboration mode",
    "recommended_plugins": "Recommended plugins",
    "plugins_instructions": "Plugins instructions",
    "skills_instructions": "Skills instructions",
    "apps_instructions": "Apps instructions",
    "multi_agent_mode": "Multi-agent mode",
    "app-context": "App context",
}
# Every tag whose block titles leave out (``Reader.injected_tags``): the ones above, and two
# Codex writes inside other text.
INJECTED_TAGS = frozenset(_INJECTED_TAGS) | {"system_notification", "INSTRUCTIONS"}
_WHOLE_TAG = re.compile(r"^<([a-z][a-z_ -]{2,40})>[\s\S]*</\1>$")
_AGENTS_HEADING = "# AGENTS.md instructions"
_USER_REQUEST = "## My request for Codex:"


def content_text(content: Any) -> tuple[str, list[Block]]:
    """Text and image blocks of a response_item message's content list."""
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        return as_text(content), []
    texts: list[str] = []
    blocks: list[Block] = []
    for item in content:
        if isinstance(item, str):
            texts.append(item)
            continue
        if not isinstance(item, dict):
            texts.append(as_text(item))
            continue
        itype = item.get("type")
        if itype in _TEXT_ITEMS:
            value = as_text(item.get("text"))
            if not _IMAGE_BRACKET.fullmatch(value):
                texts.append(value)
        elif itype in _IMAGE_ITEMS:
            blocks.append(_image_block(item))
        elif itype == "refusal":
            texts.append(as_text(item.get("refusal")))
        else:
            blocks.append(Block("json", title=str(itype or "content"), data=item))
    return "\n\n".join(t for t in texts if t), blocks


def user_parts(content: Any) -> list[tuple[str, list[Block]]]:
    """A role=user message's content as parts in order: each injected context item on its own,
    the user's own text and images (everything else) together."""
    if not isinstance(content, list):
        return [content_text(content)]
    parts: list[tuple[str, list[Block]]] = []
    mine: list[Any] = []
    for item in content:
        text = item.get("text") if isinstance(item, dict) and item.get("type") in _TEXT_ITEMS else None
        if isinstance(text, str) and classify_user_text(text)[0] == Kind.SYSTEM:
            if mine:
                parts.append(content_text(mine))
                mine = []
            parts.append((text, []))
        else:
            mine.append(item)
    if mine:
        parts.append(content_text(mine))
    return parts


def _image_block(item: dict[str, Any]) -> Block:
    url = text_of(item.get("image_url")) or text_of(item.get("url"))
    mime = url[5 : url.find(";")] if url and url.startswith("data:") and ";" in url else None
    return Block("image", uri=url, mime=mime)


def classify_user_text(text: str) -> tuple[Kind, str | None]:
    """(kind, title) of a role=user text: real prompts stay USER, injected context is SYSTEM."""
    head = text.lstrip()
    if head.startswith(_AGENTS_HEADING) or head.startswith("<INSTRUCTIONS>"):
        return Kind.SYSTEM, "AGENTS.md instructions"
    if head.startswith("<"):
        tag = head[1 : head.find(">")] if ">" in head[:60] else ""
        if tag in _INJECTED_TAGS:
            return Kind.SYSTEM, _INJECTED_TAGS[tag]
        match = _WHOLE_TAG.match(text.strip()) if len(text) < 1_000_000 else None
        if match:
            return Kind.SYSTEM, humanize(match.group(1))
    return Kind.USER, None


# A memory citation Codex appends to a final answer (the agent_message copy carries it as a field instead).
_CITATION = re.compile(r"\s*<oai-mem-citation>\s*([\s\S]*?)\s*</oai-mem-citation>\s*\Z")


def split_citation(text: str) -> tuple[str, str | None]:
    """An assistant text without its trailing ``<oai-mem-citation>`` block, and the block's content."""
    found = _CITATION.search(text) if "<oai-mem-citation>" in text else None
    return (text[: found.start()], found.group(1)) if found else (text, None)


# Codex's "implement the plan" button sends this template followed by the plan.
_PLAN_HANDOFF = "A previous agent produced the plan below to accomplish the user's task."
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)


def title_words(text: str) -> str:
    """What a user message's title is made of: the user's own words (no injected context, no IDE
    preamble); for the plan hand-off template, the plan's first heading."""
    words = user_words(request_text(text))
    if words.startswith(_PLAN_HANDOFF):
        heading = _HEADING.search(words)
        return f"Implement the plan: {heading.group(1).strip()}" if heading else "Implement the plan"
    return words


def request_text(text: str) -> str:
    """The user's own words in an IDE prompt (``# Context from my IDE setup: … ## My request for Codex:``)."""
    index = text.find(_USER_REQUEST)
    return text[index + len(_USER_REQUEST) :].strip() if index >= 0 else text


def fenced(text: str, language: str) -> str:
    """``text`` in a code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


_BACKTICKS = re.compile("`{3,}")


def agents_body(text: str) -> tuple[str, str | None]:
    """The markdown of an AGENTS.md message, without its heading line and <INSTRUCTIONS> wrapper,
    and the folder the heading names."""
    body = text.strip()
    target = None
    if body.startswith(_AGENTS_HEADING):
        first, _, body = body.partition("\n")
        target = first[len(_AGENTS_HEADING) :].strip().removeprefix("for").strip() or None
        body = body.strip()
    if body.startswith("<INSTRUCTIONS>") and body.endswith("</INSTRUCTIONS>"):
        body = body[len("<INSTRUCTIONS>") : -len("</INSTRUCTIONS>")].strip()
    return body, target


def env_cwd(text: str) -> str | None:
    """The ``<cwd>`` of an ``<environment_context>`` message."""
    start = text.find("<cwd>")
    end = text.find("</cwd>", start)
    return text[start + 5 : end].strip() or None if start >= 0 and end > start else None
