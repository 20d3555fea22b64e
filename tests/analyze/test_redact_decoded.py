"""Secrets hidden by how they were written, or known only by what stands beside them.

Tool output is often a JSON string itself (escaped once or twice), a key may hold a
``\\u0041`` escape, a shell line continuation or an invisible character, or be glued
to an identifier; some credentials have no shape and are known by their neighbours:
a Twilio token beside its SID, a bot token in a Telegram URL, a registry credential
in a ``.dockerconfigjson``, the line a token-printing command prints.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from secret_fakes import alnum, b64, hexs, uuid

from sessite.analyze.redact import Redactor
from sessite.model import Event, Kind, Session, SourceRef

GHP = "ghp_" + alnum(36)
MAILGUN = "key-" + hexs(32)
COOKIE = alnum(40)
UUID = uuid()
TWILIO_SID, TWILIO_TOKEN = "AC" + hexs(32), hexs(32)
TELEGRAM = "7012345678:AA" + alnum(34)  # one character longer than the textbook token
DOCKER = b64(90)
DOCKER_CONFIG = base64.b64encode(
    json.dumps(
        {"auths": {"registry.example.com": {"auth": base64.b64encode(b"deploy:" + alnum(20).encode()).decode()}}}
    ).encode()
).decode()


def _in_json(text: str) -> str:
    """Text that is itself a JSON string (a tool's output as some agents store it)."""
    return json.dumps({"output": text})


CASES = {
    "mailgun after api: in escaped JSON": (_in_json(f"curl --user 'api:{MAILGUN}' https://x.io\nok"), MAILGUN),
    "curl -b cookie in escaped JSON": (_in_json(f"curl -b 'SESSION={COOKIE}' https://x.io\n200"), COOKIE),
    "\\u0041 escape in escaped JSON": (_in_json(GHP[:10] + "\\u0041" + GHP[11:]), GHP[11:]),
    "\\u0041 escape": (GHP[:10] + "\\u0041" + GHP[11:], GHP[11:]),
    "line continuation in escaped JSON": (_in_json("export T=" + GHP[:20] + "\\\n" + GHP[20:]), GHP[20:]),
    "line continuation twice escaped": (json.dumps(_in_json("export T=" + GHP[:20] + "\\\n" + GHP[20:])), GHP[20:]),
    "zero-width joiner": (GHP[:12] + "\u200d" + GHP[12:], GHP[12:]),
    "soft hyphen": (GHP[:12] + "\u00ad" + GHP[12:], GHP[12:]),
    "glued after mcp__": (f"mcp__{GHP}__run", GHP[4:]),
    "glued after a word": (f"Type{GHP}", GHP[4:]),
    "npm _authToken uuid": (f"//registry.npmjs.org/:_authToken={UUID}", UUID),
    "heroku auth:token pasted": (f"$ heroku auth:token\n{UUID}\n$ ls", UUID),
    "twilio SID and token in code": (f"client = Client('{TWILIO_SID}', '{TWILIO_TOKEN}')", TWILIO_TOKEN),
    "telegram token in a URL path": (f"curl https://api.telegram.org/bot{TELEGRAM}/sendMessage", TELEGRAM[12:]),
    "dockerconfigjson": (f"data:\n  .dockerconfigjson: {DOCKER}\ntype: kubernetes.io/dockerconfigjson", DOCKER),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_hidden_secret_is_found(name):
    text, secret = CASES[name]
    out = Redactor().text(text)
    assert secret not in out and secret[:12] not in out, out
    assert "[REDACTED:" in out


def test_only_the_secret_changes_in_escaped_text():
    """What the view undid around the secret stays as written: the JSON escapes, the other lines."""
    text = _in_json(f"line one\\ttab\nexport T={GHP[:20]}\\\n{GHP[20:]}\nlast \\u00e9 line")
    out = Redactor().text(text)
    assert out == text.replace(GHP[:20] + "\\\\\\n" + GHP[20:], "[REDACTED:github-token]"), out


def test_two_hidden_secrets_are_replaced_one_by_one():
    other = "ghp_" + alnum(36)
    text = GHP[:8] + "\u200b" + GHP[8:] + ' and a "quoted\\ttab" and ' + other[:9] + "\u00ad" + other[9:]
    out = Redactor().text(text)
    assert out == '[REDACTED:github-token] and a "quoted\\ttab" and [REDACTED:github-token]', out


@pytest.mark.parametrize(
    "text",
    [
        "the TypeScript type ghp_token_handler is a function",  # no random body: a name
        "client = Client(account_sid, auth_token)",
        "md5 " + hexs(32) + ", sha " + hexs(32),  # hex digests side by side, no SID
        "gh auth status\nLogged in to github.com as octocat",
    ],
)
def test_look_alikes_are_left_as_written(text):
    assert Redactor().text(text) == text


@pytest.mark.parametrize("escape", ["\\n", "\\r\\n", "\\t"])
def test_a_name_after_an_escaped_line_break_is_read_without_the_escape(escape):
    """Tool output kept as escaped JSON writes ``…\\nDB_PASSWORD=…``: the name is ``DB_PASSWORD``, an
    upper-case env name whose value is a literal even when it reads like a camelCase word with two
    digits (``nDB_PASSWORD`` was taken for a code name, and such a value for a variable)."""
    password = "bqJD6Z1XXKCtRfTLsS"
    text = json.dumps({"output": f"ok\nDB_USER=app\nDB_PASSWORD={password}\n"})[1:-1].replace("\\n", escape)
    assert password not in Redactor().text(text)
    code = f"ok{escape}password=userName{escape}token=getToken"
    assert Redactor().text(code) == code


def test_the_output_of_a_token_printing_call_is_redacted():
    """The call and its result are two events: the result is a bare UUID, known by its call."""
    events = (
        Event("c1", Kind.TOOL_CALL, tool_name="Bash", command="heroku auth:token", call_id="t1"),
        Event("r1", Kind.TOOL_RESULT, text=f"{UUID}\n", call_id="t1"),
        Event("c2", Kind.TOOL_CALL, tool_name="Bash", command="uuidgen", call_id="t2"),
        Event("r2", Kind.TOOL_RESULT, text=f"{uuid()}\n", call_id="t2"),
        Event("a1", Kind.ASSISTANT, text=f"Your token is {UUID}; keep it safe."),
    )
    session = Session("s", SourceRef(Path("s.jsonl"), "x"), "x", events)
    redacted = Redactor().value(session)
    assert redacted.events[1].text == "[REDACTED:command-token]\n"
    assert redacted.events[3].text == events[3].text  # uuidgen prints no credential
    assert UUID not in redacted.events[4].text  # the value learnt is redacted wherever else it stands


def _texts_of(*texts: str) -> list[str]:
    events = tuple(Event(f"e{i}", Kind.ASSISTANT, text=t) for i, t in enumerate(texts))
    return [e.text for e in Redactor().value(Session("s", SourceRef(Path("s.jsonl"), "x"), "x", events)).events]


AWS_HEAD, AWS_TAIL = alnum(16), alnum(24)  # an AWS secret key cut in two


@pytest.mark.parametrize(
    ("first", "second", "secret"),
    [
        ("Here it is:\nSLACK_BOT_TOKEN=xoxb-123456789012-1234567", "890123-" + alnum(24) + "\nThat is all.", "890123"),
        ("The database password is set: DB_PASSWORD=", "hunter2Hunter99x and done", "hunter2Hunter99x"),
        ("aws_secret_access_key = " + AWS_HEAD, AWS_TAIL + "\nok", AWS_HEAD + AWS_TAIL),
        # The first part is a whole key by its shape, the rest starts like a word (Pad…): still its rest.
        (
            "Here it is:\nANTHROPIC_API_KEY=sk-ant-api03-eu54V4NNFHq-613mKN0ehk1ooqQxP2BGD16W2O8v",
            "PadPB2NwUxzxtjhaPnt9ME3uTfKo3eNDTC1ORUZuD6XxdieErKfpzAA\nThat is all of it.",
            "PadPB2NwUxzxtjha",
        ),
    ],
)
def test_a_credential_cut_across_two_texts_is_found_on_their_seam(first, second, secret):
    """One marker stands at the seam (ending the first text, or starting the second when the first
    part was already one on its own), and no piece of the secret is left on either side."""
    out = _texts_of(first, second)
    assert re.search(r"\[REDACTED:[a-z-]+\]$", out[0]) or out[1].startswith("[REDACTED:"), out
    pieces = [secret[i : i + 8] for i in range(len(secret) - 7)] or [secret]
    assert not any(piece in text for text in out for piece in pieces), out


def test_a_seam_joins_nothing_that_is_not_cut():
    assert _texts_of("Run make", "test now") == ["Run make", "test now"]
    assert _texts_of("============", "====== test session starts ======")[1].startswith("======")


@pytest.mark.parametrize(
    "text",
    [
        "mcp__AKIA2E0A8F3B244C9986__run",
        "Typekey-0123456789abcdef0123456789abcdefError",
        "session-0000-eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.Ab3_dE5-gH7jK9mN1pQ3sT",
        f"mcp__{DOCKER_CONFIG}__run",  # a docker config in base64 ({"auths": …)
        f"Type{DOCKER_CONFIG}Error",
    ],
)
def test_more_keys_glued_to_names(text):
    redacted = Redactor().text(text)
    assert "[REDACTED:" in redacted and DOCKER_CONFIG[12:40] not in redacted


def test_a_value_learnt_in_its_context_is_found_glued_elsewhere():
    """A password has no shape: known only where a name says what it is, then found anywhere in the
    session, glued into a tool's name or a word too when it is long enough."""
    password = "reErRuo8qhn8hExBjq"
    events = (
        Event("r1", Kind.TOOL_RESULT, text=f"DB_USER=app\nDB_PASSWORD={password}\n", call_id="t1"),
        Event("a1", Kind.ASSISTANT, text=f"The error was Type{password}Error in the handler."),
        Event("c1", Kind.TOOL_CALL, tool_name=f"mcp__{password}__run", call_id="t2"),
    )
    session = Session("s", SourceRef(Path("s.jsonl"), "x"), "x", events)
    redacted = Redactor().value(session)
    assert password not in repr(redacted)
    assert redacted.events[1].text == "The error was Type[REDACTED:secret-assignment]Error in the handler."


def test_a_short_learnt_value_is_found_only_as_a_word():
    """Eight mixed characters can stand inside an identifier by chance: only whole words."""
    events = (
        Event("r1", Kind.TOOL_RESULT, text="DB_PASSWORD=ab12cd34\n", call_id="t1"),
        Event("a1", Kind.ASSISTANT, text="see xab12cd34y and ab12cd34."),
    )
    redacted = Redactor().value(Session("s", SourceRef(Path("s.jsonl"), "x"), "x", events))
    assert redacted.events[1].text == "see xab12cd34y and [REDACTED:secret-assignment]."
