"""Helpers for the search tests: node (for the vendored lunr.js), index files on disk, a static server."""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
NODE_SCRIPT = HERE / "search_node.js"


def run_node(node: str, request: dict, timeout: float = 120) -> dict:
    proc = subprocess.run(
        [node, str(NODE_SCRIPT)], input=json.dumps(request), capture_output=True, text=True, timeout=timeout
    )
    if proc.returncode != 0:
        raise AssertionError(f"node failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def read_views(archive: Path) -> list:
    """The archive's sessions as the build sees them (redacted), in build order."""
    from sessite.analyze.redact import Redactor
    from sessite.model import Problems
    from sessite.readers import discover
    from sessite.site.view import build_view

    problems = Problems(archive)
    redactor = Redactor()
    views = []
    for claim in discover(archive, problems).claims:
        for session in claim.reader.read(claim.path, problems):
            views.append(build_view(redactor.value(session)))
    return views


def write_files(files, root: Path) -> Path:
    """Write (url, bytes) pairs under root, as the site writer would."""
    for url, data in files:
        target = root / url
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


class StaticServer:
    """A site served over HTTP on 127.0.0.1 (a thread; stops with the context)."""

    def __init__(self, root: Path) -> None:
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.httpd = _QuietServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> StaticServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        pass  # a page closed mid-download


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass
