"""Three official SDK clients (legacy handshake) at once, then two one after another, against
tests/servers/sweep_http.py run stateless (`python sweep_http.py PORT --stateless --json`, which
assigns no Mcp-Session-Id), through `mcptape record --http-upstream`: each numbers its own ids.
Recorded into sweep-http-stateless-concurrent-clients.tape: `python stateless_clients.py URL legacy`."""

import sys

import anyio
from mcp import Client

URL = sys.argv[1]
MODE = sys.argv[2] if len(sys.argv) > 2 else "legacy"


async def one(i: int) -> None:
    async with Client(URL, mode=MODE) as c:
        await c.list_tools()
        for k in range(3):
            await c.call_tool("add", {"a": i, "b": k})
            await anyio.sleep(0.05)
        await c.call_tool("weather", {"city": "Oslo"})


async def main() -> None:
    async with anyio.create_task_group() as tg:
        for i in range(3):
            tg.start_soon(one, i)
    # then one after another
    for i in range(2):
        await one(10 + i)


anyio.run(main)
