"""Two builds of one official-SDK MCPServer over streamable-http (uvicorn), for the diff viewer.

`python build_http.py PORT old|new`. Both serve the tools `add` and `count` (which reports progress,
so its answer comes on an SSE stream) with sessions (stateful). The `new` build differs from the
`old` one where HTTP differs, not only where messages do:

* the answer that opens a session carries `x-build: 2` instead of `x-build: 1`;
* a DELETE of the session is refused with 405 Method Not Allowed (the spec lets a server do so),
  with a header whose bytes a terminal would act on (`x-note`: a C1 CSI byte, a right-to-left
  override): what the viewer shows of it must be escaped;
* `add` is off by one (a message difference, under its exchange).
"""

from __future__ import annotations

import sys
from typing import Any

import uvicorn
from mcp.server.mcpserver import Context, MCPServer

PORT = int(sys.argv[1])
NEW = sys.argv[2] == "new"
NOTE = b"\x9b2J\xe2\x80\xae kept"  # CSI 2J (clear the screen) as one C1 byte, then U+202E

app = MCPServer("mcptape-build-test", log_level="WARNING")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b + (1 if NEW else 0)


@app.tool()
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress on the way."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
    return f"counted to {n}"


Scope = dict[str, Any]


def build(inner: Any) -> Any:
    """The ASGI app with the build's HTTP differences."""

    async def wrapped(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await inner(scope, receive, send)
            return
        if NEW and scope["method"] == "DELETE":
            headers = [(b"allow", b"GET, POST"), (b"x-note", NOTE)]
            await send({"type": "http.response.start", "status": 405, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        opening = not any(name == b"mcp-session-id" for name, _ in scope["headers"])

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and opening and scope["method"] == "POST":
                message = {**message, "headers": [*message["headers"], (b"x-build", b"2" if NEW else b"1")]}
            await send(message)

        await inner(scope, receive, sending)

    return wrapped


if __name__ == "__main__":
    print(f"build_http: serving on 127.0.0.1:{PORT}", flush=True)
    uvicorn.run(build(app.streamable_http_app()), host="127.0.0.1", port=PORT, log_level="warning")
