"""Session records: the session's facts, and the notes a reader of the session wants to see.

``session.start`` (and each ``session.resume`` and ``session.context_changed``) give the
working folder and the git repository, branch and head commit: session facts and git
refs. A warning, an error, a model or mode change, a plan change, a resume, a
compaction, the end of a run with its totals: titled system notes (a compaction is a
COMPACTION event with its summary). Sub-agent starts become the sub-agent's place on
the timeline; its end is merged into it. A record type this reader does not know is
still a titled note with its message and small facts, never raw JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sessite.model import Kind, Usage
from sessite.readers._util import obj, opt_int, shorten, text_of, to_int
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.copilot_cli.messages import unwrapped
from sessite.readers.formats.copilot_cli.state import CopilotFile, record_id
from sessite.readers.formats.copilot_cli.vocabulary import NOTE_TITLES

Note = tuple[str, dict[str, Any]]  # (text, details) of a system note


def session_start(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    facts = f.facts
    facts.session_id = facts.session_id or text_of(data.get("sessionId"))
    facts.started = facts.started or parse_time(data.get("startTime")) or parse_time(record.get("timestamp"))
    for key in ("copilotVersion", "producer"):
        if text_of(data.get(key)):
            facts.meta.setdefault(key, data[key])
    _context(f, obj(data.get("context")))
    f.model(text_of(data.get("selectedModel")))
    f.merged(line, "session start (shown as the session's facts)")


def _context(f: CopilotFile, context: dict[str, Any]) -> None:
    """A working context's folder and git refs (the first folder is the session's)."""
    facts = f.facts
    facts.cwd = facts.cwd or text_of(context.get("cwd"))
    if text_of(context.get("branch")):
        facts.branches.setdefault(context["branch"])
    if text_of(context.get("headCommit")) and set(context["headCommit"]) != {"0"}:
        facts.commits.setdefault(context["headCommit"])
    repo = text_of(context.get("repository"))
    if repo:
        host = text_of(context.get("repositoryHost"))
        facts.repos.setdefault(f"{host}/{repo}" if host and "/" not in host and "://" not in repo else repo)


def _context_text(context: dict[str, Any]) -> str:
    parts = []
    for key, label in (("cwd", "folder"), ("branch", "branch"), ("headCommit", "head")):
        value = text_of(context.get(key))
        if value:
            parts.append(f"{label} `{value[:12] if key == 'headCommit' else value}`")
    return ", ".join(parts)


def _resume(f: CopilotFile, data: dict[str, Any]) -> Note:
    context = obj(data.get("context"))
    _context(f, context)
    model = text_of(data.get("selectedModel"))
    f.model(model)
    where = _context_text(context)
    text = "; ".join(p for p in (f"model {model}" if model else "", where) if p)
    return text, _scalars(data, ("resumeTime", "eventCount", "reasoningEffort"))


def _context_changed(f: CopilotFile, data: dict[str, Any]) -> Note:
    _context(f, data)
    return _context_text(data), {}


def _model_change(f: CopilotFile, data: dict[str, Any]) -> Note:
    new = text_of(data.get("newModel"))
    f.model(new)
    old = text_of(data.get("previousModel"))
    effort = text_of(data.get("reasoningEffort"))
    text = f"{old} → {new}" if old and new else (new or "")
    return (f"{text} (reasoning effort {effort})" if effort else text), _scalars(data, ("contextTier",))


def _auto_model(f: CopilotFile, data: dict[str, Any]) -> Note:
    chosen = text_of(data.get("chosenModel"))
    f.model(chosen)
    return chosen or "", _scalars(data, ("reasoningBucket", "predictedLabel", "confidence", "routingMethod"))


def _change(old: str, new: str) -> Callable[[CopilotFile, dict[str, Any]], Note]:
    def note(f: CopilotFile, data: dict[str, Any]) -> Note:
        before, after = as_text(data.get(old)), as_text(data.get(new))
        return (f"{before} → {after}" if data.get(old) is not None else after), {}

    return note


def _message(key: str, kind_key: str | None = None) -> Callable[[CopilotFile, dict[str, Any]], Note]:
    def note(f: CopilotFile, data: dict[str, Any]) -> Note:
        facts = {"type": data[kind_key]} if kind_key and text_of(data.get(kind_key)) else {}
        facts.update(_scalars(data, ("statusCode", "success", "operation", "errorCode")))
        return unwrapped(as_text(data.get(key) or "")), facts

    return note


def _title(f: CopilotFile, data: dict[str, Any]) -> Note:
    """Copilot's own name for the session (the page's title stays the user's words)."""
    title = as_text(data.get("title") or "")
    if title.strip():
        f.facts.meta["copilot title"] = shorten(title, 200)
    return title, {}


