"""A server built with the official SDK's MCPServer (stdio), one read-only tool, for the baseline
tests: `--banner` prints a banner on stdout at start-up (a new deviation on top of the SDK's own)."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

app = MCPServer("mcptape-probe-sdk")


@app.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


if __name__ == "__main__":
    if "--banner" in sys.argv[1:]:
        print("mcptape-probe-sdk server ready", flush=True)
    app.run("stdio")
