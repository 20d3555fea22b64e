"""Redaction of the kinds added for issue 16, one behaviour at a time, and what must stay
untouched: ids, hashes, lockfile integrity, base64 images, "password" in prose, code."""

from __future__ import annotations

import base64
import random
import re

import pytest
from secret_corpus import CORPUS

from sessite.analyze.redact import PATTERNS, Redactor
from sessite.analyze.redact.prefilter import HintFinder
from sessite.analyze.redact.runs import RUNS, runs_in
from sessite.model import Block, Event, Kind, Session, SourceRef

_rng = random.Random(9)
_IMAGE = base64.b64encode(_rng.randbytes(12000)).decode()
_INTEGRITY = "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQuQ/jJCV1Tc8I1tNa1Bu1wGinbrzaA7CF5OtVGkA4l6ItCg=="

UNTOUCHED = [
    "uuid 258c7280-ae70-4798-800f-63464d01a85d and 7f1d2c44-0f0e-4a58-9b3d-2f6c1a9e8d11",
    "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\nAuthor: Dev <dev@example.com>",
    "[main 4f2a9c1] fix cart rounding\n 2 files changed, 10 insertions(+), 3 deletions(-)",
    '"resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz", "integrity": "' + _INTEGRITY + '"',
    'left-pad@^1.3.0:\n  version "1.3.0"\n  integrity ' + _INTEGRITY,
    "/left-pad@1.3.0:\n    resolution: {integrity: " + _INTEGRITY + "}",
    f'<img src="data:image/png;base64,{_IMAGE}">',
    f"![chart](data:image/jpeg;base64,{_IMAGE[:5000]})",
    "FROM python@sha256:4b0a6e2c1d8f3e5a7b9c0d2e4f6a8b0c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3",
    "md5 d41d8cd98f00b204e9800998ecf8427e  README.md",
    'ETag: "33a64df551425fcc55e4d42a148795d9f25f89d4"',
    "Enter your password and click Sign in. The password must be at least 12 characters.",
    "The secret to fast tests is isolation; keep the key points short and pass the token budget.",
    "Secret: Implementation details stay private.",
    "Password: (hidden)",
    "Use a strong passphrase: at least four words",
    "The API key is stored in the keychain; see docs/keys.md.",
    "Set SMTP_PASS and DB_PASS in your .env file, then restart.",
    "the kind: Secret resource is documented in k8s.md",
    'password = getpass.getpass("Password: ")',
    "token = tokenizer.encode(text)",
    "const apiKey = process.env.API_KEY;",
    "if (password.length < 8) { throw new Error('too short') }",
    '{"password": "", "token_type": "Bearer", "expires_in": 3600}',
    'password: ${DB_PASSWORD}\ntoken: "{{ vault_token }}"',
    '"password": "********"',
    "max_tokens: 4096\ninput_tokens: 1234",
    "type PasswordResetToken = { token: string; expiresAt: Date }",
    "self.session_token = None\nself.api_key = api_key",
    "cookie = request.cookies.get('session')",
    'document.cookie = "theme=dark; path=/"',
    "curl -b cookies.txt -c cookies.txt https://example.com/",
    'curl -u "$USER:$PASS" https://example.com/api',
    "docker run -u 1000:1000 -v $PWD:/app node:20",
    "git push -u origin feature/cart-rounding",
    "mysql -u root -p shop",
    "docker login --password-stdin < token.txt",
    "PWD=/home/dev/shop\nOLDPWD=/tmp",
    '{"auth": "required", "auths": {}}',
    "az storage blob list --account-name shopassets --auth-mode login",
    "https://dev.azure.com/org/project/_git/repo?path=/README.md&version=GBmain",
    "orderId: 4111111111111112 rejected",
    "Run `export NODE_OPTIONS=--max-old-space-size=4096` first.",
]


@pytest.mark.parametrize("text", UNTOUCHED, ids=range(len(UNTOUCHED)))
def test_ordinary_text_is_untouched(text):
    redactor = Redactor()
    assert redactor.text(text) == text
    assert not redactor.counts


def test_ids_and_sizes_as_json_numbers_are_untouched():
    data = {"id": 1767780000000, "size": 52428800, "build": 12345678901234567890, "order": 4111111111111112}
    assert Redactor().value(data) is data


def test_a_card_number_as_a_json_number():
    r = Redactor()
    out = r.value({"card": {"number": 4242424242424242, "exp_month": 12}, "amounts": [1999, 5555555555554444]})
    assert out == {
        "card": {"number": "[REDACTED:credit-card]", "exp_month": 12},
        "amounts": [1999, "[REDACTED:credit-card]"],
    }
    assert r.counts["credit-card"] == 2


