"""tests/servers/echo_tool.py's tools (add, echo) on tests/servers/lite.py: the SDK's answers
without importing the SDK, so it starts in 0.03 s of CPU instead of 0.7. For tests whose subject is
not the SDK server (tests/servers/echo_tool.py stays the real one); same file name, so what is named
after the server (`mcptape-echo_tool-...jsonl`) is the same."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPServer

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
