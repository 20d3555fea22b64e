"""``sessite serve``: build, serve on localhost, watch, rebuild, reload the browser.

The reload script is injected into HTML responses only here, never written into
the site. A failed build keeps the last good site served and shows its problems
in an overlay; the server never dies on bad input.
"""

from __future__ import annotations

import contextlib
import json
import mimetypes
import posixpath
import shutil
import sys
import threading
import webbrowser
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from watchfiles import watch

from sessite.config import SiteConfig
from sessite.gitlinks.history import git_dir
from sessite.gitlinks.stored_sessions import forget_stored
from sessite.outputs.registry import aggregate_names
from sessite.pipeline import build
from sessite.pipeline.report import BuildReport
from sessite.render.resources import static_dir, templates_dir
from sessite.serve.agent_tools import make_registry
from sessite.serve.catalog import Catalog
from sessite.serve.guard import Guard
from sessite.serve.rpc import INTERNAL_ERROR, MAX_REQUEST_BYTES, encode_jsonrpc, handle_aicf, handle_jsonrpc
from sessite.serve.tempsite import make_temporary, remove_leftovers, stop_on_signals
from sessite.site.urls import INDEX_URL, NOT_FOUND_URL, is_single_file_url

RELOAD_SCRIPT = Path(__file__).with_name("livereload.js")
_INJECT = b'<script src="/__sessite__/reload.js" defer></script>'
MAX_CONNECTIONS = 64  # open connections at once (live-reload streams included); more are refused with 503
IDLE_SECONDS = 15.0  # a connection that sends nothing for this long is closed
_JSON_TYPES = ("application/json", "application/json-rpc")
WIDE_WARNING = (
    "warning: bound to {host}, beyond this machine: anyone who can reach this port reads every "
    "session shown (secrets redacted as in a build); the JSON-RPC answers this machine only"
)


class PreviewState:
    """What the server knows about the latest build; shared by request threads."""

    def __init__(self, config: SiteConfig) -> None:
        if config.output is None:
            raise ValueError("the preview needs an output folder")  # serve() picks a temporary one
        self.config = config
        self.site = config.output.resolve()
        self.generation = 0
        self.building = False
        self.failed: str | None = None  # why the latest build did not publish
        self.problems: list[str] = []
        self.last_changed: list[str] | None = None  # URLs the latest build changed; None: unknown (reload everything)
        self.catalog = Catalog(config.archive, config.redact, config)
        self.registry = make_registry(self.catalog)
        self.changed = threading.Condition()
        self.lock = threading.Lock()  # one build at a time

    def rebuild(self, log: Callable[[str], None] = print) -> BuildReport | None:
        """Build, publish and notify; when only some sources changed, the changed
        pages are published first and the slow aggregates (search, refs, …)
        follow in a second build, so an edit shows in the browser right away."""
        with self.lock:
            report = self._build_once(log, defer=_deferrable())
            if report is not None and report.deferred:
                self._build_once(log, defer=frozenset())
            return report

    def _build_once(self, log: Callable[[str], None], defer: frozenset[str]) -> BuildReport | None:
        self.building = True
        changed: list[str] | None = None
        report: BuildReport | None = None
        try:
            report = build(self.config, defer=defer)
        except Exception as exc:  # noqa: BLE001 - keep serving the last good site
            self.failed = f"build failed: {type(exc).__name__}: {exc}"
            log(self.failed)
        else:
            self._took(report, log)
            changed = sorted(report.changed_urls)
        finally:
            self.building = False
        with self.changed:
            self.generation += 1
            self.last_changed = changed
            self.changed.notify_all()
        return report

    def _took(self, report: BuildReport, log: Callable[[str], None]) -> None:
        """Keep what a finished build says: its problems, its catalog, one log line."""
        self.failed = None if report.published else "nothing could be built; the last good site is still served"
        if report.leaks:  # the output scan stopped the publish: its last line says so, the others where
            self.failed = report.leaks[-1]
            for line in report.leaks:
                log(line)
        self.problems = [str(p) for p in report.problems]
        if report.catalog is not None:
            self.catalog.update(report.catalog, report.cache_dir)
        deferred = f" (updating {', '.join(report.deferred)} next)" if report.deferred else ""
        log(report.summary_line() + deferred)

    def status(self) -> dict[str, Any]:
        changed = self.last_changed
        return {
            "generation": self.generation,
            "building": self.building,
            "failed": self.failed,
            "problems": self.problems[:200],
            "problem_count": len(self.problems),
            "changed": changed if changed is not None and len(changed) <= 5000 else None,
        }


