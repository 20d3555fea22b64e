"""The one normalized model every reader fills and every page reads.

Readers translate their format into these frozen dataclasses and nothing else;
the renderer only ever sees these types, never a format's own records.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any


class Kind(StrEnum):
    """What an event is, independent of the format it came from."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    THINKING = "thinking"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    COMPACTION = "compaction"
    SUBAGENT = "subagent"
    TASK_START = "task_start"
    TASK_END = "task_end"
    UNKNOWN = "unknown"


class ToolCategory(StrEnum):
    """A hint for how to present a tool call; readers map their tool names onto it."""

    SHELL = "shell"
    EDIT = "edit"  # file edit, create, delete; carries a path and ideally a diff
    READ = "read"
    SEARCH = "search"
    WEB = "web"
    TASK = "task"  # spawns a sub-agent
    MEDIA = "media"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage, counted once per model response (readers de-duplicate)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens

    def __bool__(self) -> bool:
        return self.total > 0 or self.reasoning_tokens > 0


@dataclass(frozen=True, slots=True)
class Block:
    """A piece of non-markdown content inside an event.

    type is one of: code, image, video, audio, file, json, reference, text.
    (HAIL's eight block types; ``text`` here means plain text, not markdown.)
    """

    type: str
    text: str = ""  # code, file content, plain text
    language: str | None = None  # code
    uri: str | None = None  # image/video/audio url, reference uri, file path
    mime: str | None = None
    title: str | None = None  # alt text, file name
    data: Any = None  # json payload


# The one empty ``meta`` every event without facts of its own shares: millions of tiny
# events would otherwise hold an empty dict each (64 bytes apiece). Events are frozen and
# nothing changes a ``meta`` in place (a reader builds a new dict), so one plain dict is
# safe to share; a plain dict (not a read-only subclass) keeps redaction from copying it.
# tests/render/test_untrusted_values.py checks it is still empty after reading every fixture.
NO_META: Mapping[str, Any] = {}


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened in a session, in file order.

    Only the fields that make sense for ``kind`` are set. A tool call and its
    result are two events linked by ``call_id``; a sub-agent's transcript is a
    SUBAGENT event whose ``children`` hold its events and whose ``call_id``
    names the call that spawned it.
    """

    id: str  # unique within the session; used for the permalink anchor
    kind: Kind
    timestamp: datetime | None = None
    text: str = ""  # markdown for messages/thinking/system/compaction; plain text for tool output
    blocks: tuple[Block, ...] = ()
    # tool calls
    tool_name: str | None = None
    tool_input: Any = None
    category: ToolCategory | None = None
    command: str | None = None  # shell command line
    path: str | None = None  # file the call reads or edits
    diff: str | None = None  # unified diff of an edit
    call_id: str | None = None
    # tool results
    is_error: bool = False
    exit_code: int | None = None
    # everything else
    model: str | None = None
    usage: Usage | None = None
    children: tuple[Event, ...] = ()
    title: str | None = None  # sub-agent / task title, marker label
    raw: Any = None  # the original record of an UNKNOWN event, shown as JSON
    line: int | None = None  # 1-based line (or record index) in the source
    meta: Mapping[str, Any] = field(default_factory=lambda: NO_META)  # extra facts shown in a details box


@dataclass(frozen=True, slots=True)
class SourceRef:
    path: str  # as given, relative to the archive root when possible
    format: str  # reader name
    line: int | None = None


@dataclass(frozen=True, slots=True)
class GitRefs:
    """Git references a session carries in structured fields (not text mentions)."""

    branches: tuple[str, ...] = ()
    commits: tuple[str, ...] = ()
    issues: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    repos: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return any((self.branches, self.commits, self.issues, self.tags, self.repos))


@dataclass(frozen=True, slots=True)
class Session:
    """One conversation, whatever format it came from."""

    id: str  # URL-safe, stable, unique across formats: use make_session_id()
    source: SourceRef
    agent: str  # the tool that produced it, as its reader names it
    events: tuple[Event, ...]
    title: str | None = None
    started: datetime | None = None
    ended: datetime | None = None
    cwd: str | None = None
    project: str | None = None
    models: tuple[str, ...] = ()
    git: GitRefs = GitRefs()
    usage: Usage | None = None  # when the format reports a session total instead of per-message usage
    meta: Mapping[str, Any] = field(default_factory=dict)
    skipped: Mapping[str, int] = field(default_factory=dict)  # reason -> count of records not shown
    # only sub-agents' logs, without the transcript of the session that ran them: a page, not an index row
    subagent_log: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """A problem with the input, kept as data so the build always finishes."""

    source: str
    line: int | None
    stage: str  # discover, read, render, write
    message: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.message}"


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def make_session_id(fmt: str, raw_id: str) -> str:
    """A URL-safe id, unique across formats, stable across builds.

    Long or odd ids are shortened with a hash suffix so two different raw ids
    never collapse to the same slug.
    """
    slug = _UNSAFE.sub("-", f"{fmt}-{raw_id}").strip("-.")
    if slug != f"{fmt}-{raw_id}" or len(slug) > 80:
        digest = hashlib.sha1(raw_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        slug = f"{cut_slug(slug, 60)}-{digest}"
    return slug


_RANDOM_PART = re.compile(r"(?=.{6})(?:.*[0-9].*[A-Za-z]|.*[A-Za-z].*[0-9]|.*[a-z].*[A-Z].*[a-z])")


def cut_slug(slug: str, limit: int) -> str:
    """A slug of at most ``limit`` characters that keeps no part of a run it cuts (see ``cut_words``),
    nor the random-looking parts just before the cut: a key may hold ``-`` and ``.`` itself
    (``SG.<id>.<secret>``, a Telegram token), so what precedes the cut may be its first part."""
    if len(slug) <= limit:
        return slug
    kept = slug[:limit]
    if slug[limit] not in "-." and kept[-1] not in "-.":
        kept = kept[: max(kept.rfind("-"), kept.rfind(".")) + 1]
    parts = re.split(r"([-.])", kept.rstrip("-."))
    while len(parts) > 1 and (_RANDOM_PART.match(parts[-1]) or _short_after_random(parts)):
        del parts[-2:]
    return "".join(parts).rstrip("-.")


def _short_after_random(parts: list[str]) -> bool:
    """The last part is too short to judge and the one before it looks random: both may be one key's
    (``SG.<id>.<body>``, whose body may hold ``-``: the cut can leave ``SG.<id>.Ab``)."""
    return len(parts) > 3 and len(parts[-1]) < 6 and _RANDOM_PART.match(parts[-3]) is not None


_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` as one line that prints and encodes anywhere: line breaks become spaces,
    other control characters (a terminal escape in a file name) ``\\xNN``, and the bytes
    of a file name that is not UTF-8 (Python keeps them as lone surrogates) ``\\xNN`` too."""
    if _UNPRINTABLE.search(text) is None:
        return text
    return _UNPRINTABLE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in "\n\r\u2028\u2029":
        return " "
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode
        return f"\\x{code - 0xDC00:02x}"
    if code >= 0xD800:
        return "\ufffd"
    return f"\\x{code:02x}"


