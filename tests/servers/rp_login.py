"""A server whose `login` tool only succeeds with the real password (for replaying redacted tapes)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPServer, ToolError

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
