"""Full-text search: the aggregate that feeds ``sessite.search.index`` and writes ``search/``.

Every page has a search box (``templates/base.html``) leading to
``search.html?q=...``. The index is a lunr index built with lunr.py and
queried by lunr.js 2.3.9 (``static/vendor/lunr``), but never as one file: it
is split by term into chunks, and a query downloads only the chunks of its
own words (see ``sessite/search/index.py`` for the format and why ranking
still equals one monolithic index's). Output:

- ``search.html``: the results page (``templates/search.html``) with agent
  and project filters; ``static/search.js`` runs it, ``static/search-core.js``
  normalizes the query exactly as the build normalized the text.
- ``search/meta.js``: chunk boundaries and per-session agent and project numbers.
- ``search/facts.js``: per-session start day, models and tools (``sessite/search/facts.py``),
  loaded only by a query that filters by them.
- ``search/t/<n>.js``: term chunks.
- ``search/f/<k>/<n>-<pack>.js``: snippet text of session number n, fetched for the results
  on screen only.

All are scripts calling ``sessiteSearch.<kind>(...)``, so they load through
``<script src>`` from ``file://`` (where fetch() of local files is blocked)
as well as over HTTP.

What is searchable: per session its title (a field of its own, boosted) and,
in the body, a header (title, agent, project, folder, id, source, models, git
branches, commits, issues, tags, repos) and every event, sub-agents included:
message, thinking and compaction text, tool names, commands, paths, tool
input strings, output, diffs and block text. It is what the page shows,
after redaction: ``collect()`` sees sessions the build already redacted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lunr.builder import Builder

from sessite.config import SiteConfig
from sessite.model import Event, Kind, Problems, walk
from sessite.parallel import aggregate_jobs
from sessite.publish.writer import SiteWriter
from sessite.render.pages import Page
from sessite.render.renderer import Renderer
from sessite.search.facts import Facts, FactTable
from sessite.search.index import IndexState
from sessite.search.item import SessionItem, session_item
from sessite.search.terms import INDEX_CHARS, tokens
from sessite.search.weights import FIELDS, lunr_json
from sessite.site.urls import SEARCH_URL, session_url
from sessite.site.view import SessionView


def _strings(value: Any, out: list[str], depth: int = 0) -> None:
    if isinstance(value, str):
        if value and not value.startswith("data:"):
            out.append(value)
    elif depth < 20 and isinstance(value, dict):
        for item in value.values():
            _strings(item, out, depth + 1)
    elif depth < 20 and isinstance(value, (list, tuple)):
        for item in value:
            _strings(item, out, depth + 1)


def event_text(event: Event) -> str:
    """The searchable text of one event (not its children, which are events of their own)."""
    parts: list[str] = []
    for value in (event.title, event.tool_name, event.command, event.path, event.text):
        if value:
            parts.append(value)
    if event.tool_input is not None:
        strings: list[str] = []
        _strings(event.tool_input, strings)
        # an edit's old and new text are in its diff already: index them once
        parts.extend(x for x in strings if not event.diff or len(x) <= 200)
    if event.diff:
        parts.append(event.diff)
    for block in event.blocks:
        for value in (block.title, block.uri, block.text):
            if value and not value.startswith("data:"):
                parts.append(value)
        if block.data is not None:
            _strings(block.data, parts)
    if event.kind == Kind.UNKNOWN and event.raw is not None:
        _strings(event.raw, parts)
    return "\n".join(dict.fromkeys(parts))  # each text once, in order


def header_text(view: SessionView) -> str:
    s = view.summary
    git = s.git
    parts = [s.title, s.agent, s.project or "", s.cwd or "", s.id, s.source, *s.models]
    parts += [*git.branches, *git.commits, *git.issues, *git.tags, *git.repos]
    return "\n".join(p for p in parts if p)


def _label(event: Event) -> str:
    if event.kind == Kind.TOOL_CALL:
        return f"tool: {event.tool_name}" if event.tool_name else "tool"
    if event.kind == Kind.TOOL_RESULT:
        return "error" if event.is_error else "tool result"
    return str(event.kind).replace("_", " ")


def session_events(view: SessionView) -> list[tuple[str, str, str]]:
    """The session's events as (anchor, label, text); event 0 is the header (anchor "")."""
    events = [("", "session", header_text(view))]
    for event in walk(view.session.events):
        events.append((view.anchors.get(event.id, ""), _label(event), event_text(event)))
    return events


