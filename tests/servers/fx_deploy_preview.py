"""The seed's deploy-preview story: a tool that starts its HTTP call before checking authorisation.

Run with `--fixed` for the corrected order (authorisation first). The HTTP call goes to a host
that does not exist; under `mcptape record --http-sink` it is recorded and answered 200 (empty).
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import MCPError, MCPServer

FIXED = "--fixed" in sys.argv
app = MCPServer("fx-deploy-preview")


def authorised(token: str) -> bool:
    return token == "valid-token"


def start_deploy(branch: str) -> str:
    request = urllib.request.Request(
        "http://deploy.invalid/previews",
        data=json.dumps({"branch": branch}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return f"deploy service answered {response.status}"
    except urllib.error.HTTPError as exc:
        return f"deploy service answered {exc.code}"
    except urllib.error.URLError as exc:
        return f"deploy service unreachable: {exc.reason}"


@app.tool()
def deploy_preview(branch: str, token: str) -> str:
    """Deploy a preview of `branch` (needs a valid token)."""
    if FIXED and not authorised(token):
        raise MCPError(code=-32001, message="unauthorised: invalid token")
    outcome = start_deploy(branch)  # the bug: the side effect starts before the check below
    if not authorised(token):
        raise MCPError(code=-32001, message="unauthorised: invalid token")
    return outcome


if __name__ == "__main__":
    app.run("stdio")
