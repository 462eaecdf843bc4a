"""A server whose `login` tool only succeeds with the real password (for replaying redacted tapes)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

PASSWORD = "hunter2-very-secret-pw"
app = MCPServer("rp-login")


@app.tool()
def login(user: str, password: str) -> str:
    """Log USER in."""
    if password != PASSWORD:
        raise ToolError("wrong password")
    return f"welcome {user}"


if __name__ == "__main__":
    app.run("stdio")
