"""claude.ai data export: ``conversations.json``, a JSON array of conversations.

Two message shapes are read:

* 2024: ``{uuid, text, sender, created_at, files, attachments}``; thinking and
  artifacts are inline XML in ``text`` (``<antThinking>``, ``<antArtifact>``),
  which becomes a thinking event and a code block, prose kept in order.
* block shape: ``content:[…]`` of ``text``, ``thinking``, ``tool_use``,
  ``tool_result`` (with ``knowledge`` items), ``token_budget``; anything else
  becomes an unknown event. ``text`` duplicates the text blocks and is only
  used when the content has none.

The export is streamed one conversation at a time (``iter_json_array``), so a
truncated file keeps every conversation before the damage.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sitegen.model import Block, Event, Kind, Problems, Session, SourceRef, ToolCategory, make_session_id
from sitegen.readers.base import Reader, Sniff, as_text, iter_json_array, parse_time

_SENDER_KIND = {"human": Kind.USER, "user": Kind.USER, "assistant": Kind.ASSISTANT}
_ROOT_PARENT = "00000000-0000-4000-8000-000000000000"
_TITLE_LEN = 80

# Conversation keys read into fields; every other non-empty key lands in meta.
_CONV_KEYS = {"uuid", "name", "created_at", "updated_at", "account", "chat_messages", "summary", "project", "model"}
# Message keys read into events.
_MSG_KEYS = {
    "uuid",
    "text",
    "content",
    "sender",
    "created_at",
    "updated_at",
    "attachments",
    "files",
    "files_v2",
    "parent_message_uuid",
}
# Block keys that are read into event fields (the rest of a tool block goes to meta).
_TOOL_USE_KEYS = {"type", "id", "name", "input", "start_timestamp"}
_TOOL_RESULT_KEYS = {"type", "tool_use_id", "name", "content", "is_error", "start_timestamp"}


class ClaudeAiReader(Reader):
    name = "claude_ai"
    claims_directories = False

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() != ".json":
            return False
        head = sniffed.text()
        stripped = head.lstrip()
        if not stripped.startswith("["):
            return False
        body = stripped[1:].lstrip()
        if body.startswith("]"):
            # An empty export: claim it only under its export name.
            return path.name == "conversations.json"
        if not body.startswith("{"):
            return False
        try:
            first, _ = json.JSONDecoder().raw_decode(body)
        except ValueError:
            first = None  # the first conversation is longer than the sniff window
        if isinstance(first, dict):
            return "chat_messages" in first and "uuid" in first
        # Top-level keys come before the (long) message list; look for them by name.
        return re.search(r'"chat_messages"\s*:\s*\[', body) is not None and re.search(r'"uuid"\s*:', body) is not None

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        reported: dict[str, int] = {}
        seen: set[str] = set()
        for index, (line, conv) in enumerate(iter_json_array(path, problems)):
            if not isinstance(conv, dict):
                problems.add(
                    path,
                    line,
                    f"claude.ai: conversation #{index + 1} is a {type(conv).__name__}, not an object; skipped",
                )
                continue
            try:
                session = _session(conv, index, line, path, problems, reported)
                if session.id in seen:
                    problems.add(
                        path,
                        line,
                        f"claude.ai: conversation #{index + 1} repeats the uuid of an earlier one; given a distinct id",
                    )
                    session = replace(session, id=make_session_id("claude_ai", f"{conv.get('uuid')}#{index + 1}"))
                seen.add(session.id)
                yield session
            except Exception as exc:  # a reader bug must not lose the rest of the export
                problems.add(
                    path,
                    line,
                    f"claude.ai: conversation #{index + 1} could not be read ({type(exc).__name__}: {exc}); skipped",
                )


READER = ClaudeAiReader()


# ---------------------------------------------------------------------------
# conversations


def _session(
    conv: dict[str, Any], index: int, line: int, path: Path, problems: Problems, reported: dict[str, int]
) -> Session:
    ctx = _Ctx(path, line, problems, reported)
    raw_id = conv.get("uuid")
    if isinstance(raw_id, (int, float)) and not isinstance(raw_id, bool):
        raw_id = str(raw_id)
    if not isinstance(raw_id, str) or not raw_id:
        ctx.problem(f"conversation #{index + 1} has no string 'uuid' (using its position)")
        raw_id = f"{path.stem}-{index + 1}"
    name = conv.get("name")
    if name is not None and not isinstance(name, str):
        ctx.problem(f"conversation {raw_id}: 'name' is a {type(name).__name__}, not a string; ignored")
        name = None
    for key in ("created_at", "updated_at"):
        if conv.get(key) is not None and parse_time(conv.get(key)) is None:
            ctx.problem(f"conversation {raw_id}: {key} is not a valid timestamp: {conv.get(key)!r}")
    model = conv.get("model") if isinstance(conv.get("model"), str) and conv.get("model") else None

    messages = conv.get("chat_messages")
    if not isinstance(messages, list):
        ctx.problem(
            f"conversation {raw_id}: 'chat_messages' is {'missing' if messages is None else 'a ' + type(messages).__name__}, not an array"
        )
        messages = []

    ordered, reordered = _in_time_order(messages)
    events: list[Event] = []
    seen_ids: set[str] = set()
    skipped: dict[str, int] = {}
    first_human: str | None = None
    for mindex, message in ordered:
        if not isinstance(message, dict):
            ctx.problem(
                f"conversation {raw_id}: chat_messages[{mindex}] is a {type(message).__name__}, not an object; skipped"
            )
            continue
        produced = _message_events(message, mindex, raw_id, ctx, skipped, model)
        if not produced:
            skipped["empty message (no text, content or files)"] = (
                skipped.get("empty message (no text, content or files)", 0) + 1
            )
        for event in produced:
            eid = event.id
            n = 1
            while eid in seen_ids:
                n += 1
                eid = f"{event.id}~{n}"
            seen_ids.add(eid)
            events.append(event if eid == event.id else replace(event, id=eid))
            if first_human is None and event.kind == Kind.USER and event.text.strip():
                first_human = event.text

    meta: dict[str, Any] = {}
    account = conv.get("account")
    if isinstance(account, dict) and account.get("uuid"):
        meta["account uuid"] = account["uuid"]
    elif account not in (None, {}, ""):
        meta["account"] = account
    summary = conv.get("summary")
    if isinstance(summary, str) and summary.strip():
        meta["summary"] = summary
    meta["message count"] = len(messages)
    if reordered:
        meta["message order"] = "sorted by created_at (the export listed them out of order)"
    project, project_meta = _project(conv.get("project"))
    if project_meta:
        meta["project"] = project_meta
    for key, value in conv.items():
        if key not in _CONV_KEYS and value not in (None, "", [], {}):
            meta[key] = value

    timestamps = [e.timestamp for e in events if e.timestamp]
    return Session(
        id=make_session_id("claude_ai", raw_id),
        source=SourceRef(str(path), "claude_ai", line),
        agent="claude.ai",
        events=tuple(events),
        title=name.strip() if name and name.strip() else _title_from(first_human),
        started=parse_time(conv.get("created_at")) or (min(timestamps) if timestamps else None),
        ended=parse_time(conv.get("updated_at")) or (max(timestamps) if timestamps else None),
        project=project,
        models=(model,) if model else (),
        meta=meta,
        skipped=skipped,
    )


def _in_time_order(messages: list[Any]) -> tuple[list[tuple[int, Any]], bool]:
    """Messages with their export index, stably sorted by created_at.

    Exports sometimes list a message out of place; when every message has a
    timestamp, time order is the conversation's order. Otherwise file order.
    """
    indexed = list(enumerate(messages))
    times = [parse_time(m.get("created_at")) if isinstance(m, dict) else None for m in messages]
    if not times or any(t is None for t in times):
        return indexed, False
    if all(a <= b for a, b in zip(times, times[1:])):  # type: ignore[operator]
        return indexed, False
    order = sorted(range(len(messages)), key=lambda i: times[i])  # type: ignore[arg-type,return-value]
    return [indexed[i] for i in order], True


def _project(value: Any) -> tuple[str | None, Any]:
    if isinstance(value, str) and value.strip():
        return value.strip(), None
    if isinstance(value, dict):
        name = value.get("name")
        return (name if isinstance(name, str) and name else None), value
    return None, value if value not in (None, "", [], {}) else None


def _title_from(text: str | None) -> str | None:
    if not text:
        return None
    line = " ".join(text.split())
    return line if len(line) <= _TITLE_LEN else line[: _TITLE_LEN - 1].rstrip() + "…"


class _Ctx:
    """Where problems go for one conversation."""

    def __init__(self, path: Path, line: int, problems: Problems, reported: dict[str, int]) -> None:
        self.path = path
        self.line = line
        self.problems = problems
        self.reported = reported  # unknown block types already reported in this file

    def problem(self, message: str) -> None:
        self.problems.add(self.path, self.line, f"claude.ai: {message}")

    def unknown_type(self, what: str, conv_id: str) -> None:
        count = self.reported.get(what, 0)
        self.reported[what] = count + 1
        if count == 0:
            self.problem(
                f"conversation {conv_id}: unknown {what}; shown as raw JSON (further ones in this file not reported)"
            )


# ---------------------------------------------------------------------------
# messages


class _Builder:
    """Collects one message's events in order: prose and blocks are grouped
    into message events; thinking and tools interrupt them."""

    def __init__(self, mid: str, kind: Kind, ts: Any, model: str | None) -> None:
        self.mid = mid
        self.kind = kind
        self.ts = ts
        self.model = model if kind == Kind.ASSISTANT else None
        self.events: list[Event] = []
        self.text: list[str] = []
        self.blocks: list[Block] = []
        self.text_ts: Any = None
        self.message_events = 0
        self.last_ts = ts

    def add_text(self, text: str, ts: Any = None) -> None:
        text = text.strip()
        if not text:
            return
        if self.blocks:  # keep prose that follows a block after it
            self.flush()
        if not self.text:
            self.text_ts = ts
        self.text.append(text)

    def add_block(self, block: Block) -> None:
        self.blocks.append(block)

    def add_event(self, event: Event) -> None:
        self.flush()
        self.events.append(event)

    def flush(self) -> None:
        if not self.text and not self.blocks:
            return
        eid = self.mid if self.message_events == 0 else f"{self.mid}-t{self.message_events}"
        self.message_events += 1
        self.events.append(
            Event(
                id=eid,
                kind=self.kind,
                timestamp=self.text_ts or self.ts,
                text="\n\n".join(self.text),
                blocks=tuple(self.blocks),
                model=self.model,
            )
        )
        self.text, self.blocks, self.text_ts = [], [], None

    def finish(self, files: list[Block], refs: list[Block], meta: dict[str, Any]) -> list[Event]:
        self.flush()
        events = self.events
        positions = [
            i
            for i, e in enumerate(events)
            if e.kind == self.kind and e.call_id is None and (e.id == self.mid or e.id.startswith(f"{self.mid}-t"))
        ]
        if files:
            if positions:
                events[positions[0]] = replace(events[positions[0]], blocks=tuple(files) + events[positions[0]].blocks)
            else:
                events.insert(
                    0, Event(id=self.mid, kind=self.kind, timestamp=self.ts, blocks=tuple(files), model=self.model)
                )
                positions = [0]
        if refs:
            if positions:
                events[positions[-1]] = replace(
                    events[positions[-1]], blocks=events[positions[-1]].blocks + tuple(refs)
                )
            else:
                events.append(
                    Event(
                        id=f"{self.mid}-refs", kind=self.kind, timestamp=self.ts, blocks=tuple(refs), model=self.model
                    )
                )
        if events and meta:
            events[0] = replace(events[0], meta={**meta, **events[0].meta})
        return events


def _message_events(
    message: dict[str, Any], mindex: int, conv_id: str, ctx: _Ctx, skipped: dict[str, int], model: str | None
) -> list[Event]:
    where = f"conversation {conv_id}: chat_messages[{mindex}]"
    mid = message.get("uuid")
    if not isinstance(mid, str) or not mid:
        if mid is not None:
            ctx.problem(f"{where}: 'uuid' is not a string")
        mid = f"m{mindex}"
    sender = message.get("sender")
    if not isinstance(sender, str):
        ctx.problem(
            f"{where}: 'sender' is {'missing' if sender is None else 'a ' + type(sender).__name__}; shown as a system message"
        )
    kind = _SENDER_KIND.get(sender if isinstance(sender, str) else "", Kind.SYSTEM)
    ts = parse_time(message.get("created_at"))
    if message.get("created_at") is not None and ts is None:
        ctx.problem(f"{where}: created_at is not a valid timestamp: {message.get('created_at')!r}")

    meta: dict[str, Any] = {}
    if isinstance(sender, str) and sender not in _SENDER_KIND:
        meta["sender"] = sender
    parent = message.get("parent_message_uuid")
    if parent and parent != _ROOT_PARENT:
        meta["parent_message_uuid"] = parent
    for key, value in message.items():
        if key not in _MSG_KEYS and value not in (None, "", [], {}):
            meta[key] = value

    text = message.get("text")
    if text is not None and not isinstance(text, str):
        ctx.problem(f"{where}: 'text' is a {type(text).__name__}, not a string; shown as JSON")
        text = as_text(text)
    content = message.get("content")
    if content is not None and not isinstance(content, list):
        ctx.problem(f"{where}: 'content' is a {type(content).__name__}, not an array; ignored")
        content = None

    builder = _Builder(mid, kind, ts, model)
    refs: list[Block] = []
    if content:
        has_text = any(isinstance(b, dict) and b.get("type") == "text" for b in content)
        if text and not has_text:
            _inline_text(builder, text, ts)
        for bindex, block in enumerate(content):
            _content_block(builder, block, bindex, where, conv_id, ctx, skipped, refs)
    elif text:
        _inline_text(builder, text, ts)

    files = _file_blocks(message, where, ctx)
    return builder.finish(files, refs, meta)


# <antThinking>…</antThinking>, <antArtifact …/>, <antArtifact …>…</antArtifact>
# (an unclosed tag runs to the end of the text: a cut-off response).
_INLINE = re.compile(
    r"<antThinking>(?P<think>.*?)(?:</antThinking>|\Z)"
    r"|<antArtifact\b(?P<sattrs>[^>]*?)/>"
    r"|<antArtifact\b(?P<attrs>[^>]*)>(?P<art>.*?)(?:</antArtifact>|\Z)",
    re.S,
)
_ATTR = re.compile(r"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _inline_text(builder: _Builder, text: str, ts: Any) -> None:
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
        language=attrs.get("language") or _lang_from_type(mime),
        mime=mime,
        title=attrs.get("title") or attrs.get("identifier"),
        data=extra or None,
    )


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


def _lang_from_type(mime: str | None) -> str | None:
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


def _file_blocks(message: dict[str, Any], where: str, ctx: _Ctx) -> list[Block]:
    blocks: list[Block] = []
    for key in ("files", "files_v2", "attachments"):
        items = message.get(key)
        if items in (None, []):
            continue
        if not isinstance(items, list):
            ctx.problem(f"{where}: '{key}' is a {type(items).__name__}, not an array; ignored")
            continue
        if key == "files_v2" and message.get("files"):
            continue  # the same files, listed twice
        for item in items:
            if isinstance(item, str):
                blocks.append(Block("file", title=item))
                continue
            if not isinstance(item, dict):
                ctx.problem(f"{where}: an entry of '{key}' is a {type(item).__name__}, not an object; ignored")
                continue
            name = item.get("file_name")
            name = name if isinstance(name, str) and name else None
            extracted = item.get("extracted_content")
            file_type = item.get("file_type")
            rest = {
                k: v
                for k, v in item.items()
                if k not in ("file_name", "extracted_content") and v not in (None, "", [], {})
            }
            blocks.append(
                Block(
                    "file",
                    text=extracted if isinstance(extracted, str) else as_text(extracted),
                    title=name or "(unnamed file)",
                    mime=file_type if isinstance(file_type, str) and "/" in file_type else None,
                    data=rest or None,
                )
            )
    return blocks


# ---------------------------------------------------------------------------
# content blocks


def _content_block(
    builder: _Builder,
    block: Any,
    bindex: int,
    where: str,
    conv_id: str,
    ctx: _Ctx,
    skipped: dict[str, int],
    refs: list[Block],
) -> None:
    if not isinstance(block, dict):
        ctx.problem(f"{where}.content[{bindex}] is a {type(block).__name__}, not an object; kept as text")
        builder.add_text(as_text(block))
        return
    btype = block.get("type")
    # A block without a time (tool results often have none) follows the one before it.
    ts = parse_time(block.get("start_timestamp")) or builder.last_ts
    builder.last_ts = ts
    bid = f"{builder.mid}-{bindex}"
    if btype == "text":
        text = block.get("text")
        builder.add_text(text if isinstance(text, str) else as_text(text), ts)
        citations = block.get("citations")
        if isinstance(citations, list):
            refs.extend(_citation_block(c) for c in citations if c not in (None, "", {}))
        elif citations not in (None, "", {}):
            ctx.problem(
                f"{where}.content[{bindex}]: 'citations' is a {type(citations).__name__}, not an array; kept as a reference"
            )
            refs.append(_citation_block(citations))
    elif btype == "thinking":
        text = block.get("thinking", block.get("text"))
        meta: dict[str, Any] = {}
        summaries = block.get("summaries")
        if isinstance(summaries, list) and summaries:
            meta["summaries"] = [s.get("summary", s) if isinstance(s, dict) else s for s in summaries]
        if block.get("cut_off"):
            meta["cut_off"] = True
        for key, value in block.items():
            if key not in (
                "type",
                "thinking",
                "text",
                "summaries",
                "cut_off",
                "start_timestamp",
                "stop_timestamp",
                "flags",
            ) and value not in (None, "", [], {}, False):
                meta[key] = value
        builder.add_event(
            Event(
                id=bid,
                kind=Kind.THINKING,
                timestamp=ts,
                text=text if isinstance(text, str) else as_text(text),
                model=builder.model,
                meta=meta,
            )
        )
    elif btype == "tool_use":
        builder.add_event(_tool_use(block, bid, ts, builder.model))
    elif btype == "tool_result":
        builder.add_event(_tool_result(block, bid, ts))
    elif btype == "token_budget":
        skipped["token_budget marker (no content)"] = skipped.get("token_budget marker (no content)", 0) + 1
    else:
        ctx.unknown_type(f"content block type {btype!r}", conv_id)
        builder.add_event(
            Event(id=bid, kind=Kind.UNKNOWN, timestamp=ts, title=f"claude.ai content block {btype!r}", raw=block)
        )


def _citation_block(citation: Any) -> Block:
    if not isinstance(citation, dict):
        return Block("reference", title=as_text(citation), data=citation)
    details = citation.get("details") if isinstance(citation.get("details"), dict) else {}
    url = details.get("url") or citation.get("url")
    title = details.get("title") or citation.get("title") or url
    return Block(
        "reference",
        uri=url if isinstance(url, str) else None,
        title=title if isinstance(title, str) else None,
        data=citation,
    )


def _tool_category(name: str) -> ToolCategory:
    lowered = name.lower()
    if "web_search" in lowered or "web_fetch" in lowered or lowered in ("fetch", "brave_search", "google_search"):
        return ToolCategory.WEB
    return ToolCategory.OTHER


def _tool_use(block: dict[str, Any], bid: str, ts: Any, model: str | None) -> Event:
    name = block.get("name")
    name = name if isinstance(name, str) and name else "tool"
    call_id = block.get("id")
    tool_input = block.get("input")
    blocks: list[Block] = []
    if (
        isinstance(tool_input, dict)
        and isinstance(tool_input.get("content"), str)
        and name in ("artifacts", "create_file", "artifact")
    ):
        mime = tool_input.get("type") if isinstance(tool_input.get("type"), str) else None
        lang = tool_input.get("language") if isinstance(tool_input.get("language"), str) else None
        title = tool_input.get("title") if isinstance(tool_input.get("title"), str) else None
        blocks.append(
            Block("code", text=tool_input["content"], language=lang or _lang_from_type(mime), mime=mime, title=title)
        )
    meta = {
        k: v
        for k, v in block.items()
        if k not in _TOOL_USE_KEYS and k not in ("stop_timestamp", "flags") and v not in (None, "", [], {})
    }
    return Event(
        id=bid,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=tool_input,
        category=_tool_category(name),
        command=tool_input.get("code")
        if name in ("repl", "analysis") and isinstance(tool_input, dict) and isinstance(tool_input.get("code"), str)
        else None,
        call_id=str(call_id) if call_id not in (None, "") else bid,
        blocks=tuple(blocks),
        model=model,
        meta=meta,
    )


def _tool_result(block: dict[str, Any], bid: str, ts: Any) -> Event:
    name = block.get("name")
    call_id = block.get("tool_use_id")
    text, blocks = _render_result(block.get("content"))
    meta = {
        k: v
        for k, v in block.items()
        if k not in _TOOL_RESULT_KEYS and k not in ("stop_timestamp", "flags") and v not in (None, "", [], {})
    }
    return Event(
        id=bid,
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=text,
        blocks=tuple(blocks),
        tool_name=name if isinstance(name, str) and name else None,
        call_id=str(call_id) if call_id not in (None, "") else None,
        is_error=bool(block.get("is_error")),
        meta=meta,
    )


def _render_result(content: Any) -> tuple[str, list[Block]]:
    """A tool result's content as readable text plus reference/image blocks."""
    if content is None:
        return "", []
    if isinstance(content, str):
        return content, []
    items = content if isinstance(content, list) else [content]
    parts: list[str] = []
    blocks: list[Block] = []
    for item in items:
        if not isinstance(item, dict):
            parts.append(as_text(item))
            continue
        itype = item.get("type")
        if itype == "text" and set(item) <= {
            "type",
            "text",
            "uuid",
            "citations",
            "start_timestamp",
            "stop_timestamp",
            "flags",
        }:
            parts.append(as_text(item.get("text")))
        elif itype == "knowledge":
            title = item.get("title")
            url = item.get("url")
            body = item.get("text")
            lines = [as_text(title)] if title else []
            if url:
                lines.append(as_text(url))
            if body:
                lines.append("")
                lines.append(as_text(body))
            parts.append("\n".join(lines))
            rest = {
                k: v
                for k, v in item.items()
                if k not in ("type", "title", "url", "text") and v not in (None, "", [], {})
            }
            blocks.append(
                Block(
                    "reference",
                    uri=url if isinstance(url, str) else None,
                    title=title if isinstance(title, str) else None,
                    data=rest or None,
                )
            )
        elif itype == "image" and isinstance(item.get("source"), dict):
            source = item["source"]
            uri = source.get("url")
            if source.get("type") == "base64" and isinstance(source.get("data"), str):
                uri = f"data:{source.get('media_type') or 'image/png'};base64,{source['data']}"
            blocks.append(Block("image", uri=uri if isinstance(uri, str) else None, mime=source.get("media_type")))
        else:
            parts.append(as_text(item))
    return "\n\n".join(p for p in parts if p), blocks
