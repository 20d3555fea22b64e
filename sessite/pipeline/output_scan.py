"""The build's last look at its own output: every file of the staged site that holds
session data (pages, search chunks, scripts, downloads, once unpacked) and every file
name, scanned with the detectors redaction uses, before the site is published.

Redaction works on the model; this catches what reaches a file some other way (a
field the walk does not see, text assembled while rendering). A hit stops the
publish: the staging folder is discarded and the previous site stays. When every
hit gives a value redaction can look for, the build first runs once more with those
values redacted everywhere (``pipeline.learned_elsewhere``); what that build still
finds stops it.

What is scanned, and why:
- Not ``static/``: the package's and the user's static files are copied as they
  are and hold no session data (vendor scripts such as lunr.js would only add
  noise); ``static/pygments.css`` is made from the highlighting styles.
- Every file for the secrets known by their shape (a vendor prefix and body), and the
  user's own patterns: those mean the same wherever they stand. What is known by where
  it stands (``password: …``, ``-p …``) is judged by redaction in the string it stood
  in; a whole file joins strings (a command's ``mkdir -p`` and the next line's date
  format read as a password option) and a page adds markup (the end of one highlighted
  line runs into the next line's tags), so there those rules would only stop sound
  builds. HTML is read as its text (tags dropped: highlighting splits a key into spans;
  quotes written as entities undone, ``&lt;``, ``&gt;`` and ``&amp;`` read as written:
  ``_html_text``).
- The search snippets where they are made: a worker reads a session's snippet strings
  before they are packed (``snippet_leaks``), and the packed files are unpacked again
  only to look for the learnt secrets, and only when some may stand there.
- Markers (``[REDACTED:kind]``) read as ``[REDACTED]``: a later rule would take the
  marker an earlier one left (``https://[REDACTED:sentry-dsn]@host`` as a URL password).
- Not the base64 body of a ``data:image`` URI: pixels, which redaction leaves alone too.
- Only new files when the published site passed this scan under the same theme
  (sessite, settings, templates): kept files are the published bytes, scanned then.
- The secrets a rule replaced in some source (``learned``: a password of a ``.env``),
  wherever they stand bare in a file: one found in another session's page makes the
  build run again with it redacted everywhere (``pipeline.learned_elsewhere``).
"""

from __future__ import annotations

import gzip
import html
import json
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from sessite.analyze.redact.engine import IMAGE_DATA, TextRedactor
from sessite.analyze.redact.findings import mask, text_differences
from sessite.analyze.redact.learned import Learned
from sessite.analyze.redact.markers import MARKER as REDACTED_MARKER
from sessite.config import SiteConfig
from sessite.parallel import Forked, fork_call, parallel_map
from sessite.publish.writer import MARKER, SiteWriter
from sessite.search.item import FRAGMENT_FOLDER, TERMS_FOLDER, unpacked
from sessite.site.urls import GZIP_SUFFIX, STATIC_FOLDER

_NOT_SESSION_DATA = (f"{STATIC_FOLDER}/", MARKER, ".nojekyll")
_NEUTRAL = "[REDACTED]"  # what a marker reads as
_TAG_BYTES = re.compile(rb"<[^>]*>")
_BATCH_BYTES = 8 << 20  # files scanned by one task
_SHORT_TEXT = 16 << 10  # texts up to this long are asked in groups (see _found_in_each) …
_GROUP_CHARS = 256 << 10  # … of about this much text
_GROUP_SEPARATOR = "\n\n"
_QUOTES = {b"&#34;": b'"', b"&quot;": b'"', b"&#39;": b"'", b"&#x27;": b"'"}  # quotes as escaping writes them
_QUOTE_ENTITY = re.compile(rb"&(?:#34|quot|#39|#x27);")