def _notification(f: CopilotFile, data: dict[str, Any]) -> Note:
    kind = obj(data.get("kind"))
    return unwrapped(as_text(data.get("content") or "")), _scalars(kind, tuple(k for k in kind if k != "prompt"))


def _plan(f: CopilotFile, data: dict[str, Any]) -> Note:
    """The plan file (``plan.md`` in the session's folder) was created, updated or deleted."""
    operation = text_of(data.get("operation"))
    return (_DONE.get(operation, operation) if operation else ""), {}


_DONE = {"create": "created", "update": "updated", "delete": "deleted"}


def _truncation(f: CopilotFile, data: dict[str, Any]) -> Note:
    removed = opt_int(data.get("messagesRemovedDuringTruncation"))
    tokens = opt_int(data.get("tokensRemovedDuringTruncation")) or opt_int(data.get("droppedTokens"))
    parts = [f"{removed} messages removed" if removed else "", f"{tokens} tokens dropped" if tokens else ""]
    return ", ".join(p for p in parts if p), _scalars(data, tuple(data))


def _shutdown(f: CopilotFile, data: dict[str, Any]) -> Note:
    """The end of a run: its totals (cumulative over resumes, as its premium requests are)."""
    usage = _shutdown_usage(data)
    if usage:
        f.facts.usage = usage
    for key, label in (("totalPremiumRequests", "premium requests"), ("totalNanoAiu", "AI units (nano)")):
        if data.get(key) is not None:
            f.facts.meta[label] = data[key]
    f.model(text_of(data.get("currentModel")))
    changes = obj(data.get("codeChanges"))
    files = changes.get("filesModified") if isinstance(changes.get("filesModified"), list) else []
    parts = [as_text(data.get("shutdownType") or "")]
    if changes:
        parts.append(f"+{to_int(changes.get('linesAdded'))} −{to_int(changes.get('linesRemoved'))} lines")
    meta = _scalars(data, ("totalPremiumRequests", "totalApiDurationMs", "currentModel", "currentTokens"))
    if files:
        meta["files modified"] = [as_text(p) for p in files]
    return ", ".join(p for p in parts if p), meta


def _shutdown_usage(data: dict[str, Any]) -> Usage | None:
    usage = Usage()
    for metrics in obj(data.get("modelMetrics")).values():
        counts = obj(obj(metrics).get("usage"))
        read, write = to_int(counts.get("cacheReadTokens")), to_int(counts.get("cacheWriteTokens"))
        usage = usage + Usage(
            input_tokens=max(to_int(counts.get("inputTokens")) - read - write, 0),
            output_tokens=to_int(counts.get("outputTokens")),
            cache_read_tokens=read,
            cache_write_tokens=write,
            reasoning_tokens=to_int(counts.get("reasoningTokens")),
        )
    if usage:
        return usage
    details = obj(data.get("tokenDetails"))

    def count(key: str) -> int:
        return to_int(obj(details.get(key)).get("tokenCount"))

    usage = Usage(count("input"), count("output"), count("cache_read"), count("cache_write"))
    return usage or None


