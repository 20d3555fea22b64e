"""The per-session downloads beside each page: the session in the interchange formats, gzip-compressed,
and (``--exports html``) the session as one self-contained HTML file."""

from __future__ import annotations

from collections.abc import Iterator

from sessite.config import SiteConfig
from sessite.interchange.formats import export_chunks
from sessite.interchange.streaming import gzip_bytes
from sessite.outputs.single_file import SingleFilePacker, SingleFileSettings
from sessite.site.urls import export_urls, markdown_twin_url, single_file_url
from sessite.site.view import SessionView


def session_exports(view: SessionView, config: SiteConfig) -> Iterator[tuple[str, bytes]]:
    """SESSION_OUTPUTS entry: the (already redacted) session in every format the config asks for,
    each streamed into gzip so only the compressed file is ever held whole."""
    session = view.session
    for fmt, url in export_urls(session.id, getattr(config, "exports", ())):
        yield url, gzip_bytes(export_chunks(session, fmt))


def session_markdown_twin(view: SessionView, config: SiteConfig) -> Iterator[tuple[str, bytes]]:
    """SESSION_OUTPUTS entry: with ``markdown`` among the exports, the (already redacted) transcript
    once more as plain ``<id>.md`` beside the page, which an agent reads without unpacking a download."""
    if "markdown" in getattr(config, "exports", ()):
        yield markdown_twin_url(view.session.id), b"".join(export_chunks(view.session, "markdown"))


_packer: tuple[SiteConfig, SingleFilePacker] | None = None  # one per build (and per worker it forks)


def session_single_file(view: SessionView, config: SiteConfig) -> Iterator[tuple[str, bytes]]:
    """SESSION_OUTPUTS entry: with ``html`` among the exports, the (already redacted) session as one
    file that opens anywhere (``single_file.py``); its packer (templates, inline assets) made once."""
    global _packer
    if "html" not in getattr(config, "exports", ()):
        return
    if _packer is None or _packer[0] is not config:
        _packer = (config, SingleFilePacker(SingleFileSettings.for_config(config)))
    yield single_file_url(view.session.id), _packer[1].pack(view.session).data
