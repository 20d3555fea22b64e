"""Gemini CLI chats: ``~/.gemini/tmp/<projectHash>/chats/session-<time>-<id8>.json[l]``.

JSON form: one object ``{sessionId, projectHash, startTime, lastUpdated, messages[], kind}``.
JSONL form (newer CLIs): a header line ``{sessionId, projectHash, startTime,
lastUpdated, kind}``, then message objects, ``{"$set": {…}}`` metadata patches and
``{"$rewindTo": id}`` markers. A message is written again under the same ``id``
when it grows (tool calls added): the last write wins, at the place the message
first appeared. A rewind discards the message it names and everything after
it, as the CLI does when it loads the file; the discarded messages are counted
in ``Session.skipped`` and a marker shows where it happened.

Messages: ``user`` (``content`` parts, and ``displayContent`` when what the user
typed differs from what was sent), ``gemini`` (``thoughts``, ``content``,
``toolCalls`` with their results, ``tokens``, ``model``), ``info`` / ``warning`` /
``error`` notes (SYSTEM). Gemini stores no cwd and no git facts: the project is
the ``projectHash``.
"""

from __future__ import annotations

import base64
import difflib
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sitegen.model import Block, Event, Kind, Problems, Session, SourceRef, ToolCategory, Usage, make_session_id
from sitegen.readers._util import Ids
from sitegen.readers._util import shorten as _shorten
from sitegen.readers._util import text_of as _str
from sitegen.readers._util import to_int as _int
from sitegen.readers.base import Reader, Sniff, as_text, iter_jsonl, load_json, parse_time

NAME = "gemini"
AGENT = "gemini-cli"
TITLE_LIMIT = 100
_DIFF_MAX_LINES = 4000

_CATEGORY = {
    "run_shell_command": ToolCategory.SHELL,
    "shell": ToolCategory.SHELL,
    "read_file": ToolCategory.READ,
    "read_many_files": ToolCategory.READ,
    "write_file": ToolCategory.EDIT,
    "replace": ToolCategory.EDIT,
    "edit": ToolCategory.EDIT,
    "smart_edit": ToolCategory.EDIT,
    "glob": ToolCategory.SEARCH,
    "search_file_content": ToolCategory.SEARCH,
    "grep": ToolCategory.SEARCH,
    "list_directory": ToolCategory.SEARCH,
    "ls": ToolCategory.SEARCH,
    "google_web_search": ToolCategory.WEB,
    "web_search": ToolCategory.WEB,
    "web_fetch": ToolCategory.WEB,
}
_NOTES = {"info": ("Info", None), "warning": ("Warning", "warning"), "error": ("Error", "error")}
_ASSISTANT_TYPES = {"gemini", "model", "assistant"}
_OK_STATUS = {"success", "completed", None, ""}
_EXIT_CODE = re.compile(r"Exit Code: (-?\d+)")


