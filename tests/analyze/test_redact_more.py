"""Redaction beyond single strings: mapping entries, ids, config, checked patterns, and the fast paths."""

from __future__ import annotations

import random
import re
import string

import pytest

from sessite.analyze.redact import PATTERNS, RedactionConfigError, Redactor
from sessite.config import SiteConfig
from sessite.model import Event, Kind, Session, SourceRef

GH = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize(
    "text, kind",
    [
        ('curl -H "Authorization: Bearer abc123"', "authorization-header"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "authorization-header"),
        ("postgres://app:s3cretpw@db:5432/x", "url-password"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4kP\nQ2xv", "private-key"),  # cut short: no END line
        (
            "-----begin openssh private key-----\nb3blbnnzac1rzxktdjeaaaaabg5vbmu\n-----end openssh private key-----",
            "private-key",
        ),
        ("agent: evil akiaiosfodnn7examplx ok", "aws-access-key"),  # lower-cased by a reader
        ('{\\"apiKey\\": \\"Zq8Xw7Vv6Uu5Tt4Ss3\\"}', "secret-assignment"),  # JSON inside a JSON string
        ("STRIPE_WEBHOOK_KEY='\"'\"'PREP2oLuLilBmVWZd'\"'\"'", "secret-assignment"),  # shell-quoted
        ("secret: client_secret: Zx9Yy8Ww7Vv6Uu5", "secret-assignment"),
        ("glpat-" + "x1Y2z3A4b5C6d7E8f9G0", "gitlab-token"),
        ("hf_" + "a" * 34, "huggingface-token"),
        ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"),
        ("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX", "slack-webhook"),
        ("sk-or-v1-" + "Qm7vR2xKp4Lz9TwYb3Nc" * 2, "openai-key"),  # (one letter repeated is a placeholder)
        ("card 4111 1111 1111 1111 exp 12/29", "credit-card"),
        ("SSN 219-09-9999.", "us-ssn"),
    ],
)
def test_more_kinds(text, kind):
    r = Redactor()
    out = r.text(text)
    assert f"[REDACTED:{kind}]" in out, out
    assert r.counts[kind] >= 1


@pytest.mark.parametrize(
    "text",
    [
        "4111 1111 1111 1112",  # fails Luhn
        "order 1767780000000 at 2026-01-01",  # epoch milliseconds, a date
        "build 12345678901234567890",  # a longer digit run
        "call 555-123-4567",  # a phone number
        "area 000-12-3456 is never issued",
        'jwt_secret = env_trimmed(env, "JWT_SECRET")',
        "api_key=self.config.api_key)",
        "params: { _csrf_token: csrfToken }",
        "DISCORD_BOT_TOKEN=your_bot_token",
        "tokenizer = cl100k_base",
        "Authorization: Bearer $TOKEN",
        "realizable asian akiak",
    ],
)
def test_more_ordinary_text(text):
    assert Redactor().text(text) == text


def test_mapping_entries_whose_name_says_secret():
    r = Redactor()
    data = {
        "password": "hunter2hunter2",
        "OPENAI_API_KEY": "abcdefgh12345678",
        "clientSecret": "Qw3rTy9UiOp0",
        "Authorization": "Bearer abc1",
        "x-api-key": "k3yk3yk3yk3y",
        "max_tokens": 1000,
        "tokenizer": "cl100k_base",
        "token_type": "bearer",
        "input_tokens": "1234567890",
        "password_hint": "the usual one",
        "nested": {"refresh_token": "rt-0123456789"},
        "env": ["API_TOKEN=abcdefgh12345678"],
    }
    out = r.value(data)
    assert (
        out["password"]
        == out["OPENAI_API_KEY"]
        == out["clientSecret"]
        == out["x-api-key"]
        == "[REDACTED:secret-assignment]"
    )
    assert out["Authorization"] == "Bearer [REDACTED:authorization-header]"
    assert out["nested"]["refresh_token"] == "[REDACTED:secret-assignment]"
    assert out["env"] == ["API_TOKEN=[REDACTED:secret-assignment]"]
    for key in ("max_tokens", "tokenizer", "token_type", "input_tokens", "password_hint"):
        assert out[key] == data[key], key


def test_bytes_and_paths_are_redacted_as_their_text():
    from pathlib import Path

    r = Redactor()
    assert r.value([f"x {GH}".encode(), Path(f"/tmp/{GH}/a"), Path("/tmp/clean")]) == [
        "x [REDACTED:github-token]",
        "/tmp/[REDACTED:github-token]/a",
        Path("/tmp/clean"),
    ]


def test_dict_keys_are_redacted_too():
    out = Redactor().value({GH: {"x": 1}})
    assert list(out) == ["[REDACTED:github-token]"]


def test_a_session_id_holding_a_secret_becomes_a_safe_unique_id():
    r = Redactor()
    a = Session(id=f"hail-{GH}", source=SourceRef("p", "hail"), agent="a", events=())
    b = Session(id=f"hail-{GH[:-1]}X", source=SourceRef("p", "hail"), agent="a", events=())
    ra, rb = r.value(a), r.value(b)
    assert GH not in ra.id and re.fullmatch(r"[A-Za-z0-9._-]+", ra.id) and ra.id != rb.id
    assert ra.id.startswith("hail-REDACTED-github-token-")


def test_an_unchanged_session_is_the_same_object():
    event = Event(id="1", kind=Kind.TOOL_CALL, tool_input={"command": "ls -la", "list": [1, "two"]}, meta={"k": "v"})
    session = Session(id="s", source=SourceRef("p", "x"), agent="a", events=(event,), meta={"m": ["x", {"y": "z"}]})
    assert Redactor().value(session) is session


def test_repeated_strings_are_counted_each_time():
    r = Redactor()
    for _ in range(3):
        assert r.text(f"t {GH}") == "t [REDACTED:github-token]"
    assert r.counts["github-token"] == 3


def test_extra_patterns_and_allow_list():
    r = Redactor(extra=[("internal-token", r"itk_[A-Za-z0-9]{12}")], allow=["AKIAIOSFODNN7EXAMPLE", "hunter2hunter2"])
    assert r.text("use itk_abcdefABCD12 now") == "use [REDACTED:internal-token] now"
    assert r.text("AKIAIOSFODNN7EXAMPLE") == "AKIAIOSFODNN7EXAMPLE"
    assert r.text("DB_PASSWORD=hunter2hunter2") == "DB_PASSWORD=hunter2hunter2"
    assert r.value({"password": "hunter2hunter2"}) == {"password": "hunter2hunter2"}
    assert r.counts == {"internal-token": 1}


@pytest.mark.parametrize(
    "kind, pattern, message",
    [
        ("x", "itk_[", "not a valid regular expression"),
        ("x", "a*", "matches the empty string"),
        ("bad kind!", "abc", "short name"),
    ],
)
def test_bad_extra_patterns_are_errors(kind, pattern, message):
    with pytest.raises(RedactionConfigError, match=message):
        Redactor(extra=[(kind, pattern)])


def test_for_config():
    assert Redactor.for_config(SiteConfig(archive=None, output=None, redact=False)) is None
    r = Redactor.for_config(
        SiteConfig(archive=None, output=None, redact_patterns=(("team", "tm_[0-9]{8}"),), redact_allow=("tm_00000000",))
    )
    assert r.text("tm_12345678 tm_00000000") == "[REDACTED:team] tm_00000000"


def test_anchored_search_finds_what_a_plain_substitution_finds():
    """secret-assignment runs only where a match can start; that must change nothing."""
    kind, _, pattern, anchors, *_ = next(p for p in PATTERNS if len(p) > 3 and p[3])
    regex = re.compile(pattern)
    rng = random.Random(5)
    words = [
        "API_KEY",
        "api_key",
        "ACCESS_KEY",
        "accesskey",
        "PRIVATE_KEY",
        "private_key",
        "SECRET",
        "client_secret",
        "TOKEN",
        "_token",
        "token",
        "password",
        "PASSWD",
        "CREDENTIALS",
        "apiKey",
        "MY_SERVICE_KEY",
        "cache_key",
        '"',
        "'",
        "=",
        ": ",
        " = ",
        '\\"',
        "abcdefgh1234",
        "Zx9Yy8Ww7Vv6",
        "${X}",
        "12345678",
        " ",
        "\n",
        "x",
        "(",
        ")",
        ",",
        "your_token",
        "self.cfg",
    ]
    plain, anchored = Redactor(), Redactor()
    for _ in range(3000):
        text = "".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
        want = regex.sub(lambda m: plain._replace(m, kind), text)
        got = anchored._sub_anchored(kind, regex, anchors, text, text.lower())
        assert got == want, text


def test_lowercasing_that_changes_length_is_handled():
    text = "İ" * 3 + " DB_PASSWORD=hunter2hunter2"
    assert Redactor().text(text) == "İİİ DB_PASSWORD=[REDACTED:secret-assignment]"


def test_random_text_is_left_alone():
    rng = random.Random(11)
    r = Redactor()
    alphabet = string.ascii_lowercase + "      .,\n"
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(8, 400)))
        assert r.text(text) == text
