"""Secret redaction: every kind is replaced by a visible marker, ordinary text is left alone."""

import pytest

from sessite.analyze.redact import Redactor
from sessite.model import Event, Kind, Session, SourceRef

SECRETS = {
    "anthropic-key": "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3,
    "openai-key": "sk-proj-" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2",
    "aws-access-key": "AKIA2E0A8F3B244C9986",  # (AWS's documented AKIA…EXAMPLE is an example, left as written)
    "github-token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "slack-token": "xoxb-123456789012-Qm7vR2xKp4Lz9TwYb3Nc",  # (a typed body such as abcdefghijklmnop is an example)
    "google-api-key": "AIza" + "SyA1234567890abcdefghijklmnopqrstuv",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_is_redacted(kind):
    r = Redactor()
    out = r.text(f"here it is: {SECRETS[kind]} ok")
    assert SECRETS[kind] not in out
    assert f"[REDACTED:{kind}]" in out
    assert r.counts[kind] == 1


def test_context_kept_around_bearer_and_assignments():
    r = Redactor()
    assert (
        r.text('curl -H "Authorization: Bearer abcdef0123456789abcdef"')
        == 'curl -H "Authorization: Bearer [REDACTED:bearer-token]"'
    )
    assert r.text("export OPENAI_API_KEY=not-a-real-key-123456") == "export OPENAI_API_KEY=[REDACTED:secret-assignment]"
    assert r.text('{"password": "correct-horse-battery"}') == '{"password": "[REDACTED:secret-assignment]"}'
    assert r.text("postgres://app:s3cretpw@db:5432/x") == "postgres://app:[REDACTED:url-password]@db:5432/x"


def test_private_key_block():
    key = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
        "-----END OPENSSH PRIVATE KEY-----"
    )
    out = Redactor().text(f"cat id_ed25519\n{key}\ndone")
    assert "b3BlbnNzaC1rZXkt" not in out and "[REDACTED:private-key]" in out and out.endswith("done")


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens=1000",
        "the tokenizer splits text",
        "token = get_token()",
        "sha 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "uuid 258c7280-ae70-4798-800f-63464d01a85d",
        "PASSWORD_MIN_LENGTH=12",
        "see https://github.com/o/r/pull/7",
    ],
)
def test_ordinary_text_untouched(text):
    assert Redactor().text(text) == text


def test_allow_list_keeps_a_known_test_value():
    r = Redactor(allow=["AKIAIOSFODNN7EXAMPLE"])
    assert r.text("AKIAIOSFODNN7EXAMPLE") == "AKIAIOSFODNN7EXAMPLE"


def test_every_field_of_a_session_is_walked():
    secret = SECRETS["github-token"]
    event = Event(
        id="1",
        kind=Kind.TOOL_CALL,
        text=secret,
        tool_input={"env": {"T": [secret]}},
        command=f"echo {secret}",
        meta={"k": secret},
        children=(Event(id="2", kind=Kind.USER, text=secret),),
    )
    session = Session(id="s", source=SourceRef("p", "x"), agent="a", events=(event,), title=secret, meta={"m": secret})
    r = Redactor()
    clean = r.value(session)
    assert secret not in repr(clean)
    assert r.counts["github-token"] == 7  # title, text, input, command, meta, child text, session meta
    assert clean.events[0].kind is Kind.TOOL_CALL
