"""A tool server that prints a banner on stdout before it speaks MCP (a protocol violation), for
`serve --exact`'s test: the client must meet the same banner from the recording."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("banner-demo")


@app.tool()
def greet(name: str) -> str:
    """Say hello."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    sys.stdout.write("Server ready (banner-demo v1)\n")
    sys.stdout.flush()
    app.run()