@dataclass(frozen=True)
class Leak:
    """A value the detectors find in a file about to be published (``name``: in its file name)."""

    url: str
    kind: str
    value: str
    name: bool = False
    learned: bool = False  # a value a rule replaced in another source (see ``learned``), bare here
    snippets: bool = False  # in the search snippets of the session at ``url`` (``snippet_leaks``)

    def __str__(self) -> str:
        where = f"{self.url} (file name)" if self.name else self.url
        where = f"{where} (its search snippets)" if self.snippets else where
        kind = f"{self.kind} redacted in another session" if self.learned else self.kind
        return f"{where}: {kind} ({mask(self.value)})"


@dataclass(frozen=True)
class _Scan:
    """What every scanning process needs: the build's settings and the secrets learnt (value -> kind)."""

    config: SiteConfig
    learned: Mapping[str, str]


def scan_site(
    writer: SiteWriter,
    config: SiteConfig,
    only_new: bool,
    jobs: int,
    early: EarlyScan | None = None,
    learned: Mapping[str, str] | None = None,
    snippets: list[Leak] | None = None,
) -> list[Leak]:
    """What the detectors find in the site ``writer`` is about to publish (none when redaction is off).
    ``early``: a scan of the files written before the aggregates, started then (``start_early_scan``);
    its files are not read again unless its process failed. ``learned``: the secrets rules replaced
    in the sources (value -> kind), looked for as written. ``snippets``: what the workers found in
    the search snippets where they were made (``snippet_leaks``); their files are then read only for
    the learnt secrets (None: read them whole)."""
    if not config.redact:
        return []
    scan = _Scan(config, learned or {})
    urls = _urls(writer, only_new)
    fragments = [u for u in urls if u.startswith(FRAGMENT_FOLDER)] if snippets is not None else []
    if fragments:
        urls = [u for u in urls if not u.startswith(FRAGMENT_FOLDER)]
    rest = [u for u in urls if u not in early.urls] if early is not None else urls
    leaks = _scan(writer, scan, rest, jobs)  # while the early scan finishes
    if snippets is not None:
        leaks += snippets + _learned_in_snippets(writer, scan, fragments)
    if early is not None:
        found_early = early.leaks()
        leaks += found_early if found_early is not None else _scan(writer, scan, sorted(early.urls), jobs)
    return sorted(leaks, key=lambda leak: (not leak.name, leak.url))  # (stable: a file's findings keep their order)


def _scan(writer: SiteWriter, scan: _Scan, urls: list[str], jobs: int) -> list[Leak]:
    leaks = _name_leaks(scan, urls)  # a kept file's name passed with it
    files = [(url, writer.current_path(url)) for url in urls]
    for found in parallel_map(_content_leaks, _batches(files, writer.sizes), jobs, context=scan):
        leaks.extend(found)
    return leaks


@dataclass
class EarlyScan:
    """The scan of the session pages, running in a forked process while the main one
    writes the site-wide pages (that phase leaves a core idle most of the time)."""

    urls: frozenset[str]
    forked: Forked[list[Leak]]

    def leaks(self) -> list[Leak] | None:
        """What it found; None when its process failed (then its files are scanned again)."""
        return self.forked.result()

    def cancel(self) -> None:
        self.forked.cancel()


def start_early_scan(
    writer: SiteWriter, config: SiteConfig, only_new: bool, learned: Mapping[str, str] | None = None
) -> EarlyScan | None:
    """Start scanning what the site holds so far, in the background; None where that cannot be done."""
    if not config.redact:
        return None
    urls = _urls(writer, only_new)
    files = [(url, writer.current_path(url)) for url in urls]
    forked = fork_call(partial(scan_files, config, files, learned)) if files else None
    return EarlyScan(frozenset(urls), forked) if forked is not None else None


def _urls(writer: SiteWriter, only_new: bool) -> list[str]:
    """The files to scan: all with session data, or only the ones this build wrote anew."""
    return sorted(
        u for u in writer.written if not u.startswith(_NOT_SESSION_DATA) and (not only_new or u in writer.changed_urls)
    )


