"""Every URL of the site, relative to its root, made in one place."""

from __future__ import annotations

from collections.abc import Iterable

from sitegen.interchange.exports import SUFFIXES

GZIP_SUFFIX = ".gz"


def session_url(session_id: str) -> str:
    return f"sessions/{session_id}.html"


def part_url(session_id: str, number: int) -> str:
    """Part 1 of a split session is the session's own page; later parts live in a folder named after the id."""
    return session_url(session_id) if number == 1 else f"sessions/{session_id}/p{number}.html"


def parts_script_url(session_id: str) -> str:
    """The anchor → part map of a split session (loaded by ``static/app.js`` when a hash is not on the page)."""
    return f"sessions/{session_id}/parts.js"


def export_urls(session_id: str, formats: Iterable[str]) -> list[tuple[str, str]]:
    """(format, url) of each export of a session, beside its page (gzip-compressed: ``<id>.hail.jsonl.gz``)."""
    return [(fmt, f"sessions/{session_id}{SUFFIXES[fmt]}{GZIP_SUFFIX}") for fmt in formats if fmt in SUFFIXES]
