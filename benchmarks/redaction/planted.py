"""The planted half: fake but correctly shaped secrets of every kind, in every natural place of
a Claude Code archive, through a real ``sessite build``; then every output file is searched for
any distinctive part of each planted value.

Each (kind, place) cell plants its own random value, so a hit names the cell. A cell leaks
when any 12-character window of the value's random core (what follows a public vendor
prefix) is found in a file of the site or in a file name, the file read as a visitor or a
script would: as bytes, HTML with its tags dropped and entities undone, JSON strings
unescaped, search snippet/term files unpacked, zero-width and soft-hyphen characters dropped.

The build's own output scan would refuse to publish a site it finds a secret in. To measure
every cell in one build, the build runs in a child process whose scan only records what it
found (``--scan-records``) and publishes anyway; a cell whose leak that scan also saw is
reported as ``stop`` (a real build would not publish: nothing leaks, but nothing is built
either), any other leak as ``LEAK``.
"""

from __future__ import annotations

import base64
import contextlib
import html
import json
import os
import random
import re
import shutil
import string
import subprocess
import sys
import tempfile
import warnings
import zlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ALNUM = string.ascii_letters + string.digits
URLB64 = ALNUM + "_-"
HEX = "0123456789abcdef"
WINDOW = 12
TITLE_CUT = 99  # Claude Code titles: 99 characters and an ellipsis (readers._util.shorten)
ID_CUT = 60  # ids that need a slug: make_session_id keeps 60 characters of "claude_code-<raw id>"
ID_PREFIX = "claude_code-"


@dataclass
class Plant:
    """One planted value: ``line`` is how it stands in text, ``value`` its span in ``line``,
    ``core`` the random part searched for (a substring of ``value``, or derived from it)."""

    line: str
    value: str
    core: str
    extra: tuple[str, ...] = ()  # more distinctive strings (an inner password of a base64 blob)


class Maker:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pick(self, n: int, alphabet: str = ALNUM) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def uuid(self) -> str:
        h = self.pick(32, HEX)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _plain(prefix: str, n: int, alphabet: str = ALNUM, before: str = "", after: str = "") -> Callable[[Maker], Plant]:
    def make(m: Maker) -> Plant:
        core = m.pick(n, alphabet)
        value = prefix + core
        return Plant(before + value + after, value, core)

    return make


def _telegram(extra: int) -> Callable[[Maker], Plant]:
    def make(m: Maker) -> Plant:
        core = m.pick(35 + extra, URLB64)
        value = f"{m.pick(10, string.digits)}:AA{core[2:]}"
        return Plant(f"curl -s https://api.telegram.org/bot{value}/sendMessage -d chat_id=42", value, core[2:])

    return make


def _aws_secret(m: Maker) -> Plant:
    core = m.pick(40, ALNUM + "+/")
    return Plant(f"aws_secret_access_key = {core}", core, core)


def _slack(m: Maker) -> Plant:
    core = m.pick(24)
    value = f"xoxb-{m.pick(12, string.digits)}-{m.pick(13, string.digits)}-{core}"
    return Plant(f"SLACK_BOT_TOKEN={value}", value, core)


def _github_fine(m: Maker) -> Plant:
    core = m.pick(22) + "_" + m.pick(59)
    return Plant(f"export GH_TOKEN=github_pat_{core}", "github_pat_" + core, core)


def _sendgrid(m: Maker) -> Plant:
    core = m.pick(22, URLB64) + "." + m.pick(43, URLB64)
    return Plant(f"SENDGRID_API_KEY=SG.{core}", "SG." + core, core)


def _mailgun_curl(m: Maker) -> Plant:
    core = m.pick(32, HEX)
    return Plant(
        f"curl -s --user api:key-{core} https://api.mailgun.net/v3/mg.example.org/messages", "key-" + core, core
    )


def _twilio(m: Maker) -> Plant:
    core = m.pick(32, HEX)
    return Plant(f'client = Client("AC{m.pick(32, HEX)}", "{core}")', core, core)


def _npm_uuid(m: Maker) -> Plant:
    value = m.uuid()
    return Plant(f"//registry.npmjs.org/:_authToken={value}", value, value)