class GeminiReader(Reader):
    name = NAME
    claims_directories = False

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() not in (".json", ".jsonl"):
            return False
        line = sniffed.object_line()
        if line is None:
            return False
        head, _, obj = line
        if obj is not None:
            return _is_document(obj) or _is_header(obj)
        # Pretty-printed, or one long line cut by the sniff: judge its top-level keys.
        keys, complete = top_level_keys(head)
        if not (isinstance(keys.get("sessionId"), str) and "projectHash" in keys):
            return False
        return "messages" in keys or not complete

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        if _is_jsonl(path):
            builder = self._read_jsonl(path, problems)
        else:
            builder = self._read_json(path, problems)
        if builder is not None:
            session = builder.finish()
            if session is not None:
                yield session

    def _read_json(self, path: Path, problems: Problems) -> _Builder | None:
        doc = load_json(path, problems)
        if doc is None:
            return None
        if not isinstance(doc, dict):
            problems.add(path, None, f"Gemini chat: top level is {type(doc).__name__}, expected an object")
            return None
        builder = _Builder(path, problems, jsonl=False)
        builder.header.update({k: v for k, v in doc.items() if k != "messages"})
        messages = doc.get("messages")
        if not isinstance(messages, list):
            problems.add(path, None, "Gemini chat: 'messages' is missing or not an array")
            messages = []
        for index, message in enumerate(messages):
            if not isinstance(message, dict):
                problems.add(
                    path, None, f"Gemini chat: messages[{index}] is {type(message).__name__}, not an object; skipped"
                )
                continue
            builder.add_message(message, index + 1, keyed=False)
        return builder

    def _read_jsonl(self, path: Path, problems: Problems) -> _Builder:
        builder = _Builder(path, problems, jsonl=True)
        for lineno, obj in iter_jsonl(path, problems):
            if "$rewindTo" in obj:
                builder.rewind(obj.get("$rewindTo"), lineno)
            elif "$set" in obj:
                if isinstance(obj["$set"], dict):
                    update = dict(obj["$set"])
                    for message in update.pop("messages", None) or []:
                        if isinstance(message, dict):
                            builder.add_message(message, lineno, keyed=True)
                    builder.header.update(update)
                    builder.skipped["$set metadata update (applied to the session details)"] += 1
                else:
                    builder.add_unknown(
                        obj, lineno, "malformed $set record", "$set is not an object; shown as raw JSON"
                    )
            elif isinstance(obj.get("id"), str) and ("type" in obj or "content" in obj):
                builder.add_message(obj, lineno, keyed=True)
            elif isinstance(obj.get("sessionId"), str) and "projectHash" in obj:
                if builder.header_lines:
                    builder.skipped["header line repeated (merged into the session details)"] += 1
                builder.header_lines += 1
                builder.header.update({k: v for k, v in obj.items() if k != "messages"})
                if isinstance(obj.get("messages"), list):  # a whole JSON document written as one line
                    for index, message in enumerate(obj["messages"]):
                        if isinstance(message, dict):
                            builder.add_message(message, lineno, keyed=True)
            else:
                builder.add_unknown(
                    obj, lineno, "unrecognised Gemini chat line", "unrecognised Gemini chat line; shown as raw JSON"
                )
        return builder


def _is_document(obj: dict[str, Any]) -> bool:
    return isinstance(obj.get("sessionId"), str) and "projectHash" in obj and isinstance(obj.get("messages"), list)


def _is_header(obj: dict[str, Any]) -> bool:
    return (
        isinstance(obj.get("sessionId"), str)
        and isinstance(obj.get("projectHash"), str)
        and ("kind" in obj or "startTime" in obj)
        and "id" not in obj
        and "type" not in obj
    )


def _is_jsonl(path: Path) -> bool:
    """JSONL (a header line) rather than one JSON document: decided by the first line."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(8 * 1024 * 1024)
            second = fh.readline(1024).strip()
    except OSError:
        return path.suffix.lower() == ".jsonl"
    text = first.decode("utf-8", errors="replace").lstrip("\ufeff").strip()
    try:
        obj = json.loads(text)
    except ValueError:
        # "{" alone starts a pretty-printed document; anything else is a (damaged) line stream.
        return not text.startswith("{") or (text != "{" and path.suffix.lower() == ".jsonl")
    if isinstance(obj, dict) and isinstance(obj.get("messages"), list):
        return bool(second)  # one-line document, unless more lines follow it
    return True


_WS = re.compile(r"[ \t\r\n]*")


def top_level_keys(text: str) -> tuple[dict[str, Any], bool]:
    """The top-level keys of a (possibly cut) JSON object with their values where complete.

    Returns (keys, complete): a key whose value is cut maps to None, and
    ``complete`` is False when the text ends before the object does.
    """
    decoder = json.JSONDecoder()
    keys: dict[str, Any] = {}
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if not text.startswith("{", pos):
        return keys, True
    pos += 1
    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text):
            return keys, False
        if text[pos] == "}":
            return keys, True
        try:
            key, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return keys, False
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith(":", pos) or not isinstance(key, str):
            return keys, pos >= len(text)
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        try:
            value, pos = decoder.raw_decode(text, pos)
        except ValueError:
            keys[key] = None
            return keys, False
        keys[key] = value
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos += 1
        elif text.startswith("}", pos):
            return keys, True
        else:
            return keys, False


# --------------------------------------------------------------------------- helpers


def usage_of(tokens: Any) -> Usage | None:
    """Gemini's ``tokens``: input includes cached input; thoughts and tool-use prompt are extra."""
    if not isinstance(tokens, dict):
        return None
    inp = _int(tokens.get("input"))
    cached = _int(tokens.get("cached"))
    thoughts = _int(tokens.get("thoughts"))
    usage = Usage(
        input_tokens=max(inp - cached, 0) + _int(tokens.get("tool")),
        output_tokens=_int(tokens.get("output")) + thoughts,
        cache_read_tokens=cached,
        reasoning_tokens=thoughts,
    )
    return usage or None


