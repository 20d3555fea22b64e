"""The preview server answers only its own page and this machine's agents (issue: hostile web pages).

Each attack is sent over a real socket to a real server: a foreign Host (DNS rebinding),
a cross-origin POST or event stream, JSON-RPC without a JSON content type, malformed RPC
values, slow and idle clients, more connections than allowed, and long batches.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessite.config import SiteConfig
from sessite.serve import server as server_module
from sessite.serve.guard import Guard
from sessite.serve.rpc import Param, Registry, Tool, handle_jsonrpc
from sessite.serve.server import PreviewServer, PreviewState, make_server


@pytest.fixture
def preview(tmp_path: Path) -> Iterator[PreviewServer]:
    """A running preview of an empty archive: the guard and the RPC layer need no build."""
    archive = tmp_path / "archive"
    archive.mkdir()
    state = PreviewState(SiteConfig(archive=archive, output=tmp_path / "site", progress=False))
    srv = make_server(state, port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def request(srv: PreviewServer, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None):
    port = srv.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    sent = {"Host": f"127.0.0.1:{port}", **(headers or {})}
    for name, value in sent.items():
        if value is not None:
            conn.putheader(name, value)
    conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, data


def rpc(srv: PreviewServer, payload: str | bytes, **headers: str):
    body = payload.encode() if isinstance(payload, str) else payload
    return request(srv, "POST", "/aip/v1/rpc", body, {"Content-Type": "application/json", **headers})


def aicf(srv: PreviewServer, line: str | bytes, **headers: str):
    body = line.encode() if isinstance(line, str) else line
    return request(srv, "POST", "/aip/v1/aicf", body, {"Content-Type": "text/plain", **headers})


@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1.nip.io:{port}", "127.0.0.1:1", "", "localhost"])
def test_a_foreign_host_is_refused_everywhere(preview, host):
    port = preview.server_address[1]
    for method, path in (("GET", "/"), ("GET", "/__sessite__/status"), ("POST", "/aip/v1/aicf")):
        status, body = request(preview, method, path, b"LIST", {"Host": host.format(port=port)})
        assert status == 421, (host, path, body)
        assert b"TOOLS" not in body and b"generation" not in body


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST", "[::1]"])
def test_the_bind_address_names_are_answered(preview, name):
    port = preview.server_address[1]
    status, body = request(preview, "POST", "/aip/v1/aicf", b"LIST", {"Host": f"{name}:{port}"})
    assert status == 200 and body.startswith(b"TOOLS|")


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://localhost:1"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_a_cross_origin_post_or_event_stream_is_refused(preview, headers):
    assert aicf(preview, "LIST", **headers)[0] == 403
    status, body = rpc(preview, '{"jsonrpc":"2.0","method":"aip.tool.list","id":1}', **headers)
    assert status == 403 and b"result" not in body
    assert request(preview, "GET", "/__sessite__/events", headers=headers)[0] == 403


def test_the_own_origin_and_origin_less_agents_are_answered(preview):
    port = preview.server_address[1]
    for headers in ({"Origin": f"http://127.0.0.1:{port}"}, {"Origin": f"http://localhost:{port}"}, {}):
        status, body = aicf(preview, "LIST", **headers)
        assert status == 200 and body.startswith(b"TOOLS|"), headers
    status, body = rpc(
        preview, '{"jsonrpc":"2.0","method":"aip.tool.list","id":1}', **{"Sec-Fetch-Site": "same-origin"}
    )
    assert status == 200 and json.loads(body)["id"] == 1


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None])
def test_json_rpc_needs_a_json_content_type(preview, ctype):
    payload = b'{"jsonrpc":"2.0","method":"aip.tool.list","id":1}'
    status, body = request(preview, "POST", "/aip/v1/rpc", payload, {"Content-Type": ctype})
    assert status == 415
    assert json.loads(body)["error"]["code"] == -32600
    assert rpc(preview, payload, **{"Content-Type": "application/json; charset=utf-8"})[0] == 200


def invoke(tool: str, arguments: object, rid: object = 1) -> str:
    params = {"tool": tool, "arguments": arguments}
    return json.dumps({"jsonrpc": "2.0", "method": "aip.tool.invoke", "params": params, "id": rid})


@pytest.mark.parametrize(
    "line, code",
    [
        ("CALL|sessions.list|||||²", "422"),  # "²".isdigit() is True, int("²") is not a number
        ("CALL|sessions.list|||||" + "9" * 5000, "422"),
        ("CALL|sessions.list|" + "[" * 100_000, "422"),
        ('CALL|sessions.list|{"offset":' + "9" * 5000 + "}", "422"),
        ('CALL|sessions.get|{"id":"\\ud800"}', "404"),
    ],
)
def test_malformed_aicf_values_get_protocol_errors(preview, line, code):
    status, body = aicf(preview, line)
    assert status == 200
    text = body.decode("utf-8")  # always valid UTF-8
    assert text.startswith(f"ERR|{code}|"), text[:200]


@pytest.mark.parametrize(
    "payload, code",
    [
        (invoke("sessions.list", {"limit": "²"}), -32602),
        (
            '{"jsonrpc":"2.0","method":"aip.tool.invoke","params":{"tool":"sessions.list","arguments":{"offset":'
            + "9" * 5000
            + '}},"id":1}',
            -32700,
        ),
        ("[" * 100_000 + "]" * 100_000, -32700),
        ('{"a":' * 50_000 + "1" + "}" * 50_000, -32700),
        (invoke("sessions.get", {"id": "\ud800"}, rid="\ud800"), -32602),
    ],
)
def test_malformed_json_rpc_gets_protocol_errors(preview, payload, code):
    status, body = rpc(preview, payload.encode("utf-8", "surrogatepass"))
    assert status == 200
    answer = json.loads(body.decode("utf-8"))
    assert answer["error"]["code"] == code, answer


def test_a_lone_surrogate_in_a_query_is_answered(preview):
    status, body = rpc(
        preview, invoke("sessions.search", {"query": "rate\ud800limiter"}).encode("utf-8", "surrogatepass")
    )
    assert status == 200 and "result" in json.loads(body.decode("utf-8"))


def test_head_on_the_event_stream_ends(preview):
    started = time.monotonic()
    status, body = request(preview, "HEAD", "/__sessite__/events")
    assert status == 200 and body == b"" and time.monotonic() - started < 5


def test_an_idle_or_slow_client_is_cut_off(preview, monkeypatch):
    monkeypatch.setattr(server_module.PreviewHandler, "timeout", 0.5)
    port = preview.server_address[1]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as idle:
        idle.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)  # never finishes its headers
        started = time.monotonic()
        assert idle.recv(1024) == b""  # the server closed the connection
        assert time.monotonic() - started < 5


def test_connections_beyond_the_bound_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(server_module, "MAX_CONNECTIONS", 4)
    monkeypatch.setattr(server_module.PreviewHandler, "timeout", 5)
    state = PreviewState(SiteConfig(archive=tmp_path, output=tmp_path / "site", progress=False))
    srv = make_server(state, port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_address[1]
    held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(4)]
    try:
        time.sleep(0.3)  # the four are accepted and waiting for their request lines
        with socket.create_connection(("127.0.0.1", port), timeout=10) as extra:
            assert extra.recv(1024).startswith(b"HTTP/1.0 503")
        for sock in held:
            sock.close()
        time.sleep(0.3)
        status, body = request(srv, "POST", "/aip/v1/aicf", b"LIST", {"Content-Type": "text/plain"})
        assert status == 200 and body.startswith(b"TOOLS|")  # slots come back when connections end
    finally:
        for sock in held:
            sock.close()
        srv.shutdown()
        srv.server_close()


def test_a_long_batch_stops_at_its_time_budget():
    calls: list[int] = []

    def slow(n: int) -> int:
        calls.append(n)
        time.sleep(0.05)
        return n

    registry = Registry()
    registry.add(Tool("slow", "sleeps", (Param("n", "integer", required=True),), slow))
    batch = json.dumps([json.loads(invoke("slow", {"n": i}, rid=i)) for i in range(100)])
    started = time.monotonic()
    answers = handle_jsonrpc(registry, batch.encode(), budget=0.3)
    assert time.monotonic() - started < 2
    assert isinstance(answers, list) and len(answers) == 100
    done = [a for a in answers if "result" in a]
    late = [a for a in answers if "error" in a]
    assert 1 <= len(done) == len(calls) < 100
    assert all(a["error"]["code"] == -32000 for a in late) and [a["id"] for a in answers] == list(range(100))


def test_guard_names_of_a_chosen_host():
    guard = Guard.for_address("192.0.2.7", 8123)
    assert guard.refusal({"Host": "192.0.2.7:8123"}, needs_same_origin=True) is None
    assert guard.refusal({"Host": "localhost:8123"}, needs_same_origin=True) is None
    assert guard.refusal({"Host": "attacker.example:8123"}, needs_same_origin=False) == "unknown Host"


# ---------------------------------------------------------------- issue 30: XSSI, binding beyond loopback

DATA_FILES = ("/search/meta.js", "/search/t/ab.js", "/search/f/x/y.js", "/insights/all.sessions.js", "/index.html")


@pytest.mark.parametrize("path", DATA_FILES)
def test_another_site_cannot_include_the_data_files(preview: PreviewServer, path: str) -> None:
    """``<script src>`` from another origin (cross-site, or another port: same-site) is refused."""
    for site in ("cross-site", "same-site"):
        headers = {"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "script"}
        assert request(preview, "GET", path, headers=headers)[0] == 403


def test_every_response_is_for_its_own_origin_only(preview: PreviewServer) -> None:
    port = preview.server_address[1]
    for path in ("/", "/search/meta.js", "/nothing-here", "/__sessite__/status"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}"})
        resp = conn.getresponse()
        resp.read()
        conn.close()
        assert resp.getheader("Cross-Origin-Resource-Policy") == "same-origin", path
        assert resp.getheader("X-Content-Type-Options") == "nosniff", path


def test_its_own_pages_and_a_followed_link_still_load(preview: PreviewServer) -> None:
    same = {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "script"}
    assert request(preview, "GET", "/__sessite__/reload.js", headers=same)[0] == 200
    link = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
    assert request(preview, "GET", "/", headers=link)[0] != 403
    framed = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"}
    assert request(preview, "GET", "/", headers=framed)[0] == 403


def test_bound_beyond_loopback_an_honest_client_gets_what_a_spoofing_one_gets() -> None:
    guard = Guard.for_address("0.0.0.0", 8123)
    honest, spoofing = {"Host": "192.168.1.5:8123"}, {"Host": "127.0.0.1:8123"}
    assert guard.refusal(honest, needs_same_origin=False) is None
    assert guard.refusal(spoofing, needs_same_origin=False) is None
    assert guard.refusal({"Host": "[fd00::5]:8123"}, needs_same_origin=False) is None
    assert guard.refusal({"Host": "rebound.attacker.example:8123"}, needs_same_origin=False) == "unknown Host"
    assert guard.refusal({"Host": "192.168.1.5:9999"}, needs_same_origin=False) == "unknown Host"
    # the RPC by the peer's address, which a client cannot choose: the same answer for both
    assert guard.local_only("192.168.1.9") is not None and guard.local_only("127.0.0.1") is None
    assert guard.local_only("::ffff:127.0.0.1") is None and guard.local_only("::1") is None
    lan = Guard.for_address("192.168.1.5", 8123)  # an agent here connects from the bound address
    assert lan.local_only("192.168.1.5") is None and lan.local_only("::ffff:192.168.1.5") is None
    assert lan.local_only("192.168.1.9") is not None
    assert Guard.for_address("127.0.0.1", 8123).local_only("192.168.1.9") is None  # loopback: nothing to add
    assert Guard.for_address("127.0.0.1", 8123).refusal(honest, needs_same_origin=False) == "unknown Host"


def test_binding_beyond_loopback_warns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    lines: list[str] = []
    monkeypatch.setattr(PreviewServer, "serve_forever", lambda self, poll_interval=0.5: None)
    config = SiteConfig(archive=archive, output=tmp_path / "site", progress=False)
    server_module.serve(config, host="0.0.0.0", port=0, log=lines.append)
    assert any(line.startswith("warning: bound to 0.0.0.0, beyond this machine") for line in lines)
    lines.clear()
    server_module.serve(config, host="127.0.0.1", port=0, log=lines.append)
    assert not any(line.startswith("warning") for line in lines)
