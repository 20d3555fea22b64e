"""Secrets recognisable by their shape alone: a vendor's prefix and a body of a known
alphabet and length (after gitleaks' and detect-secrets' rules), wherever they appear.

A rule is ``(kind, hints, pattern[, anchors[, check]])`` (see ``rules``). Every
pattern here starts with a literal, so the regex engine skips ahead with a
substring search; a boundary check sits in a lookbehind *after* the literal
(a leading lookbehind would make the engine try every position).
"""

from __future__ import annotations

import re

from sessite.analyze.redact.precision import example_key, placeholder, public_jwt
from sessite.analyze.redact.runs import HEX_RUN, UPPER_RUN
from sessite.analyze.redact.types import RuleSpec, Span

_PRIVATE_KEY_HEAD = r"(?i:-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----)"
# A block cut short (no END line): the base64 and armor headers that follow, however the lines were
# pasted: prefixed by a diff (+ - space), a Read tool's line numbers (12→, 12<tab>), a Markdown quote (>),
# indented in YAML, ended by \r\n, escaped once or twice in JSON (\\n, \\\\n), or a string per line
# joined by + (a Python or JS literal), all of that inside a JSON string. Prose after it stops at the first
# punctuation.
_CUT_BODY = (
    r"(?:(?<![^\s\"'>n\u2192])(?:Comment|Version|Hash|Charset|MessageID|Proc-Type|DEK-Info):[^\r\n\\\"]*"
    r"|[A-Za-z0-9+/=:,\-\s\"'>\u2192]|\\+(?:[nrt\"']|u2192))*"
)
# A key block holds a body: a header alone, or one around "..." in a docs table, is not a key.
_KEY_BODY = re.compile(r"[A-Za-z0-9+/]{16}")


def _key_body(block: str) -> bool:
    """A key block holds a body of random base64, not a header alone, "..." or one letter
    repeated (``AAAAAAAA…==`` in an example of where a key goes)."""
    runs = _KEY_BODY.findall(block)
    return bool(runs) and len(set("".join(runs))) > 4


def _unless_placeholder(kind: str, match: re.Match[str]) -> list[Span]:
    """A key of a vendor's shape, unless it is a stand-in (``sk-your-key-here``, ``…EXAMPLE``, ``sk-abcdef123456…``)."""
    return [] if example_key(match.group(0)) else [(kind, *match.span())]


