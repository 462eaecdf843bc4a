"""A server that checks a short password and echoes it back in its answer (issue 27.9's `pw1`)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

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
