"""Zed's ``threads.db``, read straight from the file (independently of the reader).

Records, numbered 1-based per file: the messages of every ``threads`` row (rows in rowid
order, each thread's ``messages`` in order); a thread whose data cannot be read is one
record. ``data_type`` ``zstd`` data is decompressed with the ``zstd`` command (or a Python
zstd module); the database and its ``-wal`` are copied to a temporary folder and opened there.

What a faithful page must show: a ``{"User": {content}}`` message's ``Text`` items (one
text), an ``{"Agent": {content}}`` message's ``Text`` items, and in the older shape the
``text`` segments of a ``user`` or ``assistant`` message; call ids: ``ToolUse`` ids (older:
``tool_uses[].id``); result ids: the keys of ``tool_results`` (older: ``tool_use_id``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, sqlite_rows

_NOT_RECORDS = ("-wal", "-shm", "-journal")


def records(path: Path) -> Iterator[Record]:
    if path.name.endswith(_NOT_RECORDS) or not path.is_file():
        return
    rows = sqlite_rows(
        path, lambda conn: conn.execute("SELECT data_type, data FROM threads ORDER BY rowid").fetchall(), []
    )
    line = 0
    for data_type, data in rows:
        thread = _thread(data_type, data)
        messages = thread.get("messages") if isinstance(thread, dict) else None
        if not isinstance(messages, list):
            line += 1
            yield Record(path, line, "thread (unreadable)")
            continue
        for message in messages:
            line += 1
            yield _message(Record(path, line, "message"), message)


def _thread(data_type: Any, data: Any) -> Any:
    raw = data.encode() if isinstance(data, str) else data
    if not isinstance(raw, bytes):
        return None
    if data_type == "zstd":
        raw = _unzstd(raw)
        if raw is None:
            return None
    try:
        return json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        return None


def _unzstd(raw: bytes) -> bytes | None:
    for name in ("compression.zstd", "zstandard"):
        try:
            module = __import__(name, fromlist=["decompress"])
            return module.decompress(raw) if name != "zstandard" else module.ZstdDecompressor().decompress(raw)
        except Exception:  # noqa: BLE001 - no such module, or a frame it cannot read
            continue
    binary = shutil.which("zstd")
    if binary is None:
        return None
    done = subprocess.run([binary, "-dcq"], input=raw, capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else None


def _message(out: Record, message: Any) -> Record:
    if not isinstance(message, dict):
        return out
    if isinstance(message.get("User"), dict):
        content = message["User"].get("content")
        text = "".join(i["Text"] for i in content or [] if isinstance(i, dict) and isinstance(i.get("Text"), str))
        if text.strip():
            out.user_texts.append(text.strip())
    elif isinstance(message.get("Agent"), dict):
        agent = message["Agent"]
        for item in agent.get("content") or []:
            if isinstance(item, dict) and isinstance(item.get("Text"), str) and item["Text"].strip():
                out.assistant_texts.append(item["Text"].strip())
            elif isinstance(item, dict) and isinstance(item.get("ToolUse"), dict):
                _add(out.calls, item["ToolUse"].get("id"))
        results = agent.get("tool_results")
        for key in results if isinstance(results, dict) else {}:
            _add(out.results, key)
    elif "role" in message:
        segments = message.get("segments") or []
        text = "".join(s.get("text", "") for s in segments if isinstance(s, dict) and s.get("type") == "text")
        if text.strip() and message["role"] in ("user", "assistant"):
            (out.user_texts if message["role"] == "user" else out.assistant_texts).append(text.strip())
        for use in message.get("tool_uses") or []:
            _add(out.calls, use.get("id") if isinstance(use, dict) else None)
        for result in message.get("tool_results") or []:
            _add(out.results, result.get("tool_use_id") if isinstance(result, dict) else None)
    return out


def _add(found: list[str], value: Any) -> None:
    if isinstance(value, str) and value:
        found.append(value)
