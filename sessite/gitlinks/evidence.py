"""What one session says about the commits it made: the evidence a link is built from.

Collected in a worker from the redacted session (small and picklable, kept in the build
cache): the session's own ``git commit`` output (``[branch sha] subject``), and the lines each
edit wrote (Edit/Write/MultiEdit inputs, ``apply_patch`` and every other edit's diff), as
stable 64-bit digests per file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sessite.model import Event, Kind, Session, ToolCategory, walk

# git's porcelain line after a commit: "[main 1a2b3c4] Subject", "[main (root-commit) 1a2b3c4] Subject",
# "[detached HEAD 1a2b3c4] Subject"
COMMIT_LINE = re.compile(
    r"(?m)^\[(?P<branch>[^\]\s]+(?: HEAD)?)(?: \(root-commit\))? (?P<sha>[0-9a-f]{7,40})\] (?P<subject>[^\n]+?)\s*$"
)
_SHA = re.compile(r"[0-9a-f]{7,40}")
MIN_LINE_CHARS = 4  # shorter lines ("}", "end", "") are in every file: no evidence of who wrote them
EDIT_LINE_LIMIT = 20000  # lines kept per session (a session that rewrote a vendored tree is not less linked)


@dataclass(frozen=True, slots=True)
class PrintedCommit:
    """A ``git commit`` the session ran, as it printed it (the sha may since have been rewritten)."""

    sha: str
    branch: str
    subject: str
    when: float | None  # unix seconds of the event that printed it
    url: str  # the event, from the site root


@dataclass(frozen=True, slots=True)
class EditLines:
    """The lines one edit (one turn) wrote into one file."""

    path: str
    lines: frozenset[int]
    when: float | None
    url: str


@dataclass(frozen=True, slots=True)
class SessionEvidence:
    id: str
    url: str
    title: str
    agent: str
    models: tuple[str, ...]
    started: float | None
    raw_ids: tuple[str, ...]  # the ids a tool outside sessite knows this session by (Entire, git-ai)
    cwd: str | None
    commits: tuple[PrintedCommit, ...] = ()
    edits: tuple[EditLines, ...] = field(default=())

    def __bool__(self) -> bool:
        return True


def line_key(line: str) -> int | None:
    """A stable digest of a line as the matcher compares it (whitespace around it ignored);
    None for a line too short or without a letter or digit to count as evidence."""
    text = line.strip()
    if len(text) < MIN_LINE_CHARS or not any(ch.isalnum() for ch in text):
        return None
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big")


def _seconds(when: datetime | None) -> float | None:
    return when.timestamp() if when is not None and when.tzinfo is not None else None


def raw_ids(session: Session) -> tuple[str, ...]:
    """The session's id as its own tool wrote it: sessite's id without the reader's prefix."""
    ids = [session.id]
    prefix = session.source.format + "-"
    if session.id.startswith(prefix):
        ids.append(session.id[len(prefix) :])
    for key in ("session_id", "sessionId", "id"):
        value = session.meta.get(key) if isinstance(session.meta, dict) else None
        if isinstance(value, str) and value:
            ids.append(value)
    return tuple(dict.fromkeys(ids))


def printed_commits(events: Iterable[Event], url_of: Any) -> Iterator[PrintedCommit]:
    """Every ``[branch sha] subject`` line in a tool's output, and Claude Code's ``gitOperation`` facts."""
    for event in events:
        if event.kind is not Kind.TOOL_RESULT and event.category is not ToolCategory.SHELL:
            continue
        text = event.text or ""
        printed: set[str] = set()
        if "] " in text:
            for m in COMMIT_LINE.finditer(text):
                printed.add(m["sha"])
                yield PrintedCommit(m["sha"], m["branch"], m["subject"], _seconds(event.timestamp), url_of(event.id))
        sha = event.meta.get("gitCommit") if event.meta else None
        if isinstance(sha, str) and _SHA.fullmatch(sha) and not any(p.startswith(sha) for p in printed):
            # Claude Code's gitOperation without the porcelain line: the sha alone, never rewritten-matched
            yield PrintedCommit(sha, "", "", _seconds(event.timestamp), url_of(event.id))


