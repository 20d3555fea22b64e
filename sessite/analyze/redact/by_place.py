"""Secrets recognisable by where they stand: after a name that says secret, in an
Authorization or Cookie header, a URL's password, a command's password option.

Rules are ``(kind, hints, pattern[, anchors[, check]])`` (see ``rules``); a group
whose name starts with "secret" is the part replaced (all such groups that matched),
otherwise the whole match is, unless a check says which spans.
"""

from __future__ import annotations

import base64
import binascii
import re

from sessite.analyze.redact.precision import (
    example_account_password,
    not_a_secret,
    randomish,
    stand_in,
    tracking_cookie,
    url_stand_in,
)
from sessite.analyze.redact.types import RuleSpec, Span

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
    r"[ \t]*[:=][ \t]*[\\\"']{0,8}(?P<secret>(?![\"'$<{\[*x]{3})(?!\d+\b)(?!\[?REDACTED)(?!"
    + _NOT_A_VALUE
    + r")[^\s\"'`,;(){}\]\\]{8,}+(?<!:)(?!\(|\\*[\"']?\s*[:=]))"
)

_VALUE_GROUPS = ("secret", "secret2", "secret3", "secret4")

# The context rules sessite has always had; their order and hints are part of its output.
KNOWN_CONTEXT: tuple[RuleSpec, ...] = (
    # "Bearer <16+ chars>" anywhere; any credential in an Authorization header, however short.
    (
        "bearer-token",
        ("bearer",),
        r"(?i:\bbearer\s+)(?P<secret>(?!\[?REDACTED)[A-Za-z0-9._~+/\-]{16,}=*)",
        (),
        lambda match: _credential("bearer-token", match),
    ),
    (
        "authorization-header",
        ("authorization",),
        r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:bearer|basic|token|bot|digest)\s+(?P<secret>(?![$<{]|\[?REDACTED)[^\s\"'`,;]+)",
        (),
        lambda match: _credential("authorization-header", match),
    ),
    # (the user may be empty: redis://:password@host; an unescaped @ in the password is taken
    # when another @ follows it in the same authority: postgres://app:pa@ss@host)
    (
        "url-password",
        ("://",),
        r"://(?<=[A-Za-z0-9]://)(?P<user>[^\s:/@\"'<>]{0,64}):(?P<secret>(?!\[?REDACTED)(?:[^\s@/\"'<>]|@(?=[^\s@/\"'<>]*@)){3,128})@",
        (),
        lambda match: _url_password(match),
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
        + _ASSIGN_VALUE.replace("secret>", "secret4>").replace(r"[ \t]*[:=][ \t]*[\\\"']{0,8}", ""),
        (
            ("key", (-1, -3, -4, -6, -7, -8)),
            ("secret", (0,)),
            ("token", (0, -1)),
            ("passw", (0,)),
            ("credential", (0,)),
        ),
        lambda match: _assigned(match, next(g for g in _VALUE_GROUPS if match.group(g) is not None)),
    ),
)

# Names that end in these say "secret", whatever their case and prefix: Password, SMTP_PASS,
# Pwd (ADO.NET), SecretAccessKey, SessionToken, _authToken, private_key_id, primaryKey, _auth (npm).
_KEY_OWNERS = [
    "api",
    "account",
    "access",
    "private",
    "secret",
    "primary",
    "secondary",
    "master",
    "subscription",
    "application",
    "app",
    "signing",
    "encryption",
    "client",
    "service",
    "webhook",
]
_NAME_END = (
    r"(?i:pass(?:word|wd|phrase)|pass(?:(?<=[_.\-]pass)|(?<![a-z0-9]pass))|pwd(?:(?<=[_.\-]pwd)|(?<![a-z0-9]pwd))"
    r"|secret|token|credentials?|key(?:"
    + "|".join(f"(?<={owner}key)|(?<={owner}[_.\\-]key)" for owner in _KEY_OWNERS)
    + r")(?:[_.\-]?id)?|auth(?<=_auth)(?=[ \t]*=))"
)
_NAMED_VALUE = (
    r"(?P<name>" + _NAME_END + r")(?P<close>\\*[\"'])?[ \t]*(?P<sep>=>|:=|=|:)[ \t]*(?P<open>\\*[\"'])?"
    r"(?P<secret>(?![$<{]|\[?REDACTED|\*{3}|[xX]{3})(?!" + _NOT_A_VALUE + r")"
    r"[^\s\"'`,;(){}\[\]<>\\]{8,}+(?![(\[]|\\*[\"']?[ \t]*[:=]))"
)
_AFTER_NAME = "\\\"' \t=:"  # what can follow a name's end: a closing quote, a space, = or :
_CODE_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")


_NAME_BEFORE = re.compile(r"[A-Za-z0-9_.\-]*\Z")


def _whole_name(text: str, end: int) -> str:
    """The name that ends at ``end`` (``DB_PASSWORD``, ``config.api_key``), at most 80 characters back."""
    found = _NAME_BEFORE.search(text, max(0, end - 80), end)
    if not found:
        return ""
    name = found.group(0)
    if found.start() > 0 and text[found.start() - 1] == "\\" and name[:1] in ("n", "r", "t"):
        name = name[1:]  # (``…\nDB_PASSWORD=`` in escaped JSON: that n is a line break's, not the name's)
    return name.lstrip(".-")


def _quoted(text: str, start: int) -> bool:
    return start > 0 and text[start - 1] in "\"'`"


def _after(text: str, end: int) -> str:
    """What follows a value on its line (a call's parenthesis, an operator...), a few characters."""
    return text[end : end + 12].split("\n", 1)[0]


def _assigned(match: re.Match[str], group: str) -> list[Span]:
    """NAME=value where the name says secret: the value, unless it is code, a placeholder, a
    reference or a sentinel, or the name says it is public or a key's name (``precision``)."""
    text, start, end = match.string, match.start(group), match.end(group)
    name_end = _name_end(text, match.start(), start)
    name = _whole_name(text, name_end)
    in_query = _in_query(text, name_end - len(name))
    end = _query_value_end(text, start, end) if in_query else end
    inner = _inner_value(text, start, end)
    if inner is not None:
        return inner
    if not_a_secret(text[start:end], name, _quoted(text, start), "" if in_query else _after(text, end)):
        return []
    if example_account_password(name, text[start:end], text, start, end):
        return []
    return [("secret-assignment", start, end)]


_INNER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(?=[^=\s])")
_SECRET_WORD = re.compile(r"(?i)pass|pwd|secret|token|key|credential|auth")


def _inner_value(text: str, start: int, end: int) -> list[Span] | None:
    """A value that is itself ``NAME=value`` (``credentials: DB_PASSWORD=…``, ``--set-secrets=X=y``):
    the inner value, judged under the inner name (None: the value is no assignment)."""
    found = _INNER.match(text, start, end)
    if found is None:
        return None
    name, value_start = found.group(1), found.end()
    if not _SECRET_WORD.search(name) or not_a_secret(text[value_start:end], name, False, _after(text, end)):
        return []
    return [("secret-assignment", value_start, end)]


def _in_query(text: str, name_start: int) -> bool:
    """The name is a URL query's parameter (``?api_key=…``, ``&token=…``)."""
    return name_start > 0 and text[name_start - 1] in "?&"


def _query_value_end(text: str, start: int, end: int) -> int:
    """A value in a URL's query (``?api_key=…&date=…``) ends at the next parameter."""
    return min((i for i in (text.find("&", start, end), text.find("#", start, end)) if i >= 0), default=end)


def _name_end(text: str, start: int, value_start: int) -> int:
    """Where the name ends in a match that runs from the name to its value (before any quote,
    space and separator)."""
    head = text[start:value_start]
    cut = len(head.rstrip("\\\"' \t:=>"))
    return start + cut


def _url_password(match: re.Match[str]) -> list[Span]:
    """A URL's password, unless it is a reference, a mask, a placeholder or the user name again
    (``precision.url_stand_in``)."""
    if url_stand_in(match.group("secret"), match.group("user")):
        return []
    return [("url-password", *match.span("secret"))]


def _credential(kind: str, match: re.Match[str]) -> list[Span]:
    """A token after ``Bearer`` or in an Authorization header, unless it is a stand-in
    (``Bearer token``, ``Bearer your-access-token``, ``Bearer <redacted>``)."""
    value = match.group("secret")
    return [] if stand_in(value) else [(kind, *match.span("secret"))]


def _named_value(match: re.Match[str]) -> list[Span]:
    """A value after a secret name. Unquoted, it must look like a credential rather than
    code or a word ("token = tokenizer", "Secret: Implementation", "PWD=/home/dev"),
    except in an UPPER_CASE env line (SMTP_PASS=longpassphrase)."""
    value = match.group("secret")
    if "***" in value or "•••" in value:  # masked already (gh auth status: "Token: gho_****")
        return []
    text = match.string
    name = _whole_name(text, match.end("name"))
    quoted = match.group("open") is not None
    in_query = _in_query(text, match.end("name") - len(name))
    end = _query_value_end(text, match.start("secret"), match.end("secret")) if in_query else match.end("secret")
    value = text[match.start("secret") : end]
    inner = _inner_value(text, match.start("secret"), end)
    if inner is not None:
        return inner
    if not_a_secret(value, name, quoted, "" if in_query else _after(text, end)):
        return []
    if example_account_password(name, value, text, match.start("secret"), end):
        return []
    if not quoted:
        if value.startswith(("/", "./", "../", "~/")) or "://" in value or _CODE_PATH.fullmatch(value):
            return []
        env_line = match.group("sep") == "=" and match.group("name").isupper()
        if not env_line and not randomish(value):
            return []
    return [("secret-assignment", match.start("secret"), end)]


def _docker_auth(match: re.Match[str]) -> list[Span]:
    """A docker config "auth": base64 of "user:password"."""
    try:
        decoded = base64.b64decode(match.group("secret"), validate=True)
    except (binascii.Error, ValueError):
        return []
    return [("docker-auth", *match.span("secret"))] if b":" in decoded else []


_COOKIE_ATTRIBUTES = frozenset(
    [
        "path",
        "domain",
        "expires",
        "max-age",
        "samesite",
        "secure",
        "httponly",
        "priority",
        "partitioned",
        "version",
        "comment",
    ]
)
_COOKIE_PAIR = re.compile(r"(?:^|;)[ \t]*([^=;\s]+)=([^;\s]+)")


def _cookie_values(match: re.Match[str]) -> list[Span]:
    """Each cookie's value in a Cookie/Set-Cookie header or a curl cookie option (not its attributes)."""
    group = next(g for g in ("list", "list2", "list3") if match.re.groupindex.get(g) and match.group(g) is not None)
    offset = match.start(group)
    spans = []
    for pair in _COOKIE_PAIR.finditer(match.group(group)):
        name, value = pair.group(1), pair.group(2)
        if name.lower() in _COOKIE_ATTRIBUTES or len(value) < 8 or value.startswith(("$", "[REDACTED")):
            continue
        if tracking_cookie(name.strip(), value):
            continue
        spans.append(("cookie", offset + pair.start(2), offset + pair.end(2)))
    return spans


def _netrc_password(match: re.Match[str]) -> list[Span]:
    """``password x`` counts only in a .netrc entry (after ``machine … login …``)."""
    before = match.string[max(0, match.start() - 300) : match.start()].lower()
    return [("password-option", *match.span("secret"))] if "machine" in before and "login" in before else []


_NOT_SHELL_VALUE = r"(?![$<{]|\[?REDACTED)"
_QUOTED_OR_WORD = (
    r"(?:'(?P<secret>[^'\n]+)'|\"(?P<secret2>[^\"\n]+)\"|(?P<secret3>" + _NOT_SHELL_VALUE + r"[^\s'\"]{3,}))"
)

# Context rules added for what people paste into agent sessions (issue 16).
MORE_CONTEXT: tuple[RuleSpec, ...] = (
    (
        "cookie",
        ("cookie",),
        r"(?i:cookie)(?:(?<=--cookie)(?:[ \t]+|=)[\"']?|\\*[\"']?[ \t]*:[ \t]*\\*[\"']?)(?P<list>[^\r\n\"'\\]+)",
        (("cookie", (0,)),),
        _cookie_values,
    ),
    (
        "cookie",
        ("curl",),
        r"(?<=\s)-b[ \t]+(?:'(?P<list>[^'\r\n]*)'|\"(?P<list2>[^\"\r\n]*)\"|(?P<list3>[^\s'\"]*=[^\s'\"]*))",
        (("-b", (0,)),),
        _cookie_values,
    ),
    (
        "docker-auth",
        ("auth",),
        r"(?<=[\"'])auth\\*[\"'][ \t]*:[ \t]*\\*[\"'](?P<secret>[A-Za-z0-9+/]{12,}={0,2})(?=\\*[\"'])",
        (("auth", (0,)),),
        _docker_auth,
    ),
    # curl -u user:password, --user user:password
    (
        "password-option",
        ("curl",),
        r"(?:(?<=\s)-u|(?<=\s-)-user)(?:[ \t]*|=)[\"']?[^\s:\"'@/]+:(?P<secret>" + _NOT_SHELL_VALUE + r"(?!\d+\b)"
        r"[^\s\"']{4,})",
        (("-u", (0,)),),
    ),
    (
        "password-option",
        ("mysql",),
        r"mysql(?<![A-Za-z0-9_]mysql)(?:dump|admin|sh|import|check)?\b[^\n|;&]{0,200}?[ \t]-p" + _QUOTED_OR_WORD,
    ),
    ("password-option", ("sshpass",), r"sshpass[ \t]+-p[ \t]*" + _QUOTED_OR_WORD),
    (
        "password-option",
        ("passw",),
        r"password(?<![A-Za-z0-9_]password)[ \t]+(?P<secret>" + _NOT_SHELL_VALUE + r"\S{4,})",
        (),
        _netrc_password,
    ),
    (
        "secret-assignment",
        ("pass", "pwd", "secret", "token", "key", "credential", "_auth"),
        _NAMED_VALUE,
        (
            ("pass", (0,), "wp" + _AFTER_NAME),
            ("pwd", (0,), _AFTER_NAME),
            ("secret", (0,), _AFTER_NAME),
            ("token", (0,), _AFTER_NAME),
            ("key", (0,), "_.-i" + _AFTER_NAME),
            ("credential", (0,), "s" + _AFTER_NAME),
            ("_auth", (1,), " \t="),
        ),
        _named_value,
    ),
    # A registry credential in a Kubernetes Secret (base64 of a docker config holding "auth"), wherever
    # the manifest's "kind: Secret" line stands: its key names it.
    (
        "docker-auth",
        ("dockerc",),
        r"\.docker(?:configjson|cfg)\\*[\"']?[ \t]*:[ \t]*\\*[\"']?(?P<secret>[A-Za-z0-9+/]{16,}={0,2})",
    ),
)
