"""Two official SDK clients (legacy handshake) of one stateful server (overlap_server.py, SSE
answers), each listing the tools and then making one call with the same request id: A calls
`wait_text` (outputSchema {result: string}), B, while A's call is in flight, `wait_number` (outputSchema
{result: integer}), answered after A's. Through `mcptape record --http-upstream`; recorded into
http-overlapping-calls.tape: `python overlap_clients.py URL`."""

from __future__ import annotations

import sys

import anyio
from mcp import Client

URL = sys.argv[1]


async def a(listed: anyio.Event) -> None:
    async with Client(URL, mode="legacy") as client:
        await client.list_tools()
        listed.set()
        await client.call_tool("wait_text", {"seconds": 0.5})


async def b(listed: anyio.Event) -> None:
    async with Client(URL, mode="legacy") as client:
        await client.list_tools()
        await listed.wait()
        await anyio.sleep(0.2)
        await client.call_tool("wait_number", {"seconds": 0.8})


async def main() -> None:
    listed = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(a, listed)
        tg.start_soon(b, listed)


anyio.run(main)
