"""The preview server over real HTTP: serving, watching, live reload, problems overlay, safety."""

import http.client
import json
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import ALL_EXPORTS, EXAMPLE

from sessite.config import SiteConfig
from sessite.serve.server import PreviewState, make_server, watch_loop

AICS = EXAMPLE / "aics" / "rate-limiter.aics.json"


def get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, body


def wait_for(predicate, timeout=15.0, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


@pytest.fixture
def live(tmp_path):
    """A running preview of a small archive that the test may edit."""
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copy(AICS, archive / AICS.name)
    state = PreviewState(SiteConfig(archive=archive, output=tmp_path / "site", progress=False, exports=ALL_EXPORTS))
    state.rebuild(log=lambda line: None)
    server = make_server(state, port=0)
    stop = threading.Event()
    threads = [
        threading.Thread(target=server.serve_forever, daemon=True),
        threading.Thread(target=watch_loop, args=(state, stop, lambda line: None), daemon=True),
    ]
    for t in threads:
        t.start()
    time.sleep(0.3)  # let the watcher start
    yield archive, state, server.server_address[1]
    stop.set()
    server.shutdown()
    server.server_close()


def test_pages_are_served_with_reload_script(live):
    _, _, port = live
    status, body = get(port, "/")
    assert status == 200 and b"Rate limiter" in body and b"/__sessite__/reload.js" in body
    status, body = get(port, "/static/app.js")
    assert status == 200 and b"/__sessite__" not in body
    status, body = get(port, "/__sessite__/reload.js")
    assert status == 200 and b"EventSource" in body


def test_gzip_downloads_are_served_as_gzip(live):
    import gzip

    _, _, port = live
    for suffix in (".aics.json.gz", ".hail.jsonl.gz", ".md.gz"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", f"/sessions/aics-01927a3e-5b1c-7def-8123-456789abcdef{suffix}")
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        assert resp.status == 200 and resp.getheader("Content-Type") == "application/gzip" and gzip.decompress(body), (
            suffix
        )


def test_reload_script_is_never_written_into_the_site(live, tmp_path):
    for path in (tmp_path / "site").rglob("*"):
        if path.is_file():
            assert b"__sessite__" not in path.read_bytes(), path


def test_missing_page_gets_404_page(live):
    _, _, port = live
    status, body = get(port, "/sessions/nope.html")
    assert status == 404 and b"Page not found" in body


@pytest.mark.parametrize(
    "path",
    [
        "/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/static/..%2f..%2f..%2fetc%2fpasswd",
        "/static/%5c..%5c..%5cx",
        "/%00",
    ],
)
def test_traversal_is_refused(live, path):
    _, _, port = live
    status, body = get(port, path)
    assert status == 403 and b"root:" not in body


def read_event(port, fire, until=lambda event: True, timeout=20):
    """Open the event stream, run fire(), and return the first reload event that satisfies ``until``.

    A change may publish twice (changed pages first, then search and refs), so
    a test waits for the event it is about rather than the first one.
    """
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.sendall(b"GET /__sessite__/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
    buffer = b""
    while b"retry:" not in buffer:
        chunk = sock.recv(4096)
        assert chunk, f"the event stream closed: {buffer!r}"
        buffer += chunk
    buffer = b""
    fire()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            while b"event: reload\ndata: " in buffer and b"\n\n" in buffer.split(b"event: reload\ndata: ", 1)[1]:
                head, rest = buffer.split(b"event: reload\ndata: ", 1)
                data, buffer = rest.split(b"\n", 1)
                event = json.loads(data)
                if until(event):
                    return event
            chunk = sock.recv(65536)
            assert chunk, "the event stream closed"
            buffer += chunk
    finally:
        sock.close()
    raise AssertionError("no matching reload event")


def test_a_new_file_in_the_archive_reaches_the_page_and_fires_reload(live):
    archive, state, port = live
    doc = json.loads(AICS.read_text())
    doc["log"]["sessions"][0]["id"] = "new-session-from-test"
    doc["log"]["sessions"][0]["title"] = "Freshly written session"
    event = read_event(
        port,
        lambda: (archive / "new.aics.json").write_text(json.dumps(doc)),
        until=lambda e: "sessions/aics-new-session-from-test.html" in (e["changed"] or []),
    )
    assert event["failed"] is None and "index.html" in event["changed"]
    status, body = get(port, "/")
    assert b"Freshly written session" in body
    status, body = get(port, "/sessions/aics-new-session-from-test.html")
    assert status == 200


def test_problems_show_and_clear(live):
    archive, state, port = live
    event = read_event(
        port,
        lambda: (archive / "broken.aics.json").write_text(
            '{"version": "1.0", "creator": {"name": "x"}, "log": {"sessions": [}'
        ),
        until=lambda e: e["problem_count"] >= 1,
    )
    assert any("broken.aics.json" in p for p in event["problems"])
    event = read_event(port, lambda: (archive / "broken.aics.json").unlink(), until=lambda e: e["problem_count"] == 0)
    assert event["failed"] is None


def test_failed_build_keeps_the_last_good_site(live):
    archive, state, port = live
    read_event(port, lambda: (archive / AICS.name).unlink(), until=lambda e: e["failed"])
    status, body = get(port, "/")
    assert status == 200 and b"Rate limiter" in body
    status_json = json.loads(get(port, "/__sessite__/status")[1])
    assert status_json["failed"]


def test_overlay_in_the_browser(live, page):
    archive, state, port = live
    page.goto(f"http://127.0.0.1:{port}/")
    page.wait_for_load_state("load")
    assert page.locator("#sessite-overlay").count() == 0
    (archive / "broken.aics.json").write_text("{ truncated")
    page.locator("#sessite-overlay").wait_for(timeout=15000)
    assert "broken.aics.json" in page.locator("#sessite-overlay").inner_text()
    (archive / "broken.aics.json").unlink()
    page.locator("#sessite-overlay").wait_for(state="detached", timeout=15000)


def _sigint_default() -> None:
    """Runs in the child before exec. pytest may run with SIGINT ignored, and an ignored signal
    stays ignored across exec: the child would never see the Ctrl-C this test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _pump(stream, lines: queue.Queue) -> None:
    """Hand a child's output over line by line, then "" at its end (a silent child cannot hang the test)."""
    for line in stream:
        lines.put(line)
    lines.put("")


def _wait_for_line(lines: queue.Queue, text: str, timeout: float) -> str:
    """The first line that holds ``text``; fails with everything seen when the output ends or time is up."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=remaining)
        except queue.Empty:
            break
        if text in line:
            return line
        if not line:
            break
        seen.append(line)
    pytest.fail(f"no line with {text!r}; the output was:\n{''.join(seen)}")


def test_ctrl_c_stops_cleanly(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessite.cli", "serve", str(EXAMPLE), "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        preexec_fn=_sigint_default,  # only signal.signal runs between fork and exec
    )
    lines: queue.Queue[str] = queue.Queue()
    pump = threading.Thread(target=_pump, args=(proc.stderr, lines), daemon=True)
    pump.start()
    try:
        line = _wait_for_line(lines, "serving", timeout=30)
        site = Path(line.split("serving ", 1)[1].split(" at ", 1)[0])
        assert (site / "index.html").is_file()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        assert not site.exists(), "the temporary preview site is removed"
    finally:  # never leave a server running, whatever failed above
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        pump.join(timeout=10)
        proc.stderr.close()


def test_a_page_on_another_origin_reads_nothing(live, page, tmp_path):
    """Issue 30 (XSSI): the search and insights data are JSONP scripts; a page on another origin
    that includes them with <script src> must get nothing. The attacker's page is served from
    localhost on another port (another site than 127.0.0.1) by a plain static server."""
    _, state, port = live
    data = sorted(p.relative_to(state.site).as_posix() for p in state.site.rglob("*.js") if "static/" not in str(p))
    assert any(u.startswith("search/") for u in data)
    tags = "".join(
        f'<script src="http://127.0.0.1:{port}/{u}" onload="loaded.push(\'{u}\')" '
        f"onerror=\"failed.push('{u}')\"></script>"
        for u in data
    )
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "own.js").write_text("ownLoaded = true;")
    (evil / "index.html").write_text(
        "<!doctype html><script>var loaded = [], failed = [], stolen = [], ownLoaded = false;"
        "var sessiteSearch = new Proxy({}, {get: () => (...a) => stolen.push(a)});</script>"
        f'<script src="own.js"></script>{tags}'
    )
    attacker = subprocess.Popen(
        [sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(evil)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = attacker.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N ..."
        evil_port = int(line.split(" port ")[1].split()[0])
        page.goto(f"http://localhost:{evil_port}/index.html")
        page.wait_for_function(f"loaded.length + failed.length === {len(data)}", timeout=15000)
        assert page.evaluate("ownLoaded") is True  # the page itself works: scripts run
        assert page.evaluate("loaded") == [] and page.evaluate("stolen") == []
        assert sorted(page.evaluate("failed")) == data
    finally:
        attacker.terminate()
        attacker.wait(timeout=10)


def test_folds_the_reader_opened_stay_open_across_a_reload(live, page):
    """A session being written reloads its page at every line: what the reader opened stays open."""
    archive, state, port = live
    url = f"http://127.0.0.1:{port}/sessions/aics-01927a3e-5b1c-7def-8123-456789abcdef.html"
    page.goto(url)
    page.wait_for_load_state("load")
    folds = page.locator("ol.timeline details")
    assert folds.count() >= 2
    folds.nth(1).evaluate("d => { d.open = true; }")
    long_output = page.locator("[data-collapsible]").first
    long_output.evaluate(
        "el => { let d = el.closest('details'); while (d) { d.open = true; d = d.parentElement.closest('details'); } }"
    )
    long_output.locator(":scope > [data-expand]").click()
    opened = page.evaluate("() => [...document.querySelectorAll('details')].map((d) => d.open)")
    page.evaluate("() => { window.__before_reload = true; }")
    doc = json.loads(AICS.read_text())
    doc["log"]["sessions"][0]["messages"].append(
        {"id": "m7", "timestamp": "2026-10-14T09:42:00Z", "role": "user", "content": [{"type": "text", "text": "More"}]}
    )
    with page.expect_navigation(timeout=15000):
        (archive / AICS.name).write_text(json.dumps(doc))
    page.wait_for_load_state("load")
    assert page.evaluate("() => window.__before_reload") is None, "the page reloaded"
    now = page.evaluate("() => [...document.querySelectorAll('details')].map((d) => d.open)")
    assert now[: len(opened)] == opened
    assert "collapsed" not in (page.locator("[data-collapsible]").first.get_attribute("class") or "")
