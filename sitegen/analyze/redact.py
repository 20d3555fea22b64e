"""Secret redaction: credentials are replaced by a visible ``[REDACTED:kind]``
marker before anything is rendered, indexed or exported.

Each pattern carries the substrings any of its matches must contain; one scan
for all hints tells which patterns can match a string, so the (vast) majority
of strings run no pattern regex at all.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import fields, is_dataclass, replace
from datetime import datetime
from enum import Enum
from pathlib import PurePath
from typing import Any

from sitegen.model import Kind, Session, ToolCategory

# (kind, hints, pattern[, anchors]).
# - hints: lower-cased substrings one of which every match contains. One scan for
#   all hints tells which patterns can match a string: most strings run none. ()
#   means the pattern runs on every string; that is cheap only for a regex that
#   starts with a literal (the engine then skips ahead with a substring search),
#   which is why boundary checks sit in a lookbehind *after* the literal: a
#   leading \b or lookbehind makes the engine try every position (18x slower).
# - anchors: (needle, offsets): for a pattern that cannot start with one literal,
#   the regex is only tried where a match can start: at each offset from each
#   occurrence of a needle in the lower-cased string.
# A group whose name starts with "secret", when present, is the part replaced;
# otherwise the whole match is. Order matters: specific before generic.

# The value of NAME=value: quoted or not (quotes may be backslash-escaped, as in JSON held in
# a string, or shell-escaped: '"'"'); not a placeholder ($VAR, <token>, ***, xxx), not a number, not another name
# ("secret: client_secret: …", '"password": "password": "…"' are about the second one: the
# possessive {8,}+ with the checks after it say so).
# Values that are code or placeholders, not secrets: self.config.api_key, process.env.X,
# csrfToken, your_api_key, <token>, example…, changeme.
_NOT_A_VALUE = (
    r"(?:self|this|os|process|config|cfg|env|settings|args|opts|options|params|props|req|request|ctx|context|secrets)\."
    r"|[a-z]+(?:[A-Z][a-z0-9]*)*(?:Token|Key|Secret|Password|Passwd)\b|(?i:your[_-]|example|placeholder|changeme|dummy)"
)
_ASSIGN_VALUE = (
    r"\s*[:=]\s*[\\\"']{0,8}(?P<secret>(?![\"'$<{\[*x]{3})(?!\d+\b)(?!\[?REDACTED)(?!"
    + _NOT_A_VALUE
    + r")[^\s\"'`,;(){}\]\\]{8,}+(?<!:)(?!\(|\\*[\"']?\s*[:=]))"
)
_PRIVATE_KEY_HEAD = r"(?i:-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----)"
PATTERNS: tuple[tuple, ...] = (
    # A key block up to its END line; a block cut short (no END line) up to where the base64 stops.
    (
        "private-key",
        ("-----begin",),
        _PRIVATE_KEY_HEAD
        + r"(?:[\s\S]{0,16384}?(?i:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----)|(?:[A-Za-z0-9+/=:,\-\s]|\\[nrt])*)",
    ),
    ("anthropic-key", ("sk-",), r"sk-ant-(?<![A-Za-z0-9_]sk-ant-)[A-Za-z0-9]{2,12}-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", ("sk-",), r"sk-(?<![A-Za-z0-9_]sk-)(?:proj-|svcacct-|admin-|None-|or-v1-)?[A-Za-z0-9_\-]{20,}"),
    (
        "aws-access-key",
        (),
        r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)(?<![A-Za-z0-9_][A-Z]{4})[0-9A-Z]{16}",
    ),
    # The same keys lower-cased by a reader (an agent or tool name) are still keys.
    ("aws-access-key", ("akia", "asia"), r"(?<![A-Za-z0-9_])(?i:akia|asia)[0-9a-z]{16}(?![0-9A-Za-z])"),
    (
        "aws-secret-key",
        ("aws",),
        r"(?i:aws.{0,20}?(?:secret|sk).{0,20}?)[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
    ),
    (
        "github-token",
        ("gh",),
        r"gh[pousr]_(?<![A-Za-z0-9_]gh[pousr]_)[A-Za-z0-9]{36,255}|github_pat_(?<![A-Za-z0-9_]github_pat_)[A-Za-z0-9_]{22,255}",
    ),
    ("gitlab-token", ("glpat-",), r"glpat-(?<![A-Za-z0-9_]glpat-)[A-Za-z0-9_\-]{20,}"),
    ("slack-token", ("xox",), r"xox[abposrce]-(?<![A-Za-z0-9_]xox[abposrce]-)[A-Za-z0-9-]{10,}"),
    (
        "slack-webhook",
        ("hooks.slack.com",),
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{20,}",
    ),
    ("google-api-key", ("aiza",), r"(?<![A-Za-z0-9_])(?i:aiza)[0-9A-Za-z_\-]{35}"),
    ("stripe-key", ("_live_", "_test_"), r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("huggingface-token", ("hf_",), r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{30,}"),
    ("npm-token", ("npm_",), r"npm_(?<![A-Za-z0-9_]npm_)[A-Za-z0-9]{36}"),
    ("pypi-token", ("pypi-",), r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),
    ("sendgrid-key", ("sg.",), r"SG\.(?<![A-Za-z0-9_]SG\.)[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"),
    ("digitalocean-token", ("_v1_",), r"do[por]_v1_[a-f0-9]{64}"),
    ("shopify-token", ("shp",), r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("azure-storage-key", ("key",), r"AccountKey=(?P<secret>[A-Za-z0-9+/=]{40,})"),
    ("jwt", ("eyj",), r"(?<![A-Za-z0-9_\-])(?i:eyj)[A-Za-z0-9_\-]{8,}\.(?i:eyj)[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    # "Bearer <16+ chars>" anywhere; any credential in an Authorization header, however short.
    ("bearer-token", ("bearer",), r"(?i:\bbearer\s+)(?P<secret>(?!\[?REDACTED)[A-Za-z0-9._~+/\-]{16,}=*)"),
    (
        "authorization-header",
        ("authorization",),
        r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:bearer|basic|token|bot|digest)\s+(?P<secret>(?![$<{]|\[?REDACTED)[^\s\"'`,;]+)",
    ),
    (
        "url-password",
        ("://",),
        r"://(?<=[A-Za-z0-9]://)[^\s:/@\"'<>]{1,64}:(?P<secret>(?!\[?REDACTED)[^\s@/\"'<>]{3,128})@",
    ),
    # NAME=value where the name says it is a secret: UPPER_SNAKE env names (…_KEY,
    # …TOKEN…), snake_case names with a secret word, and quoted JSON keys.
    (
        "secret-assignment",
        ("key", "secret", "token", "passw", "credential"),
        r"(?:API_?KEY|ACCESS_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE_?KEY|CREDENTIALS?|_KEY)[A-Z0-9_]*"
        + _ASSIGN_VALUE
        + r"|(?:api_?key|access_?key|secret|_token|password|passwd|private_?key)[a-z0-9_]*"
        + _ASSIGN_VALUE.replace("secret>", "secret2>")
        + r"|(?:api_?key|apiKey|secret|token|password|passwd|private_?key)\\*[\"']"
        + _ASSIGN_VALUE.replace("secret>", "secret3>")
        + r"|_key[a-z0-9_]*\s*[:=]\s*\\*[\"']"
        + _ASSIGN_VALUE.replace("secret>", "secret4>").replace(r"\s*[:=]\s*[\\\"']{0,8}", ""),
        (
            ("key", (-1, -3, -4, -6, -7, -8)),
            ("secret", (0,)),
            ("token", (0, -1)),
            ("passw", (0,)),
            ("credential", (0,)),
        ),
    ),
    # Personal data the sage spec says must never be logged, in one pass: card numbers
    # (Luhn-checked) and US social security numbers; _pii tells which and where.
    ("pii", (), r"[0-9]{3}(?:-[0-9]{2}-[0-9]{4}|[0-9](?:[ -]?[0-9]){9,15})"),
)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = ord(ch) - 48
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _card(text: str, start: int, run: str) -> tuple[int, int] | None:
    """The span of a card number at ``start``: 13–19 digits that begin with 2–6, pass
    Luhn's check and stand alone (no letter, digit, dot or dash around them)."""
    if run[0] not in "23456" or (start and (text[start - 1].isalnum() or text[start - 1] in "._-")):
        return None
    digits = [i for i, ch in enumerate(run) if ch.isdigit()]
    for count in range(min(19, len(digits)), 12, -1):
        end = start + digits[count - 1] + 1
        if end < len(text) and (text[end].isalnum() or text[end] in "_-"):
            continue
        if _luhn("".join(run[i] for i in digits[:count])):
            return start, end
    return None


