"""`nr_short_secret.py` over Streamable HTTP (issue 27.9's `pw1`, replayed over HTTP): checks a short
password and echoes it back in its answer. `python nr_short_secret_http.py PORT`."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

PASSWORD = "pw1"
app = MCPServer("nr-short-secret-http", log_level="WARNING")


@app.tool()
def login(user: str, password: str) -> str:
    """Log USER in, and say which password was accepted."""
    if password != PASSWORD:
        raise ToolError("wrong password")
    return f"welcome {user}: password {password} accepted"


if __name__ == "__main__":
    app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
