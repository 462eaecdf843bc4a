"""A server whose tools show its own environment, as server-everything's get-env does (replay tests).

env_names   the names of its variables, but mcptape's own (MCPTAPE_*, the HTTP sink's *_PROXY and
            NODE_USE_ENV_PROXY), which a replay always sets to its own sink and tap
getenv      `NAME=value`, or `NAME=(unset)`
nonce       a new random token each call (what `replay --learn` learns to ignore)
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPServer

app = MCPServer("rp-env")


PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "NODE_USE_ENV_PROXY")


def _own(name: str) -> bool:
    return name.startswith("MCPTAPE_") or name.upper() in PROXIES


@app.tool()
def env_names() -> str:
    """The names of this server's environment variables, comma-separated."""
    return ",".join(sorted(n for n in os.environ if not _own(n)))


@app.tool()
def getenv(name: str) -> str:
    """One variable as NAME=value."""
    return f"{name}={os.environ.get(name, '(unset)')}"


@app.tool()
def nonce() -> str:
    """A random token, new each call."""
    return f"nonce {uuid.uuid4()}"


if __name__ == "__main__":
    app.run("stdio")
