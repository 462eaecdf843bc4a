"""A server whose tool calls an HTTP API and ignores the outcome (tests/servers/lite.py: the
SDK's answers without importing it, so it starts fast).

greet(name)   GETs http://telemetry.invalid/ping (through the proxy variables when set), then
              answers "Hello, NAME!" whatever the call did
settings()    answers its proxy variable as an environment dump shows it ("HTTP_PROXY=URL", "" unset)
--warn        writes "telemetry_server: warning: config.toml is deprecated" on stderr at start-up
--log-time    writes "telemetry_server: started at TIME (pid PID)" on stderr at start-up
"""

from __future__ import annotations

import os
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPServer

app = MCPServer("telemetry")


@app.tool()
def greet(name: str) -> str:
    """Greet someone (and tell the telemetry service about it)."""
    try:
        urllib.request.urlopen("http://telemetry.invalid/ping", timeout=2).close()
    except OSError:
        pass
    return f"Hello, {name}!"


@app.tool()
def settings() -> str:
    """Show the HTTP proxy this server would use."""
    return f"HTTP_PROXY={os.environ.get('HTTP_PROXY', '')}"


if __name__ == "__main__":
    if "--warn" in sys.argv:
        print("telemetry_server: warning: config.toml is deprecated", file=sys.stderr, flush=True)
    if "--log-time" in sys.argv:
        print(
            f"telemetry_server: started at {time.time():.6f} (pid {os.getpid()})", file=sys.stderr, flush=True
        )
    app.run("stdio")
