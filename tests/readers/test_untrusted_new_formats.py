"""Session text from OpenCode, Cline, Amp and Cursor is untrusted too: payloads in every field stay text."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from helpers import build_site
from xss_archive import PAYLOAD as P


def write(root: Path) -> Path:
    # OpenCode storage tree
    storage = root / "opencode" / "storage"
    (storage / "session" / "p").mkdir(parents=True)
    (storage / "session" / "p" / "ses_x.json").write_text(
        json.dumps({"id": "ses_x", "title": P, "directory": "/" + P, "slug": P, "time": {"created": 1767607200000}})
    )
    (storage / "message" / "ses_x").mkdir(parents=True)
    (storage / "message" / "ses_x" / "msg_1.json").write_text(
        json.dumps(
            {
                "id": "msg_1",
                "role": "assistant",
                "modelID": P,
                "agent": P,
                "mode": P,
                "time": {"created": 1767607200000},
                "error": {"name": P, "data": {"message": P}},
            }
        )
    )
    (storage / "part" / "msg_1").mkdir(parents=True)
    parts = [
        {"id": "prt_1", "type": "text", "text": P},
        {"id": "prt_2", "type": "reasoning", "text": P},
        {
            "id": "prt_3",
            "type": "tool",
            "callID": P,
            "tool": "edit",
            "state": {
                "status": "completed",
                "input": {"filePath": P, "oldString": P, "newString": P + "!"},
                "output": P,
                "title": P,
                "metadata": {P: P},
            },
        },
        {"id": "prt_4", "type": "file", "filename": P, "url": "javascript:window.__xss=20", "mime": P},
        {"id": "prt_5", "type": P, "x": P},
        {"id": "prt_6", "type": "patch", "files": [P], "hash": P},
    ]
    for part in parts:
        (storage / "part" / "msg_1" / f"{part['id']}.json").write_text(json.dumps(part))
    # Cline task
    task = root / "cline" / "1767780000000"
    task.mkdir(parents=True)
    (task / "api_conversation_history.json").write_text(
        json.dumps(
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": f"<task>{P}</task>"},
                        {"type": "text", "text": f"<environment_details>{P}</environment_details>"},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "text",
                            "text": f"<thinking>{P}</thinking>{P}"
                            f"<execute_command><command>{P}</command></execute_command>",
                        },
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "replace_in_file",
                            "input": {"path": P, "diff": f"------- SEARCH\n{P}\n=======\n{P}!\n+++++++ REPLACE"},
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": f"[execute_command for '{P}'] Result:\n{P}"},
                        {"type": "text", "text": f"[replace_in_file for '{P}'] Result:\n{P}"},
                    ],
                },
            ]
        )
    )
    (task / "ui_messages.json").write_text(json.dumps([{"ts": 1767780000000, "type": "say", "say": "text", "text": P}]))
    # Amp thread
    amp = root / "amp"
    amp.mkdir()
    (amp / "T-x.json").write_text(
        json.dumps(
            {
                "v": 1,
                "id": "T-x",
                "created": 1767870000000,
                "title": P,
                "env": {"initial": {"trees": [{"uri": "file:///" + P}], "tags": [P]}},
                "messages": [
                    {"role": "user", "messageId": 0, "content": [{"type": "text", "text": P}]},
                    {
                        "role": "assistant",
                        "messageId": 1,
                        "content": [
                            {"type": "thinking", "thinking": P},
                            {"type": "tool_use", "id": "a1", "name": P, "input": {P: P}},
                            {"type": P},
                        ],
                        "usage": {"model": P, "inputTokens": 1},
                    },
                    {
                        "role": "user",
                        "messageId": 2,
                        "content": [
                            {
                                "type": "tool_result",
                                "toolUseID": "a1",
                                "run": {"status": P, "result": {"output": P, "diff": P}},
                            }
                        ],
                    },
                ],
            }
        )
    )
    # Cursor store
    db = root / "cursor" / "state.vscdb"
    db.parent.mkdir()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE, value BLOB)")
    bubbles = [
        {
            "type": 1,
            "bubbleId": "u",
            "text": P,
            "context": {"fileSelections": [{"uri": {"fsPath": "javascript:window.__xss=21"}}]},
        },
        {
            "type": 2,
            "bubbleId": "a",
            "text": P,
            "thinking": {"text": P},
            "modelType": P,
            "toolFormerData": {
                "name": "run_terminal_cmd",
                "rawArgs": json.dumps({"command": P}),
                "result": json.dumps({"output": P, "diff": {"chunks": [{"diffString": P}]}}),
                "status": P,
            },
        },
        {"type": P, "bubbleId": "z"},
    ]
    rows = [
        (
            "composerData:x",
            json.dumps(
                {
                    "composerId": "x",
                    "name": P,
                    "createdAt": 1767960000000,
                    "fullConversationHeadersOnly": [{"bubbleId": b["bubbleId"]} for b in bubbles],
                }
            ),
        )
    ]
    rows += [(f"bubbleId:x:{b['bubbleId']}", json.dumps(b)) for b in bubbles]
    conn.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
    conn.commit()
    conn.close()
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("xss-new")
    report = build_site(write(root / "archive"), root / "site")
    assert report.published and report.sessions == 4
    return root / "site"


def test_no_markup_from_a_session_survives(site: Path) -> None:
    pages = sorted((site / "sessions").glob("*.html"))
    assert {p.name.split("-", 1)[0] for p in pages} == {"opencode", "cline", "amp", "cursor"}
    for page in pages:
        doc = BeautifulSoup(page.read_text("utf-8"), "html.parser")
        for script in doc.find_all("script"):
            assert script.get("src", "").endswith(".js") and not script.string, f"{page.name}: foreign script"
        for svg in doc.select("svg.chart-svg"):  # our build-time charts: only these shapes, text escaped
            assert {el.name for el in svg.find_all(True)} <= {"title", "desc", "g", "a", "rect", "line", "text"}, (
                f"{page.name}: unexpected element in a chart"
            )
        for selector in (
            "iframe",
            "svg:not(.chart-svg)",
            "object",
            "embed",
            "body style",
            "base",
            "meta[http-equiv=refresh]",
        ):
            assert not doc.select(selector), f"{page.name}: {selector} from session content"
        for el in doc.find_all(True):
            for attr, value in el.attrs.items():
                assert not attr.lower().startswith("on"), f"{page.name}: event handler {attr} on <{el.name}>"
                if _text_meta(el, attr):
                    continue  # (a link card's title or description: text a reader is shown, never a URL)
                for item in value if isinstance(value, list) else [value]:
                    assert "javascript:" not in str(item).lower().replace(" ", ""), f"{page.name}: {attr}={item!r}"
        assert "window.__xss=1;alert(1)" in doc.get_text(), f"{page.name}: the payload is not shown as text"


def _text_meta(el, attr: str) -> bool:
    """A ``<meta>`` whose content is text shown as such (``og:description``, ``twitter:title``)."""
    name = str(el.get("property") or el.get("name") or "")
    return el.name == "meta" and attr == "content" and name.endswith(("description", "title"))
