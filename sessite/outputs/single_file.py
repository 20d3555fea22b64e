"""One session as one self-contained HTML file: ``sessite convert --to html`` and ``--exports html``.

The file reads like the session's page on the site (the same templates: session.html
inside single.html instead of base.html, with folding, kind filters, the outline and
highlighting), and opens anywhere with nothing beside it:

- every event on one page (never split into parts), the styles and scripts inline,
  images as data: URIs re-encoded and shrunk to a byte budget (``single_images.py``);
- a Content-Security-Policy allowing exactly the inline style and script, by their
  sha256 hashes, and data: images: nothing loads, and session text (escaped as on
  the site) could not run a script even if some got through;
- no link to a file that is not there: links to the site's other pages (the index,
  git refs, the project, tool filters) become their plain words; links inside the
  page (``#anchor``) and out to the web (http, https, mailto) stay.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from sessite.config import SiteConfig
from sessite.model import Session
from sessite.outputs.single_images import (
    ImageReport,
    fit_images,
    packed_blocks,
    shown_images,
    size_words,
    without_images,
)
from sessite.render.markup import pygments_css
from sessite.render.pages import session_pages
from sessite.render.renderer import Renderer
from sessite.render.resources import static_dir
from sessite.site.view import build_view

DEFAULT_MAX_BYTES = 5_000_000
STYLES = ("style.css", "pygments.css", "timeline.css", "insights.css", "single.css")  # in this order
SCRIPTS = ("app.js", "single.js")
LAYOUT = "single.html"
NOTE_SLACK = 2_000  # bytes the notes about images may add after the text was measured without them
_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9}
_UNITS.update({"kib": 2**10, "mib": 2**20, "gib": 2**30})
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.I)
_LINK = re.compile(r"<a\b([^>]*)>(.*?)</a>", re.S)
_ATTR = re.compile(r'\s(href|class|title)="([^"]*)"')
_STAYS = ("#", "http://", "https://", "mailto:")
_CLOSERS = ("</style", "</script", "<!--")  # would end or confuse an inline block
_NOTE = '<p class="note single-note">'  # where single.html says what the file holds


class SingleFileError(ValueError):
    """The single file cannot be made as asked (a size that is not one, a static file that cannot be inlined)."""


def parse_size(text: str) -> int:
    """``5MB``, ``500KB``, ``1.5 MB``, ``2MiB`` or plain bytes, as bytes (KB and MB are powers of ten)."""
    match = _SIZE.fullmatch(str(text))
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _UNITS:
        raise SingleFileError(f"{text!r} is not a size such as 5MB, 500KB or 2000000")
    size = int(float(match.group(1)) * _UNITS[unit])
    if size <= 0:
        raise SingleFileError(f"{text!r} is not a size above zero")
    return size


@dataclass(frozen=True)
class SingleFileSettings:
    title: str = "Session archive"  # the header's words (the site's title)
    forge_url: tuple[str, ...] = ()  # where git refs link out (refs.Forge)
    prices: dict | None = None  # estimated costs (as SiteConfig.prices)
    template_dirs: tuple[Path, ...] = ()  # user templates, searched before the package's
    static_dirs: tuple[Path, ...] = ()  # user static files: their style.css, app.js… are the ones inlined
    max_bytes: int = DEFAULT_MAX_BYTES  # the budget the images are shrunk to fit
    redacted: bool = True  # said in the file's note

    @classmethod
    def for_config(cls, config: SiteConfig) -> SingleFileSettings:
        return cls(
            config.title,
            config.forge_url,
            config.prices,
            config.template_dirs,
            config.static_dirs,
            redacted=config.redact,
        )


@dataclass(frozen=True)
class SingleFile:
    data: bytes  # the whole file, UTF-8 HTML
    images: ImageReport
    notes: tuple[str, ...]  # what the file says at its top
    changes: tuple[str, ...] = ()  # of those, what was changed to fit the budget (said by convert too)


def csp_hash(text: str) -> str:
    """A CSP source allowing exactly one inline block: ``'sha256-…'`` of its UTF-8 text."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def keep_links_that_resolve(html: str) -> str:
    """Links to the site's other pages become their words (a ``<span>`` keeping the link's class
    and title); ``#anchor`` and web links stay. Runs on the body only: the inline style and
    script are the file's own, and their hashes must still match."""

    def one(match: re.Match[str]) -> str:
        attrs = dict(_ATTR.findall(match.group(1)))
        if attrs.get("href", "").lower().startswith(_STAYS):
            return match.group(0)
        kept = "".join(f' {k}="{v}"' for k, v in attrs.items() if k != "href")
        return f"<span{kept}>{match.group(2)}</span>"

    head, mark, body = html.partition("<body")
    return head + mark + _LINK.sub(one, body)


