"""One Jinja environment for the whole build; pages in, HTML out.

User template folders come before the package's, so a user can override any
template (or just ``_event.html``) without copying the rest.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    select_autoescape,
)
from markupsafe import Markup

from sessite import __version__, speedups
from sessite.analyze.session import one_line
from sessite.render.charts import format_count as compact_count
from sessite.render.charts import format_seconds
from sessite.render.insights import register_jinja as register_insights
from sessite.render.markup import element_text, highlight_code, markdown, prose, render_diff
from sessite.render.pages import Page
from sessite.render.reflinks import RefHelpers
from sessite.render.resources import templates_dir
from sessite.site.urls import session_url
from sessite.speedups import pretty


def format_time(value: datetime | None) -> str:
    if value is None:
        return ""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def format_duration(value: timedelta | None) -> str:
    """A session's duration in the page's words (one formatter for pages and charts)."""
    return "" if value is None else format_seconds(value.total_seconds())


def format_count(value: int | None) -> str:
    """Compact human number: 950, 12.3k, 4.5M (one formatter for pages and charts).
    A small whole number reads as itself: no float formatting for the most common case."""
    if type(value) is int and -1000 < value < 1000:
        return str(value)
    return compact_count(value or 0)


def pretty_json(value: Any) -> str:
    """A tool call's input (or any JSON value) as ``json.dumps(indent=2)`` prints it."""
    if isinstance(value, str):
        return value
    if speedups.ENABLED:
        fast = pretty.dumps(value)
        if fast is not None:
            return fast
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _sides(diff: str) -> tuple[list[str], list[str]]:
    """The old and the new lines a unified diff shows, in order."""
    old: list[str] = []
    new: list[str] = []
    for line in diff.splitlines():
        if line.startswith(("---", "+++", "@@")):
            continue
        mark, text = line[:1], line[1:]
        if mark in (" ", "-"):
            old.append(text)
        if mark in (" ", "+"):
            new.append(text)
    return old, new


def beside_diff(tool_input: Any, diff: str | None) -> Any:
    """A tool call's input as shown under its diff: a long string value that is exactly
    the diff's old or new side (an edit's old and new text, a written file) becomes a
    note, so the same text is not on the page twice. Anything else is kept as it is."""
    if not diff or not isinstance(tool_input, dict):
        return tool_input
    sides = None
    shown = dict(tool_input)
    for key, value in tool_input.items():
        if isinstance(value, str) and len(value) > 80:
            sides = sides or _sides(diff)
            lines = value.splitlines()
            if lines in sides:
                shown[key] = f"({len(lines)} lines: the {'old' if lines == sides[0] else 'new'} side of the diff above)"
    return shown


def line_count(text: str | None) -> int:
    return text.count("\n") + 1 if text else 0


BUILT_IN_PREFIX = "sessite"  # {% extends "sessite:session.html" %}: the package's own template


class Renderer:
    """Renders planned pages with one shared, autoescaping environment."""

    def __init__(
        self, site: dict[str, Any], user_template_dirs: tuple[Path, ...] = (), bytecode_dir: Path | None = None
    ) -> None:
        built_in = FileSystemLoader(str(templates_dir()))
        # "sessite:session.html" is always the built-in template, so an override of session.html can
        # extend the very template it shadows (Pelican's "!simple/", Datasette's "default:").
        prefixed = PrefixLoader({BUILT_IN_PREFIX: built_in}, delimiter=":")
        loaders = [prefixed, *(FileSystemLoader(str(p)) for p in user_template_dirs), built_in]
        bytecode = None
        if bytecode_dir is not None:
            # Compiling the templates costs ~0.5 s a build; jinja keys this cache by each source's checksum.
            try:
                bytecode_dir.mkdir(parents=True, exist_ok=True)
                bytecode = FileSystemBytecodeCache(str(bytecode_dir))
            except OSError:
                bytecode = None
        self.env = Environment(
            loader=ChoiceLoader(loaders),
            bytecode_cache=bytecode,
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            # A renderer lives for one build (the preview makes a new one per rebuild): a template
            # is read once, not stat-ed again at every page that extends or imports it.
            auto_reload=False,
        )
        self.env.filters.update(
            markdown=markdown,
            prose=prose,  # a person's or a hook's text: line breaks kept
            text=element_text,  # <pre> content: escaped, quotes kept
            code=lambda text, language=None, filename=None: highlight_code(text or "", language, filename),
            diff=render_diff,
            time=format_time,
            duration=format_duration,
            count=format_count,
            pretty_json=pretty_json,
            beside_diff=beside_diff,
            lines=line_count,
            isotime=lambda v: v.astimezone(UTC).isoformat() if v else "",
        )
        self.env.globals.update(site=site, version=__version__, Markup=Markup, session_url=session_url)
        self.env.globals.update(one_line=one_line)  # a session's facts on one line: its link card's description
        refs = RefHelpers(site)  # git refs of a session page: header list, links in text
        self.env.globals.update(git_refs=refs.header)
        self.env.filters.update(reflinks=refs.link_html, reflinks_text=refs.link_text)
        register_insights(self.env, site)  # charts, estimated costs, a session's own figures

    def render(self, page: Page) -> str:
        template = self.env.get_template(page.template)
        return template.render(page=page, root=page.root, **page.context)

    def stream(self, page: Page) -> Iterator[str]:
        """The page's HTML in pieces (what ``render`` joins), for pages too big to hold whole."""
        template = self.env.get_template(page.template)
        return template.generate(page=page, root=page.root, **page.context)