def _heroku_env(m: Maker) -> Plant:
    value = m.uuid()
    return Plant(f"HEROKU_API_KEY={value}", value, value)


def _heroku_output(m: Maker) -> Plant:
    value = m.uuid()
    return Plant(f"$ heroku auth:token\n{value}", value, value)


def _docker_auth(m: Maker) -> tuple[str, str]:
    password = m.pick(24)
    return base64.b64encode(f"deploy:{password}".encode()).decode(), password


def _dockerconfigjson(m: Maker) -> Plant:
    auth, password = _docker_auth(m)
    blob = base64.b64encode(json.dumps({"auths": {"registry.example.com": {"auth": auth}}}).encode()).decode()
    line = (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: regcred\ntype: kubernetes.io/dockerconfigjson\n"
        f"data:\n  .dockerconfigjson: {blob}\n"
    )
    return Plant(line, blob, blob[-40:], (password, auth[10:]))


def _docker_config(m: Maker) -> Plant:
    auth, password = _docker_auth(m)
    line = '{"auths": {"https://index.docker.io/v1/": {"auth": "' + auth + '"}}}'
    return Plant(line, auth, auth[10:], (password,))


def _kube_data(m: Maker) -> Plant:
    password = m.pick(20)
    encoded = base64.b64encode(password.encode()).decode()
    line = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {encoded}\n"
    return Plant(line, encoded, encoded, (password,))


def _jwt(m: Maker) -> Plant:
    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    payload = part({"sub": m.pick(12), "iat": 1767225600, "scope": "admin"})
    sig = m.pick(43, URLB64)
    value = f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{payload}.{sig}"
    return Plant(f"Authorization: Bearer {value}", value, sig)


def _private_key(m: Maker) -> Plant:
    body = "\n".join(m.pick(70, ALNUM + "+/") for _ in range(5))
    value = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"
    return Plant(value, value, body.replace("\n", ""))


B64 = ALNUM + "+/"


def _pem_lines(m: Maker, label: str, width: int = 64, rows: int = 5, headers: tuple[str, ...] = ()) -> list[str]:
    """A PEM block's lines (BEGIN, armor headers and a blank line, body wrapped at ``width``, END)."""
    body = m.pick(rows * width - 2, B64) + "=="
    wrapped = [body[i : i + width] for i in range(0, len(body), width)]
    return [f"-----BEGIN {label}-----", *headers, *([""] if headers else []), *wrapped, f"-----END {label}-----"]


def _pem_core(lines: list[str]) -> str:
    """The random part searched for: the body lines (no BEGIN/END, no armor headers)."""
    return "".join(line for line in lines[1:-1] if line and ":" not in line)


def _pem_pasted(
    label: str,
    shape: Callable[[list[str]], str],
    width: int = 64,
    headers: tuple[str, ...] = (),
    before: str = "",
    after: str = "",
) -> Callable[[Maker], Plant]:
    """A private key as it stands pasted in a session: ``shape`` turns its lines into text."""

    def make(m: Maker) -> Plant:
        lines = _pem_lines(m, label, width, headers=headers)
        value = shape(lines)
        return Plant(before + value + after, value, _pem_core(lines))

    return make


def _putty(m: Maker) -> Plant:
    public = m.pick(136, B64)
    private = m.pick(44, B64)
    lines = [
        "PuTTY-User-Key-File-3: ssh-ed25519",
        "Encryption: none",
        "Comment: dev@laptop",
        "Public-Lines: 2",
        public[:64],
        public[64:],
        "Private-Lines: 1",
        private,
        f"Private-MAC: {m.pick(64, HEX)}",
    ]
    value = "\n".join(lines)
    return Plant(value, value, private)  # (the public lines are the public key)


def _prefixed(prefix: str) -> Callable[[list[str]], str]:
    return lambda lines: "\n".join(prefix + line for line in lines)


def _numbered(mark: str, first: int = 12) -> Callable[[list[str]], str]:
    """Claude Code's Read output: ``     12→line``; or ``12<tab>line`` (cat -n, other agents)."""
    if mark == "\u2192":
        return lambda lines: "\n".join(f"{first + i:6}\u2192{line}" for i, line in enumerate(lines))
    return lambda lines: "\n".join(f"{first + i}{mark}{line}" for i, line in enumerate(lines))


