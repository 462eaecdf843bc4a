"""A tool server whose one tool takes a moment to answer, for the client probe's tests: calls
made concurrently by the SDK client are then two requests in flight in the recording (what the pair
form of concatenated-responses and swapped-responses needs)."""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer

app = MCPServer("slow-demo")


@app.tool()
async def echo(word: str) -> str:
    """Give the word back, a little later."""
    await anyio.sleep(0.4)
    return word


if __name__ == "__main__":
    app.run()
