"""``sessite mcp``: the archive as a Model Context Protocol server over stdio (the official SDK).

The server answers the handshake at once and builds the archive behind it (through
the build cache: an unchanged archive is not read again); a tool call waits for
that build. While it serves, the archive is built again in the background when a
call comes more than ``REFRESH_SECONDS`` after the last build, so new sessions
show up without a restart. The tools are ``mcp_tools``; a tool's error is a tool
result with ``is_error`` (the agent reads it), never a traceback.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from sessite import __version__
from sessite.config import SiteConfig
from sessite.pipeline import build
from sessite.serve.mcp_tools import Archive, BuildState, input_schema, make_tools
from sessite.serve.rpc import Registry, ToolError, scrub

REFRESH_SECONDS = 60.0
BUILD_WAIT_SECONDS = 600.0  # a first build of a huge archive; then a call says it is still building

INSTRUCTIONS = (
    "A read-only archive of AI coding sessions (sessite). search finds sessions by words, ranked as the "
    "site's search page; list_sessions filters by agent, project, time and tool; read_session pages "
    "through a session's events (start at an event anchor from search); problems lists what the build "
    "could not read; list_refs/get_ref link git commits, branches and issues to sessions. Secrets are "
    "redacted. Pass next_cursor back to get the next page."
)


class Builder:
    """Builds the archive in a background thread and hands each finished build to the archive."""

    def __init__(self, config: SiteConfig, archive: Archive, log: Callable[[str], None]) -> None:
        self.config = config
        self.archive = archive
        self.log = log
        self.ready = threading.Event()
        self.failed: str | None = None
        self.finished_at = 0.0
        self._running = threading.Lock()

    def start(self) -> None:
        if self._running.acquire(blocking=False):
            threading.Thread(target=self._run, name="sessite-mcp-build", daemon=True).start()

    def _run(self) -> None:
        try:
            report = build(self.config)
            if report.catalog is not None and report.published:
                self.archive.catalog.update(report.catalog, report.cache_dir)
                self.archive.use(BuildState(report.output, tuple(str(p) for p in report.problems)))
                self.failed = None
            elif not self.ready.is_set():
                self.failed = "; ".join(report.leaks[-1:]) or "nothing in the archive could be built"
            self.log(report.summary_line())
        except Exception as exc:  # noqa: BLE001 - the server answers with the reason instead
            self.failed = f"build failed: {type(exc).__name__}: {exc}"
            self.log(self.failed)
        finally:
            self.finished_at = time.monotonic()
            self._running.release()
            self.ready.set()

    def wait(self) -> None:
        """Until the first build is done; later builds run behind the calls."""
        if not self.ready.wait(BUILD_WAIT_SECONDS):
            raise ToolError(500, "the archive is still being built; call again in a minute")
        if self.failed and not self.archive.built:
            raise ToolError(500, self.failed)
        if time.monotonic() - self.finished_at > REFRESH_SECONDS:
            self.start()


def make_server(registry: Registry, builder: Builder) -> Server[Any]:
    tools = [
        types.Tool(
            name=t.name,
            description=t.description,
            input_schema=input_schema(t),
            annotations=types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False),
        )
        for t in registry.tools.values()
    ]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    def call(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        try:
            builder.wait()
            result = registry.invoke(name, arguments)
        except ToolError as exc:
            return types.CallToolResult(content=[types.TextContent(text=scrub(exc.message))], is_error=True)
        text = scrub(json.dumps(result, ensure_ascii=False, default=str))
        return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=json.loads(text))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await anyio.to_thread.run_sync(call, params.name, dict(params.arguments or {}))

    return Server(
        "sessite",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve_mcp(config: SiteConfig, log: Callable[[str], None]) -> None:
    """Serve the archive over stdin/stdout until the client closes them."""
    archive = Archive(config)
    builder = Builder(config, archive, log)
    server = make_server(make_tools(archive), builder)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            builder.start()
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
