"""Three official SDK clients (legacy handshake) of server-everything on Streamable HTTP (`PORT=N node
dist/index.js streamableHttp`, through `mcptape record --http-upstream`), at once: clients 0 and 2
declare elicitation, client 1 sampling, so the server lists each session other tools (it registers
trigger-elicitation-request and trigger-sampling-request per client). Each lists the tools, then calls
a long-running operation with progress, get-structured-content and its own trigger tools concurrently.
Recorded into everything-http-three-clients.tape: `python everything_http_clients.py URL`."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext

URL = sys.argv[1]


async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="decline")


async def sample(context: ClientRequestContext, params: Any) -> types.CreateMessageResult:
    text = types.TextContent(type="text", text="hi")
    return types.CreateMessageResult(role="assistant", content=text, model="m", stop_reason="endTurn")


async def report(progress: float, total: float | None, message: str | None) -> None:
    return None


async def one(i: int, start: anyio.Event) -> None:
    kw: dict[str, Any] = {"elicitation_callback": elicit} if i % 2 == 0 else {"sampling_callback": sample}
    async with Client(URL, mode="legacy", **kw) as c:
        names = [t.name for t in (await c.list_tools()).tools]
        await start.wait()
        calls: list[tuple[str, dict[str, Any]]] = [
            ("get-structured-content", {"location": "New York"}),
            ("trigger-elicitation-request", {}),
            ("trigger-sampling-request", {"prompt": "x", "maxTokens": 5}),
        ]
        async with anyio.create_task_group() as tg:
            long = {"duration": 1, "steps": 4}
            tg.start_soon(
                lambda: c.call_tool("trigger-long-running-operation", long, progress_callback=report)
            )
            for name, args in calls:
                if name in names:
                    tg.start_soon(c.call_tool, name, args)


async def main() -> None:
    start = anyio.Event()
    async with anyio.create_task_group() as tg:
        for i in range(3):
            tg.start_soon(one, i, start)
        await anyio.sleep(1.5)
        start.set()


anyio.run(main)
