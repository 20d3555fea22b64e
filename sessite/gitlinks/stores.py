"""What tools keep in the repository itself: Entire checkpoint metadata and git-ai notes, read from
git objects (``git cat-file --batch``), never from a checkout."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.gitlinks.history import GitError, git

ENTIRE_TREES = (  # refs whose tip tree shards checkpoints as <id[:2]>/<id[2:]>/
    "refs/heads/entire/checkpoints/v1",
    "refs/remotes/origin/entire/checkpoints/v1",
    "refs/entire/checkpoints/v1",
    "refs/entire/checkpoints/v1/main",
    "refs/entire/checkpoints/v2/main",
)
SESSIONS_PER_CHECKPOINT = 16  # N/metadata.json read for N below this


@dataclass(frozen=True, slots=True)
class StoredSession:
    """A session a tool names for a commit: its own id, agent and model (maybe not in the archive)."""

    session_id: str
    agent: str
    model: str
    source: str  # "entire checkpoint <id>", "git-ai note"
    lines: int = 0  # lines the note attributes to it (git-ai); 0 unknown


@dataclass
class GitAiNote:
    sessions: list[StoredSession] = field(default_factory=list)
    ai_lines: int = 0
    human_lines: int = 0
    watched: bool = True  # a note with no AI lines: git-ai watched the commit and saw no agent edit
    # file -> (first line, last line, session id or "" for a human or an unknown key), lines of that commit
    ranges: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    agents: list[str] = field(default_factory=list)  # agents a legacy note names (no session id)

    def session_at(self, path: str, line: int) -> str | None:
        """The session id the note gives a line of ``path`` (as of its commit); "" human; None unknown."""
        for first, last, session in self.ranges.get(path, ()):
            if first <= line <= last:
                return session
        return None


def cat_files(repo: str | Path, specs: list[str]) -> dict[str, bytes | None]:
    """Many objects in one ``git cat-file --batch`` call: spec -> content (None when missing)."""
    if not specs:
        return {}
    raw = git(repo, "cat-file", "--batch", stdin="".join(s + "\n" for s in specs).encode("utf-8", "surrogateescape"))
    out: dict[str, bytes | None] = {}
    pos = 0
    for spec in specs:
        end = raw.index(b"\n", pos)
        header = raw[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] != b"missing":
            size = int(header[2])
            out[spec] = raw[pos : pos + size]
            pos += size + 1
        else:
            out[spec] = None
    return out


def _json(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def checkpoint_sessions(repo: str | Path, refs: dict[str, str], ids: list[str]) -> dict[str, list[StoredSession]]:
    """The sessions each Entire checkpoint holds (``N/metadata.json``), wherever its backend stored it."""
    roots: dict[str, list[str]] = {}
    trees = [r for r in ENTIRE_TREES if r in refs]
    for cid in ids:
        places = [f"{r}:{cid[:2]}/{cid[2:]}/" for r in trees]
        own = f"refs/entire/checkpoints/{cid[-2:]}/{cid}"
        if own in refs:
            places.append(f"{own}:")
        roots[cid] = places
    specs = [
        f"{place}{n}/metadata.json"
        for places in roots.values()
        for place in places
        for n in range(SESSIONS_PER_CHECKPOINT)
    ]
    try:
        found = cat_files(repo, specs)
    except GitError:
        return {}
    out: dict[str, list[StoredSession]] = {}
    for cid, places in roots.items():
        seen: dict[str, StoredSession] = {}
        for place in places:
            for n in range(SESSIONS_PER_CHECKPOINT):
                meta = _json(found.get(f"{place}{n}/metadata.json"))
                if not isinstance(meta, dict) or not isinstance(meta.get("session_id"), str):
                    continue
                sid = meta["session_id"]
                seen.setdefault(
                    sid,
                    StoredSession(
                        sid, str(meta.get("agent") or ""), str(meta.get("model") or ""), f"Entire checkpoint {cid}"
                    ),
                )
        out[cid] = list(seen.values())
    return out


_RANGE = re.compile(r"(\d+)(?:-(\d+))?")


def _count(ranges: str) -> int:
    total = 0
    for part in ranges.split(","):
        m = _RANGE.fullmatch(part.strip())
        if m:
            a, b = int(m.group(1)), int(m.group(2) or m.group(1))
            total += max(0, b - a + 1)
    return total


def split_note(text: str) -> tuple[str, dict[str, Any] | None]:
    """A git-ai note's attestation section and its JSON metadata (None when it has none)."""
    attest, sep, rest = text.partition("\n---\n") if not text.startswith("---") else ("", "---", text[3:])
    meta = _json(rest.strip().encode()) if sep else None
    return attest, meta if isinstance(meta, dict) else None


