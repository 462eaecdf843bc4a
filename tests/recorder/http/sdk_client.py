"""The MCP SDK's client driving tests/servers/sdk_http.py: one session of each kind (the recorder's,
the exporters' and replay's tests record it)."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client


async def one_session(url: str, mode: str) -> dict[str, Any]:
    async with Client(url, mode=mode) as client:
        tools = await client.list_tools()
        added = await client.call_tool("add", {"a": 2, "b": 40})
        echoed = await client.call_tool("echo", {"text": "héllo\nwörld"})
        counted = await client.call_tool("count", {"n": 3})
        return {
            "tools": sorted(tool.name for tool in tools.tools),
            "add": added.structured_content,
            "echo": [c.model_dump() for c in echoed.content],
            "count": [c.model_dump() for c in counted.content],
        }


def drive(url: str) -> list[dict[str, Any]]:
    """A modern (2026-07-28) session, then a handshake one (session id, GET stream, DELETE)."""
    return [anyio.run(one_session, url, mode) for mode in ("auto", "legacy")]
