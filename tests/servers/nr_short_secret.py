"""A server that checks a short password and echoes it back in its answer (issue 27.9's `pw1`).

On tests/servers/lite.py (the SDK `MCPServer`'s answers without importing the SDK: 0.03 s of CPU to
start, not 0.7): its tests are about redaction and replay's `--secret`, not the server. Its
Streamable HTTP twin, nr_short_secret_http.py, is the SDK's."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPServer, ToolError

PASSWORD = "pw1"

app = MCPServer("nr-short-secret")


@app.tool()
def login(user: str, password: str) -> str:
    """Log USER in, and say which password was accepted."""
    if password != PASSWORD:
        raise ToolError("wrong password")
    return f"welcome {user}: password {password} accepted"


if __name__ == "__main__":
    app.run("stdio")