def _ssn(text: str, start: int, run: str) -> tuple[int, int] | None:
    end = start + len(run)
    if (start and (text[start - 1].isalnum() or text[start - 1] in "-_.")) or (
        end < len(text) and (text[end].isalnum() or text[end] in "-_")
    ):
        return None
    area, group, serial = run.split("-")
    if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
        return None
    return start, end


def _pii(match: re.Match[str]) -> tuple[str, int, int] | None:
    run = match.group(0)
    if len(run) == 11 and run[3] == "-" and run[6] == "-":
        span = _ssn(match.string, match.start(), run)
        return ("us-ssn", *span) if span else None
    span = _card(match.string, match.start(), run)
    return ("credit-card", *span) if span else None


# Patterns whose matches still need a check: it returns (kind, start, end) to replace, or None.
_CHECKS = {"pii": _pii}
_MEMO_MAX_LEN = 256  # short strings repeat (paths, names, ids): remember what they became
_MEMO_MAX_ITEMS = 200_000


class RedactionConfigError(ValueError):
    """A user-supplied pattern that cannot be used."""


def compile_extra(kind: str, pattern: str) -> re.Pattern[str]:
    """A user pattern, checked: a bad regex or one that matches the empty string is an error."""
    if not kind or not isinstance(kind, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", kind):
        raise RedactionConfigError(f"redaction pattern kind {kind!r} must be a short name (letters, digits, - _ .)")
    try:
        regex = re.compile(pattern)
    except (re.error, TypeError) as exc:
        raise RedactionConfigError(f"redaction pattern {kind!r} is not a valid regular expression: {exc}") from None
    if regex.search("") is not None:
        raise RedactionConfigError(f"redaction pattern {kind!r} matches the empty string")
    return regex


class Redactor:
    """Replaces secrets in strings and counts what it replaced, by kind.

    ``extra``: more (kind, regex) patterns, tried before the built-in ones (a
    regex that starts with a literal is as cheap as a built-in one; one that
    does not is tried at every position of every string). ``allow``: exact
    values never redacted (a known test key, a public example).
    """

    def __init__(self, extra: Iterable[tuple[str, str]] = (), allow: Iterable[str] = ()) -> None:
        patterns = [(kind, (), compile_extra(kind, p), ()) for kind, p in extra]
        for spec in PATTERNS:
            kind, hints, pattern = spec[:3]
            patterns.append((kind, hints, re.compile(pattern), spec[3] if len(spec) > 3 else ()))
        self._patterns = patterns
        self._replacers = {kind: (lambda m, kind=kind: self._replace(m, kind)) for kind, _, _, _ in patterns}
        self._allow = frozenset(a for a in allow if a)
        self._hints = tuple(sorted({h for _, hints, _, _ in patterns for h in hints}))
        self._by_hint = {h: {i for i, (_, hints, _, _) in enumerate(patterns) if h in hints} for h in self._hints}
        self._always = {i for i, (_, hints, _, _) in enumerate(patterns) if not hints}
        self._always_order = sorted(self._always)
        self._memo: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._names: dict[str, bool] = {}
        self._kinds: list[str] = []  # kinds replaced in the string being redacted
        self.counts: Counter[str] = Counter()

    @classmethod
    def for_config(cls, config: Any) -> Redactor | None:
        """The redactor a site config asks for (None when redaction is off)."""
        if not getattr(config, "redact", True):
            return None
        return cls(extra=getattr(config, "redact_patterns", ()), allow=getattr(config, "redact_allow", ()))

    def text(self, value: str) -> str:
        if len(value) < 8:
            return value
        short = len(value) <= _MEMO_MAX_LEN
        if short:
            hit = self._memo.get(value)
            if hit is not None:
                if not hit[1]:
                    return value  # the caller's own object: unchanged means identical
                self.counts.update(hit[1])
                return hit[0]
        original = value
        self._kinds = kinds = []
        lowered = value.lower()
        found = [h for h in self._hints if h in lowered]
        order = sorted(self._always.union(*(self._by_hint[h] for h in found))) if found else self._always_order
        patterns = self._patterns
        for i in order:
            kind, _, regex, anchors = patterns[i]
            if anchors and len(lowered) == len(value):  # (lower() can change the length of some letters)
                new = self._sub_anchored(kind, regex, anchors, value, lowered)
            else:
                new = regex.sub(self._replacers[kind], value)
            if new != value:
                value = new
                lowered = value.lower()
        if short:
            if len(self._memo) >= _MEMO_MAX_ITEMS:
                self._memo.clear()
            self._memo[original] = (value, tuple(kinds))
        return value

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
            if m and m.group(2) not in self._allow and not m.group(2).startswith("[REDACTED"):
                self.counts["authorization-header"] += 1
                return f"{m.group(1)}[REDACTED:authorization-header]"
        if len(value) < 8 or not _SECRET_VALUE.fullmatch(value) or value in self._allow:
            return value
        self.counts["secret-assignment"] += 1
        return "[REDACTED:secret-assignment]"

    def _sub_anchored(self, kind: str, regex: re.Pattern[str], anchors: tuple, value: str, lowered: str) -> str:
        """``regex.sub`` tried only where a match can start (see PATTERNS): same result, far fewer tries."""
        starts: set[int] = set()
        for needle, offsets in anchors:
            i = lowered.find(needle)
            while i != -1:
                starts.update(i + o for o in offsets if i + o >= 0)
                i = lowered.find(needle, i + 1)
        if not starts:
            return value
        out: list[str] = []
        last = 0
        match = regex.match
        for start in sorted(starts):
            if start < last:
                continue
            m = match(value, start)
            if m is None or m.end() == start:
                continue
            out.append(value[last:start])
            out.append(self._replace(m, kind))
            last = m.end()
        if not out:
            return value
        out.append(value[last:])
        return "".join(out)

    def _replace(self, match: re.Match[str], kind: str) -> str:
        whole = match.group(0)
        check = _CHECKS.get(kind)
        if check is not None:
            found = check(match)
            if found is None or match.string[found[1] : found[2]] in self._allow:
                return whole
            kind, start, end = found
            offset = match.start()
            self.counts[kind] += 1
            self._kinds.append(kind)
            return whole[: start - offset] + f"[REDACTED:{kind}]" + whole[end - offset :]
        group = next((g for g in match.re.groupindex if g.startswith("secret") and match.group(g) is not None), None)
        target = match.group(group) if group else whole
        if target in self._allow or whole in self._allow:
            return whole
        self.counts[kind] += 1
        self._kinds.append(kind)
        marker = f"[REDACTED:{kind}]"
        if group is None:
            return marker
        start, end = match.span(group)
        offset = match.start()
        return whole[: start - offset] + marker + whole[end - offset :]

    def value(self, obj: Any) -> Any:
        """Redact every string inside a JSON-like value or a frozen dataclass (dict keys too).

        Returns the very same object when nothing in it changed, so walking a
        clean session allocates nothing.
        """
        kind = type(obj)
        if kind is str:
            return self.text(obj)
        if kind in _ATOMIC or obj is None:
            return obj
        if kind is tuple or kind is list:
            new = None
            for i, item in enumerate(obj):
                red = self.value(item)
                if red is not item:
                    if new is None:
                        new = list(obj)
                    new[i] = red
            if new is None:
                return obj
            return tuple(new) if kind is tuple else new
        if kind is dict:
            changed = False
            out = {}
            for key, item in obj.items():
                red_key = self.text(key) if type(key) is str else key
                red = self.value(item)
                if type(red) is str and type(key) is str and len(red) >= 4 and self._secret_name(key):
                    red = self._entry(key, red)
                if red is not item or red_key is not key:
                    changed = True
                out[red_key] = red
            return out if changed else obj
        names = _dataclass_fields(kind)
        if names is not None:
            changes = {}
            for name in names:
                old = getattr(obj, name)
                if old is None or type(old) in _ATOMIC:
                    continue
                new = self.value(old)
                if new is not old:
                    changes[name] = new
            if not changes:
                return obj
            if kind is Session and "id" in changes:
                changes["id"] = _safe_session_id(changes["id"], obj.id)
            return replace(obj, **changes)
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


# Mapping keys that name a secret (see Redactor._entry), and what such a secret's value looks like.
_SECRET_NAME = re.compile(
    r"(?i:(?:^|[_.\-])(?:api[_-]?key|access[_-]?key|secret|secret[_-]?key|client[_-]?secret|webhook[_-]?secret|token|access[_-]?token|refresh[_-]?token"
    r"|auth[_-]?token|id[_-]?token|session[_-]?token|bearer[_-]?token|password|passwd|passphrase|private[_-]?key|credentials?|authorization)$)"
    r"|[A-Z0-9]_KEY$"
)
_SECRET_NAME_CAMEL = re.compile(r"[a-z0-9](?:Token|Secret|Password|Passwd|ApiKey|AccessKey|PrivateKey|Credentials?)$")
_SECRET_VALUE = re.compile(r"(?![\"'$<{\[*x]{3})(?!\d+$)(?!\[?REDACTED)[^\s]{8,}")
_AUTH_VALUE = re.compile(r"((?i:bearer|basic|token|bot|digest)\s+)(\S{4,})")
_ATOMIC = frozenset({int, float, bool, datetime, Kind, ToolCategory})
_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _dataclass_fields(kind: type) -> tuple[str, ...] | None:
    names = _FIELDS.get(kind, ())
    if names == ():
        names = tuple(f.name for f in fields(kind)) if is_dataclass(kind) else None
        _FIELDS[kind] = names
    return names


def _safe_session_id(redacted: str, original: str) -> str:
    """A session id that held a secret: URL-safe again, and still unique per original id."""
    slug = re.sub(r"[^A-Za-z0-9._]+", "-", redacted).strip("-.")[:60].rstrip("-.")
    digest = hashlib.sha1(original.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{slug}-{digest}" if slug else f"redacted-{digest}"
