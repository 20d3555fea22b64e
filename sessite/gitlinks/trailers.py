"""What a commit message says about who made it: Entire checkpoints, agent co-authors, session URLs, bots."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from sessite.gitlinks.history import Commit

# 12 lowercase hex (git-branch backend) or a 26-char Crockford-base32 ULID (git-refs backend)
_CHECKPOINT = re.compile(r"(?im)^Entire-Checkpoint:[ \t]*([0-9a-f]{12}|[0-9A-HJKMNP-TV-Z]{26})[ \t]*$")
_CO_AUTHOR = re.compile(r"(?im)^Co-authored-by:[ \t]*(?P<name>[^<\n]+?)[ \t]*<(?P<mail>[^>\n]*)>[ \t]*$")
_CLAUDE_SESSION = re.compile(r"(?im)^Claude-Session:[ \t]*(\S+)[ \t]*$")
_GENERATED = re.compile(r"Generated with \[?(Claude Code|Codex|Cursor|Aider)", re.I)
_AGENT_MAILS = {
    "noreply@anthropic.com": "Claude",
    "noreply@openai.com": "Codex",
    "cursoragent@cursor.com": "Cursor Agent",
    "aider@aider.chat": "Aider",
}
_BOT = re.compile(
    r"\[bot\]|^(dependabot|renovate|github-actions|pre-commit-ci|greenkeeper|snyk-bot|mergify|imgbot|allcontributors)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class AgentMark:
    """An agent a commit names (a co-author or a session URL): an agent, not a session of this archive."""

    kind: str  # co-author, session-url, generated-by, aider-author
    label: str  # what the commit says: "Claude Opus 5 (1M context)", a URL, …


def checkpoints(commit: Commit) -> list[str]:
    """The ``Entire-Checkpoint:`` ids on a commit, in order, once each (a squash can carry several)."""
    return list(dict.fromkeys(m.group(1) for m in _CHECKPOINT.finditer(commit.message)))


def agent_marks(commit: Commit) -> list[AgentMark]:
    marks: list[AgentMark] = []
    for m in _CO_AUTHOR.finditer(commit.message):
        mail = m["mail"].strip().lower()
        name = m["name"].strip()
        if mail in _AGENT_MAILS or "(aider)" in name.lower() or name.lower().startswith(("claude", "codex")):
            marks.append(AgentMark("co-author", name))
    for m in _CLAUDE_SESSION.finditer(commit.message):
        marks.append(AgentMark("session-url", m.group(1)))
    g = _GENERATED.search(commit.message)
    if g and not marks:
        marks.append(AgentMark("generated-by", g.group(1)))
    if commit.author.endswith("(aider)"):
        marks.append(AgentMark("aider-author", commit.author))
    return marks


@functools.lru_cache(maxsize=4096)
def _bot_identity(author: str, email: str) -> bool:
    return bool(_BOT.search(author) or _BOT.search(email.split("@", 1)[0]))


def is_bot(commit: Commit) -> bool:
    """A commit a bot authored (dependabot, renovate, github-actions, any ``[bot]`` account)."""
    return _bot_identity(commit.author, commit.email)