def session_payload(view: SessionView) -> tuple[str, str, str, str, str, list[tuple[str, str, str]]]:
    """What the index keeps of a session: ``IndexState.add``'s arguments (with ``event_pages`` for a split session)."""
    s = view.summary
    return (
        s.title,
        s.agent,
        s.project or "",
        s.started.isoformat() if s.started else "",
        session_url(s.id),
        session_events(view),
    )


def session_facts(view: SessionView) -> Facts:
    """What the search page's date, model and tool filters read of a session."""
    s = view.summary
    day = s.started.date().isoformat() if s.started else ""
    return day, tuple(s.models), tuple(name for name, _ in s.stats.tools)


def event_pages(view: SessionView) -> dict[str, str]:
    """anchor -> page, for the events of a split session that are not on its first page
    (so a result opens the right part)."""
    if not view.parts:
        return {}
    pages: dict[str, str] = {}
    for event_id, index in view.event_part.items():
        anchor = view.anchors.get(event_id)
        if index and anchor:
            pages[anchor] = view.parts[index].url
    return pages


def session_terms(view: SessionView) -> tuple[list[str], list[str]]:
    """The title and body terms of a session, in order: what a plain lunr.py Builder is given."""
    body: list[str] = []
    for _, _, text in session_events(view):
        body.extend(tokens(text[:INDEX_CHARS]))
    return list(tokens(view.summary.title)), body


def monolithic_index(views: Iterable[SessionView]) -> dict:
    """One plain lunr.py index of these sessions: the reference the chunks must rank like."""
    builder = Builder()
    builder.ref("id")
    for name, boost in FIELDS:
        builder.field(name, boost)
    for doc, view in enumerate(views):
        title, body = session_terms(view)
        builder.add({"id": str(doc), "title": title, "body": body})
    return lunr_json(builder.build().serialize())


class SearchIndex:
    """The search aggregate.

    ``collect`` runs where a session is rendered (a worker process of the
    build): it tokenizes and counts the session's text into a compact item,
    which is also what the build cache keeps, so an unchanged session is
    never tokenized again. ``add`` (main process, archive order) appends the
    item's postings; ``write`` weighs and writes the chunks, the snippet files
    and search.html.
    """

    name = "search"

    def __init__(self, config: SiteConfig | None = None) -> None:
        self.jobs = aggregate_jobs(config)
        self.state: IndexState | None = None  # made on first add: workers only collect
        self.facts = FactTable()
        self.ids: list[str] = []
        self.agents: set[str] = set()
        self.projects: set[str] = set()

    def collect(self, view: SessionView, shown: list[str] | None = None) -> tuple[str, SessionItem, Facts]:
        """``shown``: see ``session_item`` (the strings its snippet files will hold)."""
        item = session_item(*session_payload(view), event_pages(view), shown=shown)
        return view.summary.id, item, session_facts(view)

    def add(self, item: tuple[str, SessionItem, Facts] | SessionView) -> None:
        """One session, as ``collect`` returned it (or its view, from a build loop without workers)."""
        if isinstance(item, SessionView):
            item = self.collect(item)
        session_id, data, facts = item
        self.ids.append(session_id)
        self.facts.add(facts)
        self.agents.add(data[0])
        if data[1]:
            self.projects.add(data[1])
        if self.state is None:
            self.state = IndexState()
        self.state.add_item(data)

    def write(self, writer: SiteWriter, renderer: Renderer, problems: Problems) -> None:
        state, self.state = self.state or IndexState(), None
        for url, data in state.files(self.jobs):
            writer.write(url, data)
        writer.write(*self.facts.file())
        self.facts = FactTable()
        page = Page(
            SEARCH_URL,
            "search.html",
            {"agents": sorted(self.agents), "projects": sorted(self.projects)},
            tuple(self.ids),
        )
        try:
            writer.write(page.url, renderer.render(page))
        except Exception as exc:  # noqa: BLE001 - one bad page must not stop the build
            problems.add(SEARCH_URL, None, f"could not render {SEARCH_URL} ({type(exc).__name__}: {exc})", "render")