def scan_files(
    config: SiteConfig, files: list[tuple[str, Path]], learned: Mapping[str, str] | None = None
) -> list[Leak]:
    """``scan_site`` for some files, here: (url in the site, where the file is now)."""
    scan = _Scan(config, learned or {})
    return [*_name_leaks(scan, [url for url, _ in files]), *_content_leaks(scan, files)]


def _name_leaks(scan: _Scan, urls: list[str]) -> list[Leak]:
    detector, learned = _detector(scan.config), _learned(scan.learned)
    return [
        Leak(url, kind, value, name=True, learned=taught)
        for url, found in _found_in_each(scan, detector, learned, [(url, url) for url in urls])
        for kind, value, taught in found
    ]


def _content_leaks(scan: _Scan, files: list[tuple[str, Path]]) -> list[Leak]:
    detector, learned = _detector(scan.config), _learned(scan.learned)
    every_entity = bool(scan.config.redact_patterns)
    texts = ((url, _text(url, path, every_entity)) for url, path in files)
    return [
        Leak(url, kind, _as_written(url, value), learned=taught)
        for url, found in _found_in_each(scan, detector, learned, texts)
        for kind, value, taught in found
    ]


def _as_written(url: str, value: str) -> str:
    """A value found in a page's text as the session wrote it: ``&lt;``, ``&gt;`` and ``&amp;`` are
    left in that text (``_html_text``), and the value is looked for in the model to redact it."""
    return html.unescape(value) if "&" in value and url.endswith(".html") else value


def _found_in_each(
    scan: _Scan, detector: TextRedactor, learned: _Taught | None, texts: Iterable[tuple[str, str]]
) -> Iterator[tuple[str, list[tuple[str, str, bool]]]]:
    """``_find`` for each (url, text). Short texts (file names, the many small ref pages) are asked
    together, a line apart, and one by one only when their group holds something: one call of the
    detectors for hundreds. (No rule for shapes is anchored to a text's start or end, nor crosses a
    blank line but a key block's own; a user's pattern might be: then each text alone.)"""
    alone = bool(scan.config.redact_patterns)
    group: list[tuple[str, str]] = []
    size = 0
    for url, text in texts:
        if alone or len(text) >= _SHORT_TEXT:
            yield url, _find(detector, text, learned)
            continue
        group.append((url, text))
        size += len(text)
        if size >= _GROUP_CHARS:
            yield from _group_found(detector, learned, group)
            group, size = [], 0
    yield from _group_found(detector, learned, group)


def _group_found(
    detector: TextRedactor, learned: _Taught | None, group: list[tuple[str, str]]
) -> Iterator[tuple[str, list[tuple[str, str, bool]]]]:
    if len(group) > 1 and not _find(detector, _GROUP_SEPARATOR.join(text for _, text in group), learned):
        return
    for url, text in group:
        yield url, _find(detector, text, learned)


def snippet_detector(config: SiteConfig) -> TextRedactor | None:
    """What a worker reads a session's search snippets with (``snippet_leaks``); None when redaction is off."""
    return _detector(config) if config.redact else None


def snippet_leaks(detector: TextRedactor, url: str, strings: list[str]) -> list[Leak]:
    """What the detectors find in the search snippets of the session at ``url``: ``strings`` as its
    snippet files will hold them (``search.item.session_item``), read where they are made, one a
    line as ``_snippets_text`` reads a file. (The learnt secrets are looked for in the files, once
    every source has taught them: ``_learned_in_snippets``.)"""
    text = _readable("\n".join(strings))
    return [Leak(url, kind, value, snippets=True) for kind, value, _ in _find(detector, text)]