def _data_block(mime: str | None, data: Any, title: str | None = None) -> Block:
    mime = mime or "application/octet-stream"
    if mime.startswith("image/") and isinstance(data, str):
        return Block("image", uri=f"data:{mime};base64,{data}", mime=mime, title=title)
    if mime.startswith("text/") and isinstance(data, str):
        try:
            text = base64.b64decode(data, validate=False).decode("utf-8", errors="replace")
        except ValueError:
            text = ""
        return Block("file", text=text, mime=mime, title=title)
    kind = mime.split("/", 1)[0]
    return Block(kind if kind in ("video", "audio") else "file", mime=mime, title=title or mime)


def parts_of(content: Any) -> tuple[str, list[Block], list[dict[str, Any]]]:
    """Text, non-text blocks and functionResponse objects of a PartListUnion."""
    if content is None:
        return "", [], []
    if isinstance(content, str):
        return content, [], []
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return as_text(content), [], []
    texts: list[str] = []
    blocks: list[Block] = []
    responses: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif not isinstance(part, dict):
            texts.append(as_text(part))
        elif isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"])
        elif isinstance(part.get("functionResponse"), dict):
            responses.append(part["functionResponse"])
        elif isinstance(part.get("inlineData"), dict):
            inline = part["inlineData"]
            blocks.append(
                _data_block(_str(inline.get("mimeType")), inline.get("data"), _str(inline.get("displayName")))
            )
        elif isinstance(part.get("fileData"), dict):
            file = part["fileData"]
            blocks.append(Block("reference", uri=_str(file.get("fileUri")), mime=_str(file.get("mimeType"))))
        elif part.get("thought") and isinstance(part.get("text"), str):
            continue  # thought parts are read as thoughts by the caller
        else:
            blocks.append(Block("json", title=next(iter(part), "part"), data=part))
    # Parts of one message are fragments of one text (``@file`` expansions bring their own newlines).
    return "".join(texts), blocks, responses


def clean_file_diff(diff: str) -> str:
    """Gemini's ``fileDiff`` (jsdiff): drop the ``Index:``/``====`` lines and the tab labels."""
    lines = diff.split("\n")
    out: list[str] = []
    for index, line in enumerate(lines):
        if index < 3 and (line.startswith("Index: ") or (line and set(line) == {"="})):
            continue
        if line.startswith(("--- ", "+++ ")) and "\t" in line:
            line = line.split("\t", 1)[0]
        out.append(line)
    return "\n".join(out).rstrip("\n")


def synth_diff(path: str, old: str, new: str) -> str:
    a, b = old.splitlines(), new.splitlines()
    head = [f"--- {path}" if old else "--- /dev/null", f"+++ {path}"]
    if not a or len(a) + len(b) > _DIFF_MAX_LINES:
        body = [f"@@ -{1 if a else 0},{len(a)} +{1 if b else 0},{len(b)} @@"] if (a or b) else []
        return "\n".join(head + body + ["-" + x for x in a] + ["+" + x for x in b])
    lines = list(difflib.unified_diff(a, b, lineterm="", n=3))
    return "\n".join(head + lines[2:])


def _tool_path(args: dict[str, Any]) -> str | None:
    for key in ("file_path", "absolute_path", "path", "dir_path", "directory"):
        if _str(args.get(key)):
            return args[key]
    paths = args.get("paths")
    if isinstance(paths, list) and paths and all(isinstance(p, str) for p in paths):
        return ", ".join(paths)
    return None


def _walk(events: list[Event]) -> Iterator[Event]:
    for event in events:
        yield event
        yield from _walk(list(event.children))


# --------------------------------------------------------------------------- the builder


