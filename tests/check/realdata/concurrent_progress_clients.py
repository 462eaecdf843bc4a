"""Three official SDK clients (legacy handshake) of one stateful server (tests/servers/sweep_http.py,
SSE answers) call `chatty` with a progress callback at the same moment, then again: each session
numbers its ids, and the SDK's progress tokens, from 1, so the same tokens are active in three
sessions at once. Through `mcptape record --http-upstream`; recorded into
sweep-http-concurrent-progress.tape: `python concurrent_progress_clients.py URL`."""

from __future__ import annotations

import sys

import anyio
from mcp import Client

URL = sys.argv[1]


async def report(progress: float, total: float | None, message: str | None) -> None:
    return None


async def one(i: int, start: anyio.Event) -> None:
    async with Client(URL, mode="legacy") as c:
        await start.wait()
        await c.call_tool("chatty", {"n": 4 + i, "delay": 0.05}, progress_callback=report)
        await c.call_tool("chatty", {"n": 2, "delay": 0.05}, progress_callback=report)


async def main() -> None:
    start = anyio.Event()
    async with anyio.create_task_group() as tg:
        for i in range(3):
            tg.start_soon(one, i, start)
        await anyio.sleep(1.0)
        start.set()


anyio.run(main)
