"""The real-log half: every redaction the current Redactor makes in real sessions, and how
it scores against hand labels.

Sessions are read as a build reads them (``sessite.readers.discover`` and each claim's
reader), redacted with ``Redactor().value`` (so mapping entries, split keys, titles and
ids count too), and compared field by field with the original. Each replaced value
becomes a ``Finding``: where it stood (corpus, source file relative to the corpus root,
session id, event index in walk order, field path, character span in the original
string), its kind, the sha256 of the value and a short context with the value masked.

A label is keyed by (corpus, source, sha256 of the value), whatever the kind. A finding
whose value changed (a rule now takes a few more or fewer characters) still finds its
label when the spans overlap in the same string (same session, event and field).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

from sessite.analyze.redact import Redactor
from sessite.analyze.redact.findings import MARKER
from sessite.model import Event, Problems, Session, walk
from sessite.readers import discover

CONTEXT = 60
TRUE = "true"
FALSE = "false"
CATEGORIES = (
    "placeholder",
    "expression",
    "annotation",
    "env-reference",
    "sentinel",
    "public-key",
    "url-id",
    "format-string",
    "other",
)
# A long run of key-like characters in a context is masked too: a secret the redactor
# missed next to one it found must not reach the labels file.
_TOKENISH = re.compile(r"[A-Za-z0-9+/_=\-.]{24,}")


def sha(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Finding:
    corpus: str
    source: str  # the claimed file, relative to the corpus root
    session: str  # the session's original id
    event: int | None  # index in walk(session.events); None: the session's own fields
    field: str
    start: int  # span of the value in the original string (-1: not located)
    end: int
    kind: str
    sha: str
    length: int
    context: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.corpus, self.source, self.sha)

    @property
    def place(self) -> tuple[str, str, str, int | None, str]:
        return (self.corpus, self.source, self.session, self.event, self.field)


def masked_context(text: str, start: int, end: int, kind: str, width: int = CONTEXT) -> str:
    """``width`` characters either side of text[start:end], the value itself shown as ``«kind:N»``."""
    before = text[max(0, start - width) : start]
    after = text[end : end + width]
    value = text[start:end]

    def clean(part: str) -> str:
        if len(value) >= 4:
            part = part.replace(value, f"«same:{len(value)}»")
        part = _TOKENISH.sub(lambda m: f"<{len(m.group(0))}>" if _mixed(m.group(0)) else m.group(0), part)
        return part.replace("\n", "⏎").replace("\t", " ")

    return f"{clean(before)}«{kind}:{end - start}»{clean(after)}"


def _mixed(token: str) -> bool:
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def spans(original: str, redacted: str) -> list[tuple[str, int, int]] | None:
    """(kind, start, end) in ``original`` of each marker ``redacted`` holds, or None when the
    literals around the markers do not line up with ``original`` (text unescaped to be read)."""
    pieces = MARKER.split(redacted)
    literals, kinds = pieces[::2], pieces[1::2]
    first, last = literals[0], literals[-1]
    if not original.endswith(last):
        last = last.lstrip("]")
    if not original.startswith(first) or not original.endswith(last):
        return None
    pos, end = len(first), len(original) - len(last)
    out = []
    for i, (kind, literal) in enumerate(zip(kinds, literals[1:])):
        if i == len(kinds) - 1:
            found = end
        else:
            found = original.find(literal, pos + 1, end) if literal else pos + 1
            if found < 0 and literal.startswith("]"):
                literal = literal.lstrip("]")
                found = original.find(literal, pos + 1, end) if literal else pos + 1
        if found < 0 or found <= pos:
            return None
        out.append((kind, pos, found))
        pos = found + len(literal)
    return out


def _changed(original: str, redacted: str) -> tuple[int, int]:
    n = min(len(original), len(redacted))
    head = 0
    while head < n and original[head] == redacted[head]:
        head += 1
    tail = 0
    while tail < n - head and original[-1 - tail] == redacted[-1 - tail]:
        tail += 1
    return head, len(original) - tail


def string_findings(original: str, redacted: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of each value redaction replaced in one string."""
    if original == redacted:
        return
    kinds = MARKER.findall(redacted)
    if not kinds:  # an id rebuilt, no marker in it
        a, b = _changed(original, redacted)
        yield ("id", a, b)
        return
    found = spans(original, redacted)
    if found is None:  # unescaped to be read: the whole changed stretch, once per kind
        a, b = _changed(original, redacted)
        for kind in dict.fromkeys(kinds):
            yield (kind, a, b)
        return
    for kind, a, b in found:
        if not MARKER.fullmatch(original[a:b]):  # (a marker the original already held)
            yield (kind, a, b)


