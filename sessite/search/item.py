"""One session, tokenized and counted where it is rendered, and the script files of the index.

``session_item`` runs in the build's worker processes, beside the rendering, so
the main process only appends postings (``IndexState.add_item``). Every file of
``search/`` is one inert ``sessiteSearch.<kind>(<json>, ...)`` call
(``js_call``), which loads by ``<script src>``, from ``file://`` too.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from array import array
from collections.abc import Iterator
from itertools import repeat
from typing import Any

from zlib_ng import zlib_ng

from sessite.model import drop_cut_word
from sessite.search.events import session_counts
from sessite.search.excerpts import excerpts
from sessite.search.terms import EVENTS_PER_POSTING, count_terms

# Events per snippet file. Bigger packs deflate better and make fewer files (on the 100 MB
# yardstick: 24 → 1,814 files, 10.7 MB; 128 → ~450 files, 8.7 MB); a result still fetches a
# few tens of kB at most (2,000 characters an event, deflated).
PACK_EVENTS = 128
SNIPPET_CHARS = 2_000  # text kept per event for snippets
PACK_LEVEL = 6  # zlib level of the packed files (snippets are packed in the workers; level 1 is 10% bigger)
RECORD = 3 + EVENTS_PER_POSTING  # integers per posting: (session, title tf, body tf, event, event, event)

# (agent, project, title length, body length, terms, records, snippet pack sizes, snippet packs)
SessionItem = tuple[str, str, int, int, list[str], array, tuple[int, ...], bytes]


def json_bytes(value: Any) -> bytes:
    """Compact UTF-8 JSON, safe inside a script."""
    # no circular check: the values are fresh trees of lists, dicts and scalars (15% faster)
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    # U+2028/2029 are valid in JSON but not in pre-2019 JavaScript string literals.
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text.encode("utf-8", "replace")  # a lone surrogate becomes "?"


def js_call(kind: str, *args: Any) -> bytes:
    """``sessiteSearch.<kind>(<json>, ...);``: data that loads by <script src>, from file:// too."""
    return b"sessiteSearch.%s(%s);\n" % (kind.encode(), b",".join(json_bytes(a) for a in args))


def _one_line(text: str, limit: int) -> str:
    """The head of an event as one line of at most ``limit`` characters, cut between words."""
    line = " ".join(text[: limit * 2].split())
    return line if len(line) <= limit else drop_cut_word(line[:limit], line[limit])


FRAGMENT_FOLDER = "search/f/"
TERMS_FOLDER = "search/t/"


def fragment_url(doc: int, pack: int) -> str:
    return f"{FRAGMENT_FOLDER}{doc // 1000}/{doc}-{pack}.js"


def terms_url(number: int) -> str:
    return f"{TERMS_FOLDER}{number}.js"


def packed_call(kind: str, numbers: tuple[int, ...], body: bytes) -> bytes:
    """``sessiteSearch.<kind>(<numbers>,<body>);``: a snippet or term file, ``body`` being
    ``packed`` JSON (``unpacked`` reads it back)."""
    return b"sessiteSearch.%s(%s,%s);\n" % (kind.encode(), b",".join(b"%d" % n for n in numbers), body)


# A packed file: its last argument is ``packed`` JSON (a snippet pack's, a term chunk's).
_PACKED = re.compile(rb'sessiteSearch\.(?:frag\(\d+,\d+|chunk\(\d+),"([A-Za-z0-9+/=]*)"\);\n')


def unpacked(data: bytes) -> bytes | None:
    """The JSON inside a published snippet or term file (``packed`` undone), for whoever must
    read what the site holds (the build's scan for secrets); None when it is no such file."""
    m = _PACKED.fullmatch(data)
    if m is None:
        return None
    try:
        return zlib.decompress(base64.b64decode(m.group(1), validate=True))
    except (ValueError, zlib.error):
        return None