def _diff_lines(diff: str, fallback: str | None) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = out.setdefault(fallback or "", [])
    for line in diff.split("\n"):
        if line.startswith("+++ "):
            target = line[4:].strip()
            target = target[2:] if target.startswith("b/") else target
            current = out.setdefault(target if target != "/dev/null" else (fallback or ""), [])
        elif line.startswith("+"):
            current.append(line[1:])
    return out


def _input_lines(tool_input: Any) -> list[str]:
    """What an Edit/Write/MultiEdit call writes, from its input."""
    if not isinstance(tool_input, dict):
        return []
    texts = [tool_input.get(k) for k in ("new_string", "content", "new_str", "file_text", "contents")]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        texts.extend(e.get("new_string") for e in edits if isinstance(e, dict))
    return [line for t in texts if isinstance(t, str) for line in t.split("\n")]


# a shell heredoc that writes a file: cat > f <<'EOF' / cat <<EOF > f / tee f <<EOF, up to the delimiter line
_HEREDOC = re.compile(
    r"(?:cat\s*>>?\s*(?P<p1>[^\s<>|;&]+)\s*<<-?\s*(?P<q1>['\"]?)(?P<d1>\w+)(?P=q1)"
    r"|cat\s*<<-?\s*(?P<q2>['\"]?)(?P<d2>\w+)(?P=q2)\s*>>?\s*(?P<p2>[^\s<>|;&]+)"
    r"|tee\s+(?:-a\s+)?(?P<p3>[^\s<>|;&-][^\s<>|;&]*)\s*<<-?\s*(?P<q3>['\"]?)(?P<d3>\w+)(?P=q3))[^\n]*\n"
)


def heredoc_files(command: str) -> dict[str, list[str]]:
    """The files a shell command writes with heredocs, and their lines."""
    out: dict[str, list[str]] = {}
    for m in _HEREDOC.finditer(command):
        path = (m["p1"] or m["p2"] or m["p3"] or "").strip("'\"")
        delimiter = m["d1"] or m["d2"] or m["d3"]
        body = command[m.end() :]
        end = re.search(rf"(?m)^\s*{re.escape(delimiter)}\s*$", body)
        if path and end:
            out.setdefault(path, []).extend(body[: end.start()].split("\n"))
    return out


def edit_lines(events: Iterable[Event], url_of: Any) -> Iterator[EditLines]:
    """The lines each edit wrote, per file, as digests."""
    for event in events:
        if event.kind is Kind.TOOL_RESULT:
            continue
        if event.category is ToolCategory.SHELL and event.command and "<<" in event.command:
            for path, lines in heredoc_files(event.command).items():
                keys = frozenset(k for k in map(line_key, lines) if k is not None)
                if keys:
                    yield EditLines(path, keys, _seconds(event.timestamp), url_of(event.id))
            continue
        if event.category is not ToolCategory.EDIT:
            continue
        by_path: dict[str, list[str]] = {}
        if event.diff:
            by_path = _diff_lines(event.diff, event.path)
        extra = _input_lines(event.tool_input)
        if extra:
            by_path.setdefault(event.path or "", []).extend(extra)
        for path, lines in by_path.items():
            keys = frozenset(k for k in map(line_key, lines) if k is not None)
            if keys and path:
                yield EditLines(path, keys, _seconds(event.timestamp), url_of(event.id))


def collect_evidence(session: Session, url: str, title: str, url_of: Any) -> SessionEvidence | None:
    """The session's evidence; None when it printed no commit and edited nothing."""
    events = list(walk(session.events))
    commits = tuple(printed_commits(events, url_of))
    edits: list[EditLines] = []
    kept = 0
    for edit in edit_lines(events, url_of):
        if kept >= EDIT_LINE_LIMIT:
            break
        kept += len(edit.lines)
        edits.append(edit)
    if not commits and not edits:
        return None
    return SessionEvidence(
        session.id,
        url,
        title,
        session.agent,
        tuple(session.models),
        _seconds(session.started),
        raw_ids(session),
        session.cwd,
        commits,
        tuple(edits),
    )
