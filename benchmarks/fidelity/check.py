"""The fidelity check: is every record of every real file on a page, merged, or said to be left out?

For each source file of an archive it compares three independent accounts:
- the format's enumerator (``formats/``), which reads the raw file itself;
- the readers' ledger (``sessite.readers.ledger``), where each record gets a fate;
- the site the real pipeline builds, whose pages must show the user's and the
  assistant's words, and the model, whose calls must meet their results.
"""

from __future__ import annotations

import glob
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from sessite.analyze.redact import Redactor
from sessite.config import SiteConfig
from sessite.model import Kind, Problems, Session, walk
from sessite.pipeline import build
from sessite.readers import Claim, discover
from sessite.readers.ledger import Fate, Ledger, keeping_ledger
from sessite.site.urls import part_url, session_url

from .formats import enumerator
from .records import Record

# Record types the issue names: none of them may ever be shown as raw JSON.
NAMED_TYPES = (
    "attachment",
    "file-history-delta",
    "atis-latch",
    "web_search",
    "agent_message",
    "world_state",
    "inter_agent_communication_metadata",
    "token_count",
)
_REDACTOR = Redactor()  # the build's default: pages show a secret redacted
_SHINGLE = 8  # words per piece of a text looked for on its pages
_ENOUGH = 0.95  # share of a text's pieces that must be found (links and redacted secrets change a few words)


@dataclass
class Figures:
    """What one format's files gave."""

    files: int = 0
    records: int = 0
    fates: Counter[str] = field(default_factory=Counter)
    unaccounted: list[str] = field(default_factory=list)  # "path:line type"
    user_texts: int = 0
    user_on_page: int = 0
    assistant_texts: int = 0
    assistant_on_page: int = 0
    missing_texts: list[str] = field(default_factory=list)  # "path:line: start of the text"
    pairs: int = 0  # calls the source answers
    pairs_shown: int = 0  # of those, a call and its result in the model
    unpaired: list[str] = field(default_factory=list)
    raw_json: Counter[str] = field(default_factory=Counter)  # title of each UNKNOWN event
    not_shown: Counter[str] = field(default_factory=Counter)  # reason -> records
    sessions: int = 0

    @property
    def accounted(self) -> int:
        return self.records - len(self.unaccounted)

    def raw_json_of_named_types(self) -> Counter[str]:
        return Counter({t: n for t, n in self.raw_json.items() if any(name in t for name in NAMED_TYPES)})


@dataclass
class Report:
    formats: dict[str, Figures] = field(default_factory=dict)
    unread: list[Path] = field(default_factory=list)  # session-like files no reader reads
    problems: list[str] = field(default_factory=list)


def check(root: Path, site: Path | None = None) -> Report:
    """Read ``root`` with a ledger, build it into ``site`` (a temporary folder by default), compare."""
    report = Report()
    problems = Problems(root)
    found = discover(root, problems)
    report.unread = [p for p in found.ignored if p.suffix.lower() in {".json", ".jsonl"} and _size(p) > 0]
    with keeping_ledger() as ledger:
        reads = [(claim, list(claim.read(problems))) for claim in found.claims]
    with tempfile.TemporaryDirectory(prefix="sessite-fidelity-") as tmp:
        out = site or Path(tmp) / "site"
        built = build(SiteConfig(archive=root, output=out))
        report.problems = [str(p) for p in built.problems]
        for claim, sessions in reads:
            figures = report.formats.setdefault(claim.reader.name, Figures())
            _compare(claim, sessions, ledger, _page_words(out, sessions), figures)
    return report


def _compare(claim: Claim, sessions: list[Session], ledger: Ledger, page: Page, figures: Figures) -> None:
    """One source: its records against the ledger, its texts against its pages, its calls against the model."""
    records = list(_records(claim))
    figures.files += 1
    figures.sessions += len(sessions)
    figures.records += len(records)
    for record in records:
        fate = ledger.fates.get((str(record.path), record.line))
        if fate is None:
            figures.unaccounted.append(f"{record.path}:{record.line} {record.type}")
            continue
        figures.fates[fate[0]] += 1
        if fate[0] == Fate.NOT_SHOWN:
            figures.not_shown[fate[1]] += 1
    _compare_texts(records, page, figures)
    _compare_pairs(records, sessions, figures)
    for session in sessions:
        for event in walk(session.events):
            if event.kind == Kind.UNKNOWN:
                figures.raw_json[event.title or "untitled"] += 1


def _records(claim: Claim) -> Iterator[Record]:
    records_of = enumerator(claim.reader.name)
    if records_of is None:
        return
    for path in dict.fromkeys((*claim.sources, *claim.companions)):
        if path.is_file():
            yield from records_of(path)


