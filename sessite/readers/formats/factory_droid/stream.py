"""``droid exec --output-format stream-json``: one JSON object per line, as the run happens.

Records are ``system`` (the model, folder and tools), ``message`` (``role`` and ``text``),
``tool_call`` (``toolCallId`` or ``id``, ``toolName``, ``parameters``), ``tool_result`` (the same
id, ``value``: the output, or ``{stdout, stderr, exitCode}``; ``isError``), ``completion`` (the
final answer, ``usage``, ``numTurns``, ``durationMs``) and ``error``; each names the session.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import obj, opt_int, shorten, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.factory_droid.content import blocks_of, environment, usage_of, user_text
from sessite.readers.formats.factory_droid.state import DroidFile

STREAM_TYPES = frozenset({"system", "message", "tool_call", "tool_result", "completion", "error"})


def session_of(rec: dict[str, Any]) -> str | None:
    return text_of(rec.get("session_id")) or text_of(rec.get("sessionId"))


def record(f: DroidFile, line: int, rec: dict[str, Any]) -> None:
    kind = text_of(rec.get("type")) or ""
    ts = parse_time(rec.get("timestamp"))
    f.facts.session_id = f.facts.session_id or session_of(rec)
    base = text_of(rec.get("id")) or f"{kind}-{line}"
    if kind == "system":
        f.model(text_of(rec.get("model")))
        f.facts.cwd = f.facts.cwd or text_of(rec.get("cwd"))
        if text_of(rec.get("reasoning_effort")):
            f.facts.meta["reasoning effort"] = rec["reasoning_effort"]
        f.merged(line, "run start (model and folder in the session details)")
    elif kind == "message":
        role = rec.get("role")
        text = as_text(rec.get("text") or "")
        shown: list[Block] = []
        if role == "user":
            text, shown, added = user_text(blocks_of(text))
            f.note_env(environment(added))
        if not text.strip() and not shown:
            f.skip("empty message", line=line)
        else:
            kind_of = Kind.USER if role == "user" else Kind.ASSISTANT
            f.emit(base, kind=kind_of, timestamp=ts, text=text, blocks=tuple(shown), line=line)
    elif kind == "tool_call":
        name = text_of(rec.get("toolName")) or text_of(rec.get("toolId")) or "tool"
        call_id = text_of(rec.get("toolCallId")) or text_of(rec.get("id"))
        f.call(f"call-{line}", call_id, name, rec.get("parameters"), line, ts)
    elif kind == "tool_result":
        _result(f, line, rec, ts)
    elif kind == "completion":
        _completion(f, line, rec, ts, base)
    elif kind == "error":
        f.emit(
            base,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title="Error",
            text=as_text(rec.get("message") or ""),
            is_error=True,
            line=line,
            meta={"source": rec["source"]} if text_of(rec.get("source")) else {},
        )
    else:
        f.other(line, kind or "untyped")
        f.emit(base, kind=Kind.SYSTEM, timestamp=ts, title=shorten(kind or "record", 60), line=line)


def _result(f: DroidFile, line: int, rec: dict[str, Any], ts: Any) -> None:
    value = rec.get("value")
    exit_code = None
    if isinstance(value, dict):
        exit_code = opt_int(value.get("exitCode"))
        text = "\n".join(as_text(value[k]) for k in ("stdout", "stderr", "output") if value.get(k))
    else:
        text = as_text(value) if value is not None else ""
    call_id = text_of(rec.get("toolCallId")) or text_of(rec.get("id"))
    f.result(call_id, text, line, ts, rec.get("isError") is True, exit_code)


def _completion(f: DroidFile, line: int, rec: dict[str, Any], ts: Any, base: str) -> None:
    """The run's final answer (merged when the last message already says it) and its totals."""
    f.facts.usage = usage_of(obj(rec.get("usage"))) or f.facts.usage
    for key, label in (("numTurns", "turns"), ("durationMs", "duration ms")):
        if opt_int(rec.get(key)) is not None:
            f.facts.meta[label] = opt_int(rec.get(key))
    final = as_text(rec.get("finalText") or "")
    last = next((e for e in reversed(f.events) if e.kind == Kind.ASSISTANT), None)
    if not final.strip() or (last is not None and last.text.strip() == final.strip()):
        f.merged(line, "end of the run (its answer is the last message; its totals are in the session details)")
        return
    f.emit(base, kind=Kind.ASSISTANT, timestamp=ts, text=final, line=line, meta={"final answer": True})