def _deferrable() -> frozenset[str]:
    """Aggregates a quick first publish may leave for the follow-up build: all but the home page."""

    return frozenset(aggregate_names()) - {"index"}


class PreviewHandler(BaseHTTPRequestHandler):
    server_version = "sessite-preview"
    protocol_version = "HTTP/1.0"  # one request per connection: a slow client holds one slot, briefly
    timeout = IDLE_SECONDS
    state: PreviewState  # set on the subclass made by make_server
    server: PreviewServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet by default
        pass

    def end_headers(self) -> None:
        """Every response, errors and redirects included: no other origin may embed or sniff it."""
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def _refused(self, *, needs_same_origin: bool) -> bool:
        """Answer and return True when the request does not come from this server's own page or machine."""
        why = self.server.guard.refusal(self.headers, needs_same_origin=needs_same_origin)
        if why is None:
            return False
        status = 421 if why == "unknown Host" else 403
        self._send(status, f"Refused: {why}\n".encode(), "text/plain; charset=utf-8")
        return True

    # ---------------------------------------------------------------- GET
    def do_GET(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        if self._refused(needs_same_origin=path == "/__sessite__/events"):
            return None
        if path == "/__sessite__/reload.js":
            return self._send(200, RELOAD_SCRIPT.read_bytes(), "text/javascript; charset=utf-8")
        if path == "/__sessite__/status":
            return self._send(200, json.dumps(self.state.status()).encode(), "application/json")
        if path == "/__sessite__/events":
            return self._events()
        target = self._resolve(path)
        if target is None:
            return self._send(403, b"Forbidden: path outside the site\n", "text/plain; charset=utf-8")
        if target.is_dir():
            if not path.endswith("/"):
                return self._redirect(path + "/")
            target = target / INDEX_URL
        if not target.is_file():
            missing = self.state.site / NOT_FOUND_URL
            body = (
                missing.read_bytes()
                if missing.is_file()
                else b"<!doctype html><title>Not found</title><h1>Not found</h1>"
            )
            return self._send(404, self._inject(body), "text/html; charset=utf-8")
        body = target.read_bytes()
        ctype, encoding = mimetypes.guess_type(target.name)
        # A .gz download (the exports) is sent as the gzip file it is, as GitHub Pages does, not as its content type.
        ctype = "application/gzip" if encoding == "gzip" else ctype or "application/octet-stream"
        if ctype == "text/html":
            if not is_single_file_url(target.relative_to(self.state.site).as_posix()):
                body = self._inject(body)  # a single file is downloaded to open alone: it keeps its bytes
            ctype += "; charset=utf-8"
        elif ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
            ctype += "; charset=utf-8"
        self._send(200, body, ctype)

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def _resolve(self, url_path: str) -> Path | None:
        """The file for a URL path, or None when it would leave the site."""
        decoded = unquote(url_path)
        if "\x00" in decoded or "\\" in decoded:
            return None
        parts = [p for p in decoded.split("/") if p not in ("", ".")]
        if any(p == ".." for p in parts):
            return None
        normalized = posixpath.normpath("/" + "/".join(parts)).lstrip("/")
        target = (self.state.site / normalized).resolve() if normalized else self.state.site
        if target != self.state.site and self.state.site not in target.parents:
            return None
        return target

    def _inject(self, body: bytes) -> bytes:
        index = body.rfind(b"</head>")
        return body[:index] + _INJECT + body[index:] if index != -1 else body + _INJECT

    def _events(self) -> None:
        """Server-sent events: one 'reload' event each time a build finishes."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command == "HEAD":
            return
        seen = self.state.generation
        try:
            self.wfile.write(b"retry: 1000\n\n")
            self.wfile.flush()
            while not getattr(self.server, "closing", False):
                with self.state.changed:
                    self.state.changed.wait_for(partial(self._news_since, seen), timeout=15)
                if self.state.generation != seen:
                    seen = self.state.generation
                    self.wfile.write(f"event: reload\ndata: {json.dumps(self.state.status())}\n\n".encode())
                else:
                    self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            return

    def _news_since(self, generation: int) -> bool:
        """A build finished after ``generation``, or the server is closing."""
        return self.state.generation != generation or getattr(self.server, "closing", False)

    # ---------------------------------------------------------------- POST
    def do_POST(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        if self._refused(needs_same_origin=True):
            return None
        if path not in ("/aip/v1/aicf", "/aip/v1/rpc"):
            return self._send(404, b"Not found\n", "text/plain; charset=utf-8")
        remote = self.server.guard.local_only(str(self.client_address[0]))
        if remote is not None:
            return self._send(403, f"Refused: {remote}\n".encode(), "text/plain; charset=utf-8")
        ctype = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if path == "/aip/v1/rpc" and ctype not in _JSON_TYPES:
            error = {"code": -32600, "message": "Invalid Request: Content-Type must be application/json"}
            return self._send(415, encode_jsonrpc({"jsonrpc": "2.0", "error": error, "id": None}), "application/json")
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if length < 0 or length > MAX_REQUEST_BYTES:
            if path == "/aip/v1/aicf":
                return self._send(
                    413 if length > 0 else 400,
                    b"ERR|400|Missing or too large Content-Length",
                    "text/plain; charset=utf-8",
                )
            return self._send(
                400,
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "error": {"code": -32600, "message": "Invalid Request: missing or too large body"},
                        "id": None,
                    }
                ).encode(),
                "application/json",
            )
        body = self.rfile.read(length) if length else b""
        try:
            if path == "/aip/v1/aicf":
                answer = handle_aicf(self.state.registry, body).encode("utf-8")
                return self._send(200, answer, "text/plain; charset=utf-8")
            response = handle_jsonrpc(self.state.registry, body)
        except Exception as exc:  # noqa: BLE001 - a client gets a protocol error, never a traceback
            self.server.note(f"rpc: {type(exc).__name__}: {exc}")
            if path == "/aip/v1/aicf":
                return self._send(500, b"ERR|500|Internal error", "text/plain; charset=utf-8")
            response = {"jsonrpc": "2.0", "error": {"code": INTERNAL_ERROR, "message": "Internal error"}, "id": None}
        if response is None:
            return self._send(204, b"", "application/json")
        self._send(200, encode_jsonrpc(response), "application/json")

    # ---------------------------------------------------------------- helpers
    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.MOVED_PERMANENTLY)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


class PreviewServer(ThreadingHTTPServer):
    """A threading server with a bounded number of connections, each with an idle timeout."""

    daemon_threads = True
    closing = False
    request_queue_size = 128  # the listen backlog (socketserver's default is 5)
    guard: Guard

    def server_bind(self) -> None:
        super().server_bind()
        host, port = self.server_address[:2]
        self.guard = Guard.for_address(str(host), int(port))
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.log: Callable[[str], None] = lambda line: None

    def note(self, line: str) -> None:
        """One line in the server's log for a request that failed; never a traceback."""
        self.log(line)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that broke (timeout, reset, bad bytes) costs only itself; no traceback."""
        kind, exc = sys.exc_info()[:2]
        if kind is not None and not issubclass(kind, OSError):
            self.note(f"request from {client_address[0]} failed: {kind.__name__}: {exc}")

    def shutdown(self) -> None:
        self.closing = True
        with self.state.changed:
            self.state.changed.notify_all()
        super().shutdown()

    @property
    def state(self) -> PreviewState:
        return self.RequestHandlerClass.state  # type: ignore[attr-defined]


def make_server(
    state: PreviewState, host: str = "127.0.0.1", port: int = 8000, log: Callable[[str], None] | None = None
) -> PreviewServer:
    handler = type("BoundPreviewHandler", (PreviewHandler,), {"state": state})
    server = PreviewServer((host, port), handler)
    if log is not None:
        server.log = log
    return server


def watch_paths(config: SiteConfig) -> list[Path]:
    paths = [config.archive, *config.archives, *config.template_dirs, *config.static_dirs]
    # Editing sessite's own templates (from a checkout) re-renders too.
    paths += [templates_dir(), static_dir()]
    paths += repo_git_dirs(config)
    return [p for p in dict.fromkeys(p.resolve() for p in paths) if p.exists()]


def repo_git_dirs(config: SiteConfig) -> list[Path]:
    """The git folders of ``--repo``: a new commit, branch or note there rebuilds (not the work tree)."""
    return [d.resolve() for d in map(git_dir, config.repos) if d is not None]


_REF_FILES = ("refs", "packed-refs", "HEAD")  # what a commit, a rebase or `git notes add` changes for good


def ref_change(git_dirs: list[Path], path: Path) -> bool | None:
    """Inside a repository's git folder, only its refs count (not objects, the index or lock files);
    None for a path outside every git folder."""
    for folder in git_dirs:
        if path == folder or folder in path.parents:
            parts = path.relative_to(folder).parts
            return bool(parts) and parts[0] in _REF_FILES and not path.name.endswith(".lock")
    return None


def watch_loop(
    state: PreviewState, stop: threading.Event, log: Callable[[str], None] = print, debounce_ms: int = 50
) -> None:
    """Rebuild whenever a watched file changes (never the output or its staging)."""

    site = state.site
    parent = site.parent
    git_dirs = repo_git_dirs(state.config)

    def keep(change: Any, path: str) -> bool:
        p = Path(path)
        if p == site or site in p.parents:
            return False
        in_repo = ref_change(git_dirs, p)
        if in_repo is not None:
            return in_repo
        if p.parent == parent and p.name.startswith(f".{site.name}."):
            return False  # staging / old folders of our own writes
        return not any(part in (".git", "__pycache__") for part in p.parts)

    for _changes in watch(
        *watch_paths(state.config),
        watch_filter=keep,
        stop_event=stop,
        debounce=debounce_ms,
        step=20,
        rust_timeout=500,
        yield_on_timeout=False,
    ):
        if stop.is_set():
            break
        state.rebuild(log)


def serve(
    config: SiteConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    log: Callable[[str], None] = print,
    open_browser: bool = False,
) -> None:
    """Build, serve and watch until interrupted (Ctrl-C, SIGTERM or SIGHUP)."""
    temporary = None
    if config.output is None or str(config.output) == "":
        for folder in remove_leftovers():
            log(f"removed {folder}, left by a preview that was killed")
        temporary = make_temporary()
        config = replace(config, output=temporary / "site")
    with stop_on_signals():
        _serve(config, temporary, host, port, log, open_browser)


def _serve(
    config: SiteConfig,
    temporary: Path | None,
    host: str,
    port: int,
    log: Callable[[str], None],
    open_browser: bool,
) -> None:
    state = PreviewState(config)
    server = None
    stop = threading.Event()
    watcher = None
    try:
        state.rebuild(log)
        server = make_server(state, host, port, log)
        watcher = threading.Thread(target=watch_loop, args=(state, stop, log), daemon=True, name="sessite-watch")
        watcher.start()
        url = f"http://{host}:{server.server_address[1]}/"
        log(f"serving {config.output} at {url} (Ctrl-C to stop)")
        if server.guard.any_address:
            log(WIDE_WARNING.format(host=host or "every address"))
        if open_browser:
            webbrowser.open(url)
        server.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        log("stopping")
    finally:
        stop.set()
        if server is not None:
            server.closing = True
            with state.changed:
                state.changed.notify_all()
            server.server_close()
        if watcher is not None:
            watcher.join(timeout=2)
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
            for repo in config.repos:  # the sessions copied out of it for this site only
                forget_stored(config.output or temporary, repo)
