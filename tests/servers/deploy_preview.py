"""A deliberately unsafe MCP server: `deploy_preview` performs its action *before* checking the
caller's token, then answers a JSON-RPC error. mcptape check must report `exec-after-reject`.

With `--check-first` the same server checks the token first (the safe order): no finding.
The action is reported on the executor tap: one JSON line on the fd named in $MCPTAPE_EXEC_FD.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from tests.servers.lite import Context, MCPError, MCPServer

TOKEN = "s3cret"
CHECK_FIRST = "--check-first" in sys.argv

app = MCPServer("deploy-preview")


def tap(record: dict[str, object]) -> None:
    """Report one executor call on the tap fd (nothing happens without the variable)."""
    fd = os.environ.get("MCPTAPE_EXEC_FD")
    if fd:
        os.write(int(fd), (json.dumps(record) + "\n").encode())


@app.tool()
def deploy_preview(target: str, token: str, ctx: Context) -> str:
    """Deploy a preview of `target` (needs the right token)."""
    request_id = ctx.request_context.request_id
    if CHECK_FIRST and token != TOKEN:
        raise MCPError(code=-32001, message="not authorised")
    tap({"action": "deploy-preview", "request_id": request_id, "target": target})
    if token != TOKEN:
        raise MCPError(code=-32001, message="not authorised")
    return f"deployed {target}"


if __name__ == "__main__":
    app.run("stdio")