def session_item(
    title: str,
    agent: str,
    project: str,
    date: str,
    url: str,
    events: list[tuple[str, str, str]],
    pages: dict[str, str] | None = None,
    shown: list[str] | None = None,
) -> SessionItem:
    """Everything the index needs of one session, tokenized and counted: compact and picklable.

    ``shown``: when a list, every string the snippet packs hold is added to it, as it is packed
    (the build's scan for secrets reads them here, instead of unpacking the files again).

    ``pages`` maps the anchors of events drawn on another page than ``url``
    (the later parts of a split session) to that page; their snippet entries
    carry it as a fourth item, which ``static/search.js`` links to.

    Runs where the session is rendered (a worker process of the build), so the
    main process only appends postings. Returns ``(agent, project, title
    length, body length, terms, records, snippet sizes, snippet blob)`` where
    ``records`` holds, per term, ``RECORD`` integers ``(0, title
    tf, body tf, event, event, event)`` (-1: no event; the 0 becomes the
    session's number) and the blob of its snippet packs (``packed``).
    """
    title_counts = count_terms(title)
    heads = [_one_line(text, SNIPPET_CHARS) for _, _, text in events]
    terms, counts, columns, deep = session_counts([text for _, _, text in events], SNIPPET_CHARS)
    known = set(terms)
    extra = [t for t in title_counts if t not in known]  # title words the body lacks
    r, n = RECORD, len(terms)
    records = array("i", bytes(4 * r * (n + len(extra))))
    if n:
        records[1 : r * n : r] = array("i", map(title_counts.get, terms, repeat(0, n)))
        records[2 : r * n : r] = array("i", counts)
        for k, column in enumerate(columns):
            records[3 + k : r * n : r] = array("i", column)
    if extra:
        records[r * n + 1 :: r] = array("i", [title_counts[t] for t in extra])
        for k in range(EVENTS_PER_POSTING):
            records[r * n + 3 + k :: r] = array("i", [-1] * len(extra))
        terms = terms + extra
    head = {"t": title, "a": agent, "p": project, "d": date, "u": url}
    opened = _opened_events(columns)
    if shown is not None:
        shown.extend(head.values())
    packs = []
    for start in range(0, len(events), PACK_EVENTS):
        ev = [
            _snippet_entry(
                anchor, label, heads[i], pages, url, excerpts(text, deep[i], SNIPPET_CHARS) if i in deep else []
            )
            if i in opened
            else 0
            for i, (anchor, label, text) in enumerate(events[start : start + PACK_EVENTS], start)
        ]
        if shown is not None:
            shown.extend(_entry_strings(ev))
        # packed at once: a huge session's text is held once, not twice
        packs.append(packed(json_bytes(dict(head, i=start, ev=ev))))
    return (
        agent,
        project,
        sum(title_counts.values()),
        sum(counts),
        terms,
        records,
        tuple(map(len, packs)),
        b"".join(packs),
    )


def packed(data: bytes, level: int = PACK_LEVEL) -> bytes:
    """JSON as it is published in the index's files: deflated and in base64, as a JSON string,
    so a file stays one inert ``sessiteSearch.<kind>(...)`` call that loads by <script src>,
    from file:// too. Snippets and term chunks are the index; this makes them a third as big
    (served gzipped they would shrink too, but not on disk nor from file://). The browser
    inflates them with its DecompressionStream (``static/search-core.js``). zlib-ng makes the
    same deflate format as zlib, as small at this level, in half the time."""
    return b'"%s"' % base64.b64encode(zlib_ng.compress(data, level))


def _opened_events(columns: list[list[int]]) -> set[int]:
    """The events a result can open at or show: those the postings name, and the session
    header (where a result opens when none does). Only they need a snippet entry; the
    others are a 0 in their pack (a result never reads them): on the 100 MB yardstick 29 %
    of the events, and the packs go from 8.7 MB to 7.7 MB."""
    shown = {0}
    for column in columns:
        shown.update(column)
    return shown


def _entry_strings(entries: list[Any]) -> Iterator[str]:
    """The strings of a pack's snippet entries (``_snippet_entry``; 0 for an event not shown)."""
    for entry in entries:
        if entry:
            for item in entry:
                if isinstance(item, str):
                    yield item
                else:
                    yield from item


def _snippet_entry(
    anchor: str, label: str, head: str, pages: dict[str, str] | None, url: str, deep: list[str]
) -> list[str | list[str]]:
    """``[anchor, label, head, page, excerpts]``: page (the part of a split session holding the
    event, or ``url`` when only the excerpts need the slot) and excerpts (``excerpts.py``) only
    when needed."""
    entry: list[str | list[str]] = [anchor, label, head]
    page = pages.get(anchor) if pages and anchor else None
    if page or deep:
        entry.append(page or url)
    if deep:
        entry.append(deep)
    return entry
