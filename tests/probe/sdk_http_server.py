"""An official-SDK MCPServer over its streamable-http transport (uvicorn), for `probe --url`.

`python sdk_http_server.py PORT [--json] [--stateless]`: one tool, `lookup(key: string)`, declared
read-only, that reports an honest read on the executor tap (`kind: read`), so a request it runs is
seen; `--json` answers with JSON bodies instead of SSE streams; `--stateless` mints no session.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

from mcptape import tap

app = MCPServer("mcptape-probe-http", log_level="WARNING")


@app.tool(annotations=ToolAnnotations(read_only_hint=True))
def lookup(key: str, ctx: Context) -> str:
    """Look a key up (reads only)."""
    tap.executed("lookup", request_id=ctx.request_id, kind="read", key=key)
    return f"value of {key}"


if __name__ == "__main__":
    port = int(sys.argv[1])
    app.run(
        "streamable-http",
        host="127.0.0.1",
        port=port,
        json_response="--json" in sys.argv,
        stateless_http="--stateless" in sys.argv,
    )