def _json_escaped(times: int) -> Callable[[list[str]], str]:
    """The key as a JSON string's content (``\\n`` between lines), escaped ``times`` times."""

    def shape(lines: list[str]) -> str:
        text = "\n".join(lines)
        for _ in range(times):
            text = json.dumps(text)[1:-1]
        return text

    return shape


def _concatenated(lines: list[str]) -> str:
    """A Python literal built line by line: ``"-----BEGIN …\\n" +``."""
    return " +\n".join(f'    "{line}\\n"' for line in lines)


def _cut(lines: list[str]) -> str:
    """BEGIN and most of the body, no END: the output was truncated."""
    return "\n".join(lines[:-2]) + "\n" + lines[-2][:20]


def _env_password(m: Maker) -> Plant:
    core = m.pick(18)
    return Plant(f"DB_USER=app\nDB_PASSWORD={core}\n", core, core)


def _postgres(m: Maker) -> Plant:
    core = m.pick(20)
    return Plant(f"DATABASE_URL=postgres://app:{core}@db.internal:5432/app", core, core)


def _cookie(m: Maker) -> Plant:
    core = m.pick(32)
    return Plant(f"curl -b 'SESSION={core}' https://app.example.com/api/me", core, core)


KINDS: dict[str, Callable[[Maker], Plant]] = {
    "github-ghp": _plain("ghp_", 36, before="export GITHUB_TOKEN="),
    "github-pat": _github_fine,
    "aws-access-key": _plain("AKIA", 16, string.ascii_uppercase + string.digits, before="aws_access_key_id = "),
    "aws-secret-key": _aws_secret,
    "openai": _plain("sk-proj-", 64, URLB64, before="OPENAI_API_KEY="),
    "anthropic": _plain("sk-ant-api03-", 93, URLB64, before="ANTHROPIC_API_KEY=", after="AA"),
    "slack-xoxb": _slack,
    "stripe": _plain("sk_live_", 24, before="stripe.api_key = '", after="'"),
    "google-aiza": _plain("AIza", 35, URLB64, before="GOOGLE_API_KEY="),
    "gitlab": _plain("glpat-", 20, URLB64, before="GITLAB_TOKEN="),
    "npm-token": _plain("npm_", 36, before="//registry.npmjs.org/:_authToken="),
    "pypi": _plain("pypi-AgEIcHlwaS5vcmc", 70, URLB64, before="password = "),
    "sendgrid": _sendgrid,
    "mailgun": _plain("key-", 32, HEX, before="MAILGUN_API_KEY="),
    "mailgun-curl": _mailgun_curl,
    "twilio-auth": _twilio,
    "telegram": _telegram(0),
    "telegram+1": _telegram(1),
    "telegram+2": _telegram(2),
    "npm-uuid": _npm_uuid,
    "heroku-env": _heroku_env,
    "heroku-output": _heroku_output,
    "dockerconfigjson": _dockerconfigjson,
    "docker-auth": _docker_config,
    "kube-secret": _kube_data,
    "jwt": _jwt,
    "private-key": _private_key,
    # Private keys as sessions hold them (issue 28): each key type once, in each way a paste shapes it.
    "private-key-diff-add": _pem_pasted("RSA PRIVATE KEY", _prefixed("+"), before="@@ -0,0 +1,8 @@\n"),
    "private-key-diff-del": _pem_pasted("EC PRIVATE KEY", _prefixed("-"), before="@@ -1,8 +0,0 @@\n"),
    "private-key-diff-ctx": _pem_pasted("DSA PRIVATE KEY", _prefixed(" "), before="@@ -3,9 +3,10 @@\n"),
    "private-key-read": _pem_pasted("OPENSSH PRIVATE KEY", _numbered("\u2192"), width=70),
    "private-key-read-tab": _pem_pasted("ENCRYPTED PRIVATE KEY", _numbered("\t")),
    "private-key-yaml": _pem_pasted(
        "RSA PRIVATE KEY",
        _prefixed("    "),
        headers=("Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,3F17F5316E2BAC89"),
        before="tls:\n  key: |\n",
        after="\n  cert: server.pem",
    ),
    "private-key-quote": _pem_pasted(
        "PGP PRIVATE KEY BLOCK", _prefixed("> "), headers=("Version: GnuPG v2",), before="> the key:\n"
    ),
    "private-key-crlf": _pem_pasted("EC PRIVATE KEY", lambda lines: "\r\n".join(lines)),
    "private-key-json": _pem_pasted("PRIVATE KEY", _json_escaped(1), before='{"private_key": "', after='"}'),
    "private-key-json2": _pem_pasted("RSA PRIVATE KEY", _json_escaped(2), before='{"key": "', after='"}'),
    "private-key-concat": _pem_pasted("RSA PRIVATE KEY", _concatenated, before="KEY = (\n", after="\n)"),
    "private-key-cut": _pem_pasted("RSA PRIVATE KEY", _cut, after="… [output truncated]"),
    "private-key-putty": _putty,
    "private-key-wrap64": _pem_pasted("RSA PRIVATE KEY", _prefixed(""), width=64),
    "private-key-wrap76": _pem_pasted("RSA PRIVATE KEY", _prefixed(""), width=76),
    "env-password": _env_password,
    "postgres-url": _postgres,
    "curl-cookie": _cookie,
}

