"""What stands where a secret could stand but is not one: ordinary code and text that a
context rule (a name that says secret, then a value) would otherwise mangle.

Measured on hand-labelled real logs (``benchmarks/redact_bench.py``), most of what
sessite once redacted was not a credential:

- placeholders: ``YOUR_API_KEY``, ``your-private-key``, ``sk-your-key-here``, ``xxxx``,
  ``changeme``, ``test-secret``, ``DEMO_KEY``, AWS's documented ``…EXAMPLE`` keys;
- sentinels another tool left: ``__REDACTED__``, ``<redacted>``, ``***``;
- references to a value kept elsewhere: ``$PASSWORD``, ``${API_KEY:-x}``, ``{{ secrets.X }}``,
  ``%(password)s``, ``process.env.X``;
- code: a variable (``api_key=groq_api_key``, ``password: password``), a member, an index,
  a call, a type (``Optional[int]``, ``Option<String>``), an environment variable's name;
- names that hold no secret: public keys (``VAPID_PUBLIC_KEY``), key names
  (``CACHE_KEY = 'user_profile_cache'``), test statuses (``--- PASS: TestName``).

Each test is small and says why; the rules call them on a value they found.
"""

from __future__ import annotations

import base64
import binascii
import json
import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that make a value a placeholder when it is made of words (your-private-key, test-secret).
_PLACEHOLDER_WORDS = _words(
    "your yours my example examples sample placeholder dummy fake test testing demo changeme change "
    "replace insert put here actual optional todo fixme foo bar baz redacted hidden removed secret key "
    "token password passwd pass api value values xxx abc none null empty default mock stub string uuid"
)
# Parts that make a value a stand-in wherever they stand in it (wrongpassword, invalidtoken).
_STAND_IN_WORDS = re.compile(r"(?i)wrong|invalid|incorrect|dummy|placeholder|changeme|change_me|notreal|not_real|fake")
_WORD_VALUE = re.compile(r"[A-Za-z]+(?:[-_.][A-Za-z]+)*")
_WORD_SPLIT = re.compile(r"[-_.]+|(?<=[a-z])(?=[A-Z])")
_REPEAT = re.compile(r"(.)\1{3,}")  # xxxx, ****, 0000, ....
_SENTINEL = re.compile(
    r"(?i)^[\[<({_*]*(?:redacted|hidden|removed|masked|secret|filtered|omitted|censored)[\]>)}_*]*$"
    r"|\*{4,}|•{3,}|REDACTED|<[A-Za-z_\-]+>|…|\.\.\.\S*$"
    # (&lt;token&gt;: <token> escaped in HTML, cut at its first ";")
    r"|^&(?:lt|gt|quot|apos|amp|#x?[0-9A-Fa-f]+);?(?:[A-Za-z_\-]+(?:&gt;?)?)?$"
)
_REFERENCE = re.compile(
    r"^(?:\$\{?[A-Za-z_]|\{\{|\{%|%\(|%[sd]$|@[A-Za-z_]|process\.env|os\.environ|os\.getenv|env\(|ENV\[|getenv\("
    r"|[a-z][a-z0-9_\-]*:(?:latest|[0-9]+)$|\{[A-Za-z_][\w.]*\}$)"
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+(?:\(\)?)?")  # (res.data?.token: optional chaining)
_DOTTED_OR_NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=[^=\s]")
_UPPER_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_CAMEL_OR_SNAKE = re.compile(r"_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+[0-9]*(?:[A-Z][a-z0-9]*)+")
_PUBLIC_NAME = re.compile(r"(?i)public|publishable|(?:^|[_.\-])pub(?:[_.\-]|$)|applicationserverkey")
# Names ending in "key" that are no credential: a cache, storage or sort key, a primary key...
_KEY_NAME = re.compile(
    r"(?i)(?:cache|storage|sort|partition|routing|idempotency|foreign|primary|index|group|lookup|map|dict|hash"
    r"|session[_-]?storage|local[_-]?storage|redis|memo|query|react|list|row|column|field|state)[_.\-]?keys?$"
)
_OPERATOR = re.compile(r"(?:[-+*/%|&^]=|\|\||&&|[-+*/%?:|&] |\{\s*$|\{\n)")
_SLOT_NAME = re.compile(r"[a-z][a-z0-9]*(?:[_.:\-][a-z0-9]+)+")
_OWNED_KEY = re.compile(
    r"(?i)(?:api|access|secret|private|master|signing|encryption|client|service|subscription|account|license"
    r"|app|application|auth|session|webhook|crypto|hmac|aes|rsa|ssh|gpg|pgp|jwt)[_.\-]?key$"
)
_RANDOMISH = re.compile(r"[0-9].*[A-Za-z]|[A-Za-z].*[0-9]|[!#%^*@+/=~&$?|]")


def randomish(value: str) -> bool:
    """Letters mixed with digits, or a symbol: what a credential looks like, a word or a name does not."""
    return _RANDOMISH.search(value) is not None


# A part of a key (between - _ .) that no random body holds as a whole: sk-ant-api03-test-…, sk-fake-…
_STAND_IN_PARTS = _words(
    "your test fake dummy example sample placeholder demo mock invalid here replace changeme redacted"
)
_PARTS = re.compile(r"[-_.]+")
# A part that starts as a stand-in does (sk-ant-api03-test123…, sk-proj-xxxx…): no random body does.
_STAND_IN_START = re.compile(r"(?i)(?:test|fake|dummy|example|sample|your|mock|placeholder|redacted|xxxx)")


_NUMBERED = re.compile(r"(?<=[A-Za-z])[-_][0-9]{1,4}$")
# Keys in a row, as a person types them: the alphabet and digits (both ways) and keyboard rows.
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
_RUNS = ("0123456789", "9876543210", _ALPHABET, _ALPHABET[::-1], "qwertyuiop", "asdfghjkl")


# Where a vendor's generated key begins: its body is random, so a typed run in it means an example.
_VENDOR_PREFIX = re.compile(
    r"^(?:(?:sk|pk|rk)[-_]|(?:gh[pousr]|github_pat|gsk|hf|npm|r8)_|xox[abprs]-|AIza|AKIA|glpat-)"
)


def example_key(value: str) -> bool:
    """A vendor-shaped key typed by a person writing an example, not generated: a placeholder, or a
    random body (the key's longest part) that is one character repeated (``sk-svcacct-XXXXXXXX``),
    holds six keys in a row (``123456``, ``abcdef``, ``qwerty``) or a pattern of short runs
    (``1234abcd5678efgh``, ``abc123def456``). A random body of 40 characters holds six in a row
    about once in ten million. Only for keys a vendor generates: a password a person chose may
    well be qwerty123456, and is still a secret. (Not the other parts: a Slack token's ids are
    numbers that can run so.)"""
    if placeholder(value):
        return True
    body = max(_PARTS.split(value), key=len).lower()
    if len(body) >= 8 and len(set(body)) <= 3:
        return True
    return len(body) >= 16 and (_runs(body, 6) >= 1 or _runs(body, 4) >= 3 or _runs(body, 3) >= 4)


def _runs(text: str, length: int) -> int:
    """How many runs of ``length`` keys in a row, not overlapping, ``text`` holds."""
    count = i = 0
    while i <= len(text) - length:
        piece = text[i : i + length]
        if any(piece in run for run in _RUNS):
            count += 1
            i += length
        else:
            i += 1
    return count


_INSTRUCTION_WORDS = _words("generate replace insert paste enter")
_SENTENCE_PART = re.compile(r"[A-Za-z]+|[0-9]{1,4}")


def _made_of(word: str, vocabulary: frozenset[str]) -> bool:
    """``testpassword``, ``mysecretkey``: two or more placeholder words glued together."""
    ends = {0: 0}  # end of a prefix made of words -> how many words
    for start in range(len(word)):
        if start in ends:
            for end in range(start + 2, len(word) + 1):
                if word[start:end] in vocabulary:
                    ends[end] = max(ends.get(end, 0), ends[start] + 1)
    return ends.get(len(word), 0) >= 2


def placeholder(value: str) -> bool:
    """A stand-in for a secret, not one: made of placeholder words, a repeated character, or
    naming itself an example."""
    value = value.lstrip("-:=")  # (a shell default: ${NAME:-value})
    if not value:
        return True  # (a rule of === or ---)
    if _REPEAT.search(value) and len(set(value)) <= 4:
        return True
    if "EXAMPLE" in value or value.lower().startswith(("your", "<your", "my-", "my_")):
        return True
    if _STAND_IN_WORDS.search(value):
        return True
    if any(part.lower() in _STAND_IN_PARTS or _STAND_IN_START.match(part) for part in _PARTS.split(value)[1:]):
        return True
    body = value.split("_", 1)[1] if value[:4].lower() in ("gsk_", "ghp_", "sk_l") else value
    if body.lower().startswith(("sk-", "pk-")):
        body = body[3:]
    if _REPEAT.search(body) and len(set(body.lower())) <= 3:
        return True
    parts = _PARTS.split(value)
    if any(len(part) >= 8 and len(set(part.lower())) == 1 for part in parts):
        return True  # (nm_live_sk_yyyyyyyyyyyyyyyy: a body of one letter)
    if (
        len(parts) >= 3
        and (parts[0].lower() in _STAND_IN_PARTS or any(part.lower() in _INSTRUCTION_WORDS for part in parts))
        and all(_SENTENCE_PART.fullmatch(part) for part in parts)
    ):
        return True  # (test-jwt-secret-key-at-least-32-chars-long, generate_a_random_32_character_string)
    if value.isalpha() and len(value) <= 32 and _made_of(value.lower(), _PLACEHOLDER_WORDS):
        return True  # (testpassword, mysecret)
    body = _NUMBERED.sub("", body)  # (test_token_123: words and a counter)
    if not _WORD_VALUE.fullmatch(body):
        return False
    words = [w.lower() for w in _WORD_SPLIT.split(body) if w]
    return (
        any(w in _PLACEHOLDER_WORDS for w in words)
        and len(words) >= 2
        or (len(words) == 1 and words[0] in _PLACEHOLDER_WORDS)
    )


# Not secrets but names of how one is kept or checked (pg_hba.conf methods, hash algorithms), and a
# JWT's header and claims without the signature that makes it a credential.
_METHOD = re.compile(r"(?i)scram-sha-\d+|md5|sha-?\d+|bcrypt|argon2(?:id|i|d)?|pbkdf2(?:[-_]sha\d+)?|trust|peer|ident")
# (a header and a word in place of the rest is a stand-in too: ${ANON_KEY:-eyJhbGciOiJIUzI1NiJ9.anon})
_UNSIGNED_JWT = re.compile(r"eyJ[A-Za-z0-9_\-]*(?:\.eyJ[A-Za-z0-9_\-]*)?(?:\.[a-z]{0,16})?")


def sentinel(value: str) -> bool:
    """What another tool already put in place of a secret: ``__REDACTED__``, ``<hidden>``, ``***``,
    or a preview cut short (``eyJhbGci…``, ``sk-abc...``)."""
    return (
        _SENTINEL.search(value) is not None
        or _METHOD.fullmatch(value) is not None
        or (value.lstrip("-:=").startswith("eyJ") and _UNSIGNED_JWT.fullmatch(value.lstrip("-:=")) is not None)
    )


def reference(value: str) -> bool:
    """A pointer to a value kept elsewhere: a shell or template variable, an environment lookup,
    a format slot (``{DB_PASSWORD}``); also as a shell default (``${TOKEN:-$GITHUB_TOKEN}``) or
    with its ``$`` escaped (``\\${env:API_KEY}``); or the message of ``${TOKEN:?message}``."""
    if value.startswith("?"):
        return True  # (${JWT_SECRET:?JWT_SECRET is required}: the shell's message when it is unset)
    return _REFERENCE.match(value.lstrip("-:=\\")) is not None


def code(value: str, name: str, quoted: bool, after: str = "") -> bool:
    """An unquoted value that is code, not a literal: a variable, the name itself, a member,
    a call, an index, a type. ``after``: what follows the value on its line."""
    if quoted:
        return False
    if after[:1] in ("(", "[", "<", "."):
        return True  # (a call, an index, a generic, a member)
    if _OPERATOR.match(after.lstrip(" \t")):
        return True  # (an operator: the value is part of an expression; a block)
    if "[" in value or "<" in value or "(" in value:
        return True  # (Optional[int], Option<String>, f(x))
    if value[:1] in "&*" and _DOTTED_OR_NAME.fullmatch(value[1:]):
        return True  # (CorrelationToken: &correlationToken, token = *details.Token: Go pointers)
    if "||" in value or "&&" in value:
        return True  # (t.credentials||this.credentials||"same-origin": minified code)
    if _DOTTED.fullmatch(value) or _ASSIGNMENT.match(value):
        return True  # (a member; or NAME=…, a list of names and values, not a value)
    if not _IDENTIFIER.fullmatch(value):
        return False
    if value == name or value.lower() == name.lower().lstrip("_"):
        return True  # (password: password, x_tokens=x_tokens)
    if _UPPER_NAME.fullmatch(value) and not name.isupper():
        return True  # (api_key=OPENAI_API_KEY: a constant or an environment variable's name)
    digits = sum(c.isdigit() for c in value)
    return _CAMEL_OR_SNAKE.fullmatch(value) is not None and not name.isupper() and digits <= 2 and len(value) <= 40


_LOCATION = re.compile(r"^(?:/|\./|\.\./|~/|[A-Za-z]:\\\\)|^[a-z][a-z0-9+.\-]*://[^:@/\s]*(?::[0-9]+)?(?:[/?#]|$)")
# (secrets/hive/publish-token.secret: a relative path of word-like folders to a file with an extension)
_RELATIVE_FILE = re.compile(r"(?:[a-z0-9_\-]{1,40}/)+[a-z0-9_\-.]{1,60}\.[a-z]{1,8}")
# Names whose value is about a secret, not the secret: where it is, what it is called, how long it is.
_ABOUT_NAME = re.compile(
    r"(?i)[_.\-]?(?:path|file|filename|dir|directory|url|uri|endpoint|host|name|type|kind|len|length|count|size"
    r"|env|var|header|field|param|prefix|suffix|format|pattern|regex|label|ref|arn|policy|scope|scopes)$"
)


_MASK = re.compile(r"[*•.xX]{3,}")
_WRAPPED = re.compile(r"[\[<({]+([^\[\]<>(){}]*)[\]>)}]+")


def url_stand_in(value: str, user: str = "") -> bool:
    """A URL's password that keeps nothing secret: a reference or an expression
    (``${encodeURIComponent(pw)}``, ``{DB_PASSWORD}``, ``$PGPASS``), a mask (``***``, ``...``),
    a placeholder made of words (``password``, ``your-password``, ``[YOUR-PASSWORD]``), or the
    user name again (``postgres:postgres``, ``guest:guest``: a service's documented default).
    A password that looks random stays a secret even when it holds a placeholder word
    (``Secure2025ChangeMe``)."""
    if reference(value) or sentinel(value) or _MASK.fullmatch(value) or (user and value == user):
        return True
    if "${" in value:
        return True  # (postgresql://${USER:-app}:${PASSWORD}@db: the authority is built from references)
    wrapped = _WRAPPED.fullmatch(value)
    word = wrapped.group(1) if wrapped else value
    return not randomish(word) and placeholder(word)


def location(value: str) -> bool:
    """A file path or a URL without credentials: where a secret is kept, not the secret."""
    return _LOCATION.match(value) is not None or _RELATIVE_FILE.fullmatch(value) is not None


def about_name(name: str) -> bool:
    """``private_key_path``, ``SecretName``, ``token_count``, ``API_KEY_ENV``: the value is about a secret."""
    return _ABOUT_NAME.search(name) is not None


def public_name(name: str) -> bool:
    """A name that says its value is public (a VAPID or publishable key)."""
    return _PUBLIC_NAME.search(name) is not None


_PUBLIC_ROLES = frozenset({"anon"})


def public_jwt(token: str) -> bool:
    """A JWT whose claims say it is public by design: a Supabase anon key (``"role": "anon"``) is
    shipped to every browser that loads the app; the service-role key beside it stays a secret."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[1].startswith("eyJ"):
        return False
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(claims, dict) and claims.get("role") in _PUBLIC_ROLES


# Cookies a browser keeps for analytics and consent banners ("Copy as cURL" carries them all):
# ids of a device or a visit, consent flags, timestamps; never what logs a user in.
_TRACKING_COOKIE = re.compile(
    r"(?i)^(?:_ga(?:_\w+)?|_gid|_gat\w*|_gcl_\w+|_fbp|_fbc|_hj\w+|_clck|_clsk|_uet\w+|optanon\w*|eupubconsent\w*"
    r"|cookieconsent\w*|amp_\w+|ajs_\w+|mp_\w+|ab\.storage\.\w+(?:\.[\w\-]+)?|g_state|__hs\w+|hubspotutk|_pk_\w+"
    r"|intercom-id-\w+|intercom-device-id-\w+)$"
)
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?")


def tracking_cookie(name: str, value: str) -> bool:
    """An analytics or consent cookie (``_ga``, ``OptanonConsent``, ``AMP_…``, ``ab.storage.deviceId.…``)
    or a cookie holding a timestamp: no credential (``intercom-session-…`` still is one)."""
    return _TRACKING_COOKIE.match(name) is not None or _TIMESTAMP.fullmatch(value) is not None


def key_name_value(name: str, value: str) -> bool:
    """``CACHE_KEY = 'user_profile_cache'``, ``USER_KEY = 'app_user'``: a key that names a slot,
    holding a name (lower-case words), not a credential."""
    if _KEY_NAME.search(name) is not None and not (_RANDOMISH.search(value) and len(value) >= 16):
        return True
    return name.lower().endswith("key") and _SLOT_NAME.fullmatch(value) is not None and not _secret_owner(name)


def _secret_owner(name: str) -> bool:
    """``API_KEY``, ``secretKey``, ``private_key``: a key name whose owner word says credential."""
    return _OWNED_KEY.search(name) is not None


_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def name_echo(value: str, name: str) -> bool:
    """``POSTGRES_PASSWORD=postgres``, ``${RABBITMQ_PASSWORD:-rabbitmq}``: a value that is a word of
    its own name is the default a service ships with (and anyone would try first), not a secret."""
    word = value.lstrip("-:=").lower()
    return word.isalpha() and len(word) >= 3 and word in {w.lower() for w in _NAME_WORDS.findall(name)}


def status_word(name: str) -> bool:
    """``--- PASS: TestName``, ``PASS:``: a test runner's status, not a password."""
    return name == "PASS" or name == "Pass"


# Scripts typed through an input method, which no key, token or password is written in: a value
# holding them is prose (``api_key: API密钥（可选）``). (Not Cyrillic or Greek: people do choose
# passwords in their own alphabet.)
_PROSE_SCRIPT = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def prose(value: str) -> bool:
    """Chinese, Japanese or Korean words (or full-width punctuation), not a credential."""
    return _PROSE_SCRIPT.search(value) is not None


_NEXT_WORD = re.compile(r" [A-Za-z(]")


def sentence(value: str, quoted: bool, after: str) -> bool:
    """``Exposed secret: Security risk``, ``DB_PASSWORD: Database password (required)``: an
    unquoted word of letters only with more words after it on its line is prose describing a
    secret, not one (a credential ends its line or its quotes, and mixes in digits or symbols)."""
    return not quoted and value.isalpha() and _NEXT_WORD.match(after) is not None


# An account at a domain reserved for documentation and tests (RFC 2606, RFC 6761), or test.com.
_EXAMPLE_ACCOUNT = re.compile(
    r"[\w.+\-$}{]+@(?:[\w\-]+\.)*(?:example\.(?:com|org|net)|test\.com|[\w\-]+\.(?:test|example|invalid))\b", re.ASCII
)
_PASSWORD_NAME = re.compile(r"(?i)pass(?:word|wd|phrase)?|pwd")
# Typed the way people type a test password: words, then digits, then a symbol or two
# (Password123!, test123456); a generated one (YNSyYqPUyiOq91N*7) is no such thing.
_TYPED_PASSWORD = re.compile(r"(?:[A-Z]?[a-z]+)+[0-9]{0,8}[!@#$%^&*?._\-]{0,3}[a-z]*")


def example_account_password(name: str, value: str, text: str, start: int, end: int) -> bool:
    """A short typed password beside an account at a documentation domain (``{"email":
    "user@example.com", "password": "Password123!"}``): an example or a test fixture, not anyone's
    credential. A generated one there is still a secret (an SMTP relay's user may well be
    ``postmaster@mg.example.com``)."""
    if not _PASSWORD_NAME.search(name) or len(value) > 24 or not _TYPED_PASSWORD.fullmatch(value):
        return False
    return _EXAMPLE_ACCOUNT.search(text, max(0, start - 300), min(len(text), end + 200)) is not None


def stand_in(value: str) -> bool:
    """Where a credential would stand, something else: a placeholder, a sentinel, a reference, a
    path or a URL without credentials."""
    return placeholder(value) or sentinel(value) or reference(value) or location(value)


def not_a_secret(value: str, name: str = "", quoted: bool = True, after: str = "") -> bool:
    """Any of the above: the value a rule found is left as written."""
    return (
        placeholder(value)
        or sentinel(value)
        or reference(value)
        or location(value)
        or prose(value)
        or sentence(value, quoted, after)
        or (value.startswith("eyJ") and public_jwt(value))
        or (_VENDOR_PREFIX.match(value) is not None and example_key(value))
        or code(value, name, quoted, after)
        or (
            bool(name)
            and (
                public_name(name)
                or about_name(name)
                or key_name_value(name, value)
                or status_word(name)
                or name_echo(value, name)
            )
        )
    )