def _learned_in_snippets(writer: SiteWriter, scan: _Scan, urls: list[str]) -> list[Leak]:
    """The learnt secrets that stand bare in the snippet files ``urls``. A file is read as strings
    only when one of them may be written in its JSON: where every value is written in JSON as it
    is (no quote, backslash or control character), one RE2 pass over the JSON says so."""
    taught = _learned(scan.learned)
    if taught is None:
        return []
    as_written = all(_json_plain(value) for value in scan.learned)
    leaks: list[Leak] = []
    for url in urls:
        path = writer.current_path(url)
        try:
            data = path.read_bytes()
        except OSError as exc:
            data, json_data = f"(unreadable: {exc})".encode(), None
        else:
            json_data = unpacked(data)
            if as_written and json_data is not None and not taught.may_hold(json_data.decode("utf-8", "replace")):
                continue
        found = _find(None, _readable(_pack_text(data, json_data)), taught)  # (read and unpacked once)
        leaks += [Leak(url, kind, value, learned=True) for kind, value, _ in found]
    return leaks


def _json_plain(value: str) -> bool:
    """Whether JSON writes ``value`` as it is (``search.item.json_bytes``)."""
    return json.dumps(value, ensure_ascii=False)[1:-1] == value and "\u2028" not in value and "\u2029" not in value


def _batches(files: list[tuple[str, Path]], sizes: Mapping[str, int]) -> list[list[tuple[str, Path]]]:
    """Files grouped into tasks of about ``_BATCH_BYTES`` (one fork message per group, not per file),
    by the sizes the writer noted (a stat of each file cost more than grouping them)."""
    batches: list[list[tuple[str, Path]]] = [[]]
    size = 0
    for url, path in files:
        if size >= _BATCH_BYTES:
            batches.append([])
            size = 0
        batches[-1].append((url, path))
        size += sizes.get(url, 0)
    return [b for b in batches if b]


def _detector(config: SiteConfig) -> TextRedactor:
    """The build's detectors of secrets known by their shape, the user's own patterns and
    allow-list; the allow-list in lower case too, as the search index writes words (an
    allowed ``AKIA…EXAMPLE`` is ``akia…example`` there)."""
    allow = (*config.redact_allow, *(value.lower() for value in config.redact_allow))
    return TextRedactor(extra=config.redact_patterns, allow=allow, shapes_only=True, remember=False)


