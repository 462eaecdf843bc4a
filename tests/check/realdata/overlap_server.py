"""An official-SDK MCPServer (mcp 2.3.0) on Streamable HTTP, stateful: `wait_text(seconds)` and
`wait_number(seconds)` sleep, then answer a string and an integer (structured output `{"result": ...}`
under each tool's own outputSchema). `python overlap_server.py PORT`."""

from __future__ import annotations

import sys

import anyio
from mcp.server.mcpserver import MCPServer

app = MCPServer("overlap", log_level="WARNING")


@app.tool()
async def wait_text(seconds: float) -> str:
    """Sleep, then answer a text."""
    await anyio.sleep(seconds)
    return "waited"


@app.tool()
async def wait_number(seconds: float) -> int:
    """Sleep, then answer a number."""
    await anyio.sleep(seconds)
    return 42


if __name__ == "__main__":
    app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
