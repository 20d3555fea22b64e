#!/usr/bin/env python3
"""Time ``sessite mcp`` the way an agent uses it: the SDK's client over stdio, each call twice.

    python benchmarks/mcp_bench.py ARCHIVE [-o SITE] [--query WORDS]

Starts ``sessite mcp ARCHIVE -o SITE``, then times the first call (which waits for the
server's build: a full build the first time, a no-change build through the cache after)
and each tool's first and warm call. Run it twice to see a restart on a built archive.
The 100 MB yardstick: ``python3 /work/shared/bench/gen_claude.py --out /tmp/corpus100
--target-mb 100 --projects 12 --seed 2``. Needs ``sessite[mcp]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(archive: Path, site: Path, query: str) -> None:
    sessite = Path(sys.executable).with_name("sessite")
    params = StdioServerParameters(command=str(sessite), args=["mcp", str(archive), "-o", str(site)])
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        print(f"initialize: {time.perf_counter() - started:.2f} s")

        async def call(name: str, arguments: dict) -> dict:
            times = []
            for _ in range(2):
                t = time.perf_counter()
                result = await session.call_tool(name, arguments)
                times.append(time.perf_counter() - t)
            text = result.content[0].text
            print(f"{name}: first {times[0] * 1000:.0f} ms, warm {times[1] * 1000:.0f} ms, {len(text):,} characters")
            return json.loads(text)

        listed = await call("list_sessions", {"limit": 20})
        await call("search", {"query": query})
        await call("read_session", {"id": listed["sessions"][0]["id"]})
        await call("problems", {})
        await call("list_refs", {"kind": "commit"})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("-o", "--output", type=Path, default=Path("/tmp/sessite-mcp-bench-site"))
    parser.add_argument("--query", default="retry request handler")
    args = parser.parse_args()
    asyncio.run(main(args.archive, args.output, args.query))