_MESSAGE_LIMIT = 1000


class Problems:
    """Collects problems for one build; readers call ``add``."""

    def __init__(self, root: Path | None = None, scrub: Callable[[str], str] | None = None) -> None:
        """``scrub``: what a problem's text goes through before anyone sees it (the build's
        redaction: a problem quoting a value must not print a secret on a public CI log)."""
        self.root = root
        self.scrub = scrub
        self.items: list[Problem] = []
        # path -> lines past the read limit (readers.files.MAX_FILE_LINES), for its session's page
        self.unread_lines: dict[str, int] = {}
        self.listeners: list[Callable[[Problem], None]] = []
        # Where the archive's own folders really are: each root walked and each symlinked agent folder
        # followed, resolved (``readers.files.outside_archive`` reads what resolves below one of them).
        self.trusted: set[str] = set()

    def trust(self, folder: Path | str) -> None:
        """Files that resolve below ``folder`` (resolved) are the archive's, wherever it leads."""
        self.trusted.add(os.path.realpath(folder))

    def display(self, path: Path | str) -> str:
        """The path as shown (relative to the root when below it), always printable."""
        p = Path(path)
        if self.root is not None:
            try:
                return printable(str(p.relative_to(self.root)))
            except ValueError:
                pass
        return printable(str(p))

    def add(self, path: Path | str, line: int | None, message: str, stage: str = "read", *, full: bool = False) -> None:
        """Note one problem: its message is made one printable line, whatever the input put in it.
        ``full``: the path is shown whole, not relative to the root (the archive itself)."""
        shown = printable(str(path)) if full else self.display(path)
        if self.scrub is not None:
            message, shown = self.scrub(message), self.scrub(shown)
        if len(message) > _MESSAGE_LIMIT:  # a hostile value quoted whole would bury the rest (scrubbed first)
            message = message[: _MESSAGE_LIMIT - 1] + "…"
        problem = Problem(shown, line, stage, printable(message))
        self.items.append(problem)
        for listener in self.listeners:
            listener(problem)

    def __len__(self) -> int:
        return len(self.items)


