"""Rules that read a whole string rather than one match: a Kubernetes Secret's data,
the last lines of a private key, the pieces of a key cut in two.

A scan returns the spans to replace; ``SCANS`` lists them as (kind, hints, scan).
"""

from __future__ import annotations

import re

from sessite.analyze.redact.precision import stand_in
from sessite.analyze.redact.types import ScanSpec, Span

# "    12→" before each line of a file Claude Code read (escaped too: in a JSON string)
_LINE_NUMBER = r"(?:[ \t]*[0-9]+(?:\u2192|\t|\\+(?:t|u2192)))?"

# --- Kubernetes: kind: Secret, and the values under its data: / stringData:
_SECRET_KIND = re.compile(r"(?:^|[\s{,])\\*[\"']?kind\\*[\"']?[ \t]*:[ \t]*\\*[\"']?Secret\b", re.MULTILINE)
_YAML_DATA = re.compile(r"^" + _LINE_NUMBER + r"(?P<indent>[ \t]*)(?:data|stringData):[ \t]*\r?$", re.MULTILINE)
_YAML_ENTRY = re.compile(
    r"\n"
    + _LINE_NUMBER
    + r"(?P<indent>[ \t]+)[\"']?[A-Za-z0-9_.\-]+[\"']?:[ \t]*(?P<value>[^\s#][^\r\n]*?)[ \t]*(?=\r?$)",
    re.MULTILINE,
)
_YAML_COMMENT = re.compile(r"[ \t]+#.*$")
_JSON_DATA = re.compile(r"\\*\"(?:data|stringData)\\*\"\s*:\s*\{(?P<body>[^{}]*)\}")
_JSON_ENTRY = re.compile(r"\\*\"[^\"\\]+\\*\"\s*:\s*\\*\"(?P<value>[^\"\\]+)\\*\"")


def kubernetes_secret(text: str) -> list[Span]:
    """The values of a Secret's ``data``/``stringData`` entries, in YAML or JSON
    (kubectl get secret -o yaml|json, a manifest)."""
    if _SECRET_KIND.search(text) is None:
        return []
    spans: list[Span] = []
    for block in _YAML_DATA.finditer(text):
        depth = len(block.group("indent").expandtabs())
        pos = block.end()
        while (entry := _YAML_ENTRY.match(text, pos)) is not None and len(entry.group("indent").expandtabs()) > depth:
            value = _YAML_COMMENT.sub("", entry.group("value")).strip("\"'")
            if len(entry.group("value")) >= 4 and not stand_in(value):
                spans.append(("kubernetes-secret", *entry.span("value")))
            pos = entry.end()
    for block in _JSON_DATA.finditer(text):
        offset = block.start("body")
        for entry in _JSON_ENTRY.finditer(block.group("body")):
            if len(entry.group("value")) >= 4 and not stand_in(entry.group("value")):
                spans.append(("kubernetes-secret", offset + entry.start("value"), offset + entry.end("value")))
    return spans


