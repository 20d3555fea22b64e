"""Commits linked to sessions, each link with its evidence (kind) and a confidence.

The kinds, strongest first (see docs/commits.md):

- ``git-commit-output``: the session printed ``[branch sha] subject`` and that sha is this commit
  (same subject); ``git-commit-output (rewritten)``: the printed sha is not in the history (an
  amend or a rebase rewrote it), and exactly one commit has the subject, an author date at most
  ``REWRITE_SECONDS`` before the output, and shows it was made here (a file the session edited, or
  the session's working folder named like the repository);
- ``entire-checkpoint``: an ``Entire-Checkpoint:`` trailer whose checkpoint holds the session;
- ``git-ai-note``: a git-ai note (``refs/notes/ai``) whose lines name the session;
- ``agent-trace``: an Agent Trace record made on the commit's parent, for a file the commit touches;
- ``content``: the session's edits wrote at least ``MIN_SHARE`` of the commit's added lines (and
  at least ``MIN_LINES`` of them; or ``WEAK_SHARE`` and ``WEAK_LINES``) before the commit was
  authored: a human's commit of an agent's work.

A time window alone is never a link; a bot's commit is never linked.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field

from sessite.gitlinks.evidence import EditLines, SessionEvidence, line_key
from sessite.gitlinks.history import Commit, History
from sessite.gitlinks.stores import GitAiNote, StoredSession, TraceEdit
from sessite.gitlinks.trailers import AgentMark, agent_marks, checkpoints, is_bot

REWRITE_SECONDS = 900  # printed after the commit was authored, by at most this (Entire amends seconds later)
EDIT_BEFORE_SECONDS = 300  # an edit's time may pass the commit's author date by this (clock skew)
EDIT_MAX_AGE = 90 * 86400  # edits older than this before a commit are not compared with it
MIN_SHARE = 0.5  # a content link needs half of the commit's comparable added lines ...
MIN_LINES = 3  # ... and at least this many of them,
WEAK_SHARE, WEAK_LINES = 0.25, 20  # or, for a bigger commit, a quarter and this many
# (measured on Standard-Syntax/basic: below this, matches were generic lines a session wrote elsewhere
# in the same file, such as "if err != nil {"; on Wood-Q/MokioFactory, 64 and 73 lines at 32-43 % were
# a human's commits of a session's files)


@dataclass(slots=True)
class Link:
    session: str  # the archive's session id
    kinds: list[str] = field(default_factory=list)
    confidence: str = "medium"  # high, medium, low
    url: str = ""  # the turn that made the change (or printed the commit), from the site root
    lines: int = 0  # the commit's added lines this session wrote (content match or git-ai ranges)
    share: float | None = None  # lines / the commit's comparable added lines


@dataclass(slots=True)
class CommitFacts:
    commit: Commit
    links: list[Link] = field(default_factory=list)
    stored: list[StoredSession] = field(default_factory=list)  # sessions tools name that are not in the archive
    marks: list[AgentMark] = field(default_factory=list)
    checkpoints: list[str] = field(default_factory=list)
    note: GitAiNote | None = None
    bot: bool = False
    comparable: int = 0  # added lines long enough to compare
    agent_lines: int = 0  # added lines a linked session (or a git-ai note) attributes to an agent

    @property
    def share(self) -> float | None:
        """The share of the commit's added lines an agent wrote: by its git-ai note when it has one,
        else the lines linked sessions' edits wrote out of the comparable ones; None unknown."""
        if self.note is not None and self.note.ai_lines + self.note.human_lines:
            return min(1.0, self.note.ai_lines / self.commit.added) if self.commit.added > 0 else None
        return self.agent_lines / self.comparable if self.comparable else None

    @property
    def evidence(self) -> bool:
        """Anything that names a session: a link, a session a tool names, a checkpoint, a git-ai note.
        An agent co-author alone is not (it names no session; the repository's list shows it)."""
        return bool(self.links or self.stored or self.checkpoints or (self.note and self.note.ai_lines))


_RANK = {"high": 0, "medium": 1, "low": 2}