# Places in one session each (all kinds), then the title and id places (a session per cell).
PLACES = (
    "prompt",
    "command",
    "output",
    "json-output",
    "u-escape",
    "continuation",
    "glued-mcp",
    "glued-word",
    "glued-known",
    "zwj",
    "soft-hyphen",
    "split",
    "repeated",
    "elsewhere",
)
TITLE_PLACE = "title"
ID_PLACE = "id"
# The same cuts with the value bare, its context in another session's file (``cat .env``):
# known only archive-wide, through the build's second run (``pipeline/learned_elsewhere.py``).
TITLE_KNOWN_PLACE = "title-known"
ID_KNOWN_PLACE = "id-known"
SESSION_PLACES = (TITLE_PLACE, ID_PLACE, TITLE_KNOWN_PLACE, ID_KNOWN_PLACE)  # (a session per cell)
ALL_PLACES = (*PLACES, *SESSION_PLACES)
TITLE_OFFSETS = 48  # the title is cut after 1, 2, … this many characters of the value
ID_OFFSETS = (1, 2, 4, 8, 12, 16, 24, 32)
TITLE_KNOWN_OFFSETS = (1, 2, 4, 8, 12, 16, 24, 32, 48)

GLUED_MCP = "mcp__{}__run"
GLUED_WORD = "The error was Type{}Error in the handler."

# Kinds whose value, standing alone, is a random string of a common alphabet (base64, hex, a
# UUID, letters and digits): no prefix or body tells it from the ids, hashes and slugs logs are
# full of; only its context (``HEROKU_API_KEY=``, ``DB_PASSWORD=``, ``auth:``) names it. (The
# other kinds carry a vendor prefix or a structure: ``ghp_``, ``AKIA``, a JWT, a key block.)
SHAPELESS = frozenset(
    {
        "aws-secret-key",  # 40 characters of base64
        "twilio-auth",  # 32 hex
        "npm-uuid",  # a UUID
        "heroku-env",
        "heroku-output",
        "docker-auth",  # base64 of user:password
        "kube-secret",  # base64 of a password
        "env-password",  # 18 letters and digits
        "postgres-url",  # 20
        "curl-cookie",  # 32
    }
)
# Places that show only the value, glued into a name or an id, and whose archive holds its context
# nowhere: a shapeless value there cannot be told from any other id by anything reading the archive.
BARE_PLACES = frozenset({"glued-mcp", "glued-word", ID_PLACE})


@dataclass
class Cell:
    kind: str
    place: str
    plant: Plant
    offset: int | None = None  # title/id: characters of the value before the cut
    files: set[str] = field(default_factory=set)
    scan: bool = False  # the build's output scan saw it (a real build would stop)

    @property
    def knowable(self) -> bool:
        """Whether anything reading the archive can know this value is a secret: it has a vendor
        shape, or its context stands somewhere in the archive."""
        return self.kind not in SHAPELESS or self.place not in BARE_PLACES

    @property
    def shown(self) -> str:
        """The string the value stands in, as a session shows it (what a peer is given)."""
        if self.place == "glued-mcp":
            return GLUED_MCP.format(self.plant.value)
        if self.place == "glued-word":
            return GLUED_WORD.format(self.plant.value)
        return self.plant.line

    @property
    def fragments(self) -> list[str]:
        out = [self.plant.core, *self.plant.extra]
        return [f for f in out if len(f) >= WINDOW]


