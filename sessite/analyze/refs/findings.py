"""What one pass over a session has found so far: the hits every extraction step records.

A hit whose repository is None belongs to the session's own repository, which is only
known at the end of the pass (``scoping.py`` resolves it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sessite.analyze.refs.forges import KNOWN_HOSTS, Forge, forge_family, parse_repo
from sessite.analyze.refs.keys import HITS_PER_TEXT, TITLES_PER_SESSION, Mention, Repo
from sessite.analyze.refs.patterns import FILE_SUFFIXES, snippet, url_ref_kind, valid_branch
from sessite.model import Session

# (repository or None for the session's own, kind, name)
RefSpec = tuple[Repo | None, str, str]
# (repository, kind, name, event id, mention, worked, pull request)
Hit = tuple[Repo | None, str, str, str | None, Mention | None, bool, bool]


@dataclass(slots=True)
class TextSpans:
    """The spans of one text a rule has taken (a weaker rule never takes them again), within a budget."""

    budget: int = HITS_PER_TEXT
    taken: set[tuple[int, int]] = field(default_factory=set)

    def take(self, start: int, end: int) -> bool:
        if self.budget <= 0 or (start, end) in self.taken:
            return False
        self.budget -= 1
        self.taken.add((start, end))
        return True

    def __contains__(self, span: tuple[int, int]) -> bool:
        return span in self.taken


class Findings:
    """Hits, relations and repository votes of one session, in the order the pass found them."""

    def __init__(self, session: Session, forge: Forge) -> None:
        self.session = session
        self.host = forge.default_host
        self.hits: list[Hit] = []
        self.relations: list[tuple[RefSpec, RefSpec]] = []
        self.repo_votes: list[tuple[int, int, Repo]] = []  # (priority, order, repo)
        self.structured_repos: list[Repo] = []
        self.other_repos: list[Repo] = []
        self.confirmed: set[str] = set()  # commit SHAs established by rules 1-3
        self.candidates: list[tuple[str, str, Mention]] = []  # (sha, event id, mention) awaiting rule 4
        self.invalid: list[tuple[str, str]] = []
        self.tokens: list[tuple[str, str, Repo | None, str, str]] = []  # (event id, token as written, ref)
        self.titles: dict[RefSpec, str] = {}  # issue or pull request -> its title, the last gh said
        self.branch: str | None = None  # the branch the session is on, when known
        self.pending_push: list[tuple[str, str]] = []  # (event id, branch) named on a git push line
        self.pr_head: tuple[Repo | None, str | None] | None = None  # the current gh pr create's --repo and --head
        self.pr_create: tuple[Repo | None, str | None] | None = None  # set while reading a gh pr create's output

    def hit(
        self,
        repo: Repo | None,
        kind: str,
        name: str,
        event_id: str | None = None,
        token: str | None = None,
        mention: Mention | None = None,
        worked: bool = False,
        pr: bool = False,
    ) -> None:
        """Record a ref; ``token`` (as written in the event) becomes a link in that event's text."""
        if kind == "commit":
            name = name.lower()
            self.confirmed.add(name)
        self.hits.append((repo, kind, name, event_id, mention, worked, pr))
        if token is not None and event_id is not None:
            self.tokens.append((event_id, token, repo, kind, name))

    def name_title(self, repo: Repo | None, kind: str, number: str, title: str) -> None:
        """An issue's or pull request's title, as a gh command showed it (a later one wins)."""
        spec = (repo, kind, number)
        if spec in self.titles or len(self.titles) < TITLES_PER_SESSION:
            self.titles[spec] = title

    def vote(self, priority: int, repo: Repo | None) -> None:
        """A hint at the session's repository; the lowest priority, then the earliest, wins."""
        if repo is not None:
            self.repo_votes.append((priority, len(self.repo_votes), repo))

    def relate(self, a: RefSpec, b: RefSpec) -> None:
        self.relations.append((a, b))

    def xref_repo(self, value: str) -> Repo | None:
        """The repository of an ``owner/name#123`` or ``owner/name@sha`` (not a file path)."""
        name = value.rsplit("/", 1)[-1].lower()
        if name.endswith(FILE_SUFFIXES):
            return None
        repo = parse_repo(value, self.host)
        if repo is not None:
            self.other_repos.append(repo)
        return repo

    def url_repo(self, m: re.Match[str]) -> Repo | None:
        """The repository of a ``FORGE_URL`` match, as written."""
        return parse_repo(f"{m.group('host')}/{m.group('path')}", self.host)

    def forge_url(self, m: re.Match[str], text: str, eid: str | None, worked: bool = False) -> bool:
        """Record the ref a forge URL (``FORGE_URL`` match) names; False when it names none."""
        host = m.group("host").lower()
        if host.startswith("www."):
            host = host[4:]
        if not (host in KNOWN_HOSTS or forge_family(host) or host == self.host or "git" in host or "forge" in host):
            return False
        path = m.group("path")
        if len(path.split("/")) > 2 and not m.group("dash"):
            return False
        repo = parse_repo(f"{host}/{path}", self.host)
        if repo is None:
            return False
        kind, ident = m.group("kind"), m.group("id")
        mention = snippet(text, m.start(), m.end(), eid) if eid is not None else None
        if kind in ("commit", "commits"):
            return self._url_commit(repo, ident, eid, mention, worked)
        if kind == "pull" and ident.startswith("new/"):
            return self._url_new_branch(repo, ident[4:], eid, mention, worked)
        if kind in ("pull", "pulls", "merge_requests", "pull-requests", "issues"):
            return self._url_number(repo, kind, ident, eid, mention, worked)
        tag = ident.rstrip(".,;:)")  # releases/tag
        if not valid_branch(tag):
            return False
        self.other_repos.append(repo)
        self.hit(repo, "tag", tag, eid, None, mention, worked=worked)
        return True

    def _url_commit(self, repo: Repo, ident: str, eid: str | None, mention: Mention | None, worked: bool) -> bool:
        sha = re.match(r"[0-9a-fA-F]{7,40}(?![0-9a-zA-Z])", ident)
        if not sha:
            return False
        self.other_repos.append(repo)
        self.hit(repo, "commit", sha.group(0).lower(), eid, None, mention, worked=worked)
        return True

    def _url_new_branch(self, repo: Repo, rest: str, eid: str | None, mention: Mention | None, worked: bool) -> bool:
        branch = rest.rstrip(".,;:)")
        if not valid_branch(branch):
            return False
        self.other_repos.append(repo)
        self.hit(repo, "branch", branch, eid, None, mention, worked=worked)
        return True

    def _url_number(
        self, repo: Repo, kind: str, ident: str, eid: str | None, mention: Mention | None, worked: bool
    ) -> bool:
        number = re.match(r"[1-9]\d{0,6}(?![\w])", ident)
        if not number:
            return False
        self.other_repos.append(repo)
        self.hit(repo, url_ref_kind(kind), number.group(0), eid, None, mention, worked=worked, pr=kind != "issues")
        return True
