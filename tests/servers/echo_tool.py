"""A real MCP server built with the official SDK (mcp 2.x MCPServer), used across the tests."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("mcptape-test")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


if __name__ == "__main__":
    print("echo_tool: starting (stderr is fine)", file=sys.stderr, flush=True)
    app.run("stdio")