def walk(events: tuple[Event, ...]) -> Iterator[Event]:
    """Every event, sub-agent transcripts included, depth first in order."""
    for event in events:
        yield event
        if event.children:
            yield from walk(event.children)


# Tags of the blocks an agent or IDE puts into the user's turn: context, not the user's words.
# The model names no agent: each reader declares its format's tags (``Reader.injected_tags``,
# gathered here when the reader's class is defined), so a new format's tags never edit this file.
_INJECTED_TAGS: set[str] = set()


def declare_injected_tags(tags: Iterable[str]) -> None:
    """Tags whose blocks ``user_words`` leaves out of a user's words (called by the readers)."""
    _INJECTED_TAGS.update(tags)


# Blocks that wrap the user's own words: their inside is kept.
WRAPPER_TAGS = frozenset({"user_query", "user_message", "task", "feedback", "answer", "bash-input"})
_TAG = re.compile(r"<(/?)([A-Za-z][\w -]{0,40}?)((?:\s[^<>]{0,200})?)>")
_AGENTS_MD = re.compile(r"#\s*AGENTS\.md instructions for [^\n]*\n?")


def user_words(text: str) -> str:
    """``text`` without the context blocks agents and IDEs inject into a user turn (open
    file, IDE selection, environment, plugins, AGENTS.md, command caveats), wrappers
    such as ``<user_query>`` unwrapped: what the user actually typed, for titles."""
    if "<" not in text and "AGENTS.md" not in text:
        return text.strip()
    text = _AGENTS_MD.sub("", text)
    out: list[str] = []
    pos = 0
    while (match := _TAG.search(text, pos)) is not None:
        closing, name = match.group(1), match.group(2).strip()
        out.append(text[pos : match.start()])
        pos = match.end()
        if closing or name not in _INJECTED_TAGS:
            if name not in WRAPPER_TAGS:
                out.append(match.group())
            continue
        end = text.find(f"</{name}>", pos)
        pos = len(text) if end < 0 else end + len(name) + 3  # an unclosed block runs to the end
    out.append(text[pos:])
    return "".join(out).strip()


def session_title(session: Session, limit: int = 100) -> str:
    """The session's own title, else the user's own words in its first user message, else its id."""
    if session.title and session.title.strip():
        return _one_line(session.title, limit)
    for event in walk(session.events):
        if event.kind == Kind.USER and event.text.strip():
            words = user_words(event.text)
            if words:
                return _one_line(words, limit)
    return session.id


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else cut_words(line, limit)


# What ends a word for ``cut_words``: white space, quotes, brackets and list punctuation, none of
# which a credential holds (a key may hold - . / + = : _, so those do not end one).
_WORD_TAIL = re.compile(r"[^\s\"'`()\[\]{}<>,;|]+\Z")
_ENDS_WORD = re.compile(r"[\s\"'`()\[\]{}<>,;|]")


def cut_words(text: str, limit: int, more: str = "…") -> str:
    """``text`` cut to at most ``limit`` characters, ``more`` included, between words: a word the cut
    would split is left out whole. Titles, ids and quoted values are cut before redaction runs on
    the session; a key's first half no longer matches its rule and would be published, so the
    cut keeps none of it."""
    if len(text) <= limit:
        return text
    keep = max(limit - len(more), 0)
    return drop_cut_word(text[:keep], text[keep : keep + 1]).rstrip() + more


def drop_cut_word(kept: str, following: str) -> str:
    """``kept`` less its last word when that word goes on in ``following`` (the cut splits it)."""
    if not kept or not following or _ENDS_WORD.match(following) or _ENDS_WORD.match(kept[-1]):
        return kept
    tail = _WORD_TAIL.search(kept)
    return kept[: tail.start()] if tail else kept


def one_line(text: str, limit: int) -> str:
    """``text`` as one line (white space folded) of at most ``limit`` characters, cut between words
    (``cut_words``). Only so much of a long text is read as the line can need."""
    head = text[: limit * 8 + 1]
    if len(head) < len(text):
        head = drop_cut_word(head, text[len(head)])
    line = " ".join(head.split())
    if len(head) < len(text) and len(line) < limit:
        return line + "…" if line else "…"
    return line if len(line) <= limit else cut_words(line, limit)
