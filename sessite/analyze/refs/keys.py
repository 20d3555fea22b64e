"""The ref model: repositories, ref keys, what one session knows of a ref, and the limits of a pass.

Identities only: where a ref's page lives is the site's business (``sessite/site/urls.py``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache

from sessite.analyze.filenames import reserved_on_windows

KINDS = ("branch", "issue", "mr", "commit", "tag")
KIND_LABELS = {
    "branch": "Branches",
    "issue": "Issues & pull requests",
    "mr": "Merge requests",
    "commit": "Commits",
    "tag": "Tags",
}
KIND_SINGULAR = {"branch": "branch", "issue": "issue", "mr": "merge request", "commit": "commit", "tag": "tag"}

# Per session, per ref: mentions kept with a snippet (the rest are only counted).
MENTIONS_PER_REF = 8
# Scan at most this much of one tool output / tool input (the head); messages and
# git output are scanned up to SCAN_LIMIT_TEXT.
SCAN_LIMIT_TOOL = 128 * 1024
SCAN_LIMIT_TEXT = 512 * 1024
# Issue titles kept from one session (a long ``gh issue list`` is not a thousand titles).
TITLES_PER_SESSION = 1000
# Findings kept from one text (a pasted list of 10k issue numbers is not 10k refs).
HITS_PER_TEXT = 200
CANDIDATES_PER_SESSION = 200
SNIPPET = 70  # characters of context on each side of a mention


@dataclass(frozen=True, slots=True)
class Repo:
    """A repository (``host`` + lowercased ``path``) or an unknown one (host None).

    For an unknown repository ``path`` is the session's working directory (or
    ""), used only to keep refs of different checkouts apart.
    """

    host: str | None
    path: str
    display: str = field(default="", compare=False)

    @property
    def known(self) -> bool:
        return self.host is not None

    @property
    def key(self) -> str:
        return f"{self.host}/{self.path}" if self.host is not None else f"?{self.path}"

    @property
    def name(self) -> str:
        """owner/name as first seen."""
        return self.display or self.path

    @property
    def slug(self) -> str:
        return _repo_slug(self.host, self.path)

    def label(self, default_host: str | None = None) -> str:
        if self.host is None:
            return "unknown repository"
        return self.name if self.host == default_host else f"{self.host}/{self.name}"


@lru_cache(maxsize=4096)
def _repo_slug(host: str | None, path: str) -> str:
    if host is None:
        return f"unknown-{_digest(path)}" if path else "unknown"
    return safe_slug(f"{host}/{path}", always_hash=True)


def _digest(text: str, n: int = 8) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:n]


_SLUG_UNSAFE = re.compile(r"[^a-z0-9._-]+")


@lru_cache(maxsize=65536)
def safe_slug(name: str, always_hash: bool = False, limit: int = 60) -> str:
    """A URL- and filesystem-safe name; a hash suffix whenever the mapping is lossy
    (case, unsafe characters, length) or the name is reserved on Windows (``nul``), so two
    names never share a slug."""
    safe = _SLUG_UNSAFE.sub("-", name.lower()).strip("-.")[:limit].strip("-.")
    if always_hash or safe != name or not safe or reserved_on_windows(safe):
        safe = f"{safe}-{_digest(name)}" if safe else _digest(name)
    return safe


@dataclass(frozen=True, slots=True)
class RefKey:
    """One ref page: a repository, a kind and a name.

    A commit's name is its 7-character prefix, so a short and a full SHA of one
    commit share a page no matter which sessions saw which.
    """

    repo: Repo
    kind: str
    name: str

    @property
    def slug(self) -> str:
        return self.name if self.kind in ("commit", "issue", "mr") else safe_slug(self.name)

    @property
    def sort_key(self) -> tuple[int, int, str]:
        if self.kind in ("issue", "mr"):
            return (KINDS.index(self.kind), int(self.name), "")
        return (KINDS.index(self.kind), 0, self.name.lower())


@dataclass(slots=True)
class Mention:
    event_id: str
    before: str
    text: str
    after: str


@dataclass(slots=True)
class SessionRef:
    """What one session knows about one ref."""

    key: RefKey
    names: dict[str, None] = field(default_factory=dict)  # commit: every SHA seen (longest is the commit)
    worked: bool = False  # from structured data or the session's own git/gh commands
    pr: bool = False  # an issue number known to be a pull request
    title: str | None = None  # an issue's or pull request's title, as gh told the session
    mentions: list[Mention] = field(default_factory=list)
    more: int = 0  # mentions beyond MENTIONS_PER_REF

    @property
    def full_name(self) -> str:
        return max(self.names, key=len) if self.names else self.key.name

    @property
    def count(self) -> int:
        return len(self.mentions) + self.more


@dataclass(slots=True)
class SessionRefs:
    scope: Repo  # the session's repository (possibly unknown)
    repos: list[Repo]  # known repositories the session touched, scope first
    refs: dict[RefKey, SessionRef]
    relations: set[tuple[RefKey, RefKey]]
    links: dict[str, dict[str, RefKey]]  # event id -> token as written -> ref (for linking in text)
    candidates: list[tuple[str, Mention]]  # bare hex tokens no rule confirmed (archive-wide check)
    invalid: list[tuple[str, str]]  # structured values that are not valid refs: (kind, value)
    titles: dict[RefKey, str] = field(default_factory=dict)  # every issue title gh showed, found as a ref or not

    def ordered(self) -> list[SessionRef]:
        return sorted(self.refs.values(), key=lambda r: (not r.worked, r.key.sort_key))

    def __bool__(self) -> bool:
        return bool(self.refs or self.repos or self.invalid)