def _compare_texts(records: list[Record], page: Page, figures: Figures) -> None:
    for record in records:
        for texts, role in ((record.user_texts, "user"), (record.assistant_texts, "assistant")):
            for text in texts:
                if not _words(text):
                    continue
                found = _on_page(text, page)
                if role == "user":
                    figures.user_texts += 1
                    figures.user_on_page += found
                else:
                    figures.assistant_texts += 1
                    figures.assistant_on_page += found
                if not found:
                    figures.missing_texts.append(f"{record.path}:{record.line}: {role}: {' '.join(text.split())[:80]}")


def _compare_pairs(records: list[Record], sessions: list[Session], figures: Figures) -> None:
    calls = {c for r in records for c in r.calls}
    answered = {c for r in records for c in r.results} & calls
    shown_calls: set[str] = set()
    shown_results: set[str] = set()
    for session in sessions:
        for event in walk(session.events):
            if event.call_id and event.kind == Kind.TOOL_CALL:
                shown_calls.add(event.call_id)
            elif event.call_id and event.kind == Kind.TOOL_RESULT:
                shown_results.add(event.call_id)
    figures.pairs += len(answered)
    paired = answered & shown_calls & shown_results
    figures.pairs_shown += len(paired)
    figures.unpaired.extend(sorted(answered - paired))


# ---------------------------------------------------------------- pages


_INLINE = frozenset(
    {"span", "a", "b", "i", "em", "strong", "code", "mark", "del", "ins", "s", "u", "sub", "sup", "small"}
)


class _Text(HTMLParser):
    """The visible text of a page (no scripts, no styles), word pieces kept apart."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        elif tag not in _INLINE:
            self.parts.append(" ")  # a block ends a word; a highlighted token's span does not

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._hidden:
            self._hidden -= 1
        elif tag not in _INLINE:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


@dataclass
class Page:
    """The words of a session's pages: the text (padded, one space apart) and every 8-word window."""

    text: str
    windows: set[str]


def _page_words(site: Path, sessions: Iterable[Session]) -> Page:
    """The words of every page of these sessions (all parts)."""
    words: list[str] = []
    for session_id in _published_ids(site, sessions):
        for url in _page_urls(site, session_id):
            parser = _Text()
            parser.feed((site / url).read_text("utf-8"))
            words.extend(_words("".join(parser.parts)))
    windows = {" ".join(words[i : i + _SHINGLE]) for i in range(max(0, len(words) - _SHINGLE + 1))}
    return Page(" " + " ".join(words) + " ", windows)


def _published_ids(site: Path, sessions: Iterable[Session]) -> Iterator[str]:
    """The ids the build published these sessions under: their own, or a copy's id
    (``<id>-<8 hex>``) when another file already had a session with that id."""
    for session in sessions:
        yield session.id
        for page in site.glob(f"{glob.escape(session_url(session.id))[: -len('.html')]}-*.html"):
            if _COPY_SUFFIX.fullmatch(page.stem[len(session.id) :]):
                yield page.stem


_COPY_SUFFIX = re.compile(r"-[0-9a-f]{8}(-\d+)?")


def _page_urls(site: Path, session_id: str) -> Iterator[str]:
    url = session_url(session_id)
    if not (site / url).is_file():
        return
    yield url
    number = 2
    while (site / part_url(session_id, number)).is_file():
        yield part_url(session_id, number)
        number += 1


# Words, without underscores (markdown makes ``__init__`` a bold "init"); each CJK character
# a word of its own (a link or an emphasis may end inside a run of them).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = re.compile(f"[{_CJK}]|[^\\W_{_CJK}]+")


def _words(text: str) -> list[str]:
    """The words of a text; numbers left out (an ordered list's numbers are not text on its page)."""
    return [w for w in _WORD.findall(text.lower()) if not w.isdigit()]


_FENCE_INFO = re.compile(r"^([ \t]*(?:```|~~~))[^\n`]*$", re.M)  # a code fence's language is not shown
_LINK_TARGET = re.compile(r"\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_TASK_MARK = re.compile(r"(?m)^(\s*(?:[-*+]|\d+[.)])\s+)\[[ xX]\](?=\s)")  # a task list's box, drawn as a checkbox


def _on_page(text: str, page: Page) -> bool:
    """Whether the page shows the text: nearly all of its 8-word pieces, in the page's words
    (as the build publishes it: secrets redacted; a markdown link shows its text, not its target; a fence,
    not its language)."""
    words = _words(_TASK_MARK.sub(r"\1", _FENCE_INFO.sub(r"\1", _LINK_TARGET.sub("]", _REDACTOR.text(text)))))
    pieces = [" ".join(words[i : i + _SHINGLE]) for i in range(0, len(words), _SHINGLE)]
    found = sum(1 for piece in pieces if piece in page.windows or f" {piece} " in page.text)
    return found >= _ENOUGH * len(pieces) if len(pieces) > 2 else found == len(pieces)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
