"""The git-ref pages: an index by repository and kind, one page per repository and one per ref.

An aggregate (see aggregate.py): fed each session as it streams past, it keeps
only ref keys, event anchors, short snippets and issue titles, and writes its pages at the end.

A session that names no remote scopes its refs by its working directory; when other
sessions in that directory named the remote (``analyze/refs/workdirs.py``), its refs join
that repository's. Its own page was rendered alone and still links the working
directory's ref URLs: each of those becomes a small page that forwards to the joined one.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from sessite.analyze.refs import (
    KIND_LABELS,
    KINDS,
    Forge,
    Mention,
    RefKey,
    Repo,
    SessionRef,
    clear_cache,
    session_refs,
)
from sessite.analyze.refs.workdirs import WorkdirRepos
from sessite.config import SiteConfig
from sessite.model import Problems
from sessite.outputs.fanout import render_pages
from sessite.parallel import aggregate_jobs
from sessite.publish.writer import SiteWriter
from sessite.render.pages import Page
from sessite.render.reflinks import ref_kind_label, ref_label, ref_title
from sessite.render.renderer import Renderer
from sessite.site.urls import COMMITS_FOLDER, REFS_INDEX_URL, commit_url, ref_url, repo_refs_url, session_url
from sessite.site.view import SessionView

INDEX_OPEN_LIMIT = 300  # refs in the archive up to which the index shows every repository open


@dataclass(slots=True)
class _SessionInfo:
    """What a ref page shows of a session that worked on or mentioned the ref."""

    id: str
    url: str
    title: str
    agent: str
    started: datetime | None
    cwd: str | None


@dataclass(slots=True)
class _Seen:
    """One session's part in one ref page."""

    worked: bool = False
    mentions: list[tuple[str, Mention]] = field(default_factory=list)  # (link to the event, snippet)
    more: int = 0
    archive: bool = False  # found only by the archive-wide short-SHA rule


@dataclass(slots=True)
class _MentionRow:
    """One mention on a ref page (an object, not a dict: Jinja reads attributes first)."""

    url: str
    before: str
    text: str
    after: str


@dataclass(slots=True)
class _Entry:
    """One session's part on a ref page, as the template reads it."""

    session: _SessionInfo
    worked: bool
    archive: bool
    mentions: list[_MentionRow]
    more: int


@dataclass(slots=True)
class _Facts:
    """What every page says of one ref, worked out once (a ref shows on its page, its
    repository's, the index and its related refs' pages)."""

    full: str
    label: str  # within its own repository
    label_out: str  # seen from another repository
    kind_label: str
    url: str
    title: str  # the tooltip without the issue title
    subject: str | None
    forge: str | None


@dataclass
class _RefData:
    key: RefKey
    names: dict[str, None] = field(default_factory=dict)
    pr: bool = False
    sessions: dict[str, _Seen] = field(default_factory=dict)
    related: set[RefKey] = field(default_factory=set)

    @property
    def full_name(self) -> str:
        return max(self.names, key=len) if self.names else self.key.name

    def absorb(self, other: _RefData) -> None:
        """Take in the same ref as seen under another scope (a working directory now known to be this repository)."""
        for name in other.names:
            self.names.setdefault(name)
        self.pr |= other.pr
        self.related |= other.related
        for sid, seen in other.sessions.items():
            mine = self.sessions.get(sid)
            if mine is None:
                self.sessions[sid] = seen
                continue
            mine.worked |= seen.worked
            mine.archive &= seen.archive
            mine.more += seen.more
            mine.mentions.extend(m for m in seen.mentions if m not in mine.mentions)


# what a worker collects of one session: its info, scope, refs, relations, archive-wide
# candidates (short hex, snippet), each mentioned event's link and the issue titles gh showed it
Collected = tuple[
    _SessionInfo,
    Repo,
    list[SessionRef],
    list[tuple[RefKey, RefKey]],
    list[tuple[str, Mention]],
    dict[str, str],
    dict[RefKey, str],
]


