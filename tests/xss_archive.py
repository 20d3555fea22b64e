"""Writes an archive whose every field, in every seed format, carries script-injection payloads."""

from __future__ import annotations

import json
from pathlib import Path

PAYLOAD = (
    '<script>window.__xss=1;alert(1)</script> <img src=x onerror="window.__xss=2"> '
    '[click](javascript:window.__xss=3) <svg onload="window.__xss=4"> "><script>window.__xss=5</script> '
    '<iframe src="javascript:window.__xss=6"></iframe> <a href="javascript:window.__xss=7">a</a> '
    "[x](JaVaScRiPt:window.__xss=8) ![i](javascript:window.__xss=9) <javascript:window.__xss=10> "
    "<style>body{display:none}</style> {{ 7*7 }} ${7*7}"
)


def write(root: Path, payload: str = PAYLOAD) -> Path:
    """Every field of every seed format carries ``payload`` (script injection by default;
    the planted-secrets test passes its secrets)."""
    root.mkdir(parents=True, exist_ok=True)
    p = payload
    # AICS
    aics = {
        "version": "1.0",
        "creator": {"name": p},
        "browser": {"name": "evil" + p},
        "log": {
            "version": "1.0",
            "creator": {"name": p},
            "sessions": [
                {
                    "id": "xss-aics",
                    "title": p,
                    "startedAt": "2026-01-01T00:00:00Z",
                    "metadata": {"project": p, p: p},
                    "gitRefs": {"branches": [p], "issues": [p], "commits": [p], "tags": [p], "repos": [p]},
                    "messages": [
                        {"id": "1", "role": "user", "content": [{"type": "text", "text": p}], "metadata": {"k": p}},
                        {
                            "id": "2",
                            "role": "assistant",
                            "model": p,
                            "content": [
                                {"type": "code", "text": p, "data": {"language": p}},
                                {"type": "image", "text": "javascript:window.__xss=11", "comment": p},
                                {"type": "tool_call", "data": {"id": "c1", "name": p, "input": {p: p}}},
                                {"type": p, "text": p},
                            ],
                            "mcp": {
                                "tools": [{"name": p, "input": {"x": p}, "output": p}],
                                "resources": [{"uri": "javascript:window.__xss=12", "name": p}],
                            },
                            "thinking": {"content": p, "summary": p},
                        },
                        {
                            "id": "3",
                            "role": "tool",
                            "content": [{"type": "tool_result", "text": p, "data": {"tool_call_id": "c1"}}],
                        },
                    ],
                }
            ],
        },
    }
    (root / "x.aics.json").write_text(json.dumps(aics))
    # Claude Code
    sid = "11111111-2222-4333-8444-555555555555"
    env = {
        "sessionId": sid,
        "cwd": "/home/" + p,
        "gitBranch": p,
        "version": "2.1.39",
        "isSidechain": False,
        "userType": "external",
    }
    cc = [
        {**env, "type": "summary", "summary": p, "leafUuid": "u1"},
        {
            **env,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": p},
        },
        {
            **env,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-01-01T00:00:01Z",
            "message": {
                "id": "msg_1",
                "model": p,
                "role": "assistant",
                "content": [{"type": "text", "text": p}],
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        },
        {
            **env,
            "type": "assistant",
            "uuid": "a2",
            "parentUuid": "a1",
            "timestamp": "2026-01-01T00:00:02Z",
            "message": {
                "id": "msg_1",
                "model": p,
                "role": "assistant",
                "content": [{"type": "thinking", "thinking": p, "signature": "s"}],
                "usage": {"input_tokens": 1, "output_tokens": 2},
            },
        },
        {
            **env,
            "type": "assistant",
            "uuid": "a3",
            "parentUuid": "a2",
            "timestamp": "2026-01-01T00:00:03Z",
            "message": {
                "id": "msg_1",
                "model": p,
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": p, "description": p}}
                ],
                "usage": {"input_tokens": 1, "output_tokens": 3},
            },
        },
        {
            **env,
            "type": "assistant",
            "uuid": "a4",
            "parentUuid": "a3",
            "timestamp": "2026-01-01T00:00:04Z",
            "message": {
                "id": "msg_2",
                "model": p,
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_2",
                        "name": "Edit",
                        "input": {"file_path": p, "old_string": p, "new_string": p + "!"},
                    }
                ],
            },
        },
        {
            **env,
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a4",
            "timestamp": "2026-01-01T00:00:05Z",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": p, "is_error": True}],
            },
            "toolUseResult": "Error: " + p,
        },
        {
            **env,
            "type": "user",
            "uuid": "u3",
            "parentUuid": "u2",
            "timestamp": "2026-01-01T00:00:06Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": p}]}
                ],
            },
        },
        {**env, "type": p, "uuid": "x1", "timestamp": "2026-01-01T00:00:07Z", "data": p},
    ]
    project = root / "claude" / "-home-x"
    project.mkdir(parents=True)
    (project / f"{sid}.jsonl").write_text("\n".join(json.dumps(r) for r in cc) + "\n")
    # HAIL
    hail = [
        {
            "type": "header",
            "version": "hail-1.0.0",
            "session_id": "xss-hail",
            "agent": {"provider": p, "model": p, "tool": p},
            "context": {
                "title": p,
                "tags": [p],
                "created_at": "2026-01-01T00:00:00Z",
                "updated_at": "2026-01-01T00:01:00Z",
                "attributes": {"cwd": p, "git": {"branch": p}},
            },
        },
        {
            "type": "event",
            "event_id": "h1",
            "timestamp": "2026-01-01T00:00:00Z",
            "event_type": {"type": "UserMessage"},
            "content": {"blocks": [{"type": "Text", "text": p}]},
        },
        {
            "type": "event",
            "event_id": "h2",
            "timestamp": "2026-01-01T00:00:01Z",
            "event_type": {"type": "ShellCommand", "data": {"command": p}},
            "content": {"blocks": [{"type": "Code", "code": p, "language": p}]},
        },
        {
            "type": "event",
            "event_id": "h3",
            "timestamp": "2026-01-01T00:00:02Z",
            "event_type": {"type": "FileEdit", "data": {"path": p, "diff": p}},
            "content": {
                "blocks": [
                    {"type": "Image", "url": "javascript:window.__xss=13", "alt": p, "mime": "image/png"},
                    {"type": "Reference", "uri": "javascript:window.__xss=14", "media_type": p},
                    {"type": "File", "path": p, "content": p},
                    {"type": "Json", "data": {p: p}},
                    {"type": "Video", "url": "javascript:window.__xss=15", "mime": p},
                ]
            },
        },
        {
            "type": "event",
            "event_id": "h4",
            "timestamp": "2026-01-01T00:00:03Z",
            "event_type": {"type": "Custom", "data": {"kind": p}},
            "content": {"blocks": []},
            "attributes": {p: p},
        },
        {
            "type": "event",
            "event_id": "h5",
            "timestamp": "2026-01-01T00:00:04Z",
            "event_type": {"type": p},
            "content": {"blocks": [{"type": p, "text": p}]},
        },
    ]
    (root / "x.hail.jsonl").write_text("\n".join(json.dumps(r) for r in hail) + "\n")
    # claude.ai export
    conv = [
        {
            "uuid": "xss-claude-ai",
            "name": p,
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:05:00Z",
            "account": {"uuid": p},
            "chat_messages": [
                {
                    "uuid": "c1",
                    "text": p,
                    "sender": "human",
                    "created_at": "2026-01-01T00:00:00Z",
                    "attachments": [{"file_name": p, "extracted_content": p}],
                    "files": [{"file_name": p}],
                },
                {
                    "uuid": "c2",
                    "text": f"<antThinking>{p}</antThinking> {p} "
                    f'<antArtifact identifier="x" type="text/html" title="{p}">{p}</antArtifact>',
                    "sender": "assistant",
                    "created_at": "2026-01-01T00:00:01Z",
                    "attachments": [],
                    "files": [],
                },
                {
                    "uuid": "c3",
                    "text": "",
                    "sender": "assistant",
                    "created_at": "2026-01-01T00:00:02Z",
                    "attachments": [],
                    "files": [],
                    "content": [
                        {"type": "text", "text": p},
                        {"type": "thinking", "thinking": p},
                        {"type": "tool_use", "id": "t1", "name": p, "input": {"q": p}},
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "name": p,
                            "content": [
                                {"type": "knowledge", "title": p, "url": "javascript:window.__xss=16", "text": p}
                            ],
                        },
                        {"type": p, "text": p},
                    ],
                },
            ],
        }
    ]
    (root / "conversations.json").write_text(json.dumps(conv))
    # sage
    sage = root / "sage" / "-home-x-"
    (sage / "history").mkdir(parents=True)
    (sage / "metadata.json").write_text(json.dumps({"project_dir": "/home/" + p, "created_at": "2026-01-01T00:00:00Z"}))
    (sage / "conversation.jsonl").write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "uuid": "20260101-000000-aaaaaaaa",
                    "role": "user",
                    "content": p,
                    "timestamp": "2026-01-01T00:00:00+0000",
                },
                {
                    "uuid": "20260101-000001-bbbbbbbb",
                    "role": "assistant",
                    "content": p,
                    "timestamp": "2026-01-01T00:00:01+0000",
                    "tool_calls": [{"name": p, "args": {"a": p}, "result": p, "success": False}],
                },
            ]
        )
        + "\n"
    )
    return root
