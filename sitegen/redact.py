"""Secret redaction: credentials are replaced by a visible ``[REDACTED:kind]``
marker before anything is rendered, indexed or exported.

Each pattern carries the substrings any of its matches must contain; one scan
for all hints tells which patterns can match a string, so the (vast) majority
of strings run no pattern regex at all.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import fields, is_dataclass, replace
from datetime import datetime
from enum import Enum
from typing import Any, Iterable

# (kind, hints, pattern). A match must contain one of the hints (lower-cased), which
# lets a string skip every pattern whose hints it lacks: most strings run none.
# A pattern's group "secret", when present, is the part replaced; otherwise the
# whole match is. Order matters: specific before generic.
_ASSIGN_VALUE = r"\s*[:=]\s*[\"']?(?P<secret>(?![\"'$<{\[*x]{3})(?!\d+\b)(?!REDACTED)[^\s\"'`,;)}\]]{8,})"
PATTERNS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("private-key", ("-----begin",), r"-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,16384}?(?:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"),
    ("anthropic-key", ("sk-ant-",), r"\bsk-ant-[A-Za-z0-9]{2,12}-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", ("sk-",), r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}"),
    ("aws-access-key", ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "anva", "aipa"), r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),
    ("aws-secret-key", ("aws",), r"(?i:aws.{0,20}?(?:secret|sk).{0,20}?)[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
    ("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    ("gitlab-token", ("glpat-",), r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("slack-token", ("xox",), r"\bxox[abposrce]-[A-Za-z0-9-]{10,}\b"),
    ("slack-webhook", ("hooks.slack.com",), r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]{20,}"),
    ("google-api-key", ("aiza",), r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("stripe-key", ("_live_", "_test_"), r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ("huggingface-token", ("hf_",), r"\bhf_[A-Za-z0-9]{30,}\b"),
    ("npm-token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("jwt", ("eyj",), r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("bearer-token", ("bearer",), r"(?i:\bbearer\s+)(?P<secret>[A-Za-z0-9._~+/\-]{16,}=*)"),
    ("url-password", ("@",), r"\b[a-z][a-z0-9+.\-]{0,15}://[^\s:/@]{1,64}:(?P<secret>[^\s@/]{3,128})@"),
    # NAME=value where the name says it is a secret: UPPER_SNAKE env names, snake_case
    # names ending in one, and quoted JSON keys. Starts at the keyword so the regex
    # engine can skip ahead on a literal instead of trying every position.
    ("secret-assignment", ("key", "secret", "token", "passw", "credential"),
     r"(?:API_?KEY|ACCESS_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]*" + _ASSIGN_VALUE
     + r"|(?:api_?key|access_?key|secret|_token|password|passwd|private_?key)[a-z0-9_]*" + _ASSIGN_VALUE.replace("secret>", "secret2>")
     + r"|(?:api_?key|apiKey|secret|token|password|passwd|private_?key)\"" + _ASSIGN_VALUE.replace("secret>", "secret3>")),
)


class Redactor:
    """Replaces secrets in strings and counts what it replaced, by kind."""

    def __init__(self, extra: Iterable[tuple[str, str]] = (), allow: Iterable[str] = ()) -> None:
        # Extra patterns have no hints: they run on every string.
        self._patterns = [(kind, (), re.compile(p)) for kind, p in extra] + [(kind, hints, re.compile(p)) for kind, hints, p in PATTERNS]
        self._allow = set(allow)
        self._always = any(not hints for _, hints, _ in self._patterns)
        self._hints = tuple(sorted({h for _, hints, _ in self._patterns for h in hints}))
        self.counts: Counter[str] = Counter()

    def text(self, value: str) -> str:
        if len(value) < 8:
            return value
        lowered = value.lower()
        found = {h for h in self._hints if h in lowered}
        if not found and not self._always:
            return value
        for kind, hints, regex in self._patterns:
            if hints and found.isdisjoint(hints):
                continue
            value = regex.sub(lambda m, kind=kind: self._replace(m, kind), value)
        return value

    def _replace(self, match: re.Match[str], kind: str) -> str:
        whole = match.group(0)
        group = next((g for g in ("secret", "secret2", "secret3") if g in match.re.groupindex and match.group(g) is not None), None)
        target = match.group(group) if group else whole
        if target in self._allow:
            return whole
        self.counts[kind] += 1
        marker = f"[REDACTED:{kind}]"
        if group is None:
            return marker
        start, end = match.span(group)
        offset = match.start()
        return whole[: start - offset] + marker + whole[end - offset:]

    def value(self, obj: Any) -> Any:
        """Redact every string inside a JSON-like value or a frozen dataclass."""
        if isinstance(obj, Enum):
            return obj
        if isinstance(obj, str):
            return self.text(obj)
        if obj is None or isinstance(obj, (int, float, bool, datetime)):
            return obj
        if isinstance(obj, tuple):
            new = tuple(self.value(v) for v in obj)
            return obj if all(a is b for a, b in zip(new, obj)) else new
        if isinstance(obj, list):
            return [self.value(v) for v in obj]
        if isinstance(obj, dict):
            return {k: self.value(v) for k, v in obj.items()}
        if is_dataclass(obj) and not isinstance(obj, type):
            changes = {}
            for f in fields(obj):
                old = getattr(obj, f.name)
                new = self.value(old)
                if new is not old:
                    changes[f.name] = new
            return replace(obj, **changes) if changes else obj
        return obj
