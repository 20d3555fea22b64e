"""Transcripts embedded in git-ai notes, as sessions the build reads like any archive.

Before git-ai 1.3.4 a prompt record of a note (``refs/notes/ai``) could carry the conversation
itself: ``messages: [{type: user|assistant|thinking|plan|tool_use, text | name+input, timestamp}]``
beside its ``agent_id`` (tool, id, model). Each becomes one HAIL file named after the agent's own
session id, so the note's link finds a real session page. A session spans several commits, each
note holding the transcript up to then: per session id only the longest is kept. Later notes carry
``messages: []`` or ``messages_url`` (nothing to read): they stay names on the commit page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessite.gitlinks.stores import note_texts, split_note
from sessite.interchange.hail import hail_bytes
from sessite.model import Event, Kind, Session, SourceRef

_TEXT_KINDS = {"user": Kind.USER, "assistant": Kind.ASSISTANT, "thinking": Kind.THINKING, "plan": Kind.ASSISTANT}


@dataclass(frozen=True, slots=True)
class EmbeddedTranscript:
    """One prompt record's conversation, with who had it."""

    session_id: str
    tool: str
    model: str
    commit: str  # the commit whose note holds it
    messages: tuple[Any, ...]  # as the note has them: a message this version cannot read is skipped


def _when(value: Any) -> datetime | None:
    """git-ai's timestamps: RFC 3339 text (epoch seconds or milliseconds also accepted)."""
    try:
        if isinstance(value, str) and value:
            stamp = datetime.fromisoformat(value)
            return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return datetime.fromtimestamp(value / 1000 if value > 1e11 else value, UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def _records(meta: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for section in ("prompts", "sessions"):
        records = meta.get(section)
        if isinstance(records, dict):
            out.extend(r for r in records.values() if isinstance(r, dict))
    return out


def embedded_transcripts(repo: str | Path, refs: dict[str, str]) -> dict[str, EmbeddedTranscript]:
    """session id -> the longest transcript any note embeds for it."""
    best: dict[str, EmbeddedTranscript] = {}
    for commit, data in note_texts(repo, refs):
        _, meta = split_note(data.decode("utf-8", "replace"))
        for record in _records(meta or {}):
            agent = record.get("agent_id")
            messages = record.get("messages")
            if not isinstance(agent, dict) or not isinstance(messages, list):
                continue
            sid = agent.get("id")
            kept = tuple(messages)
            if not isinstance(sid, str) or not sid.strip() or not any(isinstance(m, dict) for m in kept):
                continue
            if sid not in best or len(kept) > len(best[sid].messages):
                tool, model = str(agent.get("tool") or "git-ai"), str(agent.get("model") or "")
                best[sid] = EmbeddedTranscript(sid, tool, model, commit, kept)
    return best


def _event(index: int, message: Any, model: str) -> Event | None:
    if not isinstance(message, dict):
        return None
    kind = message.get("type")
    when = _when(message.get("timestamp"))
    if kind == "tool_use":
        name = message.get("name")
        return Event(
            id=f"m{index}",
            kind=Kind.TOOL_CALL,
            timestamp=when,
            tool_name=name if isinstance(name, str) and name else "tool",
            tool_input=message.get("input"),
        )
    text = message.get("text")
    if kind not in _TEXT_KINDS or not isinstance(text, str):
        return None  # a message type this version does not know: left out, counted in ``skipped``
    return Event(
        id=f"m{index}",
        kind=_TEXT_KINDS[kind],
        timestamp=when,
        text=text,
        model=(model or None) if kind == "assistant" else None,
        title="plan" if kind == "plan" else None,
    )


def as_session(transcript: EmbeddedTranscript) -> Session:
    """The transcript as a session: the agent's tool, model and session id from the note's record."""
    events = [e for i, m in enumerate(transcript.messages) if (e := _event(i, m, transcript.model)) is not None]
    stamps = [e.timestamp for e in events if e.timestamp is not None]
    skipped = len(transcript.messages) - len(events)
    return Session(
        id=transcript.session_id,
        source=SourceRef(path=f"refs/notes/ai:{transcript.commit}", format="git-ai"),
        agent=transcript.tool,
        events=tuple(events),
        started=min(stamps) if stamps else None,
        ended=max(stamps) if stamps else None,
        models=(transcript.model,) if transcript.model else (),
        meta={"session_id": transcript.session_id, "git_ai_note": transcript.commit},
        skipped={"git-ai message of an unknown type": skipped} if skipped else {},
    )


def transcript_files(repo: str | Path, refs: dict[str, str]) -> tuple[dict[str, bytes], list[str]]:
    """session id -> the HAIL file of its embedded transcript; and a problem line per transcript
    that could not be written (a note is data from anywhere: it costs only itself)."""
    files: dict[str, bytes] = {}
    problems: list[str] = []
    for sid, transcript in embedded_transcripts(repo, refs).items():
        session = as_session(transcript)
        if not session.events:
            continue  # no message of a type this version reads: nothing to show
        try:
            files[sid] = hail_bytes(session)
        except (ValueError, TypeError, OverflowError) as exc:
            problems.append(f"git-ai note on {transcript.commit[:12]}: its transcript cannot be read ({exc})")
    return files, problems
