"""The end of a pass: every hit scoped by repository, short SHAs joined to the commit they
abbreviate (rule 4), and the session's refs, relations and links put together.

A session's repository is the best-voted one: its structured repositories, then git
remote URLs in its git output, then the URL of a pull request it created. Without one
the repository is unknown, and refs are scoped by the session's working directory.
"""

from __future__ import annotations

from sessite.analyze.refs.findings import Findings, RefSpec
from sessite.analyze.refs.keys import (
    CANDIDATES_PER_SESSION,
    MENTIONS_PER_REF,
    Mention,
    RefKey,
    Repo,
    SessionRef,
    SessionRefs,
)
from sessite.analyze.refs.patterns import mixed


def session_scope(f: Findings) -> Repo:
    """The session's repository: the best vote, else an unknown one named by the working directory."""
    if f.repo_votes:
        return min(f.repo_votes)[2]
    return Repo(None, (f.session.cwd or "").rstrip("/\\") or "")


class _Collector:
    """The session's refs as they are added, keyed in its scope."""

    def __init__(self, scope: Repo, confirmed: set[str]) -> None:
        self.scope = scope
        self.shas = sorted(confirmed, key=len, reverse=True)  # longest first: a short SHA joins the longest
        self.refs: dict[RefKey, SessionRef] = {}
        self.links: dict[str, dict[str, RefKey]] = {}

    def canonical(self, sha: str) -> str:
        """A short SHA that prefixes a longer one seen in this session is that one."""
        for longer in self.shas:
            if len(longer) > len(sha) and longer.startswith(sha):
                return longer
        return sha

    def key_of(self, repo: Repo | None, kind: str, name: str) -> RefKey:
        return RefKey(repo if repo is not None else self.scope, kind, name[:7] if kind == "commit" else name)

    def add(self, repo: Repo | None, kind: str, name: str, mention: Mention | None, worked: bool, pr: bool) -> None:
        key = self.key_of(repo, kind, name)
        ref = self.refs.get(key)
        if ref is None:
            ref = self.refs[key] = SessionRef(key)
        ref.names.setdefault(self.canonical(name) if kind == "commit" else name)
        ref.worked |= worked
        ref.pr |= pr
        if mention is not None:
            if any(m.event_id == mention.event_id for m in ref.mentions):
                pass  # one mention per event is enough to find it
            elif len(ref.mentions) < MENTIONS_PER_REF:
                ref.mentions.append(mention)
            else:
                ref.more += 1

    def link(self, event_id: str, token: str, spec: RefSpec) -> None:
        self.links.setdefault(event_id, {})[token] = self.key_of(*spec)


def finish(f: Findings) -> SessionRefs:
    """What the pass found, as the session's refs."""
    scope = session_scope(f)
    found = _Collector(scope, f.confirmed)
    for repo, kind, name, _eid, mention, worked, pr in f.hits:
        found.add(repo, kind, name, mention, worked, pr)
    for eid, token, repo, kind, name in f.tokens:
        found.link(eid, token, (repo, kind, name))
    leftover = _confirm_candidates(f, found)
    relations: set[tuple[RefKey, RefKey]] = set()
    for a, b in f.relations:
        ka, kb = found.key_of(*a), found.key_of(*b)
        if ka != kb and ka in found.refs and kb in found.refs:
            relations.add((ka, kb) if (ka.kind, ka.name) <= (kb.kind, kb.name) else (kb, ka))
    titles = {found.key_of(*spec): title for spec, title in f.titles.items()}
    for key, title in titles.items():
        if key in found.refs:
            found.refs[key].title = title
    return SessionRefs(
        scope, _repos(f, scope, found.refs), found.refs, relations, found.links, leftover, f.invalid, titles
    )


def _confirm_candidates(f: Findings, found: _Collector) -> list[tuple[str, Mention]]:
    """Rule 4: bare hex equal to, or a prefix of, a SHA this session established is that commit.

    Returns the rest (mixed hex only, once each, bounded) for the archive-wide check on ref pages.
    """
    leftover: list[tuple[str, Mention]] = []
    seen_tokens: set[str] = set()
    for sha, eid, mention in f.candidates:
        match = next((s for s in found.shas if s.startswith(sha) or (sha.startswith(s) and mixed(sha))), None)
        if match is not None:
            found.add(None, "commit", sha, mention, False, False)
            found.link(eid, sha, (None, "commit", sha))
        elif sha not in seen_tokens and len(leftover) < CANDIDATES_PER_SESSION and mixed(sha):
            seen_tokens.add(sha)
            leftover.append((sha, mention))
    return leftover


def _repos(f: Findings, scope: Repo, refs: dict[RefKey, SessionRef]) -> list[Repo]:
    """Known repositories the session touched, its own first, each once."""
    repos: list[Repo] = []
    for repo in (
        ([scope] if scope.known else [])
        + f.structured_repos
        + [r for _, _, r in sorted(f.repo_votes)]
        + [k.repo for k in refs]
        + f.other_repos
    ):
        if repo.known and repo not in repos:
            repos.append(repo)
    return repos
