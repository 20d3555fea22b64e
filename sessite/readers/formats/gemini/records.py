"""A Gemini chat file read into its header and message records.

Re-written messages (the same ``id`` again) replace the earlier write in place,
and ``$rewindTo`` discards the named message and every later one, as the CLI
does when it loads the file. Events are made later, from what is left.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sessite.model import Problems
from sessite.readers.files import iter_jsonl, load_json

NAME = "gemini"

EntryKind = Literal["msg", "unknown", "rewind"]


@dataclass
class Entry:
    """One record in file order: a message, an unrecognised line, or a rewind marker."""

    kind: EntryKind
    key: Any  # message id / title of the unknown line / rewind target
    line: int
    record: Any  # the message / the raw line / how many messages the rewind discarded


class Chat:
    """One chat's header and records (in first-appearance order), and what was skipped on the way."""

    def __init__(self, path: Path, problems: Problems, jsonl: bool) -> None:
        self.path = path
        self.problems = problems
        self.jsonl = jsonl
        self.header: dict[str, Any] = {}
        self.header_lines = 0
        self.entries: list[Entry] = []
        self.by_id: dict[str, Entry] = {}
        self.skipped: Counter[str] = Counter()

    def add_message(self, message: dict[str, Any], line: int, keyed: bool) -> None:
        mid = message.get("id")
        if keyed and isinstance(mid, str) and mid in self.by_id:
            entry = self.by_id[mid]
            entry.line, entry.record = line, message
            self.skipped["earlier write of a re-written message (the last write is shown)"] += 1
            return
        entry = Entry("msg", mid, line, message)
        self.entries.append(entry)
        if keyed and isinstance(mid, str):
            self.by_id[mid] = entry

    def add_unknown(self, obj: Any, line: int, title: str, problem: str) -> None:
        self.problems.add(self.path, line, problem)
        self.entries.append(Entry("unknown", title, line, obj))

    def rewind(self, target: Any, line: int) -> None:
        """``$rewindTo``: the named message and every later one are discarded."""
        start = next((i for i, e in enumerate(self.entries) if e.kind == "msg" and e.key == target), None)
        if start is None:
            # The CLI would drop the whole history here; an archive keeps it and says so.
            self.problems.add(self.path, line, f"$rewindTo names an unknown message {target!r}; nothing discarded")
            self.entries.append(Entry("rewind", target, line, 0))
            return
        removed = 0
        for entry in self.entries[start:]:
            if entry.kind == "msg":
                removed += 1
                if isinstance(entry.key, str):
                    self.by_id.pop(entry.key, None)
        self.entries = self.entries[:start] + [e for e in self.entries[start:] if e.kind != "msg"]
        self.entries.append(Entry("rewind", target, line, removed))
        if removed:
            self.skipped["message discarded by a rewind ($rewindTo)"] += removed


def read_json_document(path: Path, problems: Problems) -> Chat | None:
    """The older form: one JSON object holding the header and a ``messages`` array."""
    doc = load_json(path, problems)
    if doc is None:
        return None
    if not isinstance(doc, dict):
        problems.add(path, None, f"Gemini chat: top level is {type(doc).__name__}, expected an object")
        return None
    chat = Chat(path, problems, jsonl=False)
    chat.header.update({k: v for k, v in doc.items() if k != "messages"})
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
        chat.add_message(message, index + 1, keyed=False)
    return chat


def read_jsonl(path: Path, problems: Problems) -> Chat:
    """The newer form: a header line, then messages, ``$set`` patches and ``$rewindTo`` markers."""
    chat = Chat(path, problems, jsonl=True)
    for lineno, obj in iter_jsonl(path, problems):
        _add_line(chat, obj, lineno)
    return chat


def _add_line(chat: Chat, obj: dict[str, Any], lineno: int) -> None:
    if "$rewindTo" in obj:
        chat.rewind(obj.get("$rewindTo"), lineno)
    elif "$set" in obj:
        _apply_set(chat, obj, lineno)
    elif isinstance(obj.get("id"), str) and ("type" in obj or "content" in obj):
        chat.add_message(obj, lineno, keyed=True)
    elif isinstance(obj.get("sessionId"), str) and "projectHash" in obj:
        _add_header_line(chat, obj, lineno)
    else:
        chat.add_unknown(
            obj, lineno, "unrecognised Gemini chat line", "unrecognised Gemini chat line; shown as raw JSON"
        )


def _apply_set(chat: Chat, obj: dict[str, Any], lineno: int) -> None:
    """``{"$set": {…}}``: a metadata patch (messages in it are added like message lines)."""
    if not isinstance(obj["$set"], dict):
        chat.add_unknown(obj, lineno, "malformed $set record", "$set is not an object; shown as raw JSON")
        return
    update = dict(obj["$set"])
    for message in update.pop("messages", None) or []:
        if isinstance(message, dict):
            chat.add_message(message, lineno, keyed=True)
    chat.header.update(update)
    chat.skipped["$set metadata update (applied to the session details)"] += 1


def _add_header_line(chat: Chat, obj: dict[str, Any], lineno: int) -> None:
    if chat.header_lines:
        chat.skipped["header line repeated (merged into the session details)"] += 1
    chat.header_lines += 1
    chat.header.update({k: v for k, v in obj.items() if k != "messages"})
    if isinstance(obj.get("messages"), list):  # a whole JSON document written as one line
        for message in obj["messages"]:
            if isinstance(message, dict):
                chat.add_message(message, lineno, keyed=True)
