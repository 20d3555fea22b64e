"""What Cursor puts in a user turn: the user's words and the context it adds around them.

A turn is a run of blocks: ``<user_query>`` holds what the user typed; the others
(``<user_info>``, ``<git_status>``, ``<rules>``, ``<external_links>``,
``<attached_files>``, ``<system_reminder>`` …) are context Cursor gave the model. The
user's words become the USER event; each context block a titled system note, so the page
shows everything the model got, and the user's own words stand apart. Text outside any
block is the user's too (older turns have no ``<user_query>``: then only the blocks
Cursor is known to add are context, and a user's own ``<div>`` stays theirs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from sessite.readers.base import parse_time
from sessite.readers.formats.cursor_agent.vocabulary import CONTEXT_TITLES, QUERY_TAG
from sessite.readers.labels import humanize

# A block opens at the start of a line with <tag> (or <tag attr=…>) and closes with </tag>.
_OPEN = re.compile(r"^<([A-Za-z][\w-]{0,60})(?:\s[^<>\n]{0,300})?>[ \t]*\n?", re.M)
_BRANCH = re.compile(r"^## (?:No commits yet on |Initial commit on )?(\S+?)(?:\.\.\.\S+)?(?: \[[^\]\n]*\])?$", re.M)
_WORKSPACE = re.compile(r"^Workspace Path: (.+)$", re.M)


@dataclass
class Turn:
    """A user turn split: the user's words, the context blocks (tag, text), a stamp if one was given."""

    words: str = ""
    context: list[tuple[str, str]] = field(default_factory=list)
    timestamp: datetime | None = None


def split_turn(text: str) -> Turn:
    turn = Turn()
    words: list[str] = []
    pos = 0
    queried = f"<{QUERY_TAG}>" in text  # then every other block is context; else only the known ones
    while (match := _OPEN.search(text, pos)) is not None:
        tag = match.group(1)
        if not queried and tag not in CONTEXT_TITLES and tag != "timestamp":
            words.append(text[pos : match.end()])
            pos = match.end()
            continue
        words.append(text[pos : match.start()])
        close = text.find(f"</{tag}>", match.end())
        end = len(text) if close < 0 else close
        inner = text[match.end() : end].strip("\n")
        pos = len(text) if close < 0 else close + len(tag) + 3
        if tag == QUERY_TAG:
            words.append(inner)
        elif tag == "timestamp" and parse_time(inner.strip()) is not None:
            turn.timestamp = parse_time(inner.strip())
        else:
            turn.context.append((tag, inner))
    words.append(text[pos:])
    turn.words = "\n\n".join(w.strip() for w in words if w.strip())
    return turn


def context_title(tag: str) -> str:
    return CONTEXT_TITLES.get(tag) or humanize(tag)


def branch_of(git_status: str) -> str | None:
    """The branch a ``<git_status>`` block names (``## main...origin/main``)."""
    match = _BRANCH.search(git_status)
    return match.group(1) if match is not None and match.group(1) != "HEAD" else None


def workspace_of(user_info: str) -> str | None:
    """The workspace path a ``<user_info>`` block names."""
    match = _WORKSPACE.search(user_info)
    return match.group(1).strip() or None if match else None
