"""Redaction of whole values: JSON-like data, frozen dataclasses, sessions.

Beyond what ``TextRedactor`` finds in each string, the walk sees what no single
string shows: a mapping entry whose name says secret ({"Password": "…"}), a
card number held as a JSON number, a Kubernetes Secret as data, a key whose
first part ends one event and whose rest starts the next.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields, is_dataclass, replace
from datetime import datetime
from enum import Enum
from pathlib import PurePath
from typing import Any

from sessite.analyze.redact.commands import command_outputs
from sessite.analyze.redact.engine import TextRedactor
from sessite.analyze.redact.learned import Learned
from sessite.analyze.redact.personal import Personal, local_home
from sessite.analyze.redact.pii import is_card_number
from sessite.analyze.redact.precision import not_a_secret, stand_in
from sessite.analyze.redact.split import join_seams, join_split_keys
from sessite.model import Kind, Session, ToolCategory, cut_slug

# Mapping keys that name a secret (see Redactor._entry), and what such a secret's value looks like.
_SECRET_NAME = re.compile(
    r"(?i:(?:^|[_.\-])(?:api[_-]?key|access[_-]?key|secret|secret[_-]?key|client[_-]?secret|webhook[_-]?secret|token|access[_-]?token|refresh[_-]?token"
    r"|auth[_-]?token|id[_-]?token|session[_-]?token|bearer[_-]?token|password|passwd|passphrase|private[_-]?key|credentials?|authorization"
    r"|pass|pwd|cookie|private[_-]?key[_-]?id|(?:primary|secondary)[_-]?(?:(?:readonly[_-]?)?master[_-]?)?key"
    r"|(?:subscription|application|app|signing|encryption)[_-]?key)$)"
    r"|[A-Z0-9]_KEY$"
)
_SECRET_NAME_CAMEL = re.compile(
    r"[a-z0-9](?:Token|Secret|Password|Passwd|ApiKey|AccessKey|PrivateKey|Credentials?|PrivateKeyId|MasterKey)$"
)
_SECRET_VALUE = re.compile(r"(?![\"'$<{\[*x]{3})(?!\d+$)(?!\[?REDACTED)[^\s]{8,}")
_AUTH_VALUE = re.compile(r"((?i:bearer|basic|token|bot|digest)\s+)(\S{4,})")
_ATOMIC = frozenset({int, float, bool, datetime, Kind, ToolCategory})
_FIELDS: dict[type, tuple[str, ...] | None] = {}
_MEMO_MAX_ITEMS = 200_000


class Redactor(TextRedactor):
    """Replaces secrets in strings and in everything made of them, and counts what it replaced, by kind."""

    def __init__(
        self,
        extra: Iterable[tuple[str, str]] = (),
        allow: Iterable[str] = (),
        pii: bool = False,
        pii_allow: Iterable[str] = (),
        known: Iterable[tuple[str, str]] = (),
    ) -> None:
        """``pii``: personal data too (home folders, user names, e-mails, hosts, IPs; see
        ``personal``), except what ``pii_allow`` keeps. ``known``: (value, kind) pairs learnt in
        other sources of the archive, replaced wherever they stand here too."""
        super().__init__(extra, allow, Personal(pii_allow, local_home()) if pii else None)
        self.learned.know(tuple(known))
        self._names: dict[str, bool] = {}
        self._settings = (tuple(extra), tuple(allow))
        self._seams: TextRedactor | None = None
        self._joins = self.joins()
        self._first_counts: Counter[str] = Counter()  # what a first walk of an event counts and learns
        self._first_learned = Learned()

    def _seam_text(self, text: str) -> str:
        """``text`` (the seam of two texts) redacted by a redactor of its own: what it finds there
        is counted once, by ``join_seams``, not with the texts' own findings."""
        if self._seams is None:
            self._seams = TextRedactor(*self._settings)
        return self._seams.text(text)

    @classmethod
    def for_config(cls, config: Any) -> Redactor | None:
        """The redactor a site config asks for (None when redaction is off)."""
        if not getattr(config, "redact", True):
            return None
        return cls(
            extra=getattr(config, "redact_patterns", ()),
            allow=getattr(config, "redact_allow", ()),
            pii=getattr(config, "redact_pii", False),
            pii_allow=getattr(config, "pii_allow", ()),
            known=getattr(config, "redact_known", ()),
        )

    @classmethod
    def scrub_for(cls, config: Any) -> Callable[[str], str] | None:
        """What a problem line goes through before it is printed, listed by ``check`` or shown by the
        preview: the build's own redaction, by a redactor of its own (its counts are not the site's)."""
        if not getattr(config, "redact", True):
            return None
        made: list[Redactor] = []

        def scrub(text: str) -> str:  # (made at the first problem: most sources have none)
            if not made:
                found = cls.for_config(config)
                assert found is not None
                made.append(found)
            return made[0].text(text)

        return scrub

    def value(self, obj: Any) -> Any:
        """Redact every string inside a JSON-like value or a frozen dataclass (dict keys too).

        Returns the very same object when nothing in it changed, so walking a
        clean session allocates nothing.
        """
        kind = type(obj)
        if kind is str:
            return self.text(obj)
        if kind is int:
            return self._number(obj)
        if kind in _ATOMIC or obj is None:
            return obj
        if kind is tuple or kind is list:
            return self._sequence(obj)
        if kind is dict:
            return self._mapping(obj)
        names = _dataclass_fields(kind)
        if names is not None:
            if kind is not Session or self.spreading:
                return self._dataclass(obj, names)
            session = self._personal_session(obj, names) if self.personal is not None else self._dataclass(obj, names)
            return self._spread_learned(session, names) if self.learned else session
        return self._other_value(obj)

    def _number(self, number: int) -> int | str:
        """A JSON number that is a card number becomes a marker like a string one would."""
        if number < 10**12 or not is_card_number(number) or str(number) in self._allow:
            return number
        self.counts["credit-card"] += 1
        return "[REDACTED:credit-card]"

    def _sequence(self, obj: list[Any] | tuple[Any, ...]) -> Any:
        new = None
        for i, item in enumerate(obj):
            red = self.value(item)
            if red is not item:
                if new is None:
                    new = list(obj)
                new[i] = red
        if new is None:
            return obj
        return tuple(new) if type(obj) is tuple else new

    def _mapping(self, obj: dict[Any, Any]) -> dict[Any, Any]:
        changed = False
        out = {}
        for key, item in obj.items():
            red_key = self.text(key) if type(key) is str else key
            red = self.value(item)
            if self.spreading:
                pass  # (the first look did the rest)
            elif type(red) is str and type(key) is str and len(red) >= 4 and self._secret_name(key):
                red = self._entry(key, red)
            elif self.personal is not None and type(red) is str and type(key) is str:
                red = self._identity(key, red)
            if red is not item or red_key is not key:
                changed = True
            out[red_key] = red
        if not self.spreading and out.get("kind") == "Secret" and self._kubernetes_data(out):
            changed = True
        return out if changed else obj

    def _kubernetes_data(self, secret: dict[Any, Any]) -> bool:
        """The values of a Kubernetes Secret's data and stringData, as data (not text)."""
        changed = False
        for name in ("data", "stringData"):
            data = secret.get(name)
            if not isinstance(data, dict):
                continue
            clean = {k: v for k, v in data.items() if not isinstance(v, str) or len(v) < 4 or v in self._allow}
            clean.update(
                (k, v) for k, v in data.items() if isinstance(v, str) and "[REDACTED:" not in v and stand_in(v)
            )
            if len(clean) == len(data):
                continue
            self.counts["kubernetes-secret"] += len(data) - len(clean)
            secret[name] = {k: clean.get(k, "[REDACTED:kubernetes-secret]") for k in data}
            changed = True
        return changed

    def _dataclass(self, obj: Any, names: tuple[str, ...]) -> Any:
        kind = type(obj)
        if kind is not Session and self.collected is None and not self.spreading and self._joins:
            return self._dataclass_at_once(obj, names)
        return self._dataclass_walk(obj, names)

    def _dataclass_walk(self, obj: Any, names: tuple[str, ...]) -> Any:
        kind = type(obj)
        before = sum(self.counts.values()) if kind is Session else 0
        changes = {}
        for name in names:
            old = getattr(obj, name)
            if old is None or type(old) in _ATOMIC:
                continue
            new = self.value(old)
            if new is not old:
                changes[name] = new
        if kind is Session and not self.spreading:
            redacted = changes.get("events", obj.events)
            events = command_outputs(redacted, self.counts, self.learned.note)
            events = join_seams(obj.events, events, self._seam_text, self.counts, self.learned.note)
            if sum(self.counts.values()) > before:  # (a cut key's first part is one)
                events = join_split_keys(obj.events, events, self.counts)
            if events is not redacted:
                changes["events"] = events
        if not changes:
            return obj
        if kind is Session and "id" in changes:
            changes["id"] = _safe_session_id(changes["id"], obj.id)
        return replace(obj, **changes)

    def _dataclass_at_once(self, obj: Any, names: tuple[str, ...]) -> Any:
        """``_dataclass`` for one part of a session (an event), its strings asked of the rules at
        once: walked first with ``text`` collecting them, which is the whole walk when no rule can
        match any of them (most events: nine in ten of the yardstick's); else walked again as usual.
        What the first walk counted and learnt (a ``{"password": …}`` entry) is kept only then."""
        counts, learned = self.counts, self.learned
        self.counts, self.learned, self.collected = self._first_counts, self._first_learned, []
        try:
            first = self._dataclass_walk(obj, names)
            texts = self.collected
        finally:
            self.counts, self.learned, self.collected = counts, learned, None
        quiet = self.nothing_in(texts)
        if self._first_counts:
            if quiet:
                counts.update(self._first_counts)
            self._first_counts.clear()
        if self._first_learned:
            if quiet:
                for value, kind in self._first_learned.kinds.items():
                    learned.note(kind, value)
            self._first_learned = Learned()
        return first if quiet else self._dataclass_walk(obj, names)

    def _spread_learned(self, session: Session, names: tuple[str, ...]) -> Session:
        """The session with every value a rule replaced anywhere in this source replaced wherever
        else it stands too (the password of a ``.env`` repeated in prose): see ``learned``."""
        self.spreading = True
        try:
            return self._dataclass(session, names)
        finally:
            self.spreading = False

    def _personal_session(self, session: Session, names: tuple[str, ...]) -> Session:
        """A session redacted knowing every name it shows: those its own fields show are learnt
        first; one first seen deeper (a home folder in an output) means a second walk."""
        personal = self.personal
        assert personal is not None
        before = personal.generation
        personal.learn_from(session.cwd, session.project, session.source.path)
        if personal.generation != before:
            self.forget()
        counts = self.counts.copy()
        for _ in range(3):
            before = personal.generation
            redacted = self._dataclass(session, names)
            if personal.generation == before:
                break
            self.forget()
            self.counts.clear()
            self.counts.update(counts)
        return redacted

    def _identity(self, key: str, value: str) -> str:
        """The value of a mapping entry that names the user ({"username": "alice"})."""
        assert self.personal is not None
        kind = self.personal.identity(key, value) if "[REDACTED:" not in value else None
        if kind is None or value in self._allow:
            return value
        self.counts[kind] += 1
        return f"[REDACTED:{kind}]"

    def _secret_name(self, name: str) -> bool:
        hit = self._names.get(name)
        if hit is None:
            if len(self._names) >= _MEMO_MAX_ITEMS:
                self._names.clear()
            hit = self._names[name] = bool(
                len(name) < 80 and (_SECRET_NAME.search(name) or _SECRET_NAME_CAMEL.search(name))
            )
        return hit

    def _entry(self, name: str, value: str) -> str:
        """The value of a mapping entry whose name says it is a secret ({"password": "…"},
        {"OPENAI_API_KEY": "…"}, {"Authorization": "Bearer …"}): no pattern sees the pair
        when the name and the value are two strings."""
        if name.lower() in ("authorization", "proxy-authorization"):
            m = _AUTH_VALUE.fullmatch(value)
            if (
                m
                and m.group(2) not in self._allow
                and not m.group(2).startswith("[REDACTED")
                and not stand_in(m.group(2))
            ):
                self.counts["authorization-header"] += 1
                return f"{m.group(1)}[REDACTED:authorization-header]"
        if len(value) < 8 or not _SECRET_VALUE.fullmatch(value) or value in self._allow:
            return value
        if not_a_secret(value, name):
            return value
        self.counts["secret-assignment"] += 1
        self.learned.note("secret-assignment", value)
        return "[REDACTED:secret-assignment]"

    def _other_value(self, obj: Any) -> Any:
        """``value`` for the rarer types: subclasses of the plain ones, bytes, paths, other mappings."""
        if isinstance(obj, (str, Enum, int, float, datetime)):
            return self.text(obj) if isinstance(obj, str) else obj
        if isinstance(obj, (bytes, bytearray, PurePath)):
            # Shown or exported as text somewhere (exports.jsonable): redact that text.
            text = obj.decode("utf-8", "replace") if isinstance(obj, (bytes, bytearray)) else str(obj)
            red = self.text(text)
            return obj if red == text else red
        if isinstance(obj, Mapping):
            return self.value(dict(obj))
        if isinstance(obj, (list, tuple)):
            return self.value(list(obj))
        return obj


# Field types that hold no text: a walk does not visit them (an event's kind, its times, counts, flags).
_NO_TEXT = frozenset({"int", "int | None", "bool", "datetime | None", "Kind", "ToolCategory | None", "Usage | None"})


def _dataclass_fields(kind: type) -> tuple[str, ...] | None:
    """The fields of a dataclass that may hold text (those typed as numbers, flags, times or enums do not)."""
    names = _FIELDS.get(kind, ())
    if names == ():
        names = tuple(f.name for f in fields(kind) if str(f.type) not in _NO_TEXT) if is_dataclass(kind) else None
        _FIELDS[kind] = names
    return names


def _safe_session_id(redacted: str, original: str) -> str:
    """A session id that held a secret: URL-safe again, and still unique per original id."""
    slug = cut_slug(re.sub(r"[^A-Za-z0-9._]+", "-", redacted).strip("-."), 60)
    digest = hashlib.sha1(original.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{slug}-{digest}" if slug else f"redacted-{digest}"
