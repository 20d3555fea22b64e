"""The export formats by name: their file suffixes and one session in each, as UTF-8 pieces.

``site.downloads`` streams these pieces through gzip beside each session's page
(``sessions/<id>.aics.json.gz``, ``.hail.jsonl.gz``, ``.md.gz``); ``sessite
convert`` writes them to files.
"""

from __future__ import annotations

from collections.abc import Iterator

from sessite.interchange.aics import aics_chunks
from sessite.interchange.hail import hail_chunks
from sessite.interchange.markdown import markdown_chunks
from sessite.model import Session

SUFFIXES = {"aics": ".aics.json", "hail": ".hail.jsonl", "markdown": ".md"}


def export_chunks(session: Session, fmt: str) -> Iterator[bytes]:
    """One session in ``fmt`` as UTF-8 pieces; joined, they are ``export_session(session, fmt)``."""
    if fmt == "aics":
        return aics_chunks([session])
    if fmt == "hail":
        return hail_chunks(session)
    if fmt == "markdown":
        return markdown_chunks(session)
    raise ValueError(f"unknown export format {fmt!r}")


def export_session(session: Session, fmt: str) -> bytes:
    return b"".join(export_chunks(session, fmt))