def _link(facts: CommitFacts, session: str, kind: str, confidence: str, url: str) -> Link:
    for link in facts.links:
        if link.session == session:
            if kind not in link.kinds:
                link.kinds.append(kind)
            if _RANK[confidence] < _RANK[link.confidence]:
                link.confidence = confidence
            if not link.url or (url and kind.startswith("git-commit")):
                link.url = url or link.url
            return link
    made = Link(session, [kind], confidence, url)
    facts.links.append(made)
    return made


def _same_place(history: History, commit: Commit, ev: SessionEvidence) -> bool:
    """Does anything besides the subject say the session worked in this repository?"""
    if ev.cwd and posixpath.basename(ev.cwd.replace("\\", "/").rstrip("/")) == history.name:
        return True
    edited = {posixpath.basename(e.path) for e in ev.edits}
    return any(posixpath.basename(f.path) in edited for f in commit.files)


def link_printed(history: History, facts: dict[str, CommitFacts], sessions: list[SessionEvidence]) -> None:
    by_subject: dict[str, list[Commit]] = {}
    for c in history.commits:
        by_subject.setdefault(c.subject, []).append(c)
    for ev in sessions:
        for p in ev.commits:
            found = history.get(p.sha)
            if found is not None and (found.subject == p.subject or not p.subject):  # no subject: gitOperation
                _link(facts[found.sha], ev.id, "git-commit-output", "high", p.url)
                continue
            if found is not None or p.when is None or not p.subject:
                continue  # the sha is another commit here; or no time to compare a rewrite with
            when = p.when
            near = [
                c
                for c in by_subject.get(p.subject, ())
                if -60 <= when - c.authored <= REWRITE_SECONDS and not c.sha.startswith(p.sha)
            ]
            near = [c for c in near if _same_place(history, c, ev)]
            if len(near) == 1:
                _link(facts[near[0].sha], ev.id, "git-commit-output (rewritten)", "medium", p.url)


def link_stored(
    facts: dict[str, CommitFacts],
    by_raw: dict[str, str],
    stored: dict[str, list[StoredSession]],
    notes: dict[str, GitAiNote],
    traces: list[TraceEdit] | None = None,
) -> None:
    """Entire checkpoints, git-ai notes and Agent Trace records: a session they name, in the archive or not.

    An Agent Trace record names the revision its edit was made on: the commit that holds the edit
    is a child of that revision that touches the file (``trace-store.ts`` records ``git rev-parse HEAD``).
    """
    by_parent: dict[str, list[TraceEdit]] = {}
    for t in traces or ():
        by_parent.setdefault(t.revision, []).append(t)
    for f in facts.values():
        if f.bot:
            continue
        named: list[tuple[StoredSession, str]] = []
        if by_parent and f.commit.parents:
            touched = {x.path for x in f.commit.files}
            for t in by_parent.get(f.commit.parents[0], ()):
                if t.path in touched and all(s.session_id != t.session.session_id for s, _ in named):
                    named.append((t.session, "agent-trace"))
        for cid in f.checkpoints:
            named.extend((s, "entire-checkpoint") for s in stored.get(cid, ()))
        note = notes.get(f.commit.sha)
        if note is not None:
            f.note = note
            named.extend((s, "git-ai-note") for s in note.sessions)
        for s, kind in named:
            session = by_raw.get(s.session_id)
            if session is None:
                if all(o.session_id != s.session_id for o in f.stored):
                    f.stored.append(s)
                continue
            link = _link(f, session, kind, "medium" if kind == "agent-trace" else "high", "")
            if s.lines:
                link.lines = max(link.lines, s.lines)
                link.share = min(1.0, link.lines / max(1, f.commit.added))


def content_candidates(history: History, facts: dict[str, CommitFacts], sessions: list[SessionEvidence]) -> list[str]:
    """Commits whose files a session edited shortly before: the only ones whose diffs are read."""
    by_name: dict[str, list[float | None]] = {}
    for ev in sessions:
        for e in ev.edits:
            by_name.setdefault(posixpath.basename(e.path), []).append(e.when)
    out = []
    for c in history.commits:
        if facts[c.sha].bot or len(c.parents) > 1 or not c.added:
            continue
        for f in c.files:
            times = by_name.get(posixpath.basename(f.path))
            if times and any(t is None or -EDIT_BEFORE_SECONDS <= c.authored - t <= EDIT_MAX_AGE for t in times):
                out.append(c.sha)
                break
    return out


