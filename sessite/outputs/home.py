"""The home page aggregate: the session list, the archive's insights, and the 404 page.

From each session a worker collects its summary and its figures (tokens by
model, tools with their failures, files edited, lines, estimated cost); the
main process adds them up into ``Totals`` for the archive and per project and
writes ``index.html`` (with a summary and the filters the charts link to),
``insights.html``, ``insights/<project>.html``, ``insights/projects.html`` and
``404.html``. Every insights page is bounded by its top-N tables, whatever the
number of sessions.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from sessite.analyze.insights import SessionFigures, Totals, price_table, session_figures
from sessite.analyze.session import SessionSummary
from sessite.config import SiteConfig
from sessite.model import Problems
from sessite.publish.writer import SiteWriter
from sessite.render.insights import Overview, overview, project_rows
from sessite.render.pages import Page, index_page, not_found_page
from sessite.render.renderer import Renderer
from sessite.site.urls import INSIGHTS_URL, PROJECTS_URL, project_url
from sessite.site.view import SessionView

PROJECTS_ON_INSIGHTS = 25  # rows in the projects table of insights.html; insights/projects.html lists all
FILES_PER_PROJECT = 10
# 404.html finds the site root from this many folders deep (static/notfound.js); GitHub Pages
# serves it at any missing address; the deepest of this site's own pages are three folders down
NOT_FOUND_DEPTH = 5


# one row of index.html: the summary, the tools it called, its models, the files it edited
_Row = tuple[SessionSummary, tuple[str, ...], tuple[str, ...], tuple[str, ...]]


class SessionIndex:
    name = "index"

    def __init__(self, config: SiteConfig) -> None:
        try:
            self.prices = price_table(getattr(config, "prices", None))
        except ValueError:  # the command line checks the table; a bad one given in code falls back
            self.prices = price_table(None)
        self.rows: list[_Row] = []
        self.totals = Totals()
        self.projects: dict[str, Totals] = {}

    def collect(self, view: SessionView) -> tuple[SessionSummary, SessionFigures]:
        try:
            return view.summary, session_figures(view, self.prices)
        except Exception:  # noqa: BLE001 - odd data costs this session its figures, never its row
            return view.summary, _plain_figures(view.summary)

    def add(self, item: tuple[SessionSummary, SessionFigures] | SessionSummary) -> None:
        if isinstance(item, SessionSummary):  # a caller that still hands summaries only
            summary, figures = item, _plain_figures(item)
        else:
            summary, figures = item
        intern = sys.intern
        models = tuple(intern(m) for m in dict.fromkeys((*summary.models, *(m for m, _ in figures.usage_by_model))))
        self.rows.append(
            (
                summary,
                tuple(intern(name) for name, _, _ in figures.tools),
                models,
                tuple(path for path, _, _, _ in figures.files),
            )
        )
        self.totals.add(summary, figures, self.prices)
        if summary.project:
            project = self.projects.get(summary.project)
            if project is None:
                project = self.projects[summary.project] = Totals(top=FILES_PER_PROJECT)
            project.add(summary, figures, self.prices)

    def pages(self) -> list[Page]:
        site = overview(self.totals)
        per_project = {name: overview(t, name, "pr") for name, t in self.projects.items()}
        facets = _facets(self.rows, site, per_project.values())
        summaries = [row[0] for row in self.rows]
        home = index_page(summaries)
        home.context.update(facets=facets["lists"], row_facets=facets["rows"], overview=site)
        plans = [home]
        projects = project_rows(self.projects, PROJECTS_ON_INSIGHTS)
        plans.append(
            Page(
                INSIGHTS_URL,
                "insights.html",
                {"o": site, "projects": projects, "all_projects": len(self.projects)},
                home.deps,
            )
        )
        members: dict[str, list[str]] = {}
        for s in summaries:
            if s.project:
                members.setdefault(s.project, []).append(s.id)
        for name, o in per_project.items():
            plans.append(
                Page(
                    project_url(name),
                    "insights.html",
                    {"o": o, "projects": [], "all_projects": 0},
                    tuple(members.get(name, ())),
                )
            )
        if self.projects:
            plans.append(Page(PROJECTS_URL, "projects.html", {"projects": project_rows(self.projects)}, home.deps))
        missing = not_found_page()
        missing.context.update(not_found_depth=NOT_FOUND_DEPTH)
        plans.append(missing)
        return plans

    def write(self, writer: SiteWriter, renderer: Renderer, problems: Problems) -> None:
        for page in self.pages():
            try:
                writer.write(page.url, renderer.render(page))
            except Exception as exc:  # noqa: BLE001 - one bad page must not stop the build
                problems.add(page.url, None, f"could not render {page.url} ({type(exc).__name__}: {exc})", "render")


def _plain_figures(summary: SessionSummary) -> SessionFigures:
    """What the summary alone says, when a session's own figures could not be worked out."""
    return SessionFigures((), tuple((n, c, 0) for n, c in summary.stats.tools), (), 0, 0, 0, 0, 0)


def _facets(rows: list[_Row], site: Overview, projects: Iterable[Overview]) -> dict[str, Any]:
    """What index.html's rows can be filtered by, as short lists plus per-row indices.

    Tools and models are all listed; files only when some insights table links
    to them, so the page stays small however many files the archive touched.
    """
    tool_calls: dict[str, int] = {name: calls for name, calls, _e, _s in site.totals.top_tools(10**9)}
    tools = sorted(tool_calls, key=lambda n: (-tool_calls[n], n))
    models = [
        m for m, _n, _u, _c in sorted(((m, *v) for m, v in site.totals.models.items()), key=lambda t: (-t[1], t[0]))
    ]
    files: list[tuple[str, str]] = []
    for o in (site, *projects):
        for f in o.files:
            key = (f["project"], f["path"])
            if key not in files:
                files.append(key)
    tool_ix = {n: i for i, n in enumerate(tools)}
    model_ix = {n: i for i, n in enumerate(models)}
    file_ix = {k: i for i, k in enumerate(files)}
    per_row: dict[str, dict[str, str]] = {}
    for summary, used, row_models, edited in rows:
        project = summary.project or ""
        per_row[summary.id] = {
            "t": " ".join(str(tool_ix[n]) for n in used if n in tool_ix),
            "m": " ".join(str(model_ix[m]) for m in row_models if m in model_ix),
            "f": " ".join(str(file_ix[(project, p)]) for p in edited if (project, p) in file_ix),
        }
    return {"lists": {"tools": tools, "models": models, "files": [list(k) for k in files]}, "rows": per_row}