def _differences(original: Any, redacted: Any, field: str, event: int | None, index: dict[int, int]):
    """(field, event index, original string, redacted string) for every changed string."""
    if original is redacted:
        return
    if isinstance(redacted, str):
        before = original if isinstance(original, str) else str(original)
        yield field, event, before, redacted
    elif isinstance(original, (list, tuple)) and isinstance(redacted, (list, tuple)):
        for i, (a, b) in enumerate(zip(original, redacted)):
            yield from _differences(a, b, f"{field}[{i}]", event, index)
    elif isinstance(original, dict) and isinstance(redacted, dict):
        for (key_a, a), (key_b, b) in zip(original.items(), redacted.items()):
            name = f"{field}.{key_a}" if field else str(key_a)
            if isinstance(key_a, str) and isinstance(key_b, str) and key_a != key_b:
                yield name + "{key}", event, key_a, key_b
            yield from _differences(a, b, name, event, index)
    elif is_dataclass(original) and type(original) is type(redacted):
        here = index.get(id(original), event) if isinstance(original, Event) else event
        for f in fields(original):
            a, b = getattr(original, f.name), getattr(redacted, f.name)
            yield from _differences(a, b, f"{field}.{f.name}" if field else f.name, here, index)


def session_findings(corpus: str, source: str, session: Session, redactor: Redactor) -> Iterator[Finding]:
    redacted = redactor.value(session)
    if redacted is session:
        return
    index = {id(e): i for i, e in enumerate(walk(session.events))}
    for field, event, before, after in _differences(session, redacted, "", None, index):
        if field == "id":  # the id is rebuilt as a slug (findings: "id"): the original id's marker spans
            after = _id_markers(before)
        for kind, a, b in string_findings(before, after):
            value = before[a:b]
            yield Finding(
                corpus,
                source,
                session.id,
                event,
                field,
                a,
                b,
                kind,
                sha(value),
                len(value),
                masked_context(before, a, b, kind),
            )


def _id_markers(session_id: str) -> str:
    return Redactor().text(session_id)


def read_corpus(root: Path) -> Iterator[tuple[str, Session]]:
    """(source relative to root, session) for every session under root."""
    problems = Problems(root)
    for claim in discover(root, problems).claims:
        source = claim.path.relative_to(root).as_posix()
        try:
            for session in claim.read(problems):
                yield source, session
        except Exception:  # noqa: BLE001 - a reader failure costs that file, as in a build
            continue


def corpus_findings(corpus: str, root: Path) -> tuple[list[Finding], int, int]:
    """Every finding in one corpus, the number of sessions and of source files read."""
    redactor = Redactor()
    out: list[Finding] = []
    sessions = 0
    files = set()
    for source, session in read_corpus(root):
        sessions += 1
        files.add(source)
        out.extend(session_findings(corpus, source, session, redactor))
    return out, sessions, len(files)


# --- labels ---------------------------------------------------------------------------


@dataclass
class Label:
    corpus: str
    source: str
    sha: str
    label: str  # "true" (must not be published) or "false" (ordinary text mangled)
    why: str
    category: str | None = None  # for false ones: CATEGORIES
    kind: str | None = None  # the kind it had when labelled (information only)
    missed: bool = False  # a secret the labelling run did not redact (a false negative then)
    session: str | None = None
    event: int | None = None
    field: str | None = None
    start: int | None = None
    end: int | None = None
    context: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.corpus, self.source, self.sha)

    @property
    def place(self) -> tuple[str, str, str | None, int | None, str | None]:
        return (self.corpus, self.source, self.session, self.event, self.field)


def load_labels(path: Path) -> list[Label]:
    out = []
    if not path.exists():
        return out
    names = {f.name for f in fields(Label)}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        record = json.loads(line)
        unknown = set(record) - names
        if unknown:
            raise ValueError(f"{path}:{n}: unknown fields {sorted(unknown)}")
        out.append(Label(**record))
    return out


