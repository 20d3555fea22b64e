"""The pi coding agent reader: ``~/.pi/agent/sessions/--<folder>--/<time>_<id>.jsonl``.

One file is one session. Line 1 is the header ``{"type": "session", "version", "id",
"timestamp", "cwd"}``; then entries ``{type, id, parentId, timestamp, …}``: messages
(``messages``), model and thinking-level changes, compactions, branch summaries,
extensions' messages and state, labels and the session's name. Every line is shown,
merged or counted with a reason; entries on a branch the session left are kept, marked.

OpenClaw keeps its sessions in this format (``~/.openclaw/agents/<agent>/sessions/<id>.jsonl``),
with a run trace ``<id>.trajectory.jsonl`` beside each: the trace is read with its transcript
and its records counted as left out (its prompts and replies are the transcript's).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Kind, Problems, Session
from sessite.readers import ledger
from sessite.readers._util import named, obj, shorten, text_of
from sessite.readers.base import Reader, Sniff, parse_time
from sessite.readers.files import iter_jsonl
from sessite.readers.formats.pi import messages
from sessite.readers.formats.pi.index import index_file
from sessite.readers.formats.pi.state import PiFile
from sessite.readers.formats.pi.vocabulary import NAME, NOT_SHOWN
from sessite.readers.platform import Platform, unique

_ROLES = {
    "user": messages.user,
    "assistant": messages.assistant,
    "toolResult": messages.tool_result,
    "bashExecution": messages.bash,
}
ENTRY_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)


class PiReader(Reader):
    name = NAME
    agent = "pi"

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.path.suffix.lower() != ".jsonl":
            return False
        head = sniffed.object_line()
        first = head[2] if head is not None else None
        if first is None:
            return False
        if first.get("type") == "session":
            return "version" in first and isinstance(first.get("id"), str) and ("cwd" in first or "timestamp" in first)
        entries = list(sniffed.json_lines(5))  # a header cut off: entries of pi's own types, tree-linked
        return len(entries) >= 2 and all(
            named(e.get("type"), ENTRY_TYPES) and "parentId" in e and "id" in e for e in entries
        )

    def session_key(self, sniffed: Sniff) -> str | None:
        head = sniffed.object_line()
        first = head[2] if head is not None else None
        return text_of(first.get("id")) if first is not None and first.get("type") == "session" else None

    def default_folders(self, plat: Platform) -> list[Path]:
        """``~/.pi/agent/sessions`` (``$PI_CODING_AGENT_DIR/sessions`` when set); the same on every system."""
        base = plat.var("PI_CODING_AGENT_DIR")
        return unique([*([base / "sessions"] if base else []), plat.home / ".pi" / "agent" / "sessions"])

    def companions(self, path: Path) -> list[Path]:
        """OpenClaw's run trace beside a transcript, read (and collected) with it."""
        trace = _trace_of(path)
        return [trace] if trace is not None else []

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        index = index_file(path, problems)
        if not index.records:
            return
        f = PiFile(path, problems, index)
        for line, record in index.records:
            try:
                _entry(f, line, record)
            except Exception as exc:  # noqa: BLE001 - one odd entry costs that entry, never the file
                f.unreadable(line, f"{text_of(record.get('type')) or 'untyped'} entry", record, exc)
        trace = _trace_of(path)
        if trace is not None:
            _account_trace(f, trace, problems)
        header = index.header
        meta = dict(f.facts.meta)
        for key, label in (
            ("version", "format version"),
            ("parentSession", "forked from"),
            ("branchedFrom", "branched from"),
        ):
            if header.get(key) not in (None, ""):
                meta[label] = header[key]
        yield f.finish(
            text_of(header.get("id")) or path.stem,
            started=parse_time(header.get("timestamp")),
            cwd=text_of(header.get("cwd")),
            title=index.name or f.facts.prompt,
            meta=meta,
        )


_TRACE_SUFFIX = ".trajectory.jsonl"
_TRACE_LEFT_OUT = "OpenClaw run trace record (its prompts and replies are the transcript's)"


def _trace_of(path: Path) -> Path | None:
    if path.suffix != ".jsonl" or path.name.endswith(_TRACE_SUFFIX):
        return None
    trace = path.with_name(path.stem + _TRACE_SUFFIX)
    return trace if trace.is_file() else None