class _Builder:
    """Collects one chat's header and messages (in first-appearance order) and builds the Session."""

    def __init__(self, path: Path, problems: Problems, jsonl: bool) -> None:
        self.path = path
        self.problems = problems
        self.jsonl = jsonl
        self.header: dict[str, Any] = {}
        self.header_lines = 0
        # entries in order: ["msg", id, line, record] / ["unknown", title, line, record] / ["rewind", target, line, count]
        self.entries: list[list[Any]] = []
        self.by_id: dict[str, list[Any]] = {}
        self.skipped: Counter[str] = Counter()
        self.ids = Ids()  # event ids unique within the session
        self.events: list[Event] = []
        self.models: dict[str, None] = {}
        self.leftover_usage: Usage | None = None

    # ---- records

    def add_message(self, message: dict[str, Any], line: int, keyed: bool) -> None:
        mid = message.get("id")
        if keyed and isinstance(mid, str) and mid in self.by_id:
            entry = self.by_id[mid]
            entry[2], entry[3] = line, message
            self.skipped["earlier write of a re-written message (the last write is shown)"] += 1
            return
        entry = ["msg", mid, line, message]
        self.entries.append(entry)
        if keyed and isinstance(mid, str):
            self.by_id[mid] = entry

    def add_unknown(self, obj: Any, line: int, title: str, problem: str) -> None:
        self.problems.add(self.path, line, problem)
        self.entries.append(["unknown", title, line, obj])

    def rewind(self, target: Any, line: int) -> None:
        """``$rewindTo``: the named message and every later one are discarded."""
        start = next((i for i, e in enumerate(self.entries) if e[0] == "msg" and e[1] == target), None)
        if start is None:
            # The CLI would drop the whole history here; an archive keeps it and says so.
            self.problems.add(self.path, line, f"$rewindTo names an unknown message {target!r}; nothing discarded")
            self.entries.append(["rewind", target, line, 0])
            return
        removed = 0
        for entry in self.entries[start:]:
            if entry[0] == "msg":
                removed += 1
                if isinstance(entry[1], str):
                    self.by_id.pop(entry[1], None)
        self.entries = self.entries[:start] + [e for e in self.entries[start:] if e[0] != "msg"]
        self.entries.append(["rewind", target, line, removed])
        if removed:
            self.skipped["message discarded by a rewind ($rewindTo)"] += removed

    # ---- events

    def emit(self, base: str, line: int, **fields: Any) -> int:
        self.events.append(Event(id=self.ids.take(base or "event"), line=line, **fields))
        return len(self.events) - 1

    def _message_events(self, message: dict[str, Any], line: int, position: int) -> None:
        mtype = message.get("type")
        ts = parse_time(message.get("timestamp"))
        mid = _str(message.get("id")) or f"m{position}"
        if mtype == "user":
            self._user(message, mid, line, ts)
        elif mtype in _ASSISTANT_TYPES:
            self._assistant(message, mid, line, ts)
        elif mtype in _NOTES:
            title, level = _NOTES[mtype]
            text, blocks, responses = parts_of(message.get("content"))
            blocks += [Block("json", title="functionResponse", data=r) for r in responses]
            self.emit(
                mid,
                line,
                kind=Kind.SYSTEM,
                timestamp=ts,
                title=title,
                text=text,
                blocks=tuple(blocks),
                meta={"level": level} if level else {},
            )
        else:
            self.emit(mid, line, kind=Kind.UNKNOWN, timestamp=ts, title=f"Gemini message type {mtype!r}", raw=message)

    def _user(self, message: dict[str, Any], mid: str, line: int, ts: Any) -> None:
        text, blocks, responses = parts_of(message.get("content"))
        blocks += [Block("json", title="functionResponse", data=r) for r in responses]
        if "displayContent" not in message:
            if not text.strip() and not blocks:
                self.skipped["empty user message"] += 1
                return
            self.emit(mid, line, kind=Kind.USER, timestamp=ts, text=text, blocks=tuple(blocks))
            return
        shown, shown_blocks, shown_responses = parts_of(message.get("displayContent"))
        if shown.strip():
            # What the user typed (a slash command, an @file prompt) and, below it, what was sent.
            extra = tuple(shown_blocks) + tuple(
                Block("json", title="functionResponse", data=r) for r in shown_responses
            )
            meta: dict[str, Any] = {}
            if text.strip() and text.strip() != shown.strip():
                extra += (Block("code", text=text, language="markdown", title="Sent to the model"),)
                meta["expanded"] = True
            self.emit(mid, line, kind=Kind.USER, timestamp=ts, text=shown, blocks=extra + tuple(blocks), meta=meta)
            return
        # Nothing typed: the CLI sent tool responses back on the user's behalf.
        shown_blocks += [Block("json", title="functionResponse", data=r) for r in shown_responses]
        self.emit(
            mid,
            line,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title="Sent to the model automatically",
            text=text,
            blocks=tuple(shown_blocks + blocks),
        )

    def _assistant(self, message: dict[str, Any], mid: str, line: int, ts: Any) -> None:
        model = _str(message.get("model"))
        if model:
            self.models.setdefault(model)
        first = len(self.events)
        thoughts = message.get("thoughts")
        if isinstance(thoughts, list):
            for index, thought in enumerate(thoughts):
                if isinstance(thought, dict):
                    subject = _str(thought.get("subject"))
                    text = as_text(thought.get("description"))
                    if not text.strip() and not subject:
                        continue
                    self.emit(
                        f"{mid}-thought-{index}",
                        line,
                        kind=Kind.THINKING,
                        timestamp=parse_time(thought.get("timestamp")) or ts,
                        title=subject,
                        text=f"**{subject}**\n\n{text}" if subject and text.strip() else (text or subject or ""),
                        model=model,
                    )
                elif isinstance(thought, str) and thought.strip():
                    self.emit(
                        f"{mid}-thought-{index}", line, kind=Kind.THINKING, timestamp=ts, text=thought, model=model
                    )
        content = message.get("content") if "content" in message else message.get("parts")
        if isinstance(content, list):
            for index, part in enumerate(content):
                if (
                    isinstance(part, dict)
                    and part.get("thought")
                    and isinstance(part.get("text"), str)
                    and part["text"].strip()
                ):
                    self.emit(
                        f"{mid}-thought-part-{index}",
                        line,
                        kind=Kind.THINKING,
                        timestamp=ts,
                        text=part["text"],
                        model=model,
                    )
        text, blocks, responses = parts_of(content)
        blocks += [Block("json", title="functionResponse", data=r) for r in responses]
        if text.strip() or blocks:
            self.emit(mid, line, kind=Kind.ASSISTANT, timestamp=ts, text=text, blocks=tuple(blocks), model=model)
        if isinstance(content, list):  # model parts carrying function calls (older records)
            for index, part in enumerate(content):
                if isinstance(part, dict) and isinstance(part.get("functionCall"), dict):
                    call = part["functionCall"]
                    self._tool_call(
                        {
                            "id": call.get("id") or f"{mid}-call-{index}",
                            "name": call.get("name"),
                            "args": call.get("args"),
                        },
                        mid,
                        line,
                        ts,
                        model,
                    )
        calls = message.get("toolCalls")
        if isinstance(calls, list):
            for index, call in enumerate(calls):
                if isinstance(call, dict):
                    self._tool_call(call, mid, line, ts, model)
                else:
                    self.problems.add(
                        self.path,
                        line if self.jsonl else None,
                        f"message {mid}: toolCalls[{index}] is not an object; shown as raw JSON",
                    )
                    self.emit(
                        f"{mid}-call-{index}",
                        line,
                        kind=Kind.UNKNOWN,
                        timestamp=ts,
                        title="malformed tool call",
                        raw=call,
                    )
        usage = usage_of(message.get("tokens"))
        if usage is not None:
            # Once per message, on its last model event (results are shown inside their call).
            targets = [
                i
                for i in range(first, len(self.events))
                if self.events[i].kind in (Kind.THINKING, Kind.ASSISTANT, Kind.TOOL_CALL)
            ]
            if targets:
                self.events[targets[-1]] = replace(self.events[targets[-1]], usage=usage)
            else:
                self.leftover_usage = (self.leftover_usage + usage) if self.leftover_usage else usage
        if len(self.events) == first:
            self.skipped["empty gemini message"] += 1

    def _tool_call(self, call: dict[str, Any], mid: str, line: int, ts: Any, model: str | None) -> None:
        name = _str(call.get("name")) or "tool"
        call_id = _str(call.get("id")) or f"{mid}-{name}"
        args = call.get("args")
        category = _CATEGORY.get(name.lower(), ToolCategory.OTHER)
        fields: dict[str, Any] = {"category": category}
        meta: dict[str, Any] = {}
        for key in ("displayName", "description", "agentId"):
            if _str(call.get(key)):
                meta[key] = call[key]
        status = call.get("status")
        if status not in _OK_STATUS:
            meta["status"] = status
        if isinstance(args, dict):
            if category == ToolCategory.SHELL:
                fields["command"] = _str(args.get("command"))
                for key in ("directory", "dir_path", "cwd"):
                    if _str(args.get(key)):
                        meta["directory"] = args[key]
            path = _tool_path(args)
            if path and category in (ToolCategory.READ, ToolCategory.EDIT, ToolCategory.SEARCH):
                fields["path"] = path
        display = call.get("resultDisplay")
        result_blocks: list[Block] = []
        if isinstance(display, dict) and isinstance(display.get("fileDiff"), str):
            fields["diff"] = clean_file_diff(display["fileDiff"])
            fields["path"] = fields.get("path") or _str(display.get("filePath")) or _str(display.get("fileName"))
            if isinstance(display.get("diffStat"), dict):
                meta["diffStat"] = display["diffStat"]
            if isinstance(display.get("isNewFile"), bool):
                meta["isNewFile"] = display["isNewFile"]
        elif category == ToolCategory.EDIT and isinstance(args, dict) and fields.get("path"):
            if "old_string" in args or "new_string" in args:
                fields["diff"] = synth_diff(
                    fields["path"], as_text(args.get("old_string")), as_text(args.get("new_string"))
                )
            elif isinstance(args.get("content"), str):
                fields["diff"] = synth_diff(fields["path"], "", args["content"])
        elif isinstance(display, dict) and display:
            result_blocks.append(Block("json", title="result display", data=display))
        elif isinstance(display, list) and display:
            result_blocks.append(Block("text", text=_ansi_text(display)))
        fields = {k: v for k, v in fields.items() if v is not None}
        self.emit(
            call_id,
            line,
            kind=Kind.TOOL_CALL,
            timestamp=parse_time(call.get("timestamp")) or ts,
            tool_name=name,
            tool_input=args,
            call_id=call_id,
            model=model,
            meta=meta,
            **fields,
        )
        self._tool_result(call, call_id, name, category, display, result_blocks, line, ts)

    def _tool_result(
        self,
        call: dict[str, Any],
        call_id: str,
        name: str,
        category: ToolCategory,
        display: Any,
        extra: list[Block],
        line: int,
        ts: Any,
    ) -> None:
        result = call.get("result")
        status = call.get("status")
        texts: list[str] = []
        blocks: list[Block] = []
        is_error = status not in _OK_STATUS and status not in (
            "executing",
            "scheduled",
            "validating",
            "awaiting_approval",
        )
        if result is not None:
            text, part_blocks, responses = parts_of(result)
            if text:
                texts.append(text)
            blocks += part_blocks
            for response in responses:
                body = response.get("response")
                if isinstance(body, dict):
                    if "output" in body:
                        texts.append(as_text(body["output"]))
                    if body.get("error") not in (None, ""):
                        texts.append(as_text(body["error"]))
                        is_error = True
                    rest = {k: v for k, v in body.items() if k not in ("output", "error")}
                    if rest:
                        blocks.append(Block("json", title="response", data=rest))
                elif body is not None:
                    texts.append(as_text(body))
                parts = response.get("parts")
                if isinstance(parts, list):
                    _, more, _ = parts_of(parts)
                    blocks += more
        text = "\n".join(t for t in texts if t)
        if not text and isinstance(display, str):
            text = display
        if (
            result is None
            and not text
            and not extra
            and status in _OK_STATUS | {"executing", "scheduled", "validating", "awaiting_approval"}
        ):
            return  # no result recorded (yet)
        exit_code = None
        if category == ToolCategory.SHELL:
            match = _EXIT_CODE.search(text[-4000:])
            if match:
                exit_code = int(match.group(1))
                is_error = is_error or exit_code != 0
        meta = {"status": status} if status not in _OK_STATUS else {}
        self.emit(
            f"{call_id}-result",
            line,
            kind=Kind.TOOL_RESULT,
            timestamp=parse_time(call.get("timestamp")) or ts,
            tool_name=name,
            call_id=call_id,
            text=text,
            blocks=tuple(blocks + extra),
            is_error=is_error,
            exit_code=exit_code,
            meta=meta,
        )

    # ---- the session

    def finish(self) -> Session | None:
        header = self.header
        for position, entry in enumerate(self.entries):
            kind, key, line, record = entry
            try:
                if kind == "msg":
                    self._message_events(record, line, position)
                elif kind == "rewind":
                    self.emit(
                        f"rewind-{line}",
                        line,
                        kind=Kind.SYSTEM,
                        title="Conversation rewound",
                        text=f"{record} message(s) from this point on were discarded by a rewind."
                        if record
                        else "A rewind to a message not in this file; nothing was discarded.",
                        meta={"rewind_to": key},
                    )
                else:
                    self.emit(f"line-{line}", line, kind=Kind.UNKNOWN, title=key, raw=record)
            except Exception as exc:  # one odd message must not stop the file
                self.problems.add(
                    self.path,
                    line if self.jsonl else None,
                    f"could not interpret message {key!r} ({type(exc).__name__}: {exc}); shown as raw JSON",
                )
                self.emit(f"line-{line}", line, kind=Kind.UNKNOWN, title="unreadable Gemini message", raw=record)
        if not self.events:
            self.problems.add(self.path, None, "no Gemini chat messages; skipped")
            return None
        sid = header.get("sessionId")
        if not isinstance(sid, str) or not sid.strip():
            self.problems.add(self.path, None, "no sessionId; using the file name")
            sid = self.path.stem
        project = _str(header.get("projectHash"))
        if project is None:
            self.problems.add(self.path, None, "no projectHash")
        meta: dict[str, Any] = {"session_id": sid}
        if project:
            meta["projectHash"] = project
        for key, value in header.items():
            if key not in ("sessionId", "projectHash", "startTime", "lastUpdated") and value not in (None, "", [], {}):
                meta[key] = value
        if self.path.parent.name not in ("chats", "") and header.get("kind") == "subagent":
            meta["parent_session_id"] = self.path.parent.name
        stamps = [e.timestamp for e in _walk(self.events) if e.timestamp]
        started = parse_time(header.get("startTime")) or (min(stamps) if stamps else None)
        ended = parse_time(header.get("lastUpdated")) or (max(stamps) if stamps else None)
        if stamps and (ended is None or max(stamps) > ended):
            ended = max(stamps)
        if stamps and (started is None or min(stamps) < started):
            started = min(stamps)
        usage = None
        if self.leftover_usage is not None:
            targets = [
                i for i, e in enumerate(self.events) if e.kind in (Kind.THINKING, Kind.ASSISTANT, Kind.TOOL_CALL)
            ]
            if targets:
                event = self.events[targets[-1]]
                self.events[targets[-1]] = replace(
                    event, usage=(event.usage + self.leftover_usage) if event.usage else self.leftover_usage
                )
            else:
                usage = self.leftover_usage
        summary = _str(header.get("summary"))
        title = (
            _shorten(summary)
            if summary
            else next((_shorten(e.text) for e in self.events if e.kind == Kind.USER and e.text.strip()), None)
        )
        return Session(
            id=make_session_id(NAME, sid),
            source=SourceRef(str(self.path), NAME),
            agent=AGENT,
            events=tuple(self.events),
            title=title,
            started=started,
            ended=ended,
            project=project,
            models=tuple(self.models),
            usage=usage,
            meta=meta,
            skipped=dict(self.skipped),
        )


def _ansi_text(lines: list[Any]) -> str:
    """Plain text of an AnsiOutput display (lines of styled tokens)."""
    out = []
    for line in lines:
        if isinstance(line, list):
            out.append("".join(as_text(t.get("text")) if isinstance(t, dict) else as_text(t) for t in line))
        else:
            out.append(as_text(line))
    return "\n".join(out)


READER = GeminiReader()
