"""One record at a time: route each JSONL record to its handler, and the bookkeeping records.

``progress``, ``file-history-snapshot``, ``queue-operation`` and the other bookkeeping
records are only counted (``Session.skipped``), except ``agent_progress`` records whose
embedded messages rebuild a sub-agent that has no file of its own. Title records
(``summary``, ``custom-title``, ``ai-title``…) feed the session title and details.
Every record gets a fate in the fidelity ledger: one its handler gave nothing to show
is counted here, with its type, rather than vanishing.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sessite.model import Kind
from sessite.readers._util import obj, shown, text_of
from sessite.readers.base import parse_time
from sessite.readers.formats.claude_code.assistant import read_assistant
from sessite.readers.formats.claude_code.attachments import read_attachment
from sessite.readers.formats.claude_code.queue import read_queue_operation, settle
from sessite.readers.formats.claude_code.state import Transcript, unknown_spec
from sessite.readers.formats.claude_code.system import read_system
from sessite.readers.formats.claude_code.user import read_user
from sessite.readers.formats.claude_code.vocabulary import META_TYPES, SKIP_PROGRESS, SKIP_TYPES, TITLE_FIELDS


def read_stream(transcript: Transcript, records: Iterable[tuple[int, dict[str, Any]]]) -> Transcript:
    """Feed every (line, record) to the transcript and finish it."""
    for lineno, rec in records:
        feed(transcript, lineno, rec)
    settle(transcript)
    transcript.finish()
    return transcript


def feed(t: Transcript, lineno: int, rec: dict[str, Any]) -> None:
    """One record; an odd record becomes an UNKNOWN event and a problem, never an exception."""
    t.records += 1
    kind = rec.get("type")
    ts = parse_time(rec.get("timestamp"))
    t.note_time(ts)
    t.note_envelope(rec)
    uuid = rec.get("uuid")
    if isinstance(uuid, str):
        t.uuids.add(uuid)
    fates = t.fates
    try:
        _dispatch(t, lineno, rec, kind, ts)
    except Exception as exc:  # never let one odd record stop the file
        t.problems.add(
            t.path, lineno, f"could not interpret {shown(kind)} record ({type(exc).__name__}: {exc}); shown as raw JSON"
        )
        t.emit_one(lineno, rec, ts, unknown_spec(f"unreadable {shown(kind)} record", rec))
    if t.fates == fates:
        t.skip(f"{kind[:40] if isinstance(kind, str) else 'untyped'} record with nothing to show", lineno)


def _dispatch(t: Transcript, lineno: int, rec: dict[str, Any], kind: Any, ts: datetime | None) -> None:
    if kind == "assistant":
        read_assistant(t, lineno, rec, ts)
    elif kind == "user":
        read_user(t, lineno, rec, ts)
    elif kind == "system":
        read_system(t, lineno, rec, ts)
    elif kind == "attachment":
        read_attachment(t, lineno, rec, ts)
    elif kind == "progress":
        _read_progress(t, lineno, rec)
    elif kind == "queue-operation":
        read_queue_operation(t, lineno, rec, ts)
    elif isinstance(kind, str) and kind in SKIP_TYPES:
        t.skip(SKIP_TYPES[kind], lineno)
    elif isinstance(kind, str) and kind in META_TYPES:
        _read_metadata(t, lineno, kind, rec)
    elif kind == "pr-link":
        _read_pr_link(t, lineno, rec, ts)
    else:
        t.emit_one(lineno, rec, ts, unknown_spec(f"unknown record type {kind!r}", rec))


def _read_progress(t: Transcript, lineno: int, rec: dict[str, Any]) -> None:
    """Count a progress record; keep an ``agent_progress`` message when its sub-agent has no file."""
    data = obj(rec.get("data"))
    dtype = data.get("type")
    if dtype == "agent_progress" and _keep_agent_message(t, lineno, rec, data):
        return  # shown as the rebuilt sub-agent
    reason = SKIP_PROGRESS.get(dtype) if isinstance(dtype, str) else None
    t.skip(reason or f"progress record ({shown(dtype) if dtype else 'no type'})", lineno)


def _keep_agent_message(t: Transcript, lineno: int, rec: dict[str, Any], data: dict[str, Any]) -> bool:
    """Link the sub-agent to its call; keep its embedded message (once) for a rebuild.

    True when the record is shown (as part of a rebuilt sub-agent) rather than counted.
    """
    agent_id = text_of(data.get("agentId"))
    parent_call = text_of(rec.get("parentToolUseID"))
    if agent_id and parent_call:
        t.agent_links.setdefault(agent_id, parent_call)
    message = data.get("message")
    if not (
        agent_id
        and agent_id not in t.agent_files
        and isinstance(message, dict)
        and message.get("type") in ("user", "assistant")
    ):
        return False
    key = f"{agent_id}:{message.get('uuid')}" if message.get("uuid") else None
    if key is not None and key in t.progress_seen:
        t.merge(lineno, "progress record (a repeat of a sub-agent message shown once)")
        return True
    if key:
        t.progress_seen.add(key)
    t.progress.setdefault(agent_id, []).append((lineno, message))
    t.pending()  # the rebuilt sub-agent gives it its fate
    return True


def _read_metadata(t: Transcript, lineno: int, kind: str, rec: dict[str, Any]) -> None:
    """Title, agent name and permission mode records: facts about the session, not events."""
    field_name = TITLE_FIELDS.get(kind)
    value = text_of(rec.get(field_name)) if field_name else None
    if kind == "ai-title" and value is None:
        value = text_of(rec.get("title"))
    if value and kind == "summary":
        leaf = rec.get("leafUuid")
        if isinstance(leaf, str):
            t.summary_leaves.pop(leaf, None)  # a later summary of the same conversation wins
            t.summary_leaves[leaf] = value
        else:
            t.titles[kind] = value  # no leaf named: this file's
    elif value:
        t.titles[kind] = value
    if kind == "agent-name" and value:
        t.meta["agent_name"] = value
    elif kind in ("mode", "permission-mode"):
        mode = text_of(rec.get("mode")) or text_of(rec.get("permissionMode"))
        if mode:
            t.meta["mode"] = mode
    t.skip(f"{kind} record (used for the session title and details)", lineno)


def _read_pr_link(t: Transcript, lineno: int, rec: dict[str, Any], ts: datetime | None) -> None:
    """A pull request the session opened: a SYSTEM event (once per PR) and git refs."""
    url = text_of(rec.get("prUrl"))
    number = rec.get("prNumber")
    repo = text_of(rec.get("prRepository")) or text_of(rec.get("repository"))
    key = url or f"{repo}#{number}"
    if key in t.pull_requests:
        t.skip("pr-link record (repeated link to the same pull request)", lineno)
        return
    t.pull_requests.setdefault(key)
    if repo:
        t.repos.setdefault(repo)
    if isinstance(number, int) and not isinstance(number, bool):
        t.issues.setdefault(f"{repo}#{number}" if repo else f"#{number}")
    label = f"#{number}" if isinstance(number, int) else "pull request"
    text = f"[{repo or ''}{label}]({url})" if url else f"{repo or ''}{label}"
    meta = {k: rec[k] for k in ("prNumber", "prUrl", "prRepository") if k in rec}
    t.emit_one(lineno, rec, ts, {"kind": Kind.SYSTEM, "title": "Pull request linked", "text": text, "meta": meta})
