"""Secret redaction: credentials are replaced by a visible ``[REDACTED:kind]``
marker before anything is rendered, indexed or exported.

One compiled alternation scans each string once; a cheap substring pre-check
skips the regex for the (vast) majority of strings that hold no candidate.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import fields, is_dataclass, replace
from datetime import datetime
from enum import Enum
from typing import Any, Iterable

# (kind, pattern). A pattern's group "secret", when present, is the part replaced;
# otherwise the whole match is. Order matters: specific before generic.
PATTERNS: tuple[tuple[str, str], ...] = (
    ("private-key", r"-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,16384}?(?:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9]{2,12}-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}"),
    ("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),
    ("aws-secret-key", r"(?i:aws.{0,20}?(?:secret|sk).{0,20}?)[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
    ("github-token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    ("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("slack-token", r"\bxox[abposrce]-[A-Za-z0-9-]{10,}\b"),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]{20,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}\b"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("bearer-token", r"(?i:\bbearer\s+)(?P<secret>[A-Za-z0-9._~+/\-]{16,}=*)"),
    ("url-password", r"\b[a-z][a-z0-9+.\-]*://[^\s:/@]{1,64}:(?P<secret>[^\s@/]{3,128})@"),
    (
        "secret-assignment",
        r"(?:\b[A-Z0-9_]*(?:API_?KEY|ACCESS_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE_?KEY|CREDENTIALS?)[A-Z0-9_]*"
        r"|\b[a-z0-9_]*(?:api_?key|access_?key|secret|_token|password|passwd|private_?key)"
        r"|\"[A-Za-z0-9_]*(?:api_?key|apiKey|secret|token|password|passwd|private_?key)\")"
        r"\s*[:=]\s*[\"']?(?P<secret>(?![\"'$<{\[*x]{3})(?!\d+\b)(?!REDACTED)[^\s\"'`,;)}\]]{8,})",
    ),
)

# Substrings one of which any match must contain (lower-cased check), for the fast path.
_HINTS = ("-----begin", "sk-", "akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "anva", "aipa", "aws",
          "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "hooks.slack", "aiza", "_live_", "_test_",
          "hf_", "npm_", "eyj", "bearer", "://", "key", "secret", "token", "passw", "credential")


class Redactor:
    """Replaces secrets in strings and counts what it replaced, by kind."""

    def __init__(self, extra: Iterable[tuple[str, str]] = (), allow: Iterable[str] = ()) -> None:
        patterns = list(extra) + list(PATTERNS)
        self.kinds = [kind for kind, _ in patterns]
        self._regex = re.compile("|".join(f"(?P<k{i}>{_rename_groups(p, i)})" for i, (_, p) in enumerate(patterns)))
        self._allow = set(allow)
        self.counts: Counter[str] = Counter()

    def text(self, value: str) -> str:
        lowered = value.lower()
        if not any(h in lowered for h in _HINTS):
            return value
        return self._regex.sub(self._replace, value)

    def _replace(self, match: re.Match[str]) -> str:
        index = int(match.lastgroup[1:]) if match.lastgroup else 0
        # lastgroup may name the inner "secret" group: find the outer pattern that matched.
        for i in range(len(self.kinds)):
            if match.group(f"k{i}") is not None:
                index = i
                break
        kind = self.kinds[index]
        whole = match.group(0)
        secret = match.group(f"s{index}") if f"s{index}" in match.re.groupindex else None
        target = secret if secret is not None else whole
        if target in self._allow:
            return whole
        self.counts[kind] += 1
        marker = f"[REDACTED:{kind}]"
        if secret is None:
            return marker
        start, end = match.span(f"s{index}")
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


def _rename_groups(pattern: str, index: int) -> str:
    return pattern.replace("(?P<secret>", f"(?P<s{index}>")