class GitRefsIndex:
    """refs/index.html, refs/<repo>/index.html and refs/<repo>/<kind>/<name>.html."""

    def __init__(self, config: SiteConfig) -> None:
        self.forge = Forge.from_config(getattr(config, "forge_url", ()) or ())
        self.sessions: dict[str, _SessionInfo] = {}
        self.refs: dict[RefKey, _RefData] = {}
        self.scopes: dict[Repo, set[str]] = {}  # repository -> sessions that worked in it
        self.candidates: list[tuple[str, Repo, str, str, Mention]] = []  # session, scope, sha, link, snippet
        self.titles: dict[RefKey, tuple[float, str]] = {}  # issue -> (when the session that said it started, title)
        self.workdirs = WorkdirRepos()  # working directory -> the repositories its sessions named
        self.moved: dict[RefKey, RefKey] = {}  # a working directory's ref -> the same ref of its repository
        self.moved_repos: dict[Repo, Repo] = {}
        self.jobs = aggregate_jobs(config)  # its thousands of pages render on every core
        self.facts: dict[RefKey, _Facts] = {}
        self.order: dict[str, int] = {}  # session -> its place in every page's list of sessions
        self.repo_infos: dict[Repo, SimpleNamespace] = {}

    name = "refs"

    def collect(self, view: SessionView) -> Collected | None:
        """In a worker: this session's refs, with each mention's link resolved (small, picklable).

        A link is the event's URL from the site root, on the part of a split
        session that draws it (``SessionView.event_url``); "" when the event has no anchor.
        """
        found = session_refs(view.session, self.forge)
        if not found.refs and not found.scope.known and not found.candidates and not found.titles:
            return None
        s = view.summary
        info = _SessionInfo(s.id, session_url(s.id), s.title, s.agent, s.started, s.cwd)
        ids = {m.event_id for ref in found.refs.values() for m in ref.mentions} | {
            m.event_id for _, m in found.candidates
        }
        links = {eid: view.event_url(eid) if eid in view.anchors else "" for eid in ids}
        return (
            info,
            found.scope,
            list(found.refs.values()),
            list(found.relations),
            list(found.candidates),
            links,
            found.titles,
        )

    def add(self, item: Collected | None) -> None:
        if item is None:
            return
        info, scope, refs, relations, candidates, links, titles = item
        sid = info.id
        self.sessions[sid] = info
        self.workdirs.add(info.cwd, scope)
        if scope.known or any(ref.key.repo == scope for ref in refs):
            self.scopes.setdefault(scope, set()).add(sid)
        when = info.started.timestamp() if info.started else 0.0
        for key, title in titles.items():
            if when >= self.titles.get(key, (when, ""))[0]:  # the latest session's word for it
                self.titles[key] = (when, title)
        for ref in refs:
            data = self.refs.get(ref.key)
            if data is None:
                data = self.refs[ref.key] = _RefData(ref.key)
            for name in ref.names:
                data.names.setdefault(name)
            data.pr |= ref.pr
            seen = data.sessions.setdefault(sid, _Seen())
            seen.worked |= ref.worked
            seen.mentions.extend((links.get(m.event_id, ""), m) for m in ref.mentions)
            seen.more += ref.more
        for a, b in relations:
            self.refs[a].related.add(b)
            self.refs[b].related.add(a)
        for sha, mention in candidates:
            self.candidates.append((sid, scope, sha, links.get(mention.event_id, ""), mention))

    # ---- archive-wide rules

    def join_workdirs(self) -> None:
        """Refs scoped by a working directory whose repository other sessions named join that repository's."""
        self.moved_repos = self.workdirs.resolve({key.repo for key in self.refs} | set(self.scopes))
        if not self.moved_repos:
            return
        for key in [k for k in self.refs if k.repo in self.moved_repos]:
            data = self.refs.pop(key)
            new = RefKey(self.moved_repos[key.repo], key.kind, key.name)
            self.moved[key] = new
            if new in self.refs:
                self.refs[new].absorb(data)
            else:
                data.key = new
                self.refs[new] = data
        for data in self.refs.values():
            data.related = {self.moved.get(k, k) for k in data.related} - {data.key}
        for old, new_repo in self.moved_repos.items():
            self.scopes.setdefault(new_repo, set()).update(self.scopes.pop(old, ()))
        self.candidates = [(s, self.moved_repos.get(r, r), sha, link, m) for s, r, sha, link, m in self.candidates]
        for old_key, new_key in self.moved.items():
            said = self.titles.pop(old_key, None)
            if said is not None and said[0] >= self.titles.get(new_key, said)[0]:
                self.titles[new_key] = said

    def resolve_candidates(self) -> None:
        """Rule 4 across the archive: a bare short hex that is the prefix of a full SHA
        seen in any session is a mention of that commit (shown on ref pages only)."""
        fulls: dict[str, list[tuple[str, RefKey]]] = {}
        for key, data in self.refs.items():
            if key.kind == "commit":
                for name in data.names:
                    if len(name) == 40:
                        fulls.setdefault(name[:7], []).append((name, key))
        if not fulls:
            return
        for sid, scope, sha, link, mention in self.candidates:
            matches = [(full, key) for full, key in fulls.get(sha[:7], ()) if full.startswith(sha)]
            if not matches:
                continue
            same = [key for _, key in matches if key.repo == scope]
            keys = same or ([key for _, key in matches] if len({full for full, _ in matches}) == 1 else [])
            for key in keys:
                seen = self.refs[key].sessions.get(sid)
                if seen is None:
                    seen = self.refs[key].sessions[sid] = _Seen(archive=True)
                if len(seen.mentions) < 8 and all(a != link for a, _ in seen.mentions):
                    seen.mentions.append((link, mention))
        # one commit seen under several repositories (an unknown one, a fork): link the pages
        by_sha: dict[str, list[RefKey]] = {}
        for full, key in (item for items in fulls.values() for item in items):
            by_sha.setdefault(full, []).append(key)
        for keys in by_sha.values():
            for a in keys:
                self.refs[a].related.update(k for k in keys if k != a)

    # ---- pages

    def write(self, writer: SiteWriter, renderer: Renderer, problems: Problems) -> None:
        clear_cache()  # drop the last session it held
        for error in self.forge.errors:
            problems.add("forge_url", None, error, "config")
        self.join_workdirs()
        self.resolve_candidates()
        self._plan_facts()
        host = self.forge.default_host
        by_repo: dict[Repo, list[_RefData]] = {}
        for data in self.refs.values():
            by_repo.setdefault(data.key.repo, []).append(data)
        for repo in self.scopes:
            by_repo.setdefault(repo, [])
        repos = sorted(by_repo, key=lambda r: (not r.known, r.label(host).lower(), r.path))

        self.commit_shas = commit_pages_written(writer)
        pages = [self._ref_page(data) for data in self.refs.values()]
        index_rows = []
        for repo in repos:
            page = self._repo_page(repo, by_repo[repo])
            pages.append(page)
            index_rows.append(page.context["group"])
        deps = tuple(sorted(self.sessions))
        kinds = {k: sum(1 for d in self.refs if d.kind == k) for k in KINDS}
        context = {
            "repos": index_rows,
            "kinds": kinds,
            "kind_labels": KIND_LABELS,
            "session_count": len(self.sessions),
            "titled": len(self.titles),
            "open": sum(kinds.values()) <= INDEX_OPEN_LIMIT,
        }
        pages.append(Page(REFS_INDEX_URL, "refs_index.html", context, deps))
        pages.extend(self._forwards())
        render_pages(pages, writer, renderer, problems, self.jobs)

    def _forwards(self) -> list[Page]:
        """A page at each URL a joined working directory's refs had (session pages link them), forwarding."""
        host = self.forge.default_host
        pages = []
        for old, new in self.moved.items():
            data = self.refs[new]
            label = self.facts[new].label_out
            deps = tuple(sorted(data.sessions))
            pages.append(
                Page(ref_url(old), "moved.html", {"moved": SimpleNamespace(url=ref_url(new), label=label)}, deps)
            )
        for old_repo, repo in self.moved_repos.items():
            moved = SimpleNamespace(url=repo_refs_url(repo), label=repo.label(host))
            deps = tuple(sorted(self.scopes.get(repo, ())))
            pages.append(Page(repo_refs_url(old_repo), "moved.html", {"moved": moved}, deps))
        return pages

    def _plan_facts(self) -> None:
        """Each ref's labels, title and links, and the sessions' order, once for all pages."""
        host = self.forge.default_host
        for key, data in self.refs.items():
            full = data.full_name
            self.facts[key] = _Facts(
                full,
                ref_label(key, full, key.repo, host),
                ref_label(key, full, None, host),
                ref_kind_label(key, data.pr),
                ref_url(key),
                ref_title(key, full, host, data.pr),
                self.title_of(key),
                self.forge.url(key.repo, key.kind, full, data.pr),
            )
        ranked = sorted(self.sessions.values(), key=_session_order)
        self.order = {info.id: i for i, info in enumerate(ranked)}

    def title_of(self, key: RefKey) -> str | None:
        said = self.titles.get(key)
        return said[1] if said else None

    def _shared_repo_info(self, repo: Repo) -> SimpleNamespace:
        """_repo_info, one per repository for all its ref pages (they only read it); attributes,
        not a dict: Jinja looks an attribute up first, and on a dict that miss raises."""
        info = self.repo_infos.get(repo)
        if info is None:
            info = self.repo_infos[repo] = SimpleNamespace(**self._repo_info(repo))
        return info

    def _repo_info(self, repo: Repo) -> dict[str, Any]:
        host = self.forge.default_host
        cwds = sorted({cwd for s in self.scopes.get(repo, ()) if (cwd := self.sessions[s].cwd)})
        return {
            "known": repo.known,
            "label": repo.label(host),
            "url": repo_refs_url(repo),
            "forge": self.forge.url(repo),
            "cwd": repo.path if not repo.known else None,
            "cwds": cwds,
        }

    def _row(self, data: _RefData) -> SimpleNamespace:
        """A ref's row on its repository's page and the index (attributes: read by two templates)."""
        facts = self.facts[data.key]
        dates = [started for s in data.sessions if (started := self.sessions[s].started)]
        return SimpleNamespace(
            kind=data.key.kind,
            label=facts.label,
            title=ref_title(data.key, facts.full, self.forge.default_host, data.pr, facts.subject),
            url=facts.url,
            pr=data.pr,
            sessions=len(data.sessions),
            worked=sum(1 for s in data.sessions.values() if s.worked),
            mentions=sum(len(s.mentions) + s.more for s in data.sessions.values()),
            last=max(dates) if dates else None,
            forge=facts.forge,
            subject=facts.subject,
        )

    def _repo_page(self, repo: Repo, refs: list[_RefData]) -> Page:
        groups = []
        for kind in KINDS:
            rows = [self._row(d) for d in sorted((d for d in refs if d.key.kind == kind), key=lambda d: d.key.sort_key)]
            if rows:
                groups.append({"kind": kind, "label": KIND_LABELS[kind], "rows": rows})
        session_ids = set(self.scopes.get(repo, ())) | {s for d in refs for s in d.sessions}
        sessions = self._sessions_rows(session_ids)
        info = self._repo_info(repo)
        info.update(groups=groups, count=sum(len(g["rows"]) for g in groups), sessions=len(session_ids))
        return Page(
            repo_refs_url(repo), "refs_repo.html", {"group": info, "sessions": sessions}, tuple(sorted(session_ids))
        )

    def _commit_pages(self, data: _RefData) -> list[str]:
        """The commit pages (``commits/<sha>.html``) of the commits this ref's names abbreviate."""
        found: dict[str, None] = {}
        for name in data.names:
            at = bisect.bisect_left(self.commit_shas, name)
            while at < len(self.commit_shas) and self.commit_shas[at].startswith(name):
                found[commit_url(self.commit_shas[at])] = None
                at += 1
        return list(found)

    def _sessions_rows(self, ids: set[str]) -> list[_SessionInfo]:
        """Latest first (the order planned once for all sessions)."""
        return [self.sessions[s] for s in sorted(ids, key=self.order.__getitem__)]

    def _ref_page(self, data: _RefData) -> Page:
        key = data.key
        facts = self.facts[key]
        entries = []
        for info in self._sessions_rows(set(data.sessions)):
            seen = data.sessions[info.id]
            mentions = [_MentionRow(link or info.url, m.before, m.text, m.after) for link, m in seen.mentions]
            entries.append(_Entry(info, seen.worked, seen.archive, mentions, seen.more))
        related = []
        for r in data.related:
            other = self.facts.get(r)
            if other is not None:
                label = other.label if r.repo == key.repo else other.label_out
                related.append(
                    SimpleNamespace(
                        label=label, kind=other.kind_label, url=other.url, title=other.title, subject=other.subject
                    )
                )
        related.sort(key=lambda x: (x.kind, x.label))
        context = {
            "ref": SimpleNamespace(
                kind=key.kind,
                kind_label=facts.kind_label,
                name=facts.full,
                label=facts.label,
                shas=sorted(n for n in data.names if len(n) == 40) if key.kind == "commit" else [],
                commit_pages=self._commit_pages(data) if key.kind == "commit" else [],
                forge=facts.forge,
                title=facts.title,
                subject=facts.subject,
            ),
            "repo": self._shared_repo_info(key.repo),
            "entries": entries,
            "related": related,
        }
        return Page(facts.url, "ref.html", context, tuple(sorted(data.sessions)))


def commit_pages_written(writer: SiteWriter) -> list[str]:
    """The full shas of the commit pages this build wrote (``outputs/commit_pages.py`` runs first), sorted."""
    prefix = COMMITS_FOLDER + "/"
    return sorted(
        url[len(prefix) : -5]
        for url in writer.written
        if url.startswith(prefix) and url.endswith(".html") and len(url) == len(prefix) + 45
    )


def _session_order(info: _SessionInfo) -> tuple[bool, float, str, str]:
    """Latest first, then by title (then id, so equal ones keep one order)."""
    return (info.started is None, -(info.started.timestamp() if info.started else 0), info.title, info.id)