# The shapes sessite has always known; their order and hints are part of its output.
KNOWN_SHAPES: tuple[RuleSpec, ...] = (
    # A key block up to its END line (not across another BEGIN line: a page's title quotes the start of
    # a key its body shows whole); a block cut short (no END line) up to where the base64 stops.
    (
        "private-key",
        ("-----begin",),
        _PRIVATE_KEY_HEAD
        + r"(?:(?:(?!-----BEGIN)[\s\S]){0,16384}?(?i:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----)|"
        + _CUT_BODY
        + ")",
        (),
        lambda match: [("private-key", *match.span())] if _key_body(match.group(0)) else [],
    ),
    (
        "anthropic-key",
        ("sk-",),
        r"sk-ant-(?<![A-Za-z0-9_]sk-ant-)[A-Za-z0-9]{2,12}-[A-Za-z0-9_\-]{20,}",
        (),
        lambda match: _unless_placeholder("anthropic-key", match),
    ),
    (
        "openai-key",
        ("sk-",),
        r"sk-(?<![A-Za-z0-9_]sk-)(?:proj-|svcacct-|admin-|None-|or-v1-)?[A-Za-z0-9_\-]{20,}",
        (),
        lambda match: _unless_placeholder("openai-key", match),
    ),
    (
        "aws-access-key",
        (UPPER_RUN,),
        r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)(?<![A-Za-z0-9_][A-Z]{4})[0-9A-Z]{16}",
        (),
        lambda match: _unless_placeholder("aws-access-key", match),
    ),
    # The same keys lower-cased by a reader (an agent or tool name) are still keys.
    ("aws-access-key", ("akia", "asia"), r"(?<![A-Za-z0-9_])(?i:akia|asia)[0-9a-z]{16}(?![0-9A-Za-z])"),
    (
        "aws-secret-key",
        ("aws",),
        r"(?i:aws.{0,20}?(?:secret|sk).{0,20}?)[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        (),
        lambda match: [] if placeholder(match.group("secret")) else [("aws-secret-key", *match.span("secret"))],
    ),
    (
        "github-token",
        ("gh", "github_pat_"),  # ("github" holds no "gh")
        r"gh[pousr]_(?<![A-Za-z0-9_]gh[pousr]_)[A-Za-z0-9]{36,255}|github_pat_(?<![A-Za-z0-9_]github_pat_)[A-Za-z0-9_]{22,255}",
        (),
        lambda match: _unless_placeholder("github-token", match),
    ),
    # (a routable token ends in a version and a check: glpat-….01.0g1h2j3k4)
    (
        "gitlab-token",
        ("glpat-",),
        r"glpat-(?<![A-Za-z0-9_]glpat-)[A-Za-z0-9_\-]{20,}(?:\.[0-9a-z]{2}\.[0-9a-z]{7,10}(?![A-Za-z0-9]))?",
    ),
    (
        "slack-token",
        ("xox",),
        r"xox[abposrce]-(?<![A-Za-z0-9_]xox[abposrce]-)[A-Za-z0-9-]{10,}",
        (),
        lambda match: _unless_placeholder("slack-token", match),
    ),
    (
        "slack-webhook",
        ("hooks.slack.com",),
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{20,}",
    ),
    ("google-api-key", ("aiza",), r"(?<![A-Za-z0-9_])(?i:aiza)[0-9A-Za-z_\-]{35}"),
    (
        "stripe-key",
        ("_live_", "_test_"),
        r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
        (),
        lambda match: _unless_placeholder("stripe-key", match),
    ),
    ("huggingface-token", ("hf_",), r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{30,}"),
    ("npm-token", ("npm_",), r"npm_(?<![A-Za-z0-9_]npm_)[A-Za-z0-9]{36}"),
    ("pypi-token", ("pypi-",), r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),
    ("sendgrid-key", ("sg.",), r"SG\.(?<![A-Za-z0-9_]SG\.)[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"),
    ("digitalocean-token", ("_v1_",), r"do[por]_v1_[a-f0-9]{64}"),
    ("shopify-token", ("shp",), r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("azure-storage-key", ("key",), r"AccountKey=(?P<secret>[A-Za-z0-9+/=]{40,})"),
    (
        "jwt",
        ("eyj",),
        r"(?<![A-Za-z0-9_\-])(?i:eyj)[A-Za-z0-9_\-]{8,}\.(?i:eyj)[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        (),
        lambda match: [] if public_jwt(match.group(0)) else [("jwt", *match.span())],
    ),
)

_END = r"(?![A-Za-z0-9])"
# The keys above as they may stand glued after word characters: (kind, pattern, the length of
# its prefix, whether its body must look random because the prefix alone could start a name).
_GLUED: tuple[tuple[str, str, int, bool], ...] = (
    ("github-token", r"gh[pousr]_[A-Za-z0-9]{36,255}", 4, True),
    ("github-token", r"github_pat_[A-Za-z0-9_]{22,255}", 11, True),
    ("gitlab-token", r"glpat-[A-Za-z0-9_\-]{20,}", 6, True),
    ("google-api-key", r"AIza[0-9A-Za-z_\-]{35}", 4, True),
    ("npm-token", r"npm_[A-Za-z0-9]{36}", 4, True),
    ("anthropic-key", r"sk-ant-[A-Za-z0-9]{2,12}-[A-Za-z0-9_\-]{20,}", 7, True),
    ("openai-key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}", 3, True),
    ("slack-token", r"xox[abposrce]-[0-9]+-[A-Za-z0-9-]{10,}", 5, True),
    ("huggingface-token", r"hf_[A-Za-z0-9]{30,}", 3, True),
    ("aws-access-key", r"(?:AKIA|ASIA)[0-9A-Z]{16}", 4, True),
    ("stripe-key", r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}", 8, True),
    ("sendgrid-key", r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", 3, False),
    ("mailgun-key", r"key-[0-9a-f]{32}(?![0-9a-f])", 4, True),
    ("jwt", r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", 3, False),
    # (a docker config in base64: {"auths": as ``vendors`` writes it, compact, spaced or indented)
    (
        "docker-config",
        r"(?:eyJhdXRocyI6|eyAiYXV0aHMi|ewogICJhdXRocyI6|ewogICAgImF1dGhz|ewoJImF1dGhz)[A-Za-z0-9+/]{40,}={0,2}",
        12,
        False,
    ),
)
_DOCKER_CONFIG_HINTS = ("eyjhdxrocyi6", "eyaiyxv0ahmi", "ewogicjhdxrocyi6", "ewogicagimf1dghz", "ewojimf1dghz")
_RANDOM_BODY = re.compile(r"(?=[^_\-]*?[0-9])(?=[^_\-]*?[A-Z])(?=[^_\-]*?[a-z])|(?=.*[0-9]).{16}")


def glued_key(match: re.Match[str]) -> list[Span]:
    """A key glued after word characters: the prefix's rule skipped it, this one takes it when its
    body looks random (a digit and both cases, or a digit in a long run), not a name."""
    start = match.start()
    if start == 0 or not (match.string[start - 1].isalnum() or match.string[start - 1] in "_-"):
        return []  # (standing alone: the prefix's own rule decides)
    kind, _, prefix, random_body = _GLUED[int(match.lastgroup[1:])]  # type: ignore[index]
    if random_body and _RANDOM_BODY.match(match.group(0)[prefix:]) is None:
        return []
    return [(kind, *match.span())]


# Shapes added for what people paste into agent sessions (issue 16).
MORE_SHAPES: tuple[RuleSpec, ...] = (
    # Twilio account and API key SIDs, with the auth token or key secret that follows them
    # (``-u AC…:token``, ``Client("SK…", "secret")``), where Twilio is named (its URL, import, env names).
    (
        "twilio-key",
        ("twilio",),
        r"AC(?<![A-Za-z0-9_]AC)(?P<secret>[0-9a-f]{32})" + _END + r"(?:[\"']?\s*[:,]\s*[\"']?"
        r"(?P<secret2>[A-Za-z0-9]{32})" + _END + ")?",
    ),
    (
        "twilio-key",
        ("twilio",),
        r"SK(?<![A-Za-z0-9_]SK)(?P<secret>[0-9a-f]{32})" + _END + r"(?:[\"']?\s*[:,]\s*[\"']?"
        r"(?P<secret2>[A-Za-z0-9]{32})" + _END + ")?",
    ),
    ("mailgun-key", ("key-",), r"key-(?<![A-Za-z0-9_]key-)[0-9a-f]{32}" + _END),
    ("openai-org", ("org-",), r"org-(?<![A-Za-z0-9_]org-)[A-Za-z0-9]{24}" + _END),
    (
        "discord-webhook",
        ("discord",),
        r"discord(?:app)?\.com/api/(?:v\d+/)?webhooks/(?P<secret>[0-9]{17,20}/[A-Za-z0-9_\-]{60,})",
    ),
    (
        "telegram-bot-token",
        (":aa",),
        r"(?<![0-9])[0-9]{8,10}:AA[0-9A-Za-z_\-]{30,40}(?![0-9A-Za-z_\-])",
        ((":aa", (-8, -9, -10)),),
    ),
    # Twilio's account SID beside its auth token, where no "twilio" names them: Client("AC…", "…").
    (
        "twilio-key",
        (HEX_RUN,),
        r"AC(?<![A-Za-z0-9_]AC)(?P<secret>[0-9a-f]{32})" + _END + r"\\*[\"']?[ \t]*[:,][ \t]*\\*[\"']?"
        r"(?P<secret2>[0-9a-f]{32})" + _END,
    ),
    ("groq-key", ("gsk_",), r"gsk_(?<![A-Za-z0-9_]gsk_)[A-Za-z0-9]{48,}"),
    ("xai-key", ("xai-",), r"xai-(?<![A-Za-z0-9_]xai-)[A-Za-z0-9]{60,}"),
    ("vault-token", ("hvs.",), r"hvs\.(?<![A-Za-z0-9_]hvs\.)[A-Za-z0-9_\-]{24,}"),
    ("stripe-webhook-secret", ("whsec_",), r"whsec_[A-Za-z0-9+/=]{24,}"),
    ("google-oauth-secret", ("gocspx-",), r"GOCSPX-[A-Za-z0-9_\-]{28}"),
    ("google-oauth-token", ("ya29.",), r"ya29\.(?<![A-Za-z0-9_]ya29\.)[0-9A-Za-z_\-]{20,}"),
    (
        "azure-ad-client-secret",
        ("q~",),
        r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])",
        (("q~", (-4,)),),
    ),
    ("age-secret-key", ("age-secret-key-",), r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    # A Sentry DSN's key (and old-style secret) in its URL: https://<key>@o1.ingest.sentry.io/2
    ("sentry-dsn", ("://",), r"://(?<=[A-Za-z]://)(?P<secret>[0-9a-f]{32}(?::[0-9a-f]{32})?)@"),
    # Azure: Service Bus / Event Hubs connection strings, SAS URLs.
    (
        "azure-key",
        ("sharedaccesskey",),
        r"(?i:sharedaccesskey)\s*=\s*(?P<secret>(?!\[?REDACTED)[A-Za-z0-9+/]{20,}={0,2})",
        (("sharedaccesskey", (0,)),),
    ),
    (
        "azure-sas-signature",
        ("sig=",),
        r"sig=(?<=[?&;]sig=)(?P<secret>(?!\[?REDACTED)[A-Za-z0-9%+/]{20,}(?:=|%3[dD]){0,2})",
    ),
    # PuTTY key files: everything from the header to the MAC; a file cut short from its private lines on.
    (
        "private-key",
        ("putty-user-key-file",),
        r"PuTTY-User-Key-File-[0-9]+:(?:(?!PuTTY-User-Key-File-)[\s\S]){0,8192}?"
        r"Private-(?:MAC|Hash):[ \t]*[0-9a-fA-F]+",
    ),
    (
        "private-key",
        ("private-lines",),
        r"Private-Lines:[ \t]*[0-9]+(?:(?:\s|\\[nrt])+(?:[0-9]+(?:\u2192|\t))?(?!Private-)[A-Za-z0-9+/=]{4,})*"
        r"(?:(?:\s|\\[nrt])+(?:[0-9]+(?:\u2192|\t))?Private-(?:MAC|Hash):[ \t]*[0-9a-fA-F]+)?",
    ),
    # The keys above glued to an identifier (mcp__ghp_…__run, Typeghp_…), which their own rules leave
    # alone so that a name holding a prefix is not taken for a key: here the body must look random.
    (
        "glued-key",
        ("gh", "github_pat_", "glpat-", "aiza", "npm_", "sk-", "xox", "hf_", "akia", "asia", "_live_", "_test_")
        + ("sg.", "key-", "eyj")
        + _DOCKER_CONFIG_HINTS,
        "(?:" + "|".join(f"(?P<g{n}>{pattern})" for n, (_, pattern, _, _) in enumerate(_GLUED)) + ")",
        (
            ("gh", (0,), "pousr"),
            ("github_pat_", (0,)),
            ("glpat-", (0,)),
            ("aiza", (0,)),
            ("npm_", (0,)),
            ("sk-", (0,)),
            ("xox", (0,)),
            ("hf_", (0,)),
            ("akia", (0,)),
            ("asia", (0,)),
            ("_live_", (-2,)),
            ("_test_", (-2,)),
            ("sg.", (0,)),
            ("key-", (0,)),
            ("eyj", (0,)),
            *((hint, (0,)) for hint in _DOCKER_CONFIG_HINTS),
        ),
        glued_key,
    ),
)