@pytest.mark.parametrize(
    "text, secret",
    [
        ('{"Username": "svc", "Password": "Zq8!wX3vB7nM"}', "Zq8!wX3vB7nM"),
        ("PASSWORD: Zq8wX3vB7nM2", "Zq8wX3vB7nM2"),
        ("Server=db;User ID=sa;Password=Zq8!wX3vB7nM;Encrypt=True", "Zq8!wX3vB7nM"),
        ("Server=db;Uid=sa;Pwd=Zq8!wX3vB7nM;", "Zq8!wX3vB7nM"),
        ("SMTP_PASS=correcthorsebattery", "correcthorsebattery"),
        ('{"SecretAccessKey": "q8Zk2LmR9vTn4WxYp7/Bc5Hd3Jf6Gs1Ka0Eu8Oi2"}', "q8Zk2LmR9vTn4"),
        ('\\"SessionToken\\": \\"IQoJb3JpZ2luX2VjK7r4Wm2Qz9T0123\\"', "IQoJb3JpZ2luX2Vj"),
        ("//registry.npmjs.org/:_authToken=8b1c3d2e-4f5a-4b6c-9d7e-0f1a2b3c4d5e", "8b1c3d2e"),
        ("//npm.example/:_auth=ZGV2OnMzY3JldFBhc3M=", "ZGV2OnMzY3JldFBhc3M"),
        ('"private_key_id": "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39"', "4f2a9c1e8b7d6a5f"),
        ('"primaryKey": "Zq8wX3vB7nM2Zq8wX3vB7nM2Zq8wX3vB7nM2Zq8wX3v="', "Zq8wX3vB7nM2"),
    ],
)
def test_names_that_say_secret_in_any_case(text, secret):
    out = Redactor().text(text)
    assert secret not in out and "[REDACTED:secret-assignment]" in out, out


def test_headers_cookies_and_command_options():
    cases = {
        'curl -H "api-key: 0f1e2d3c4b5a69788796a5b4c3d2e1f0" https://x.openai.azure.com': "0f1e2d3c4b5a",
        "curl -H 'DD-API-KEY: 0f1e2d3c4b5a69788796a5b4c3d2e1f0' https://api.datadoghq.com": "0f1e2d3c4b5a",
        "set-cookie: sid=Zq8wX3vB7nM2Zq8w; Path=/; HttpOnly": "Zq8wX3vB7nM2",
        "Cookie: a=Zq8wX3vB7nM2Zq8w; theme=dark": "Zq8wX3vB7nM2",
        "curl -b 'remember=Zq8wX3vB7nM2Zq8w' https://x": "Zq8wX3vB7nM2",
        'curl --cookie "sid=Zq8wX3vB7nM2Zq8w" https://x': "Zq8wX3vB7nM2",
        "curl -u admin:Zq8wX3vB7nM2 https://jenkins": "Zq8wX3vB7nM2",
        "curl --user=api:Zq8wX3vB7nM2 https://x": "Zq8wX3vB7nM2",
        "mysql -h db -u root -pZq8wX3vB7nM2 shop": "Zq8wX3vB7nM2",
        "sshpass -p 'Zq8wX3vB7nM2' ssh deploy@host": "Zq8wX3vB7nM2",
        "machine api.heroku.com\n  login dev@example.com\n  password Zq8wX3vB7nM2": "Zq8wX3vB7nM2",
        "REDIS_URL=redis://:Zq8wX3vB7nM2@cache:6379/0": "Zq8wX3vB7nM2",
    }
    for text, secret in cases.items():
        out = Redactor().text(text)
        assert secret not in out and "[REDACTED:" in out, (text, out)
    assert Redactor().text("set-cookie: sid=Zq8wX3vB7nM2Zq8w; Path=/; HttpOnly").endswith("; Path=/; HttpOnly")


def test_a_line_continuation_inside_a_key_keeps_the_rest_as_written():
    body = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    text = f"docker run \\\n  -e A=1 app\nexport GH=ghp_{body[:20]}\\\n{body[20:]}\ncurl x \\\n  -H y"
    out = Redactor().text(text)
    assert out == "docker run \\\n  -e A=1 app\nexport GH=[REDACTED:github-token]\ncurl x \\\n  -H y"


def test_a_json_escape_inside_a_key():
    out = Redactor().text('{"value": "ghp_a1B2c3D4e5F6g7H8\\u0069' + "9J0k1L2m3N4o5P6q7R8" + '", "note": "caf\\u00e9"}')
    assert out == '{"value": "[REDACTED:github-token]", "note": "caf\\u00e9"}'