# --- The last lines of a private key whose first lines were elsewhere (another event, a cut).
_KEY_END = re.compile(r"-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----", re.IGNORECASE)
# A line of the body however it was pasted (a diff's + - or space, a quote's >, a string literal per
# line: "…\\n" +), or what is left of one between an escaped line break and the real one ("; +).
_KEY_LINE = re.compile(
    _LINE_NUMBER + r"[ \t]*(?:[+\->][ \t]*)*\\*[\"']?(?P<run>[A-Za-z0-9+/=]{16,})?(?:[\"'\s+,\\]|\\+r)*"
)
_KEY_LINE_END = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/=]{16,}(?:[\"'\s+,\\]|\\+r)*\Z")
_LINE_BREAK = re.compile(r"\n|\\n")
_KEY_CHARS = re.compile(r"[A-Za-z0-9+/]")


def private_key_tail(text: str) -> list[Span]:
    """From the first of the base64 lines before an END line (with no BEGIN line) to its end."""
    spans: list[Span] = []
    floor = 0  # (never back past the END line before: many END lines stay linear)
    for end in _KEY_END.finditer(text):
        window = max(floor, end.start() - 16384)
        floor = end.end()
        breaks = list(_LINE_BREAK.finditer(text, window, end.start()))
        start = end.start()
        body = False  # (a base64 line seen: blank lines and quotes alone before an END line are no key)
        for k in range(len(breaks) - 1, -1, -1):  # the lines before the END line, last first
            line_start = breaks[k - 1].end() if k else window
            line = _KEY_LINE.fullmatch(text, line_start, breaks[k].start())
            if line is None:
                # the first line may open with what is not the key (a JSON key, "data: "): its last run
                head = _KEY_LINE_END.search(text, line_start, breaks[k].start()) if body else None
                start = head.start() if head is not None else start
                break
            body = body or line.group("run") is not None
            start = line_start
        if body and len(set(_KEY_CHARS.findall(text, start, end.start()))) > 4:
            spans.append(("private-key", start, end.end()))  # (not AAAA…== in an example of where a key goes)
    return spans


# --- A key's first part at the very end of a string: the rest is in the next block or event.
# prefix -> (kind, the body length from which the whole-key rules take it: shorter is a cut key)
PARTIAL_PREFIXES = {
    "gh": ("github-token", 36),
    "github_pat_": ("github-token", 22),
    "glpat-": ("gitlab-token", 20),
    "sk-ant-": ("anthropic-key", 16),
    "sk-": ("openai-key", 20),
    "xox": ("slack-token", 10),
    "hf_": ("huggingface-token", 30),
    "npm_": ("npm-token", 36),
    "AKIA": ("aws-access-key", 16),
    "ASIA": ("aws-access-key", 16),
    "AIza": ("google-api-key", 35),
    "sk_live_": ("stripe-key", 16),
    "rk_live_": ("stripe-key", 16),
    "eyJ": ("jwt", 1 << 30),
    "gsk_": ("groq-key", 48),
    "xai-": ("xai-key", 60),
}
PARTIAL_TAIL = re.compile(
    r"(?<![A-Za-z0-9_\-])(?P<prefix>gh[pousr]_|github_pat_|glpat-|sk-ant-|sk-|xox[abposrce]-|hf_|npm_|AKIA|ASIA|AIza"
    r"|[sr]k_live_|eyJ|gsk_|xai-)(?P<body>[A-Za-z0-9_\-]{6,})[\s\"'`.,;:)\]]*\Z"
)
_MIXED = re.compile(r"[0-9]|[a-z].*[A-Z]")  # a digit, or a capital after a small letter: not a word


def _partial_key(text: str) -> tuple[str, re.Match[str]] | None:
    """The kind of key whose first part ends ``text`` ("… ghp_1a2B3c" cut short), and where."""
    tail = text[-300:].rstrip()
    last_word = tail.rsplit(None, 1)[-1] if tail else ""
    match = PARTIAL_TAIL.search(last_word)
    if match is None or not _MIXED.search(match.group("body")):
        return None
    prefix = match.group("prefix")
    kind, whole = next(found for start, found in PARTIAL_PREFIXES.items() if prefix.startswith(start))
    return (kind, match) if len(match.group("body")) < whole else None


def partial_key_kind(text: str) -> str | None:
    """The kind of key whose first part ends ``text``, if one does."""
    found = _partial_key(text)
    return found[0] if found else None


def partial_key_at_end(text: str) -> list[Span]:
    found = _partial_key(text)
    if found is None:
        return []
    kind, match = found
    offset = len(text.rstrip()) - len(match.string)
    return [(kind, offset + match.start(), offset + match.end("body"))]


_HEAD_RUN = re.compile(r"\s*(?P<run>[A-Za-z0-9_\-+/=]{6,})(?![A-Za-z0-9_\-+/=])")


def continued_key_head(text: str) -> tuple[int, int] | None:
    """The span of a key's remaining part at the start of ``text`` (when the previous string
    ended with a key's first part): a run of key characters, not a plain word."""
    match = _HEAD_RUN.match(text)
    if match is None or not _MIXED.search(match.group("run")):
        return None
    return match.span("run")


SCANS: tuple[ScanSpec, ...] = (
    ("kubernetes-secret", ("secret",), kubernetes_secret),
    ("private-key", ("-----end",), private_key_tail),
    (
        "partial-key",
        ("gh", "glpat-", "sk-", "xox", "hf_", "npm_", "akia", "asia", "aiza", "_live_", "eyj", "gsk_", "xai-"),
        partial_key_at_end,
    ),
)