def _account_trace(f: PiFile, trace: Path, problems: Problems) -> None:
    """Each record of the run trace, counted as left out (the transcript shows the runs)."""
    for line, _record in iter_jsonl(trace, problems):
        f.skipped[_TRACE_LEFT_OUT] += 1
        ledger.not_shown(trace, line, _TRACE_LEFT_OUT)


def _entry(f: PiFile, line: int, record: dict[str, Any]) -> None:
    kind = text_of(record.get("type")) or ""
    entry = text_of(record.get("id"))
    ts = parse_time(record.get("timestamp"))
    if kind == "session" and line == f.index.header_line:
        f.merged(line, "session header (its id, folder and start are the session's facts)")
    elif kind in NOT_SHOWN:
        f.skip(NOT_SHOWN[kind], line=line)
    elif kind == "message":
        message = obj(record.get("message"))
        handler = _ROLES.get(str(message.get("role")))
        if handler is not None:
            handler(f, line, entry, ts, message)
        else:
            _other_message(f, line, entry, ts, message)
    elif kind == "model_change":
        model = text_of(record.get("modelId"))
        f.model(model)
        provider = text_of(record.get("provider"))
        f.put(
            entry or f"model-{line}",
            entry,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title="Model",
            text=f"{provider}/{model}" if provider and model else model or "",
            line=line,
        )
    elif kind == "thinking_level_change":
        f.put(
            entry or f"thinking-{line}",
            entry,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title="Thinking level",
            text=text_of(record.get("thinkingLevel")) or "",
            line=line,
        )
    elif kind in ("compaction", "branch_summary"):
        _summary(f, line, entry, ts, kind, record)
    elif kind == "custom_message":
        meta = {"shown in pi": record["display"]} if isinstance(record.get("display"), bool) else {}
        messages.note(
            f, line, entry, ts, text_of(record.get("customType")) or "Extension message", record.get("content"), meta
        )
    elif kind == "label":
        target = text_of(record.get("targetId"))
        if target and target in f.shown_entries and target in f.index.labels:
            f.merged(line, "label (shown on the entry it names)")
        else:
            f.skip("label of an entry this file does not show, or a label cleared", line=line)
    else:
        f.other(line, kind or "untyped")
        f.put(
            entry or f"entry-{line}",
            entry,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title=shorten(kind or "entry", 60),
            line=line,
        )


def _summary(f: PiFile, line: int, entry: str | None, ts: Any, kind: str, record: dict[str, Any]) -> None:
    details = obj(record.get("details"))
    meta: dict[str, Any] = {}
    if record.get("tokensBefore") is not None:
        meta["tokens before"] = record["tokensBefore"]
    for key, label in (("readFiles", "files read"), ("modifiedFiles", "files changed")):
        if isinstance(details.get(key), list) and details[key]:
            meta[label] = [str(p) for p in details[key]]
    if kind == "branch_summary":
        f.put(
            entry or f"branch-{line}",
            entry,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title="Summary of the branch left",
            text=text_of(record.get("summary")) or "",
            line=line,
            meta=meta,
        )
    else:
        f.put(
            entry or f"compaction-{line}",
            entry,
            kind=Kind.COMPACTION,
            timestamp=ts,
            text=text_of(record.get("summary")) or "",
            line=line,
            meta=meta,
        )


def _other_message(f: PiFile, line: int, entry: str | None, ts: Any, message: dict[str, Any]) -> None:
    """Extension messages (``custom``; older ``hookMessage``), summaries as messages, and roles pi may add."""
    role = text_of(message.get("role")) or "untyped"
    if role in ("custom", "hookMessage"):
        meta = {"shown in pi": message["display"]} if isinstance(message.get("display"), bool) else {}
        messages.note(
            f, line, entry, ts, text_of(message.get("customType")) or "Extension message", message.get("content"), meta
        )
    elif role in ("branchSummary", "compactionSummary"):
        _summary(f, line, entry, ts, "branch_summary" if role == "branchSummary" else "compaction", message)
    else:
        f.other(line, f"message/{role}")
        messages.note(f, line, entry, ts, shorten(role, 60), message.get("content"), {})


READER = PiReader()
