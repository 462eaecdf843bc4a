"""A tool server that prints a banner on stdout before it speaks MCP (a protocol violation), for
`serve --exact`'s test: the client must meet the same banner from the recording.

On tests/servers/lite.py (the SDK `MCPServer`'s answers without importing the SDK: 0.03 s of CPU to
start, not 0.7): the subject is the banner and the SDK client that meets it, not the server."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPServer

app = MCPServer("banner-demo")


@app.tool()
def greet(name: str) -> str:
    """Say hello."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    sys.stdout.write("Server ready (banner-demo v1)\n")
    sys.stdout.flush()
    app.run()