def _insert(value: str, mark: str) -> str:
    mid = len(value) // 2
    return value[:mid] + mark + value[mid:]


def _with(plant: Plant, new_value: str) -> str:
    return plant.line.replace(plant.value, new_value, 1)


class Session:
    """The records of one Claude Code session being written."""

    def __init__(self, sid: str, cwd: str = "/home/dev/app") -> None:
        self.sid = sid
        self.cwd = cwd
        self.records: list[dict] = []
        self.n = 0
        self.parent: str | None = None

    def _base(self, kind: str) -> dict:
        self.n += 1
        uuid = f"{kind[0]}-{self.n:05d}"
        record = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": "2.1.39",
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": f"2026-10-01T10:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z",
        }
        self.parent = uuid
        return record

    def user(self, text: str) -> None:
        r = self._base("user")
        r["message"] = {"role": "user", "content": text}
        self.records.append(r)

    def assistant(self, text: str) -> None:
        r = self._base("assistant")
        r["message"] = {
            "model": "claude-opus-4-6",
            "id": f"msg_{self.n}",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        self.records.append(r)

    def tool(self, name: str, tool_input: dict, output: str) -> None:
        r = self._base("assistant")
        call = f"toolu_{self.n:05d}"
        r["message"] = {
            "model": "claude-opus-4-6",
            "id": f"msg_{self.n}",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": call, "name": name, "input": tool_input}],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        self.records.append(r)
        u = self._base("user")
        u["message"] = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": output}]}
        u["toolUseResult"] = {"stdout": output, "stderr": "", "interrupted": False}
        self.records.append(u)

    def write(self, folder: Path, name: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(r, ensure_ascii=False) for r in self.records]
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _place(s: Session, place: str, kind: str, p: Plant) -> None:
    """Plant ``p`` into session ``s`` at ``place``."""
    if place == "prompt":
        s.user(f"Here is the config for {kind}, please wire it up:\n\n{p.line}\n")
        s.assistant("Done.")
    elif place == "command":
        s.tool("Bash", {"command": f"cat >> .env <<'EOF'\n{p.line}\nEOF", "description": "save it"}, "")
    elif place == "output":
        s.tool("Bash", {"command": "cat config/secrets.txt", "description": "show config"}, f"# {kind}\n{p.line}\n")
    elif place == "json-output":
        s.tool("Bash", {"command": "./tool --json", "description": "json"}, json.dumps({"output": f"ok\n{p.line}\n"}))
    elif place == "u-escape":
        i = max(1, len(p.value) // 2)
        escaped = p.value[:i] + f"\\u{ord(p.value[i]):04x}" + p.value[i + 1 :]
        text = json.dumps({"output": f"ok\n{_with(p, '@@')}\n"}).replace("@@", escaped)
        s.tool("Bash", {"command": "./tool --json", "description": "json"}, text)
    elif place == "continuation":
        command = f"{_with(p, _insert(p.value, chr(92) + chr(10)))} ./deploy.sh"
        s.tool("Bash", {"command": command, "description": "deploy"}, "deployed")
    elif place == "glued-mcp":
        s.tool(GLUED_MCP.format(p.value), {"query": "status"}, "ok")
    elif place == "glued-word":
        s.assistant(GLUED_WORD.format(p.value))
    elif place == "glued-known":
        # A value with no shape is known only by its context; a user who has it glued somewhere
        # has it in its context too (the .env it came from): the glued places, with that line.
        s.tool("Bash", {"command": "cat .env", "description": "show env"}, f"{p.line}\n")
        s.tool(GLUED_MCP.format(p.value), {"query": "status"}, "ok")
        s.assistant(GLUED_WORD.format(p.value))
    elif place == "zwj":
        s.user(f"Use this ({kind}):\n{_with(p, _insert(p.value, chr(0x200D)))}")
        s.assistant("Ok.")
    elif place == "soft-hyphen":
        s.user(f"Use this ({kind}):\n{_with(p, _insert(p.value, chr(0xAD)))}")
        s.assistant("Ok.")
    elif place == "split":
        mid = len(p.value) // 2
        head = p.line[: p.line.index(p.value) + mid]
        tail = p.line[p.line.index(p.value) + mid :]
        s.assistant(f"Here it is:\n{head}")
        s.assistant(f"{tail}\nThat is all of it.")
    elif place == "repeated":
        s.tool("Bash", {"command": "cat .env", "description": "show env"}, f"{p.line}\n")
        s.user(f"I set it to {p.value} earlier, keep that one.")
        s.assistant("Noted.")
    elif place == "elsewhere":  # (this session has it in its context; ``ELSEWHERE`` shows it bare)
        s.tool("Bash", {"command": "cat .env", "description": "show env"}, f"{p.line}\n")
    else:
        raise ValueError(place)


_FILLER = (
    "please review the deployment settings we discussed yesterday and then wire the new credentials into the "
    "staging pipeline carefully "
) * 3


def plant_archive(
    root: Path,
    seed: int = 7,
    kinds: list[str] | None = None,
    places: list[str] | None = None,
    title_offsets: int = TITLE_OFFSETS,
    id_offsets: tuple[int, ...] = ID_OFFSETS,
) -> list[Cell]:
    """Write a Claude Code archive under ``root`` with every cell planted; return the cells."""
    m = Maker(seed)
    kinds = kinds or list(KINDS)
    places = places if places is not None else list(ALL_PLACES)
    folder = root / "projects" / "-home-dev-app"
    cells: list[Cell] = []
    for place in places:
        if place in SESSION_PLACES:
            continue
        s = Session(f"{len(cells):08d}-1111-4111-8111-{place.encode().hex()[:12]:0<12}")
        s.user(f"Session about secrets in the {place} place.")
        s.assistant("Sure.")
        other = Session(f"{len(cells):08d}-3333-4333-8333-000000000000") if place == "elsewhere" else None
        for kind in kinds:
            plant = KINDS[kind](m)
            cells.append(Cell(kind, place, plant))
            _place(s, place, kind, plant)
            if other is not None:  # bare, in prose and glued, in a session of another file
                other.user(f"The {kind} login still fails with {plant.value} as the value.")
                other.tool(GLUED_MCP.format(plant.value), {"query": "status"}, "ok")
                other.assistant(GLUED_WORD.format(plant.value))
        s.write(folder, s.sid)
        if other is not None:
            other.write(folder, other.sid)
    n = 0
    for kind in kinds:
        if TITLE_PLACE in places:
            for k in range(1, title_offsets + 1):
                plant = KINDS[kind](m)
                flat = " ".join(plant.line.split())
                value = " ".join(plant.value.split())
                if k >= len(value):
                    break
                at = flat.index(value)
                lead = flat[:at][-40:]  # (a long line: only what stands just before the value)
                flat = lead + flat[at:]
                start = TITLE_CUT - k - len(lead)
                if start < 2:
                    continue
                prompt = _FILLER[: start - 1].rstrip().ljust(start - 1, "x") + " " + flat
                n += 1
                s = Session(f"{n:08d}-2222-4222-8222-000000000000")
                s.user(prompt)
                s.assistant("Ok.")
                s.write(folder, s.sid)
                cells.append(Cell(kind, TITLE_PLACE, Plant(flat, value, plant.core, plant.extra), k))
        if ID_PLACE in places:
            for k in id_offsets:
                plant = KINDS[kind](m)
                bare = plant.value.split("\n")[0] if "\n" in plant.value else plant.value
                if k >= len(bare):
                    continue
                raw = ("session-" + "0" * ID_CUT)[: ID_CUT - len(ID_PREFIX) - k - 1] + "-" + bare
                n += 1
                s = Session(raw)
                s.user(f"Session whose id holds a {kind} value.")
                s.assistant("Ok.")
                s.write(folder, f"plant-id-{n:05d}")
                core = plant.core if plant.core in bare else bare
                cells.append(Cell(kind, ID_PLACE, Plant(raw, bare, core, plant.extra), k))
        if TITLE_KNOWN_PLACE in places:
            n = _title_known(m, folder, kind, n, cells)
        if ID_KNOWN_PLACE in places:
            n = _id_known(m, folder, kind, n, cells, id_offsets)
    return cells


def _context(kind: str, place: str) -> Session:
    """The session of another file that shows each value of ``kind`` at ``place`` in its context."""
    s = Session(f"{zlib.crc32(f'{kind}/{place}'.encode()) % 10**8:08d}-5555-4555-8555-{place.encode().hex()[:12]:0<12}")
    s.user(f"Show me the {kind} settings.")
    return s


def _title_known(m: Maker, folder: Path, kind: str, n: int, cells: list[Cell]) -> int:
    """The first prompt shows the value bare at the title cut; another session has its context."""
    context = _context(kind, TITLE_KNOWN_PLACE)
    for k in TITLE_KNOWN_OFFSETS:
        plant = KINDS[kind](m)
        value = " ".join(plant.value.split())
        if k >= len(value):
            break
        start = TITLE_CUT - k
        prompt = _FILLER[: start - 1].rstrip().ljust(start - 1, "x") + " " + value + " is the one to use now."
        n += 1
        s = Session(f"{n:08d}-6666-4666-8666-000000000000")
        s.user(prompt)
        s.assistant("Ok.")
        s.write(folder, s.sid)
        context.tool("Bash", {"command": "cat .env", "description": "show env"}, f"{plant.line}\n")
        cells.append(Cell(kind, TITLE_KNOWN_PLACE, Plant(prompt, value, plant.core, plant.extra), k))
    context.write(folder, context.sid)
    return n


def _id_known(m: Maker, folder: Path, kind: str, n: int, cells: list[Cell], offsets: tuple[int, ...]) -> int:
    """A session id holds the value at each offset of the id cut; another session has its context."""
    context = _context(kind, ID_KNOWN_PLACE)
    for k in offsets:
        plant = KINDS[kind](m)
        bare = plant.value.split("\n")[0] if "\n" in plant.value else plant.value
        if k >= len(bare):
            continue
        raw = ("known-" + "0" * ID_CUT)[: ID_CUT - len(ID_PREFIX) - k - 1] + "-" + bare  # (not an id cell's id)
        n += 1
        s = Session(raw)
        s.user(f"Session whose id holds a {kind} value known elsewhere.")
        s.assistant("Ok.")
        s.write(folder, f"plant-id-known-{n:05d}")
        context.tool("Bash", {"command": "cat .env", "description": "show env"}, f"{plant.line}\n")
        core = plant.core if plant.core in bare else bare
        cells.append(Cell(kind, ID_KNOWN_PLACE, Plant(raw, bare, core, plant.extra), k))
    context.write(folder, context.sid)
    return n


# --- the build ---------------------------------------------------------------------------

_RUNNER = """
import json, sys
sys.path.insert(0, {repo!r})
from sessite.pipeline import pipeline
from sessite.pipeline.output_scan import scan_site
found = []
def scan_output(self, writer, early=None):
    if early is not None:
        early.cancel()
    leaks = scan_site(writer, self.config, False, self.config.jobs or 1, None, *(
        (self.learned,) if hasattr(self, "learned") else ()))
    spreading = getattr(pipeline, "learned_elsewhere", None)
    first = getattr(self, "told", None) is None  # (a build run again is told what it heals)
    again = spreading.spread(self.config, leaks) if spreading is not None and first else None
    if again is not None:  # (values the scan found that stand in the model's text: the build runs again)
        if hasattr(self, "again"):
            self.again = (again, spreading.told(leaks) if hasattr(spreading, "told") else [])
        else:
            self.spread = again
        return False
    found.extend(leaks)
    return True
pipeline._BuildRun.scan_output = scan_output
from sessite.cli import main
try:
    main(sys.argv[2:], prog_name="sessite")
except SystemExit as exit:
    code = exit.code
else:
    code = 0
finally:
    with open(sys.argv[1], "w") as out:
        json.dump([{{"url": x.url, "kind": x.kind, "value": x.value, "name": x.name}} for x in found], out)
sys.exit(code)
"""


def build(archive: Path, site: Path, records: Path, jobs: int = 2) -> subprocess.CompletedProcess[str]:
    """``sessite build --exports all`` with the output scan recording instead of refusing."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    args = [sys.executable, "-c", _RUNNER.format(repo=str(REPO)), str(records)]
    args += ["build", str(archive), "-o", str(site), "--exports", "all", "--clean", "-q", "-j", str(jobs)]
    args += ["--cache-dir", str(site.parent / "cache")]
    return subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=1800)


# --- the search ----------------------------------------------------------------------------

_TAG = re.compile(r"<[^>]*>")
_RUN = re.compile(r"[A-Za-z0-9_+/=.:\-]{" + str(WINDOW) + ",}")
_INVISIBLE = dict.fromkeys(map(ord, "\u200d\u00ad\u200b\u2060\ufeff"), None)
_PACKED = re.compile(rb'sessiteSearch\.(?:frag\(\d+,\d+|chunk\(\d+),"([A-Za-z0-9+/=]*)"\);\n')


def _views(data: bytes) -> list[str]:
    """The file as texts a reader could see the value in."""
    texts = []
    packed = _PACKED.findall(data)
    for blob in packed:
        with contextlib.suppress(ValueError, zlib.error):
            texts.append(zlib.decompress(base64.b64decode(blob)).decode("utf-8", "replace"))
    text = data.decode("utf-8", "replace")
    texts.append(text)
    out = []
    for t in texts:
        out.append(t)
        if "<" in t:
            out.append(html.unescape(_TAG.sub("", t)))
        if "\\" in t:
            with contextlib.suppress(UnicodeDecodeError), warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # (\/ and the like: left as they are)
                out.append(t.encode("utf-8", "surrogatepass").decode("unicode_escape", "replace"))
            out.append(t.replace("\\/", "/").replace("\\n", "\n"))
    return [o.translate(_INVISIBLE) for o in out]


def search(site: Path, cells: list[Cell]) -> int:
    """Mark each cell with the site files any 12-character window of its fragments is found in;
    return the number of files read."""
    windows: dict[str, set[int]] = defaultdict(set)
    for i, cell in enumerate(cells):
        for fragment in cell.fragments:
            for a in range(len(fragment) - WINDOW + 1):
                windows[fragment[a : a + WINDOW]].add(i)
    for window in [w for w, owners in windows.items() if len(owners) > 1]:
        del windows[window]  # (shared by two cells: names neither)
    files = 0
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        for run in _RUN.findall(rel.translate(_INVISIBLE)):
            for a in range(len(run) - WINDOW + 1):
                for i in windows.get(run[a : a + WINDOW], ()):
                    cells[i].files.add(rel + " (name)")
        if not path.is_file():
            continue
        files += 1
        for text in _views(path.read_bytes()):
            for run in _RUN.findall(text):
                for a in range(len(run) - WINDOW + 1):
                    for i in windows.get(run[a : a + WINDOW], ()):
                        cells[i].files.add(rel)
    return files


def mark_scan(cells: list[Cell], leaks: list[dict]) -> None:
    """Cells whose value the build's output scan found (a real build would not publish)."""
    for leak in leaks:
        value = leak.get("value", "")
        for cell in cells:
            if any(f[a : a + WINDOW] in value for f in cell.fragments for a in range(0, len(f) - WINDOW + 1, 4)):
                cell.scan = True


@dataclass
class PlantedResult:
    cells: list[Cell]
    files: int
    build_ok: bool
    build_output: str
    scan_leaks: list[dict]


def run(workdir: Path | None = None, seed: int = 7, jobs: int = 2, **kw) -> PlantedResult:
    with tempfile.TemporaryDirectory(prefix="redact-planted-") as tmp:
        base = workdir or Path(tmp)
        archive, site, records = base / "archive", base / "site", base / "scan.json"
        if archive.is_dir():  # (a kept archive of an earlier run: its files would be read too)
            shutil.rmtree(archive)
        cells = plant_archive(archive, seed, **kw)
        done = build(archive, site, records, jobs)
        leaks = json.loads(records.read_text()) if records.exists() else []
        files = search(site, cells) if site.exists() else 0
        mark_scan(cells, leaks)
        return PlantedResult(cells, files, done.returncode == 0 and site.exists(), done.stdout + done.stderr, leaks)
