"""The per-session downloads beside each page: the session in the interchange formats, gzip-compressed."""

from __future__ import annotations

from collections.abc import Iterator

from sitegen.config import SiteConfig
from sitegen.interchange.formats import export_chunks
from sitegen.interchange.streaming import gzip_bytes
from sitegen.site.urls import export_urls
from sitegen.site.view import SessionView


def session_exports(view: SessionView, config: SiteConfig) -> Iterator[tuple[str, bytes]]:
    """SESSION_OUTPUTS entry: the (already redacted) session in every format the config asks for,
    each streamed into gzip so only the compressed file is ever held whole."""
    session = view.session
    for fmt, url in export_urls(session.id, getattr(config, "exports", ())):
        yield url, gzip_bytes(export_chunks(session, fmt))
