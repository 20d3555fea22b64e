"""One Continue session file (``sessions/<id>.json``) as a Session; the index and the dev data as records."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from sessite.model import Kind, Problems, Session, Usage
from sessite.readers import ledger
from sessite.readers._util import obj, opt_int, text_of, to_float
from sessite.readers.base import parse_time
from sessite.readers.files import iter_jsonl, load_json
from sessite.readers.formats.continue_dev.messages import history_item
from sessite.readers.formats.continue_dev.neighbours import INDEX_NAME, index_entry, reply_times
from sessite.readers.formats.continue_dev.state import SessionFile
from sessite.readers.formats.continue_dev.vocabulary import INDEX_ALONE, INDEX_MERGED, TELEMETRY, TELEMETRY_CHAT

_DRIVE = re.compile(r"^/[A-Za-z]:")


def session_of(path: Path, data: dict[str, Any], problems: Problems) -> Session:
    session_id = text_of(data.get("sessionId"))
    history = data.get("history")
    if not isinstance(history, list):
        problems.add(path, None, f"Continue: 'history' is {type(history).__name__}, not an array; no messages read")
        history = []
    f = SessionFile(path, problems, history, reply_times(path, session_id, problems))
    for line, item in enumerate(history, 1):
        if not isinstance(item, dict):
            f.report(line, f"history item is a {type(item).__name__}, not an object; shown as raw JSON")
            f.emit(f"item-{line}", kind=Kind.UNKNOWN, title="Continue history item", raw=item, line=line)
            continue
        try:
            history_item(f, item, line)
        except Exception as exc:  # noqa: BLE001 - one odd item costs that item, never the file
            f.unreadable(line, "history item", item, exc)
    entry = index_entry(path, session_id, problems) or {}
    meta: dict[str, Any] = {}
    for key, label in (("mode", "mode"), ("chatModelTitle", "model chosen")):
        if text_of(data.get(key)):
            meta[label] = data[key]
    usage = _session_usage(obj(data.get("usage")), meta)
    if any(e.usage for e in f.events):
        usage = None  # per-reply usage is shown; the session's total stays in the details
    title = text_of(data.get("title")) or text_of(entry.get("title"))
    chosen = text_of(data.get("chatModelTitle"))
    return f.finish(
        session_id or path.stem,
        started=parse_time(entry.get("dateCreated")),
        title=title.strip() if title else None,
        cwd=_folder(text_of(data.get("workspaceDirectory")) or text_of(entry.get("workspaceDirectory"))),
        models=tuple(f.models) or ((chosen,) if chosen else ()),
        usage=usage,
        meta=meta,
    )


def _folder(uri: str | None) -> str | None:
    """The workspace folder from its ``file://`` URI (``file:///c%3A/www`` is ``c:/www``)."""
    if not uri:
        return None
    if not uri.startswith("file:"):
        return uri
    path = unquote(urlsplit(uri).path)
    return path[1:] if _DRIVE.match(path) else path or None


def _session_usage(usage: dict[str, Any], meta: dict[str, Any]) -> Usage | None:
    """The session's cumulative usage (newer Continue): its tokens, and its cost in the details."""
    if not usage:
        return None
    cost = to_float(usage.get("totalCost"))
    if cost is not None:
        meta["cost"] = f"${cost:.4f}"
    total = Usage(
        input_tokens=opt_int(usage.get("promptTokens")) or 0,
        output_tokens=opt_int(usage.get("completionTokens")) or 0,
        cache_read_tokens=opt_int(obj(usage.get("promptTokensDetails")).get("cachedTokens")) or 0,
    )
    if total:
        meta["tokens (whole session)"] = total.total
    return total or None


def account_index(path: Path, problems: Problems) -> None:
    """``sessions.json``: each entry is shown with its session (its date and title), or its file is missing."""
    entries = load_json(path, problems)
    if entries is None:
        return
    if not isinstance(entries, list):
        problems.add(path, None, "Continue: the sessions index is not an array; skipped")
        return
    prefix = path.name[: -len(INDEX_NAME)] if path.name.endswith(INDEX_NAME) else ""
    for number, entry in enumerate(entries, 1):
        session_id = text_of(obj(entry).get("sessionId"))
        if session_id is None:
            problems.add(path, number, "Continue: index entry without a sessionId; skipped")
        there = session_id is not None and path.with_name(f"{prefix}{session_id}.json").is_file()
        if there:
            ledger.merged(path, number, INDEX_MERGED)
        else:
            ledger.not_shown(path, number, INDEX_ALONE)


def account_dev_data(path: Path, problems: Problems) -> None:
    """A dev-data log: Continue's telemetry, which the session files already show; counted line by line."""
    for line, record in iter_jsonl(path, problems):
        ledger.not_shown(path, line, TELEMETRY_CHAT if record.get("eventName") == "chatInteraction" else TELEMETRY)