class _Taught:
    """The learnt secrets as redaction finds them (a whole word, or anywhere when long: ``Learned``),
    behind one quick test of the whole text."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self.learned = Learned()
        # (archive-wide: not one source's cap), and as a page's text writes them (``_html_text``)
        escaped = {html.escape(value, quote=False): kind for value, kind in values.items()}
        self.learned.know((*values.items(), *((e, kind) for e, kind in escaped.items() if e not in values)))
        self.may_hold = self.learned.may_hold()

    def replace(self, text: str) -> str:
        return self.learned.replace(text, Counter()) if self.may_hold(text) else text


def _learned(values: Mapping[str, str]) -> _Taught | None:
    return _Taught(values) if values else None


def _find(detector: TextRedactor | None, text: str, learned: _Taught | None = None) -> list[tuple[str, str, bool]]:
    """What the detectors would replace, except a marker itself (``sshpass -p '[REDACTED]'``); then
    the learnt secrets that stand bare (True). (No detector: only the learnt secrets.)"""
    found = []
    if detector is not None:
        found = [
            (kind, value, False) for kind, value in text_differences(text, detector.text(text)) if _NEUTRAL not in value
        ]
    if learned is not None:
        taught = learned.replace(text)
        if taught != text:
            found += [(kind, value, True) for kind, value in text_differences(text, taught)]
    return found


def _text(url: str, path: Path, every_entity: bool = False) -> str:
    """A file as the detectors read it: unpacked, decoded, HTML as its text (``_html_text``)."""
    try:
        data = path.read_bytes()
        if url.endswith(GZIP_SUFFIX):
            data = gzip.decompress(data)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        return f"(unreadable: {exc})"
    if url.startswith(FRAGMENT_FOLDER):
        return _readable(_snippets_text(data))
    if url.startswith(TERMS_FOLDER):
        data = unpacked(data) or data
    elif url.endswith(".html"):
        if every_entity:
            return _readable(html.unescape(_html_text(data).decode("utf-8", "replace")))
        data = _html_text(data)
    return _readable(data.decode("utf-8", "replace"), data)


def _readable(text: str, data: bytes | None = None) -> str:
    """``text`` as the detectors read it: image data and markers neutral. (``data``: the bytes it was
    decoded from, asked instead: quicker than a text that is not all ASCII.)"""
    if data is not None:
        image, marker = b"data:image/" in data, b"[REDACTED:" in data
    else:
        image, marker = "data:image/" in text, "[REDACTED:" in text
    if image:
        text = IMAGE_DATA.sub("data:image ", text)  # pixels: redaction leaves them
    if marker:
        text = REDACTED_MARKER.sub(_NEUTRAL, text)  # not read as a user name or a password
    return text


def _html_text(data: bytes) -> bytes:
    """A page as its text: tags dropped (highlighting splits a key into spans; dropped from the
    bytes, a little quicker than from the decoded page), quotes written as entities undone (a rule
    reads ``"aws_secret_access_key": "…"``). ``&lt;``, ``&gt;`` and ``&amp;`` stay: no shape rule
    holds those characters in a key, and each side of one reads as a character that is none
    (``;``, ``&``), like the character itself; undoing every entity took a sixth of the scan on the
    yardstick (``_as_written`` undoes them in what is found). The user's own patterns may mean
    anything: with them ``_text`` undoes every entity."""
    data = _TAG_BYTES.sub(b"", data)
    if b"&#" in data or b"&quot;" in data:  # (one regex pass over the bytes: str.replace chains are slower)
        data = _QUOTE_ENTITY.sub(_quote, data)
    return data


def _quote(entity: re.Match[bytes]) -> bytes:
    return _QUOTES[entity.group()]


def _snippets_text(data: bytes) -> str:
    """A snippet file's strings, one a line. Its base64 body is deflated JSON, which read as it
    is would hide every secret and show random runs that look like keys; and the JSON's escapes
    (``\n``, ``\"``) would run into what a detector reads. (A term file is read as its JSON:
    its strings are words, which JSON writes as they are.)"""
    return _pack_text(data, unpacked(data))


def _pack_text(data: bytes, json_data: bytes | None) -> str:
    """``_snippets_text`` of a file whose JSON is already unpacked (None: it is no packed file)."""
    if json_data is None:
        return data.decode("utf-8", "replace")
    try:
        pack = json.loads(json_data)
    except ValueError:
        return json_data.decode("utf-8", "replace")
    return "\n".join(_strings(pack))


def _strings(value: object) -> list[str]:
    """Every string in a JSON value, keys too, in document order. (Recursive: the value is one of
    this build's snippet packs, a few levels deep; twice as quick as an explicit stack.)"""
    found: list[str] = []
    add = found.append

    def walk(item: object) -> None:
        if isinstance(item, str):
            add(item)
        elif isinstance(item, list):
            for inner in item:
                walk(inner)
        elif isinstance(item, dict):
            for key, inner in item.items():
                add(key)
                walk(inner)

    walk(value)
    return found


def leak_lines(leaks: Iterable[Leak], limit: int = 200) -> list[str]:
    """One line per finding (at most ``limit``, then how many more) and the final error line."""
    leaks = list(leaks)
    lines = [str(leak) for leak in leaks[:limit]]
    if len(leaks) > limit:
        lines.append(f"… and {len(leaks) - limit} more")
    files = len({leak.url for leak in leaks})
    lines.append(
        f"error: {len(leaks)} value{'s' if len(leaks) != 1 else ''} that look{'' if len(leaks) != 1 else 's'} "
        f"like secrets in {files} file{'s' if files != 1 else ''} of the built site survived redaction; "
        "nothing was published and the previous site is as it was "
        "(add a redact_patterns or redact_allow entry to sessite.toml, or --no-redact to publish as is)"
    )
    return lines
