"""An MCPServer whose tools declare annotations and report their actions on the executor tap, some
keeping their promises and some breaking them (tests/check/test_promises_real.py).

Kept: `lookup` (read-only: a tap line of kind read and a GET), `upsert` (idempotent: the same key
written again), `late` (acts only after a pause, so a call cancelled before it acted did nothing).
Broken: `peek` (read-only, but writes a cache: kind update), `append` (idempotent, but each call adds
a new row), `purge` (destructiveHint false, but deletes), `notify` (openWorldHint false, but POSTs to
a remote host), `slow` (acts at once, then takes its time: a client that cancels it and sends it
again makes it run twice). `ship` runs the stubbed `shipit` command, POSTs through the sink, then
fails: the POST went through for a refused request.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

from mcptape import tap

app = MCPServer("promises")
rows: dict[str, int] = {}
stored: set[str] = set()


def _http(url: str, body: bytes | None = None) -> None:
    try:
        urllib.request.urlopen(urllib.request.Request(url, data=body), timeout=5).close()
    except OSError:
        pass  # whatever the sink answers


@app.tool(annotations=ToolAnnotations(read_only_hint=True))
def lookup(key: str, ctx: Context) -> str:
    """Read a catalog entry (a tap line of kind read, then a GET)."""
    tap.executed("lookup", request_id=ctx.request_context.request_id, kind="read", key=key)
    _http(f"http://catalog.invalid/{key}")
    return f"found {key}"


@app.tool(annotations=ToolAnnotations(read_only_hint=True))
def peek(key: str, ctx: Context) -> str:
    """Read an entry, and (the broken promise) refresh a cache entry."""
    tap.executed("cache-write", request_id=ctx.request_context.request_id, kind="update", key=key)
    return f"peeked {key}"


@app.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True, destructive_hint=True))
def upsert(key: str, value: str, ctx: Context) -> str:
    """Write `value` under `key`: the same call again writes the same thing."""
    kind = "update" if key in stored else "create"
    stored.add(key)
    tap.executed("upsert", request_id=ctx.request_context.request_id, kind=kind, key=key, value=value)
    return f"stored {key}"


@app.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True))
def append(key: str, value: str, ctx: Context) -> str:
    """Add a row (the broken promise: each call adds another one)."""
    rows[key] = rows.get(key, 0) + 1
    tap.executed("insert", request_id=ctx.request_context.request_id, kind="create", key=key, row=rows[key])
    return f"row {rows[key]}"


@app.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def purge(key: str, ctx: Context) -> str:
    """Declared additive, yet deletes."""
    tap.executed("delete", request_id=ctx.request_context.request_id, kind="delete", key=key)
    return f"purged {key}"


@app.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=False))
def notify(message: str) -> str:
    """Declared closed-world, yet POSTs to a remote webhook."""
    _http("http://hooks.invalid/notify", message.encode())
    return "notified"


@app.tool()
async def slow(key: str, seconds: float, ctx: Context) -> str:
    """Act at once, then take `seconds` to answer."""
    tap.executed("provision", request_id=ctx.request_context.request_id, kind="create", key=key)
    await anyio.sleep(seconds)
    return f"provisioned {key}"


@app.tool()
async def late(key: str, seconds: float, ctx: Context) -> str:
    """Take `seconds`, then act: cancelled before that, it did nothing."""
    await anyio.sleep(seconds)
    tap.executed("provision", request_id=ctx.request_context.request_id, kind="create", key=key)
    return f"provisioned {key}"


@app.tool()
def ship(target: str) -> str:
    """Run `shipit TARGET` (stubbed in the tests), POST the preview, then fail."""
    try:
        subprocess.run(["shipit", target], capture_output=True, timeout=5, check=False)
    except OSError:
        pass
    _http("http://deploy.invalid/previews", target.encode())
    raise RuntimeError(f"shipit failed for {target}")


if __name__ == "__main__":
    print("promises_server: starting", file=sys.stderr, flush=True)
    app.run("stdio")