class SingleFilePacker:
    """Packs sessions into single files; built once (templates, inline assets, policy) for many."""

    def __init__(self, settings: SingleFileSettings) -> None:
        self.settings = settings
        site = {
            "title": settings.title,
            "base_url": "",
            "forge_url": settings.forge_url,
            "prices": settings.prices,
            "exports": (),  # the file has nothing beside it to download
        }
        self.renderer = Renderer(site, settings.template_dirs)
        self.style = "\n".join(self._asset(name) for name in STYLES)
        self.script = "\n;\n".join(self._asset(name) for name in SCRIPTS)
        self.csp = (
            f"default-src 'none'; script-src {csp_hash(self.script)}; style-src {csp_hash(self.style)}; "
            "img-src data:; base-uri 'none'; form-action 'none'"
        )

    def _asset(self, name: str) -> str:
        """A static file's text, the user's own first (as the build copies them over the package's)."""
        for folder in (*self.settings.static_dirs, static_dir()):
            path = folder / name
            if path.is_file():
                text = path.read_text("utf-8")
                break
        else:
            if name != "pygments.css":
                raise SingleFileError(f"static file {name} is missing")
            text = pygments_css()  # the build writes it from the highlighting themes
        if any(closer in text.lower() for closer in _CLOSERS):
            raise SingleFileError(f"{path}: cannot be inlined (it holds one of {', '.join(_CLOSERS)})")
        return text

    def pack(self, session: Session) -> SingleFile:
        """The session (already redacted) as one file; its images fitted to what the budget
        leaves after its text (measured by a first rendering without them)."""
        max_bytes = self.settings.max_bytes
        images = shown_images(session)
        report = ImageReport()
        text_bytes = 0
        if images:
            text_bytes = len(self._render(without_images(session), self.intro()).encode("utf-8"))
            report = fit_images(images, max_bytes - text_bytes - NOTE_SLACK)
            session = packed_blocks(session, report)
        changes = self.changes(report) + (self.over(text_bytes) if text_bytes > max_bytes else ())
        html = self._render(session, self.intro() + changes)
        size = len(html.encode("utf-8"))
        if not images and size > max_bytes:  # the text is the whole file: said without rendering it again
            changes = self.over(size)
            head, mark, rest = html.partition(_NOTE)
            end = rest.find("</p>")
            if mark and end != -1:
                html = head + mark + rest[:end] + " " + str(escape(changes[0])) + rest[end:]
        return SingleFile(html.encode("utf-8"), report, self.intro() + changes, changes)

    def _render(self, session: Session, notes: tuple[str, ...]) -> str:
        view = build_view(session, part_bytes=sys.maxsize)  # one page, never parts
        page = session_pages(view)[0]
        # The blocks go in as they are (Markup: escaping would change the text the hashes allow).
        single: dict[str, Any] = {"csp": self.csp, "style": Markup(self.style), "script": Markup(self.script)}
        single["notes"] = notes
        context = dict(page.context, project=None, layout=LAYOUT, single=single)
        return keep_links_that_resolve(self.renderer.render(replace(page, context=context)))

    def over(self, text_bytes: int) -> tuple[str, ...]:
        """The note of a text bigger than the budget on its own."""
        budget = size_words(self.settings.max_bytes)
        return (f"Its text alone is {size_words(text_bytes)}, over the {budget} budget: text is never cut.",)

    def intro(self) -> tuple[str, ...]:
        """What the top of every file says: what it is, and whether secrets were redacted."""
        return (
            "One session saved as a single file: it opens anywhere and loads nothing else "
            "(links to the rest of the site are plain text).",
            "Secrets are redacted: [REDACTED:kind] stands where one was."
            if self.settings.redacted
            else "Not redacted: secrets are shown as they were.",
        )

    def changes(self, report: ImageReport) -> tuple[str, ...]:
        """What became of the images, when there are any."""
        total = len(report.images)
        if not total:
            return ()
        words = [f"{total} image{'s' if total != 1 else ''} ({size_words(report.before)} as they came, "]
        words.append(f"{size_words(report.after)} here): without their metadata")
        if report.shrunk:
            words.append(f"; {report.shrunk} shrunk to fit the file's {size_words(self.settings.max_bytes)} budget")
        if report.left_out:
            words.append(f"; {report.left_out} left out, each marked where it stood")
        return ("".join(words) + ".",)
