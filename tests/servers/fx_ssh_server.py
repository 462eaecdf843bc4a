"""An MCPServer whose tool shells out to `ssh` through PATH (command-stub tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPServer

app = MCPServer("fx-ssh")


@app.tool()
def remote(host: str, command: str) -> str:
    """Run `ssh -o BatchMode=yes HOST COMMAND`; report its exit code and stderr."""
    proc = subprocess.run(
        ["ssh", "-o", "BatchMode=yes", host, command], capture_output=True, text=True, timeout=30
    )
    return f"exit {proc.returncode}: {proc.stderr.strip()}"


if __name__ == "__main__":
    print("fx_ssh_server: starting", file=sys.stderr, flush=True)
    app.run("stdio")
