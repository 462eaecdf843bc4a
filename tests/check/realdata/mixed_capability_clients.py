"""Two official SDK clients (legacy handshake) of one stateful server at once: A declares elicitation
(it has a callback), B declares none; B initializes after A, then A calls `confirm` (the server asks A
for a form elicitation) while B calls `add`. Against tests/servers/sweep_http.py (stateful, SSE answers)
through `mcptape record --http-upstream`; recorded into sweep-http-two-clients-different-capabilities.tape:
`python mixed_capability_clients.py URL`."""

from __future__ import annotations

import sys

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext

URL = sys.argv[1]


async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"ok": True})


async def main() -> None:
    b_ready = anyio.Event()

    async def a() -> None:
        async with Client(URL, mode="legacy", elicitation_callback=elicit) as c:
            await b_ready.wait()
            r = await c.call_tool("confirm", {"name": "x"})
            print("A", r.content)

    async def b() -> None:
        await anyio.sleep(0.5)
        async with Client(URL, mode="legacy") as c:
            b_ready.set()
            await c.call_tool("add", {"a": 1, "b": 2})
            await anyio.sleep(0.5)

    async with anyio.create_task_group() as tg:
        tg.start_soon(a)
        tg.start_soon(b)


anyio.run(main)
