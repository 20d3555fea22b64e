"""Every URL of the site, relative to its root, made in one place.

Pages link to each other with ``root`` (``relative_root(page_url)``) in front of
these, so a site works from any folder and from ``file://``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from urllib.parse import quote, urlencode

from sessite.analyze.filenames import reserved_on_windows
from sessite.analyze.refs import RefKey, Repo
from sessite.interchange.formats import SUFFIXES

GZIP_SUFFIX = ".gz"

INDEX_URL = "index.html"  # the session list (its rows filter by URL parameters: ``index_url``)
NOT_FOUND_URL = "404.html"
INSIGHTS_URL = "insights.html"
PROJECTS_URL = "insights/projects.html"
REFS_INDEX_URL = "refs/index.html"
SEARCH_URL = "search.html"  # written by the search aggregate (sessite/outputs/search.py)
FEED_URL = "feed.xml"
SITEMAP_URL = "sitemap.xml"
LLMS_TXT_URL = "llms.txt"  # what the archive is and where each session is, for agents (outputs/llms.py)
ROBOTS_URL = "robots.txt"
STATIC_FOLDER = "static"  # the package's and the user's static files, copied by the build
PYGMENTS_CSS_URL = f"{STATIC_FOLDER}/pygments.css"  # written by the build from the highlighting themes


OPAQUE_FOLDER = "p"  # an encrypted site's pages and files, by keyed hash of their plain URL
_opaque_key: bytes | None = (
    None  # set for an encrypted build (``opaque_urls``); a module global, so forked workers see it
)


@contextmanager
def opaque_urls(key: bytes | None) -> Iterator[None]:
    """Within this block every URL made from data (a session id, a project, a ref) is opaque:
    ``p/<HMAC(key, plain URL)[:24]><suffix>``, one folder deep whatever the page, so an encrypted
    site's file names carry no ids, titles, project or ref names and do not say which kind of page
    they are. Links are made opaque where they are made; nothing is rewritten afterwards."""
    global _opaque_key
    previous, _opaque_key = _opaque_key, key
    try:
        yield
    finally:
        _opaque_key = previous


def _site(url: str, suffix: str) -> str:
    """``url`` as published: itself, or (in an encrypted build) its opaque name with ``suffix``."""
    if _opaque_key is None:
        return url
    name = hmac.new(_opaque_key, url.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:24]
    return f"{OPAQUE_FOLDER}/{name}{suffix}"


def relative_root(url: str) -> str:
    """The relative path from a page back to the site root ("" or "../" per folder)."""
    return "../" * url.count("/")


# ---------------------------------------------------------------- sessions


def session_url(session_id: str) -> str:
    return _site(f"sessions/{session_id}.html", ".html")


def part_url(session_id: str, number: int) -> str:
    """Part 1 of a split session is the session's own page; later parts live in a folder named after the id."""
    return session_url(session_id) if number == 1 else _site(f"sessions/{session_id}/p{number}.html", ".html")


def parts_script_url(session_id: str) -> str:
    """The anchor → part map of a split session (loaded by ``static/app.js`` when a hash is not on the page)."""
    return _site(f"sessions/{session_id}/parts.js", ".js")


def export_urls(session_id: str, formats: Iterable[str]) -> list[tuple[str, str]]:
    """(format, url) of each export of a session, beside its page (gzip-compressed: ``<id>.hail.jsonl.gz``)."""
    return [
        (fmt, _site(f"sessions/{session_id}{SUFFIXES[fmt]}{GZIP_SUFFIX}", f"{SUFFIXES[fmt]}{GZIP_SUFFIX}"))
        for fmt in formats
        if fmt in SUFFIXES
    ]


def markdown_twin_url(session_id: str) -> str:
    """The session's Markdown transcript as plain text beside its page (``<id>.md``; markdown exports on),
    for agents reading a hosted site: linked from llms.txt and the page's ``<link rel="alternate">``."""
    return f"sessions/{session_id}.md"


def single_file_url(session_id: str) -> str:
    """The session as one self-contained HTML file (``--exports html``), in the folder named after the id:
    never a page's or an export's name, and never a part's (``p<n>.html``: an id always holds its
    format's prefix and a dash)."""
    return _site(f"sessions/{session_id}/{session_id}.html", SINGLE_FILE_SUFFIX)