def _session(*texts: str, blocks: tuple[str, ...] = ()) -> Session:
    events = [Event(id=str(i), kind=Kind.ASSISTANT, text=t) for i, t in enumerate(texts)]
    if blocks:
        events.append(Event(id="b", kind=Kind.USER, blocks=tuple(Block("text", text=t) for t in blocks)))
    return Session(id="s", source=SourceRef("p", "x"), agent="a", events=tuple(events))


def test_a_key_split_across_events_and_blocks():
    r = Redactor()
    out = r.value(_session("here it is ghp_a1B2c3D4e5F6g7H8", "i9J0k1L2m3N4o5P6q7R8 stored", "done"))
    assert [e.text for e in out.events] == [
        "here it is [REDACTED:github-token]",
        "[REDACTED:github-token] stored",
        "done",
    ]
    out = r.value(_session(blocks=("key sk-proj-a1B2c3D4e5", "F6g7H8i9J0k1L2m3N4o5P6q7R8")))
    assert [b.text for b in out.events[0].blocks] == ["key [REDACTED:openai-key]", "[REDACTED:openai-key]"]


def test_what_follows_a_whole_key_is_not_taken_for_its_rest():
    session = _session("ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "Dockerfile2 updated", "notes")
    assert [e.text for e in Redactor().value(session).events][1:] == ["Dockerfile2 updated", "notes"]
    session = _session("cut here: ghp_a1B2c3D4e5F6g7H8", "Thanks, that is all")
    assert Redactor().value(session).events[1].text == "Thanks, that is all"


def test_secrets_as_data_kubernetes_and_docker():
    r = Redactor()
    manifest = {"kind": "Secret", "data": {"password": "aHVudGVyMmh1bnRlcjI=", "x": "ab"}, "metadata": {"name": "db"}}
    assert r.value(manifest)["data"] == {"password": "[REDACTED:kubernetes-secret]", "x": "ab"}
    assert r.value({"kind": "ConfigMap", "data": {"a": "bbbbbbbb"}}) == {"kind": "ConfigMap", "data": {"a": "bbbbbbbb"}}
    auth = base64.b64encode(b"deploy:Zq8wX3vB7nM2").decode()
    assert Redactor().text(f'{{"auths": {{"ghcr.io": {{"auth": "{auth}"}}}}}}') == (
        '{"auths": {"ghcr.io": {"auth": "[REDACTED:docker-auth]"}}}'
    )


def test_allow_list_keeps_new_kinds_too():
    text = "TWILIO: ACa1b2c3d4e5f60718293a4b5c6d7e8f90"
    assert Redactor(allow=["a1b2c3d4e5f60718293a4b5c6d7e8f90"]).text(text) == text


def _corpus_texts() -> list[str]:
    out = []
    for entry in CORPUS:
        payload = entry.payload
        out.extend(payload if isinstance(payload, tuple) else [payload if isinstance(payload, str) else str(payload)])
    return out + UNTOUCHED


def test_every_match_of_every_rule_holds_one_of_its_hints():
    """The prefilter runs a rule only where one of its hints is: that must never skip a match."""
    texts = _corpus_texts()
    for spec in PATTERNS:
        kind, hints, pattern = spec[0], spec[1], re.compile(spec[2])
        if not hints:
            continue
        for text in texts:
            for _ in pattern.finditer(text):
                present = {h for h in hints if h in RUNS and h in runs_in(text) or h in text.lower()}
                assert present, (kind, text[:80])


def test_the_prefilter_finds_exactly_the_hints_a_string_holds():
    hints = {h for spec in PATTERNS for h in spec[1] if h not in RUNS}
    finder = HintFinder(hints)
    rng = random.Random(4)
    pieces = [*sorted(hints), " ", "x", "-", "_", ".", ":", "=", "~", "k", "ab", "\n"]
    texts = _corpus_texts() + ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 30))) for _ in range(2000)]
    for text in texts:
        lowered = text.lower()
        assert sorted(set(finder.found(lowered)) & hints) == sorted(h for h in hints if h in lowered), text[:80]


def test_a_fine_grained_github_token_with_no_name_beside_it():
    """``github_pat_`` holds no "gh": the rule's hint words must name it, or the rule never runs
    (a real Codex log published one in a git remote URL and in curl's trace)."""
    from secret_fakes import alnum

    token = "github_pat_11" + alnum(20).upper() + "_" + alnum(59)
    for line in (
        f"origin\thttps://{token}@github.com/acme/app.git (fetch)",
        f"== Info: Server auth using Basic with user '{token}'",
        f"export T={token}",
        token,
    ):
        redacted = Redactor().text(line)
        assert token[11:] not in redacted and "[REDACTED:github-token]" in redacted, line