def parse_gitai(text: str) -> GitAiNote | None:
    """A git-ai authorship note (Git AI Standard v3: attestation lines, ``---``, JSON metadata)."""
    attest, meta = split_note(text)
    if meta is None:
        return None
    lines_by_key: dict[str, int] = {}
    spans: list[tuple[str, str, str]] = []  # (file, key, ranges)
    current = ""
    for line in attest.split("\n"):
        if line.startswith("  ") and " " in line.strip():
            key, _, ranges = line.strip().partition(" ")
            lines_by_key[key] = lines_by_key.get(key, 0) + _count(ranges)
            spans.append((current, key, ranges))
        elif line and not line.startswith(" "):
            current = line[1:-1] if len(line) > 1 and line[0] == line[-1] == '"' else line
    note = GitAiNote()
    sessions: dict[str, Any] = meta["sessions"] if isinstance(meta.get("sessions"), dict) else {}
    prompts: dict[str, Any] = meta["prompts"] if isinstance(meta.get("prompts"), dict) else {}
    for file, key, ranges in spans:
        record = sessions.get(key.split("::", 1)[0]) if key.startswith("s_") else prompts.get(key)
        agent = record.get("agent_id") if isinstance(record, dict) else None
        sid = str(agent.get("id") or "") if isinstance(agent, dict) and not key.startswith("h_") else ""
        for part in ranges.split(","):
            m = _RANGE.fullmatch(part.strip())
            if m:
                note.ranges.setdefault(file, []).append((int(m.group(1)), int(m.group(2) or m.group(1)), sid))
    by_session: dict[str, StoredSession] = {}
    for key, count in lines_by_key.items():
        if key.startswith("h_"):
            note.human_lines += count
            continue
        record = sessions.get(key.split("::", 1)[0]) if key.startswith("s_") else prompts.get(key)
        agent = record.get("agent_id") if isinstance(record, dict) else None
        note.ai_lines += count
        if isinstance(agent, dict) and isinstance(agent.get("id"), str):
            sid = agent["id"]
            old = by_session.get(sid)
            by_session[sid] = StoredSession(
                sid,
                str(agent.get("tool") or ""),
                str(agent.get("model") or ""),
                "git-ai note",
                count + (old.lines if old else 0),
            )
    note.sessions = list(by_session.values())
    note.watched = True
    return note


_AGENT_NAMES = re.compile(r"(?i)^(claude|cursor|codex|copilot|gemini|windsurf|aider|devin|amp|opencode|cline|kiro)\b")


def parse_legacy(data: bytes) -> GitAiNote | None:
    """A very old git-ai record (``refs/ai/authorship/<sha>``, ``authorship/0.0.1``): authors by
    name, with lines (``[3]``, ``[[9, 10]]``); agents are told from people by their names."""
    meta = _json(data)
    if not isinstance(meta, dict) or not isinstance(meta.get("files"), dict):
        return None
    note = GitAiNote()
    for path, entry in meta["files"].items():
        authors = entry.get("authors") if isinstance(entry, dict) else None
        for author in authors if isinstance(authors, list) else ():
            if not isinstance(author, dict) or not isinstance(author.get("lines"), list):
                continue
            name = str(author.get("author") or "")
            agent = bool(_AGENT_NAMES.match(name))
            for item in author["lines"]:
                first, last = (item, item) if isinstance(item, int) else (item[0], item[-1]) if item else (0, -1)
                if not isinstance(first, int) or not isinstance(last, int) or last < first:
                    continue
                if agent:
                    note.ai_lines += last - first + 1
                    if name not in note.agents:
                        note.agents.append(name)
                else:
                    note.human_lines += last - first + 1
                    note.ranges.setdefault(str(path), []).append((first, last, ""))
    return note