def _path_matches(edit_path: str, commit_path: str) -> bool:
    edit_path = edit_path.replace("\\", "/")
    return edit_path == commit_path or edit_path.endswith("/" + commit_path)


def link_content(
    facts: dict[str, CommitFacts],
    sessions: list[SessionEvidence],
    added: dict[str, dict[str, list[str]]],
) -> None:
    """Compare each candidate commit's added lines with what each session's edits wrote."""
    edits_by_name: dict[str, list[tuple[SessionEvidence, EditLines]]] = {}
    for ev in sessions:
        for e in ev.edits:
            edits_by_name.setdefault(posixpath.basename(e.path), []).append((ev, e))
    for sha, files in added.items():
        f = facts.get(sha)
        if f is None or f.bot:
            continue
        keyed = {path: [line_key(line) for line in lines] for path, lines in files.items()}
        f.comparable = sum(1 for keys in keyed.values() for k in keys if k is not None)
        if not f.comparable:
            continue
        written: dict[str, set[tuple[str, int]]] = {}  # session -> (path, line index) it wrote
        best: dict[str, tuple[int, str]] = {}  # session -> (lines, url) of its edit that wrote most
        for path, keys in keyed.items():
            for ev, e in edits_by_name.get(posixpath.basename(path), ()):
                if not _path_matches(e.path, path):
                    continue
                if e.when is not None and not -EDIT_BEFORE_SECONDS <= f.commit.authored - e.when <= EDIT_MAX_AGE:
                    continue
                hits = {(path, i) for i, k in enumerate(keys) if k is not None and k in e.lines}
                if hits:
                    written.setdefault(ev.id, set()).update(hits)
                    if len(hits) > best.get(ev.id, (0, ""))[0]:
                        best[ev.id] = (len(hits), e.url)
        union: set[tuple[str, int]] = set()
        for session, hits in written.items():
            share = len(hits) / f.comparable
            strong = share >= MIN_SHARE and len(hits) >= min(MIN_LINES, f.comparable)
            if not strong and not (share >= WEAK_SHARE and len(hits) >= WEAK_LINES):
                continue
            confidence = "high" if share >= 0.8 else "medium" if share >= 0.5 else "low"
            link = _link(f, session, "content", confidence, best[session][1])
            link.lines = max(link.lines, len(hits))
            link.share = share
            union |= hits
        # the printed-output links get their share too, whatever it is
        for link in f.links:
            if link.share is None and link.session in written:
                link.lines = len(written[link.session])
                link.share = link.lines / f.comparable
                union |= written[link.session]
        f.agent_lines = len(union)


def link_history(
    history: History,
    sessions: list[SessionEvidence],
    stored: Callable[[list[str]], dict[str, list[StoredSession]]],
    notes: dict[str, GitAiNote],
    added_lines: Callable[[list[str]], dict[str, dict[str, list[str]]]],
    traces: list[TraceEdit] | None = None,
) -> dict[str, CommitFacts]:
    """Every commit of ``history`` with what links it to sessions (most commits: nothing)."""
    facts = {c.sha: CommitFacts(c, bot=is_bot(c)) for c in history.commits}
    ids: list[str] = []
    for f in facts.values():
        if f.bot:
            continue
        if "Entire-Checkpoint" in f.commit.message or "entire-checkpoint" in f.commit.message.lower():
            f.checkpoints = checkpoints(f.commit)
            ids.extend(f.checkpoints)
        if (
            "<" in f.commit.message
            or "Generated" in f.commit.message
            or "Session" in f.commit.message
            or f.commit.author.endswith("(aider)")
        ):
            f.marks = agent_marks(f.commit)
    by_raw: dict[str, str] = {}
    for ev in sessions:
        for raw in ev.raw_ids:
            by_raw.setdefault(raw, ev.id)
    link_stored(facts, by_raw, stored(list(dict.fromkeys(ids))), notes, traces or [])
    link_printed(history, facts, sessions)
    for f in facts.values():
        if f.bot:
            f.links.clear()
    link_content(facts, sessions, added_lines(content_candidates(history, facts, sessions)))
    for f in facts.values():
        if f.bot:
            f.links.clear()
        f.links.sort(key=lambda link: (_RANK[link.confidence], -(link.share or 0), link.session))
    return facts
