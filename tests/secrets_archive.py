"""An archive with secrets of every kind planted in every field of every format.

Three layers:
1. ``xss_archive.write`` with the secrets as its payload: titles, messages,
   tool names, inputs and outputs, paths, models, metadata keys and values,
   git refs, blocks, unknown records (AICS, Claude Code, HAIL, claude.ai, sage).
2. Every fixture of every reader (tests/fixtures and example-archive: Codex,
   Gemini, OpenCode files and database, Cline, Amp, Cursor's SQLite store, …)
   with the secrets appended to every string value: ids, paths, text, JSON
   held inside strings. The change is a pure function of the value, so ids
   still link calls to results.
3. Secrets in file and folder names and session ids.

``SECRETS`` maps a label to the secret as it appears in text; ``CORES`` maps it
to its random part, which the scan looks for (and for any 12 characters of it).
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import string
from pathlib import Path
from typing import Any

import xss_archive

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
EXAMPLE = REPO / "example-archive"

_rng = random.Random(20260707)
_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _luhn_card(prefix: str = "4") -> str:
    digits = prefix + "".join(_rng.choice(string.digits) for _ in range(14 - len(prefix) + 1))
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 0:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return digits + str((10 - total % 10) % 10)


CORES: dict[str, str] = {}
SECRETS: dict[str, str] = {}


def _add(label: str, core: str, text: str) -> None:
    CORES[label] = core
    SECRETS[label] = text


_c = _rand(86)
_add("anthropic-key", _c, f"sk-ant-api03-{_c}-AA")
_c = _rand(48)
_add("openai-project-key", _c, f"sk-proj-{_c}")
_c = _rand(48)
_add("openai-legacy-key", _c, f"sk-{_c}")
_c = _rand(40)
_add("openrouter-key", _c, f"sk-or-v1-{_c}")
_c = _rand(16, _UPPER)
_add("aws-access-key", _c, f"AKIA{_c}")
_c = _rand(40)
_add("aws-secret-key", _c, f"aws_secret_access_key = {_c}")
_c = _rand(36)
_add("github-classic", _c, f"ghp_{_c}")
_c = _rand(36)
_add("github-oauth", _c, f"gho_{_c}")
_c = _rand(59)
_add("github-fine-grained", _c, f"github_pat_11ABCDEFG0123456789abc_{_c}")
_c = _rand(24)
_add("slack-token", _c, f"xoxb-2048123456789-1234567890123-{_c}")
_c = _rand(24)
_add("slack-webhook", _c, f"https://hooks.slack.com/services/T0123ABCD/B0123ABCD/{_c}")
_c = _rand(35)
_add("google-api-key", _c, f"AIza{_c}")
_c = _rand(43)
_add("jwt", _c, f"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIx{_c[:20]}.{_c[20:]}")
_c = _rand(40)
_add("bearer-header", _c, f"Authorization: Bearer {_c}")
_c = _rand(12)
_add("short-bearer-header", _c, f'-H "authorization: bearer {_c}"')
_c = _rand(28)
_add("basic-header", _c, f"Authorization: Basic {_c}==")
_c = "\n".join(_rand(64) for _ in range(4))
_add("private-key", _c, f"-----BEGIN OPENSSH PRIVATE KEY-----\n{_c}\n-----END OPENSSH PRIVATE KEY-----")
_c = _rand(24)
_add("env-password", _c, f"DATABASE_PASSWORD={_c}")
_c = _rand(32)
_add("env-api-key", _c, f"export GEMINI_API_KEY={_c}")
_c = _rand(30)
_add("env-service-key", _c, f"STRIPE_WEBHOOK_KEY='{_c}'")
_c = _rand(26)
_add("yaml-secret", _c, f"client_secret: {_c}")
_c = _rand(30)
_add("json-api-key", _c, f'{{"apiKey": "{_c}"}}')
_c = _rand(22)
_add("json-password", _c, f'"password":"{_c}"')
_c = _rand(18)
_add("url-password", _c, f"postgres://app:{_c}@db.internal:5432/shop")
_c = _rand(20)
_add("gitlab-token", _c, f"glpat-{_c}")
_c = _rand(34)
_add("huggingface-token", _c, f"hf_{_c}")
_c = _rand(36)
_add("npm-token", _c, f"npm_{_c}")
_c = _rand(24)
_add("stripe-key", _c, f"sk_live_{_c}")
_c = _luhn_card()
_c = f"{_c[:4]} {_c[4:8]} {_c[8:12]} {_c[12:]}"
_add("credit-card", _c, f"card {_c}")
_c = f"{_rng.randint(100, 599)}-{_rng.randint(10, 99)}-{_rng.randint(1000, 9999)}"
_add("us-ssn", _c, f"ssn {_c}")

PAYLOAD = "\n".join(f"{label}: {text} ;" for label, text in SECRETS.items())
# A compact secret without spaces, for places like ids and file names.
ID_SECRET = SECRETS["github-classic"]
NAME_SECRET = SECRETS["aws-access-key"]

# Values a reader needs as they are to recognise a record (its type, role, tool name …).
_STRUCTURAL_KEYS = {
    "type",
    "role",
    "sender",
    "say",
    "ask",
    "status",
    "version",
    "v",
    "kind",
    "name",
    "tool",
    "mode",
    "subtype",
    "level",
    "operation",
    "format",
    "encoding",
    "mimeType",
    "mime",
    "media_type",
    "object",
}


def _looks_like_time(value: str) -> bool:
    from sessite.readers.base import parse_time

    return value.strip().isdigit() or parse_time(value) is not None


def plant(value: Any, key: str | None = None) -> Any:
    """``value`` with the secrets appended to every string (structural ones and timestamps kept)."""
    if isinstance(value, dict):
        return {k: plant(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [plant(v, key) for v in value]
    if not isinstance(value, str) or key in _STRUCTURAL_KEYS or _looks_like_time(value) or not value.strip():
        return value
    stripped = value.strip()
    if stripped[:1] in "[{":
        try:
            inner = json.loads(stripped)
        except ValueError:
            pass
        else:
            return json.dumps(plant(inner, key))
    return f"{value} {PAYLOAD}"


def _plant_file(path: Path) -> None:
    name = path.name.lower()
    if name.endswith(".jsonl"):
        lines = []
        for line in path.read_text("utf-8", errors="replace").splitlines():
            try:
                lines.append(json.dumps(plant(json.loads(line))))
            except ValueError:
                lines.append(line)  # damaged lines stay damaged
        path.write_text("\n".join(lines) + "\n", "utf-8")
    elif name.endswith(".json"):
        try:
            doc = json.loads(path.read_text("utf-8"))
        except ValueError:
            return
        path.write_text(json.dumps(plant(doc)), "utf-8")
    elif name.endswith((".vscdb", ".db")):
        _plant_sqlite(path)


def _plant_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info('{table}')")]
            rows = conn.execute(f"SELECT rowid, * FROM '{table}'").fetchall()
            for row in rows:
                updates = {}
                for column, value in zip(columns, row[1:]):
                    if column == "key":  # Cursor's composite keys ("bubbleId:x:y") name records
                        continue
                    if isinstance(value, bytes):
                        try:
                            value = value.decode("utf-8")
                        except UnicodeDecodeError:
                            continue
                    if isinstance(value, str):
                        new = plant(value, column)
                        if new != value:
                            updates[column] = new
                if updates:
                    sets = ", ".join(f'"{c}" = ?' for c in updates)
                    conn.execute(f"UPDATE '{table}' SET {sets} WHERE rowid = ?", [*updates.values(), row[0]])
        conn.commit()
    finally:
        conn.close()


def write(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    # 1. typed fields of the seed formats
    xss_archive.write(root / "typed", PAYLOAD)
    # 2. every fixture, every string
    for source, name in ((FIXTURES, "fixtures"), (EXAMPLE, "example")):
        target = root / name
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("*.py", "*.md", "__pycache__"))
        sql = target / "opencode" / "opencode.sql"
        if sql.exists():
            conn = sqlite3.connect(target / "opencode" / "opencode.db")
            conn.executescript(sql.read_text("utf-8"))
            conn.commit()
            conn.close()
            sql.unlink()
        for path in sorted(p for p in target.rglob("*") if p.is_file()):
            _plant_file(path)
    # 3. names and ids
    named = root / "names"
    project = named / "claude" / f"-home-dev-{NAME_SECRET}"
    project.mkdir(parents=True)
    sid = "22222222-3333-4444-8555-666666666666"
    record = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": sid,
        "cwd": f"/home/dev/{NAME_SECRET}",
        "gitBranch": f"fix/{ID_SECRET}",
        "timestamp": "2026-01-02T00:00:00Z",
        "message": {"role": "user", "content": "hello"},
    }
    (project / f"{sid}.jsonl").write_text(json.dumps(record) + "\n")
    hail = [
        {
            "type": "header",
            "version": "hail-1.0.0",
            "session_id": ID_SECRET,
            "agent": {"provider": "x", "model": "m", "tool": "codex"},
            "context": {
                "title": "named",
                "tags": [],
                "created_at": "2026-01-02T00:00:00Z",
                "updated_at": "2026-01-02T00:00:00Z",
            },
        },
        {
            "type": "event",
            "event_id": ID_SECRET,
            "timestamp": "2026-01-02T00:00:00Z",
            "event_type": {"type": "UserMessage"},
            "content": {"blocks": [{"type": "Text", "text": "hi"}]},
        },
    ]
    (named / f"{NAME_SECRET}.hail.jsonl").write_text("\n".join(json.dumps(r) for r in hail) + "\n")
    aics = {
        "version": "1.0",
        "creator": {"name": "t"},
        "log": {
            "version": "1.0",
            "creator": {"name": "t"},
            "sessions": [
                {
                    "id": NAME_SECRET,
                    "title": "named aics",
                    "messages": [{"id": ID_SECRET, "role": "user", "content": [{"type": "text", "text": "hi"}]}],
                }
            ],
        },
    }
    (named / "named.aics.json").write_text(json.dumps(aics))
    return root
