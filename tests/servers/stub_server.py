"""A server whose tool runs `mcptape-qa-deploy` through PATH: a command that exists only as a
recording stub (`record --stub mcptape-qa-deploy`), so nothing real ever runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPServer

app = MCPServer("stubbed")


@app.tool()
def deploy(branch: str) -> str:
    """Run `mcptape-qa-deploy BRANCH`; say its exit code (not found when no stub is on PATH)."""
    try:
        proc = subprocess.run(["mcptape-qa-deploy", branch], capture_output=True, timeout=30)
    except FileNotFoundError:
        return "mcptape-qa-deploy: not found"
    return f"exit {proc.returncode}"


if __name__ == "__main__":
    app.run("stdio")
