"""Commits linked to the sessions that made them (``--repo``): a page per commit, a repository's
commits with the agent-written share, and each session's commits as a script its page loads.

An aggregate (see aggregate.py): each session's evidence (``gitlinks.evidence``) is collected in
a worker; at the end the repositories are read (``gitlinks.repository``, cached by ref tips) and
linked (``gitlinks.match``). Commit pages are written for commits with any evidence (a link, a
tool's trailer or note, an agent co-author) or that a session printed; the repository's pages
list every commit, paginated. Commit messages, paths and (with ``redact_pii``) authors pass
through the site's redaction.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from markupsafe import Markup, escape

from sessite.analyze.redact import Redactor
from sessite.config import SiteConfig
from sessite.gitlinks.evidence import SessionEvidence, collect_evidence, raw_ids
from sessite.gitlinks.match import CommitFacts, link_history
from sessite.gitlinks.repository import Repository, load_repository
from sessite.model import Problems
from sessite.outputs.blame_pages import blame_pages
from sessite.outputs.fanout import render_pages
from sessite.parallel import aggregate_jobs
from sessite.publish.writer import SiteWriter
from sessite.render.pages import Page
from sessite.render.renderer import Renderer
from sessite.site.urls import (
    COMMIT_LINKS_URL,
    COMMITS_INDEX_URL,
    commit_url,
    relative_root,
    repo_commits_url,
    session_commits_script_url,
    session_url,
)
from sessite.site.view import SessionView

FILES_PER_PAGE = 2000  # files listed on a commit's page (a vendored tree's commit stays far below 10 MB)
ROWS_PER_PAGE = 500  # commits on one page of a repository's list (a row is ~0.5 kB: no page near 10 MB)
_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(slots=True)
class _SessionRow:
    id: str
    url: str
    title: str
    agent: str
    models: tuple[str, ...]


class CommitPages:
    """The aggregate of ``--repo``: nothing at all without a repository."""

    name = "commits"

    def __init__(self, config: SiteConfig) -> None:
        self.config = config
        self.sessions: list[SessionEvidence] = []
        self.redactor = Redactor.for_config(config)

    def collect(self, view: SessionView) -> SessionEvidence | None:
        if not self.config.repos:
            return None
        session = view.session
        url = session_url(session.id)
        return collect_evidence(session, url, view.summary.title, view.event_url) or SessionEvidence(
            session.id, url, view.summary.title, session.agent, tuple(session.models), None, raw_ids(session), None
        )

    def add(self, item: SessionEvidence | None) -> None:
        if item is not None:
            self.sessions.append(item)

    # ---- writing

    def write(self, writer: SiteWriter, renderer: Renderer, problems: Problems) -> None:
        if not self.config.repos:
            return
        rows = {s.id: _SessionRow(s.id, s.url, s.title, s.agent, s.models) for s in self.sessions}
        active = self.sessions
        by_session: dict[str, list[tuple[str, str, str, list[str], float | None]]] = {}
        linked: dict[str, dict[str, Any]] = {}  # sha -> what commits/links.json says of it (agents read it)
        pages: list[Page] = []
        done: set[str] = set()
        listed: list[SimpleNamespace] = []
        slugs: set[str] = set()
        for path in self.config.repos:
            repo = load_repository(path, self.config.cache_dir)
            if isinstance(repo, str):
                problems.add(path, None, repo, "git")
                continue
            facts = link_history(repo.history, active, repo.checkpoints, repo.notes, repo.added_lines, repo.traces)
            for message in repo.problems:
                problems.add(path, None, message, "git")
            slug = self._slug(repo, slugs)
            printed: dict[str, list[str]] = {}
            for s in active:
                for p in s.commits:
                    printed.setdefault(p.sha[:7], []).append(p.sha)
            shown = {
                sha
                for sha, f in facts.items()
                if sha not in done and (f.evidence or any(sha.startswith(p) for p in printed.get(sha[:7], ())))
            }
            for sha in shown:
                f = facts[sha]
                pages.append(self._commit_page(f, repo, slug, rows))
                if f.links:
                    linked[sha] = self._links_entry(f, repo)
                for link in f.links:
                    by_session.setdefault(link.session, []).append(
                        (commit_url(sha), sha[:10], self._text(f.commit.subject), link.kinds, link.share)
                    )
            done |= shown
            pages.extend(self._repo_pages(repo, slug, facts, shown, rows))
            listed.append(
                SimpleNamespace(
                    name=repo.history.name,
                    url=repo_commits_url(slug),
                    commits=len(facts),
                    linked=sum(1 for f in facts.values() if f.links),
                    pages=len(shown),
                )
            )
            if self.config.blame:
                by_id = {s.id: s for s in self.sessions}
                prefix = "" if len(slugs) == 1 else slug
                blamed, lines = blame_pages(
                    repo.history.path, prefix, self.config.blame, facts, by_id, shown, self.redactor
                )
                pages.extend(blamed)
                for line in lines:
                    problems.add(path, None, line, "git")
        pages.append(Page(COMMITS_INDEX_URL, "commits_index.html", {"repos": listed}, ()))
        writer.write(COMMIT_LINKS_URL, json.dumps({"commits": linked}, ensure_ascii=False, sort_keys=True).encode())
        render_pages(pages, writer, renderer, problems, aggregate_jobs(self.config))
        for s in self.sessions:
            data = {"commits": [list(c) for c in by_session.get(s.id, [])]}
            body = json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("</", "<\\/")
            writer.write(session_commits_script_url(s.id), ("sessiteSessionCommits(" + body + ");\n").encode("ascii"))

    def _links_entry(self, f: CommitFacts, repo: Repository) -> dict[str, Any]:
        """A linked commit as ``commits/links.json`` holds it (what ``sessite mcp`` answers from):
        redacted as its page is."""
        author, _ = self._author(f.commit.author, f.commit.email)
        return {
            "repo": repo.history.name,
            "subject": self._text(f.commit.subject),
            "author": author,
            "authored": _time(f.commit.authored).isoformat(),
            "url": commit_url(f.commit.sha),
            "agent_share": f.share,
            "sessions": [
                {
                    "id": link.session,
                    "kinds": link.kinds,
                    "confidence": link.confidence,
                    "turn": link.url,
                    "share": link.share,
                }
                for link in f.links
            ],
        }

    def _slug(self, repo: Repository, taken: set[str]) -> str:
        base = _SLUG_UNSAFE.sub("-", repo.history.name).strip("-.") or "repository"
        slug, n = base, 1
        while slug in taken or slug == "sessions":
            n += 1
            slug = f"{base}-{n}"
        taken.add(slug)
        return slug

    def _text(self, text: str) -> str:
        return self.redactor.text(text) if self.redactor is not None else text

    def _author(self, name: str, email: str) -> tuple[str, str]:
        """Name and e-mail as published: with ``redact_pii``, a stable pseudonym instead."""
        if self.config.redact_pii:
            tag = hashlib.sha256(email.strip().lower().encode("utf-8", "surrogateescape")).hexdigest()[:6]
            return f"author-{tag}", ""
        return self._text(name), self._text(email)

    def _commit_page(self, f: CommitFacts, repo: Repository, slug: str, rows: dict[str, _SessionRow]) -> Page:
        c = f.commit
        author, email = self._author(c.author, c.email)
        subject, _, body = self._text(c.message).partition("\n")
        links = []
        for link in f.links:
            s = rows.get(link.session)
            if s is None:
                continue
            links.append(
                SimpleNamespace(
                    session=s,
                    kinds=link.kinds,
                    confidence=link.confidence,
                    turn=link.url,
                    lines=link.lines,
                    share=link.share,
                )
            )
        context = {
            "commit": SimpleNamespace(
                sha=c.sha,
                subject=subject,
                body=body.strip("\n"),
                author=author,
                email=email,
                authored=_time(c.authored),
                committed=_time(c.committed),
                parents=list(c.parents),
                files=[
                    SimpleNamespace(path=self._text(x.path), added=x.added, deleted=x.deleted)
                    for x in c.files[:FILES_PER_PAGE]
                ],
                more_files=max(0, len(c.files) - FILES_PER_PAGE),
                file_count=len(c.files),
                added=c.added,
                deleted=c.deleted,
                bot=f.bot,
                share=f.share,
                counts=not repo.history.missing,
                comparable=f.comparable,
                agent_lines=f.agent_lines,
            ),
            "links": links,
            "stored": f.stored,
            "marks": f.marks,
            "checkpoints": f.checkpoints,
            "note": f.note,
            "repo": SimpleNamespace(name=repo.history.name, url=repo_commits_url(slug)),
        }
        return Page(commit_url(c.sha), "commit.html", context, tuple(sorted(x.session.id for x in links)))

    def _repo_pages(
        self, repo: Repository, slug: str, facts: dict[str, CommitFacts], shown: set[str], rows: dict[str, _SessionRow]
    ) -> list[Page]:
        commits = repo.history.commits
        total = max(1, -(-len(commits) // ROWS_PER_PAGE))
        months = _months(facts, rows)
        linked = sum(1 for f in facts.values() if f.links)
        pages = []
        authors: dict[tuple[str, str], str] = {}
        counts = not repo.history.missing
        for number in range(1, total + 1):
            url = repo_commits_url(slug, number)
            root = relative_root(url)
            chunk = commits[(number - 1) * ROWS_PER_PAGE : number * ROWS_PER_PAGE]
            table = []
            for c in chunk:
                who = authors.get((c.author, c.email))
                if who is None:
                    who = authors[(c.author, c.email)] = self._author(c.author, c.email)[0]
                table.append(_row_html(facts[c.sha], root, c.sha in shown, self._text(c.subject), who, counts))
            context = {
                "repo": SimpleNamespace(
                    name=repo.history.name,
                    commits=len(commits),
                    linked=linked,
                    shallow=repo.history.shallow,
                    counts=not repo.history.missing,
                ),
                "rows": table,
                "months": months if number == 1 else [],
                "page_number": number,
                "pages": [(n, repo_commits_url(slug, n)) for n in range(1, total + 1)],
            }
            pages.append(Page(url, "commits_repo.html", context, ()))
        return pages


def _row_html(f: CommitFacts, root: str, page: bool, subject: str, author: str, counts: bool = True) -> Markup:
    """One row of a repository's commits, made here rather than in the template: a 50,000-commit
    history has 50,000 of them, and Jinja takes ten times as long (benchmarks/commits_bench.py)."""
    c = f.commit
    sha = f"<code>{c.sha[:10]}</code>"
    cell = f'<a href="{root}{commit_url(c.sha)}">{sha}</a>' if page else sha
    when = time.gmtime(c.authored)
    share = f"{round(f.share * 100)} %" if f.share is not None else ""
    bot = ' <span class="badge">bot</span>' if f.bot else ""
    if f.marks and not f.bot:
        mark = f.marks[0]
        what = "cloud session" if mark.kind == "session-url" else "agent co-author"
        bot = f' <span class="badge agent-mark" title="{escape(mark.label[:80])}">{what}</span>'
    linked = ' class="linked"' if f.links else ""
    lines = f"+{c.added} −{c.deleted}" if counts else "—"
    iso, shown = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", when), time.strftime("%Y-%m-%d %H:%M UTC", when)
    return Markup(
        f'<tr{linked}><td>{cell}</td><td>{escape(subject)}</td><td class="opt">{escape(author)}{bot}</td>'
        f'<td class="opt"><time datetime="{iso}">{shown}</time></td><td>{lines}</td>'
        f"<td>{len(f.links) or ''}</td><td>{share}</td></tr>\n"
    )


def _time(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _months(facts: dict[str, CommitFacts], rows: dict[str, _SessionRow]) -> list[SimpleNamespace]:
    """Per month (newest first): commits, added lines, and the added lines linked sessions wrote
    (each commit's measured share of its added lines), by agent and model."""
    out: dict[str, dict[str, Any]] = {}
    for f in facts.values():
        month = time.strftime("%Y-%m", time.gmtime(f.commit.authored))
        m = out.setdefault(month, {"commits": 0, "linked": 0, "added": 0, "agent": 0, "agents": {}})
        m["commits"] += 1
        m["added"] += f.commit.added
        if f.links:
            m["linked"] += 1
        lines = round((f.share or 0) * f.commit.added)
        m["agent"] += lines
        weights = [(rows.get(link.session), link.lines) for link in f.links if link.lines]
        total = sum(w for _, w in weights)
        for s, weight in weights:  # the commit's agent lines, split between its sessions by what each wrote
            if s is not None and lines:
                key = s.agent + (f" ({s.models[0]})" if s.models else "")
                m["agents"][key] = m["agents"].get(key, 0) + lines * weight / total
    return [
        SimpleNamespace(
            month=k,
            share=(v["agent"] / v["added"]) if v["added"] else None,
            agents=[(k, round(n)) for k, n in sorted(v["agents"].items(), key=lambda kv: -kv[1])],
            **{x: v[x] for x in ("commits", "linked", "added", "agent")},
        )
        for k, v in sorted(out.items(), reverse=True)
    ]


def with_cache_dir(config: SiteConfig, cache_dir: Path) -> SiteConfig:
    """The config an aggregate is made with: the build's own cache folder filled in."""
    return replace(config, cache_dir=cache_dir)
