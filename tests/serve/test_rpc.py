"""AICF-RPC and JSON-RPC: protocol rules and every tool, over real HTTP."""

import http.client
import json
import threading

import pytest
from helpers import EXAMPLE

from sessite.config import SiteConfig
from sessite.serve.rpc import aicf_escape, aicf_split
from sessite.serve.server import PreviewState, make_server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("rpc")
    state = PreviewState(SiteConfig(archive=EXAMPLE, output=root / "site", progress=False))
    state.rebuild(log=lambda line: None)
    srv = make_server(state, port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def post(server, path, body, ctype="text/plain"):
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    conn.request("POST", path, body=body.encode() if isinstance(body, str) else body, headers={"Content-Type": ctype})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, data


def aicf(server, body):
    status, data = post(server, "/aip/v1/aicf", body)
    assert status == 200
    return data.decode()


def jsonrpc(server, payload):
    status, data = post(
        server, "/aip/v1/rpc", payload if isinstance(payload, (str, bytes)) else json.dumps(payload), "application/json"
    )
    return status, (json.loads(data) if data else None)


def ok_json(line):
    assert line.startswith("OK|"), line
    return json.loads(aicf_split(line)[1])


def test_escaping_round_trips():
    for raw in ["a|b", "line1\nline2", "back\\slash", "tab\there", "\\|\\n", ""]:
        assert aicf_split(aicf_escape(raw)) == [raw]
    assert aicf_split(r"CALL|t|a\|b|c\nd|e\\f") == ["CALL", "t", "a|b", "c\nd", "e\\f"]


def test_list_and_info(server):
    assert aicf(server, "LIST") == "TOOLS|refs.list|refs.get|sessions.list|sessions.get|sessions.search"
    info = aicf(server, "INFO|sessions.get")
    assert info.startswith("TOOL|sessions.get|") and "|id:string|offset:integer?|limit:integer?" in info


def test_sessions_list_filters_and_pages(server):
    everything = ok_json(aicf(server, "CALL|sessions.list"))
    assert everything["total"] == len(everything["sessions"]) >= 7
    sage = ok_json(aicf(server, "CALL|sessions.list|sage"))
    assert sage["total"] >= 1 and all(s["agent"] == "sage" for s in sage["sessions"])
    page = ok_json(aicf(server, 'CALL|sessions.list|{"limit":2,"offset":1}'))
    assert [s["id"] for s in page["sessions"]] == [s["id"] for s in everything["sessions"][1:3]] and page[
        "next_offset"
    ] == 3
    since = ok_json(aicf(server, "CALL|sessions.list|||2026-10-10T00:00:00Z"))
    assert all(s["started"] >= "2026-10-10" for s in since["sessions"]) and since["total"] < everything["total"]


def test_sessions_get_pages_and_truncates(server):
    sid = "aics-01927a3e-5b1c-7def-8123-456789abcdef"
    first = ok_json(aicf(server, f"CALL|sessions.get|{sid}|0|3|100"))
    assert (
        first["session"]["title"].startswith("Rate limiter") and len(first["events"]) == 3 and first["next_offset"] == 3
    )
    rest = ok_json(aicf(server, f"CALL|sessions.get|{sid}|3|200|100"))
    assert first["total_events"] == 3 + len(rest["events"]) and rest["next_offset"] is None
    long = [e for e in rest["events"] if e.get("text_truncated_from")]
    assert long and all(len(e["text"]) <= 101 for e in long)


def test_sessions_search_ranks_with_snippets(server):
    result = ok_json(aicf(server, "CALL|sessions.search|token bucket"))
    assert result["total"] >= 1 and result["complete"]
    top = result["results"][0]
    assert (
        top["session"].startswith("aics-") and "token" in top["snippet"].lower() and top["url"].startswith("sessions/")
    )


@pytest.mark.parametrize(
    "request_line, code",
    [
        ("", "400"),
        ("HELLO", "400"),
        ("LIST|x", "400"),
        ("INFO", "400"),
        ("CALL", "400"),
        ("CALL|nope.tool", "404"),
        ("INFO|nope.tool", "404"),
        ("CALL|sessions.get", "422"),
        ("CALL|sessions.get|missing-id", "404"),
        ("CALL|sessions.list|||||0", "422"),
        ("CALL|sessions.list|||||abc", "422"),
        ("CALL|sessions.list|a|b|c|d|1|2|3", "422"),
        ("CALL|sessions.list|{not json", "422"),
        ("CALL|sessions.list|trailing\\", "400"),
        ("CALL|sessions.search|", "422"),
        ('CALL|sessions.list|{"bogus":1}', "422"),
        ("CALL|sessions.list|||yesterday", "422"),
    ],
)
def test_aicf_errors(server, request_line, code):
    line = aicf(server, request_line)
    assert line.startswith(f"ERR|{code}|"), line


def test_aicf_binary_body(server):
    assert aicf(server, b"\xff\xfe\x00garbage").startswith("ERR|400|")


def test_jsonrpc_round_trip(server):
    status, body = jsonrpc(
        server,
        {
            "jsonrpc": "2.0",
            "method": "aip.tool.invoke",
            "params": {"tool": "sessions.list", "arguments": {"agent": "claude-code"}},
            "id": 7,
        },
    )
    assert status == 200 and body["id"] == 7 and body["result"]["total"] >= 1
    status, body = jsonrpc(
        server,
        {
            "jsonrpc": "2.0",
            "method": "aip.tool.invoke",
            "params": {"tool": "sessions.search", "arguments": {"query": "rate limiter", "limit": 1}},
            "id": "x",
        },
    )
    assert body["result"]["results"][0]["session"].startswith("aics-")


@pytest.mark.parametrize(
    "payload, code",
    [
        ("{not json", -32700),
        (b"\xff", -32700),
        ("[]", -32600),
        ('"just a string"', -32600),
        ('{"method":"aip.tool.invoke","id":1}', -32600),
        ('{"jsonrpc":"2.0","method":"nope","id":1}', -32601),
        ('{"jsonrpc":"2.0","method":"aip.tool.invoke","params":{},"id":1}', -32602),
        ('{"jsonrpc":"2.0","method":"aip.tool.invoke","params":{"tool":"sessions.get","arguments":{}},"id":1}', -32602),
        (
            '{"jsonrpc":"2.0","method":"aip.tool.invoke","params":{"tool":"sessions.list","arguments":{"limit":"many"}},"id":1}',
            -32602,
        ),
        ('{"jsonrpc":"2.0","method":"aip.tool.invoke","params":{"tool":"nope"},"id":1}', -32602),
        (
            '{"jsonrpc":"2.0","method":"aip.tool.invoke","params":{"tool":"sessions.list","arguments":[1]},"id":1}',
            -32602,
        ),
        ('{"jsonrpc":"2.0","method":1,"id":1}', -32600),
    ],
)
def test_jsonrpc_errors(server, payload, code):
    status, body = jsonrpc(server, payload)
    assert status == 200 and body["error"]["code"] == code, body


def test_jsonrpc_batch_and_notification(server):
    status, body = jsonrpc(
        server,
        [
            {
                "jsonrpc": "2.0",
                "method": "aip.tool.invoke",
                "params": {"tool": "sessions.list", "arguments": {"limit": 1}},
                "id": 1,
            },
            {"jsonrpc": "2.0", "method": "nope", "id": 2},
            {"jsonrpc": "2.0", "method": "aip.tool.list"},
        ],
    )
    assert [r["id"] for r in body] == [1, 2] and "result" in body[0] and body[1]["error"]["code"] == -32601
    status, body = jsonrpc(server, {"jsonrpc": "2.0", "method": "aip.tool.list"})
    assert status == 204 and body is None


def test_oversized_request_is_refused(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    conn.putrequest("POST", "/aip/v1/aicf")
    conn.putheader("Content-Length", str(10**9))
    conn.endheaders()
    resp = conn.getresponse()
    assert resp.status == 413 and resp.read().startswith(b"ERR|400|")


def test_refs_tools(server):
    listed = ok_json(aicf(server, "CALL|refs.list"))
    assert listed["total"] >= 3
    kinds = {r["kind"] for r in listed["refs"]}
    assert {"branch", "commit", "issue"} <= kinds
    branch = next(r for r in listed["refs"] if r["kind"] == "branch")
    only = ok_json(aicf(server, "CALL|refs.list|commit"))
    assert only["total"] >= 1 and all(r["kind"] == "commit" for r in only["refs"])
    got = ok_json(aicf(server, f"CALL|refs.get|{aicf_escape(branch['id'])}"))
    assert got["name"] == branch["name"] and got["sessions"] and got["sessions"][0]["title"]
    commit = ok_json(aicf(server, f"CALL|refs.get|{aicf_escape(only['refs'][0]['id'])}|3"))
    assert any(m["snippet"] for s in commit["sessions"] for m in s["mentions"])
    assert aicf(server, "CALL|refs.get|refs/nope.html").startswith("ERR|404|")
    status, body = jsonrpc(
        server,
        {
            "jsonrpc": "2.0",
            "method": "aip.tool.invoke",
            "params": {"tool": "refs.list", "arguments": {"kind": "issue", "limit": 2}},
            "id": 3,
        },
    )
    assert body["result"]["limit"] == 2 and all(r["kind"] == "issue" for r in body["result"]["refs"])