NOTES: dict[str, Callable[[CopilotFile, dict[str, Any]], Note]] = {
    "session.resume": _resume,
    "session.context_changed": _context_changed,
    "session.model_change": _model_change,
    "session.auto_mode_resolved": _auto_model,
    "session.mode_changed": _change("previousMode", "newMode"),
    "session.permissions_changed": _change("previousAllowAllPermissionMode", "allowAllPermissionMode"),
    "session.info": _message("message", "infoType"),
    "session.warning": _message("message", "warningType"),
    "session.error": _message("message", "errorType"),
    "session.task_complete": _message("summary"),
    "session.title_changed": _title,
    "abort": _message("reason"),
    "system.notification": _notification,
    "session.plan_changed": _plan,
    "session.truncation": _truncation,
    "session.shutdown": _shutdown,
}


def note(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    """A titled system note for a session record (``NOTES``)."""
    kind = str(record.get("type"))
    text, meta = NOTES[kind](f, data)
    title = NOTE_TITLES.get(kind, kind)
    sub = meta.pop("type", None)
    if sub:
        title = f"{title} ({shorten(as_text(sub), 40)})"
    f.put(
        record_id(record, kind),
        f.parent_of(data) if kind == "system.notification" else None,
        kind=Kind.SYSTEM,
        timestamp=parse_time(record.get("timestamp")),
        title=title,
        text=text,
        is_error=kind == "session.error",
        line=line,
        meta=meta,
    )


def compaction(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    """A finished compaction: its summary; a start is merged into the compaction that follows it."""
    if record.get("type") == "session.compaction_start":
        if any(done > line for done in f.index.compactions):
            f.merged(line, "compaction start (shown with its summary)")
        else:
            f.skip("compaction started, no result recorded", line=line)
        return
    meta = _scalars(data, ("success", "preCompactionTokens", "preCompactionMessagesLength", "checkpointNumber"))
    meta.update(_scalars(data, ("checkpointPath",)))
    error = data.get("error")
    text = unwrapped(as_text(data.get("summaryContent") or "")) or (as_text(error) if error else "")
    f.put(
        record_id(record, "compaction"),
        None,
        kind=Kind.COMPACTION,
        timestamp=parse_time(record.get("timestamp")),
        title="Context compacted" if data.get("success") is not False else "Compaction failed",
        text=text,
        line=line,
        meta=meta,
    )


def subagent(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    """A sub-agent's start is its place on the timeline; its end is merged into it."""
    call_id = text_of(data.get("toolCallId"))
    kind = record.get("type")
    if not call_id:
        f.put(record_id(record, "agent"), None, kind=Kind.SYSTEM, title=str(kind), text=_summary(data), line=line)
        return
    if kind == "subagent.started":
        f.agent_records.setdefault(call_id, data)
        f.subagent(call_id, line, parse_time(record.get("timestamp")))
        f.model(text_of(data.get("model")))
        return
    if call_id in f.agents or call_id in f.index.agent_started:
        f.merged(line, "sub-agent end (shown in the sub-agent's details)")
        return
    f.agent_records.setdefault(call_id, data)  # no start recorded: the end names the agent
    f.subagent(call_id, line, parse_time(record.get("timestamp")))


def other(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    """A record type this reader does not know: a titled note with its message and small facts."""
    kind = text_of(record.get("type")) or "untyped"
    if kind not in f.noted_types:
        f.noted_types.add(kind)
        f.report(line, f"record type {shorten(kind, 60)!r} is not known; shown as a system note")
    f.put(
        record_id(record, kind),
        f.parent_of(data),
        kind=Kind.SYSTEM,
        timestamp=parse_time(record.get("timestamp")),
        title=shorten(kind, 60),
        text=_summary(data),
        line=line,
        meta=_scalars(data, tuple(k for k in data if k not in _TEXT_KEYS)),
    )


_TEXT_KEYS = ("message", "content", "summary", "text", "reason", "description")


def _summary(data: dict[str, Any]) -> str:
    for key in _TEXT_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return unwrapped(value)
    return ""


def _scalars(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The small facts among ``keys``: strings (cut short), numbers and booleans."""
    out: dict[str, Any] = {}
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value:
            out[key] = shorten(value, 300)
        elif isinstance(value, (bool, int, float)):
            out[key] = value
    return out