SINGLE_FILE_SUFFIX = ".single.html"  # an opaque one-file export's: never a page's (``p/<hex>.html``)
_SINGLE_FILE = re.compile(r"sessions/([^/]+)/\1\.html|" + OPAQUE_FOLDER + r"/[0-9a-f]+" + re.escape(SINGLE_FILE_SUFFIX))


def is_single_file_url(url: str) -> bool:
    """True for ``single_file_url``'s kind of URL: a file that must stay as it is (the preview adds nothing)."""
    return _SINGLE_FILE.fullmatch(url) is not None


# ---------------------------------------------------------------- the session list and insights


def index_url(**filters: str | None) -> str:
    """The session list filtered by ``agent``, ``model``, ``tool``, ``project``, ``file``, ``from``/``to``
    (empty filters left out; ``static/app.js`` reads them)."""
    query = urlencode({k: v for k, v in filters.items() if v}, quote_via=quote)
    return f"{INDEX_URL}?{query}" if query else INDEX_URL


_PROJECT_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


# The insights folder's own pages, which no project's page may take.
_BUILT_IN_INSIGHTS = frozenset({PROJECTS_URL.removeprefix("insights/").removesuffix(".html")})


def project_url(project: str) -> str:
    """A project's insights page (``_project_url``), opaque in an encrypted build."""
    return _site(_project_url(project), ".html")


def _project_url(project: str) -> str:
    """A project's insights page; a hash suffix whenever the name had to change to be a file name,
    or holds a capital (``App`` and ``app`` are one file on macOS and Windows), is reserved on
    Windows (``nul``) or is one of the folder's own pages (``projects``)."""
    slug = _PROJECT_UNSAFE.sub("-", project).strip("-.")[:60] or "project"
    if slug != project or slug != slug.lower() or reserved_on_windows(slug) or slug in _BUILT_IN_INSIGHTS:
        slug += "-" + hashlib.sha1(project.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"insights/{slug}.html"


def nav_script_url(project: str) -> str:
    """The script beside a project's page that lists its sessions in order (``sessite/outputs/neighbours.py``)."""
    return _site(_project_url(project).removesuffix(".html") + ".sessions.js", ".js")


# ---------------------------------------------------------------- git refs


def repo_refs_url(repo: Repo) -> str:
    """A repository's refs page (an unknown repository's too: its refs are listed there)."""
    return _site(f"refs/{repo.slug}/index.html", ".html")


def ref_url(key: RefKey) -> str:
    """A ref's page: ``refs/<repository>/<kind>/<name>.html``."""
    return _site(f"refs/{key.repo.slug}/{key.kind}/{key.slug}.html", ".html")


# ---------------------------------------------------------------- commits (sessite/outputs/commit_pages.py)

COMMITS_FOLDER = "commits"
COMMITS_INDEX_URL = f"{COMMITS_FOLDER}/index.html"  # the repositories of --repo
COMMIT_LINKS_URL = f"{COMMITS_FOLDER}/links.json"  # every linked commit and its sessions, for agents (sessite mcp)


def commit_url(sha: str) -> str:
    """A commit's page, by its full sha: a URL a pull-request bot or a ``git log`` alias can build."""
    return _site(f"{COMMITS_FOLDER}/{sha}.html", ".html")


def repo_commits_url(slug: str, page: int = 1) -> str:
    """A repository's commits, newest first, ``page`` of them (1: ``index.html``)."""
    plain = f"{COMMITS_FOLDER}/{slug}/index.html" if page <= 1 else f"{COMMITS_FOLDER}/{slug}/page-{page}.html"
    return _site(plain, ".html")


def session_commits_script_url(session_id: str) -> str:
    """The script a session page loads to list the commits linked to it."""
    return _site(f"{COMMITS_FOLDER}/sessions/{session_id}.js", ".js")


_BLAME_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def blame_url(path: str, repo: str = "") -> str:
    """A file's blame at HEAD: ``blame/<path>.html`` (``blame/<repo>/<path>.html`` for a second repository)."""
    parts = [_BLAME_UNSAFE.sub("-", p).strip("-") or "-" for p in path.split("/") if p not in ("", ".", "..")]
    parts = [p if p not in (".", "..") else "-" for p in parts]
    return _site("/".join(["blame", *([repo] if repo else []), *parts]) + ".html", ".html")
