#!/usr/bin/env python3
"""Incremental-build and preview latency on any Claude Code archive.

    python benchmarks/serve_bench.py ARCHIVE [--runs 3]

Copies ARCHIVE to a temporary folder, then measures, in one process as
``sessite serve`` runs them:
  1. the cold build, and a no-op rebuild (nothing changed);
  2. the time from appending one message to one session file until the
     preview server's reload event names that session's page (the watcher,
     the incremental build and the publish included), and checks the page
     then holds the new text.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sessite.config import SiteConfig
from sessite.pipeline import build
from sessite.serve.server import PreviewState, make_server, watch_loop
from sessite.site.urls import session_url


def wait_for_page(port: int, url: str, fire, timeout: float = 60) -> float:
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    # the preview answers only its own origin: the Host a browser on it would send
    sock.sendall(b"GET /__sessite__/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
    buffer = b""
    while b"retry:" not in buffer:
        chunk = sock.recv(4096)
        if not chunk:
            raise RuntimeError(f"the event stream was refused: {buffer[:200]!r}")
        buffer += chunk
    buffer = b""
    start = time.perf_counter()
    fire()
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise RuntimeError("event stream closed")
        buffer += chunk
        for part in buffer.split(b"\n\n")[:-1]:
            if part.startswith(b"event: reload") and url.encode() in part:
                sock.close()
                return time.perf_counter() - start
        if time.perf_counter() - start > timeout:
            raise RuntimeError("no reload event")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("archive", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sessite-serve-bench-") as tmp:
        archive = Path(tmp) / "archive"
        shutil.copytree(args.archive, archive)
        config = SiteConfig(archive=archive, output=Path(tmp) / "site", cache_dir=Path(tmp) / "cache", progress=False)
        t = time.perf_counter()
        report = build(config)
        print(f"cold build: {time.perf_counter() - t:.2f}s ({report.summary_line()})")
        noop = []
        for _ in range(args.runs):
            t = time.perf_counter()
            again = build(config)
            noop.append(time.perf_counter() - t)
            assert not again.changed
        print(f"no-op rebuild: median {statistics.median(noop):.3f}s over {args.runs} runs (in-process)")

        state = PreviewState(config)
        state.rebuild(log=lambda line: None)
        server = make_server(state, port=0)
        stop = threading.Event()
        threading.Thread(target=server.serve_forever, daemon=True).start()
        threading.Thread(target=watch_loop, args=(state, stop, lambda line: None), daemon=True).start()
        time.sleep(0.5)
        port = server.server_address[1]
        target = max(archive.rglob("*.jsonl"), key=lambda p: p.stat().st_size if "subagents" not in p.parts else 0)
        entry = next(e for e in state.catalog.entries() if e.path == target)
        last = json.loads(target.read_text().splitlines()[-1])
        latencies = []
        for i in range(args.runs):
            marker = f"appended-message-{i}-{time.time_ns()}"
            record = {
                **last,
                "type": "user",
                "uuid": f"bench-{i}-{time.time_ns()}",
                "parentUuid": last.get("uuid"),
                "message": {"role": "user", "content": marker},
            }

            def append(record: dict = record) -> None:
                with open(target, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(record) + "\n")

            latency = wait_for_page(port, session_url(entry.summary.id), append)
            page = (config.output / session_url(entry.summary.id)).read_text()
            assert marker in page, "the appended message is on the page"
            latencies.append(latency)
            print(f"append → reload event for {session_url(entry.summary.id)}: {latency:.3f}s")
            while state.building or state.lock.locked():
                time.sleep(0.05)  # let the follow-up build (search, refs) finish before the next run
        print(
            f"append → visible: median {statistics.median(latencies):.3f}s "
            f"({target.stat().st_size / 1e6:.1f} MB session file)"
        )
        stop.set()
        server.shutdown()


if __name__ == "__main__":
    main()
