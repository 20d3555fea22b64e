"""Writes the hand-made cursor-agent ``store.db`` the tests read (tests/fixtures/cursor_agent/chats/…).

The store is built the way the CLI builds one: message blobs as JSON, keyed by the SHA-256
of their bytes, and a protobuf root blob listing them. ``write_store(path)`` writes it with
SQLite; ``wal=True`` leaves it all in the ``-wal`` file, as a running (or killed) CLI does.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

AGENT_ID = "0b5e7d21-9c4a-4f3e-8d2b-1a6c5e4f3d2c"
CWD = "/home/dev/widget"
HASH = hashlib.md5(CWD.encode()).hexdigest()

MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are an AI coding assistant, powered by GPT-5."},
    {
        "role": "user",
        "content": "<user_info>\nOS Version: linux 6.8\n\nWorkspace Path: /home/dev/widget\n</user_info>\n\n"
        "<git_status>\nGit repo: /home/dev/widget\n\n## main...origin/main\n M src/helper.py\n</git_status>",
    },
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "<user_query>\nRename old_name to new_name and run the tests\n</user_query>"}
        ],
        "providerOptions": {"cursor": {"requestId": "req-1"}},
    },
    {
        "id": "1",
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "The helper is used in two places.",
                "providerOptions": {"cursor": {"modelName": "gpt-5"}},
                "signature": "c2ln",
            },
            {"type": "text", "text": "I'll rename the helper, then run the tests."},
            {
                "type": "tool-call",
                "toolCallId": "call_edit",
                "toolName": "StrReplace",
                "args": {
                    "path": "/home/dev/widget/src/helper.py",
                    "old_string": "def old_name():",
                    "new_string": "def new_name():",
                },
            },
            {"type": "tool-call", "toolCallId": "call_shell", "toolName": "Shell", "args": {"command": "pytest -q"}},
        ],
    },
    {
        "role": "tool",
        "id": "call_edit",
        "content": [
            {"type": "tool-result", "toolName": "StrReplace", "toolCallId": "call_edit", "result": "Edited helper.py"}
        ],
        "providerOptions": {
            "cursor": {
                "highLevelToolCallResult": {
                    "output": {
                        "success": {
                            "path": "/home/dev/widget/src/helper.py",
                            "linesAdded": 1,
                            "linesRemoved": 1,
                            "diffString": "-def old_name():\n+def new_name():",
                        }
                    },
                    "isError": False,
                }
            }
        },
    },
    {
        "role": "tool",
        "id": "call_shell",
        "content": [
            {
                "type": "tool-result",
                "toolName": "Shell",
                "toolCallId": "call_shell",
                "result": "1 failed, 3 passed",
                "experimental_content": [
                    {"type": "text", "text": "1 failed, 3 passed"},
                    {
                        "type": "text",
                        "text": "<system_reminder>\nKeep going until the task is done.\n</system_reminder>",
                    },
                ],
            }
        ],
        "providerOptions": {
            "cursor": {"highLevelToolCallResult": {"output": {"success": {"exitCode": 1, "stdout": "1 failed"}}}}
        },
    },
    {
        "id": "1",
        "role": "assistant",
        "content": [
            {
                "type": "tool-call",
                "toolCallId": "call_write",
                "toolName": "Write",
                "args": {"path": "/home/dev/widget/NOTES.md", "contents": "renamed\n"},
            }
        ],
    },
    {
        "role": "tool",
        "id": "call_write",
        "content": [
            {
                "type": "tool-result",
                "toolName": "Write",
                "toolCallId": "call_write",
                "result": "Write permission denied: ",
            }
        ],
        "providerOptions": {
            "cursor": {
                "highLevelToolCallResult": {
                    "output": {
                        "writePermissionDenied": {"error": "Write permission denied: /home/dev/widget/NOTES.md"}
                    },
                    "isError": True,
                }
            }
        },
    },
    {
        "id": "1",
        "role": "assistant",
        "content": [{"type": "text", "text": "Renamed `old_name`; one test still fails."}],
    },
]
# Stored, but not in the conversation (an earlier branch).
OFF_PATH = {"role": "user", "content": [{"type": "text", "text": "<user_query>\nan abandoned prompt\n</user_query>"}]}


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, value: bytes | int) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _blob(value: Any) -> tuple[str, bytes]:
    data = json.dumps(value, separators=(",", ":")).encode()
    return hashlib.sha256(data).hexdigest(), data


def rows() -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
    blobs = [_blob(m) for m in MESSAGES]
    content = b"renamed\n"
    file_id = hashlib.sha256(content).digest()
    root = b"".join(_field(1, bytes.fromhex(blob_id)) for blob_id, _ in blobs)
    root += _field(5, _field(1, 2048) + _field(2, 200000))
    root += _field(9, b"file:///home/dev/widget")
    root += _field(15, _field(1, b"/home/dev/widget/src/helper.py") + _field(2, _field(1, file_id)))
    root_id = hashlib.sha256(root).hexdigest()
    meta = {
        "agentId": AGENT_ID,
        "latestRootBlobId": root_id,
        "name": "New Agent",
        "mode": "auto-run",
        "createdAt": 1767382461324,
        "lastUsedModel": "gpt-5",
    }
    stored = [*blobs, _blob(OFF_PATH), (file_id.hex(), content), (root_id, root)]
    return meta, stored


def _fill(conn: sqlite3.Connection) -> None:
    meta, stored = rows()
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.executemany("INSERT INTO blobs VALUES (?, ?)", stored)
    conn.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
    conn.commit()


def write_store(path: Path, wal: bool = False) -> Path:
    """The store at ``path`` (a fresh file); with ``wal``, every page still in ``path``-wal."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not wal:
        with sqlite3.connect(path) as conn:
            _fill(conn)
        conn.close()
        return path
    with tempfile.TemporaryDirectory() as tmp:
        live = Path(tmp) / "store.db"
        conn = sqlite3.connect(live)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_autocheckpoint=0")
        _fill(conn)
        shutil.copyfile(live, path)  # copied while the CLI still holds it open: nothing checkpointed
        shutil.copyfile(f"{live}-wal", f"{path}-wal")
        conn.close()
    return path


if __name__ == "__main__":
    here = Path(__file__).resolve().parent / "fixtures" / "cursor_agent" / "chats" / HASH / AGENT_ID / "store.db"
    here.unlink(missing_ok=True)
    print(write_store(here))
