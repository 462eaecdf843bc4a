"""A tiny MCP server whose `get` tool fetches a URL with urllib (proxy and CA variables honoured), on
tests/servers/lite.py (the SDK's answers without importing it: it starts fast).

`--append TEXT` is "a new build": it appends TEXT to every URL it fetches.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPServer

APPEND = sys.argv[sys.argv.index("--append") + 1] if "--append" in sys.argv else ""
app = MCPServer("cassette-fetcher")


@app.tool()
def get(url: str) -> str:
    """Fetch `url`; answer its status and body."""
    try:
        with urllib.request.urlopen(url + APPEND, timeout=10) as response:
            return f"{response.status} {response.read().decode('utf-8', 'replace')}"
    except urllib.error.HTTPError as exc:
        return f"{exc.code} {exc.read().decode('utf-8', 'replace')}"
    except urllib.error.URLError as exc:
        return f"unreachable: {exc.reason}"


if __name__ == "__main__":
    app.run("stdio")
