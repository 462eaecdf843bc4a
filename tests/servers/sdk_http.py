"""An official-SDK MCPServer run with its streamable-http transport (uvicorn), on the port given.

`python sdk_http.py PORT [--json] [--off-by-one]`: tools `add`, `echo` and `count` (which reports
progress before answering, so its answer comes on an SSE stream); `--json` answers with JSON bodies
instead; `--off-by-one` is a build whose `add` is wrong (for replay's diff).
It prints a line on its stdout at start-up, as HTTP servers do: harmless to the protocol.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("mcptape-http-test", log_level="WARNING")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b + (1 if "--off-by-one" in sys.argv else 0)


@app.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@app.tool()
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress on the way."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
    return f"counted to {n}"


if __name__ == "__main__":
    port = int(sys.argv[1])
    print(f"sdk_http: serving on 127.0.0.1:{port}", flush=True)
    app.run("streamable-http", host="127.0.0.1", port=port, json_response="--json" in sys.argv)
