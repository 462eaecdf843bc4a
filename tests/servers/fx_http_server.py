"""An MCPServer whose tools make outbound HTTP(S) requests with urllib or httpx (http-sink tests)."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPServer

app = MCPServer("fx-http")


@app.tool()
def fetch_urllib(url: str, body: str | None = None) -> str:
    """Fetch `url` with urllib (POST when `body` is given); say what came back."""
    request = urllib.request.Request(
        url,
        data=None if body is None else body.encode(),
        headers={"Authorization": "Bearer s3cr3t-token", "X-Trace": "fx"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return f"status {response.status}"
    except urllib.error.HTTPError as exc:
        return f"status {exc.code}"
    except urllib.error.URLError as exc:
        return f"error {exc.reason}"


@app.tool()
def fetch_httpx(url: str) -> str:
    """Fetch `url` with httpx; say what came back."""
    try:
        response = httpx.get(url, headers={"X-Api-Key": "k3y"}, timeout=10)
        return f"status {response.status_code}"
    except httpx.HTTPError as exc:
        return f"error {type(exc).__name__}: {exc}"


if __name__ == "__main__":
    print("fx_http_server: starting", file=sys.stderr, flush=True)
    app.run("stdio")