def gitai_notes(repo: str | Path, refs: dict[str, str]) -> dict[str, GitAiNote]:
    """Every commit's git-ai note (``refs/notes/ai``; the legacy ``refs/ai/authorship/<sha>``), parsed."""
    legacy = {name.rsplit("/", 1)[1]: sha for name, sha in refs.items() if name.startswith("refs/ai/authorship/")}
    out: dict[str, GitAiNote] = {}
    if legacy:
        try:
            blobs = cat_files(repo, list(legacy.values()))
        except GitError:
            blobs = {}
        for commit, blob in legacy.items():
            data = blobs.get(blob)
            parsed = parse_legacy(data) if data else None
            if parsed is not None:
                out[commit] = parsed
    for commit, data in note_texts(repo, refs):
        note = parse_gitai(data.decode("utf-8", "replace"))
        if note is not None:
            out[commit] = note
    return out


def note_texts(repo: str | Path, refs: dict[str, str]) -> list[tuple[str, bytes]]:
    """(annotated commit, note text) of every note on ``refs/notes/ai``; none when git cannot list them."""
    if "refs/notes/ai" not in refs:
        return []
    try:
        listing = git(repo, "notes", "--ref=refs/notes/ai", "list").decode().split()
    except GitError:
        return []
    pairs = list(zip(listing[::2], listing[1::2]))  # (note blob, annotated commit)
    blobs = cat_files(repo, [blob for blob, _ in pairs])
    return [(commit, data) for blob, commit in pairs if (data := blobs.get(blob))]


AGENT_TRACE_FILE = ".agent-trace/traces.jsonl"  # where cursor/agent-trace's reference hook appends records


@dataclass(frozen=True, slots=True)
class TraceEdit:
    """One Agent Trace record's file and conversation: edited on top of ``revision`` (the commit's parent)."""

    revision: str
    path: str
    session: StoredSession


def agent_traces(repo: str | Path) -> list[TraceEdit]:
    """The Agent Trace records committed at HEAD (spec 0.1.0; ``version`` "0.1.0" or "1.0")."""
    try:
        raw = git(repo, "cat-file", "blob", f"HEAD:{AGENT_TRACE_FILE}")
    except GitError:
        return []  # none: the usual case
    out: list[TraceEdit] = []
    for line in raw.decode("utf-8", "replace").splitlines():
        record = _json(line.encode())
        if not isinstance(record, dict):
            continue
        vcs = record.get("vcs") if isinstance(record.get("vcs"), dict) else {}
        tool = record.get("tool") if isinstance(record.get("tool"), dict) else {}
        revision = vcs.get("revision") if isinstance(vcs, dict) else None
        if not isinstance(revision, str) or not isinstance(record.get("files"), list):
            continue
        for file in record["files"]:
            if not isinstance(file, dict) or not isinstance(file.get("path"), str):
                continue
            for conv in file.get("conversations") or ():
                if not isinstance(conv, dict):
                    continue
                who = conv.get("contributor") if isinstance(conv.get("contributor"), dict) else {}
                if isinstance(who, dict) and who.get("type") not in (None, "ai", "mixed"):
                    continue
                url = conv.get("url") if isinstance(conv.get("url"), str) else ""
                name = url.rstrip("/").rsplit("/", 1)[-1].split(".", 1)[0] if url else ""
                model = str(who.get("model_id") or "") if isinstance(who, dict) else ""
                agent = str(tool.get("name") or "") if isinstance(tool, dict) else ""
                sid = name or url or ""
                out.append(TraceEdit(revision, file["path"], StoredSession(sid, agent, model, "Agent Trace")))
    return out