def dump_labels(labels: Iterable[Label], path: Path) -> None:
    lines = []
    for label in sorted(labels, key=lambda x: (x.corpus, x.source, x.event or -1, x.start or 0, x.sha)):
        record = {k: v for k, v in asdict(label).items() if v is not None and v is not False}
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def label_for(found: Finding) -> Label:
    """A finding as a label line, its verdict ("?") and reason to be filled in by hand."""
    return Label(
        found.corpus,
        found.source,
        found.sha,
        "?",
        "",
        kind=found.kind,
        session=found.session,
        event=found.event,
        field=found.field,
        start=found.start,
        end=found.end,
        context=found.context,
    )


@dataclass
class Matched:
    """The findings of a run, each with its label (None: unlabelled), and what no finding matched."""

    items: list[tuple[Finding, Label | None]]
    unmatched: list[Label]  # labels no finding of this run matched (true/missed ones: false negatives)


def match(findings: list[Finding], labels: list[Label]) -> Matched:
    """Each finding's label: by (corpus, source, sha) first, else by an overlapping span in the same string."""
    by_key: dict[tuple[str, str, str], Label] = {}
    by_place: dict[tuple, list[Label]] = defaultdict(list)
    for label in labels:
        by_key.setdefault(label.key, label)
        if label.start is not None and label.end is not None:
            by_place[label.place].append(label)
    used: set[int] = set()
    items: list[tuple[Finding, Label | None]] = []
    for f in findings:
        label = by_key.get(f.key)
        if label is None and f.start >= 0:
            label = next(
                (x for x in by_place.get(f.place, ()) if x.start < f.end and f.start < x.end),  # type: ignore[operator]
                None,
            )
        if label is not None:
            used.add(id(label))
        items.append((f, label))
    # A true label that a finding overlaps is not missed, even when that finding matched another
    # label (a tighter span of the same secret, labelled on its own).
    for f in findings:
        if f.start >= 0:
            for x in by_place.get(f.place, ()):
                if x.start < f.end and f.start < x.end:  # type: ignore[operator]
                    used.add(id(x))
    return Matched(items, [x for x in labels if id(x) not in used])


# --- scores ---------------------------------------------------------------------------


@dataclass
class Row:
    kind: str
    made: int = 0  # distinct values redacted (corpus, source, value)
    occurrences: int = 0
    true: int = 0
    false: int = 0
    unlabelled: int = 0
    missed: int = 0  # labelled true/missed values this run left in place

    @property
    def precision(self) -> float | None:
        judged = self.true + self.false
        return self.true / judged if judged else None

    @property
    def recall(self) -> float | None:
        total = self.true + self.missed
        return self.true / total if total else None


def score(matched: Matched) -> tuple[list[Row], Row, list[Finding]]:
    """Per kind and overall: distinct values redacted, labelled true/false, unlabelled; the
    unlabelled findings (one per distinct value)."""
    rows: dict[str, Row] = {}
    total = Row("all")
    seen: dict[tuple, str] = {}
    occurrences: Counter[tuple] = Counter()
    unlabelled: list[Finding] = []
    labels: dict[tuple, Label | None] = {}
    for f, label in matched.items:
        k = (f.corpus, f.source, label.sha if label else f.sha)
        occurrences[k] += 1
        if k in seen:
            continue
        seen[k] = f.kind
        labels[k] = label
        if label is None:
            unlabelled.append(f)
    for k, kind in seen.items():
        row = rows.setdefault(kind, Row(kind))
        label = labels[k]
        for r in (row, total):
            r.made += 1
            r.occurrences += occurrences[k]
            if label is None or label.label not in (TRUE, FALSE):
                r.unlabelled += 1
            elif label.label == TRUE:
                r.true += 1
            else:
                r.false += 1
    for label in matched.unmatched:
        if label.label == TRUE and (label.corpus, label.source, label.sha) not in seen:
            kind = label.kind or "?"
            row = rows.setdefault(kind, Row(kind))
            row.missed += 1
            total.missed += 1
    return sorted(rows.values(), key=lambda r: (-r.made, r.kind)), total, unlabelled
