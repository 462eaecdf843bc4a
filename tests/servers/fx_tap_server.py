"""An MCPServer that reports its actions on the executor tap with `mcptape.tap` (side-effect tests)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from mcptape import tap
from tests.servers.lite import Context, MCPServer

app = MCPServer("fx-tap")


@app.tool()
def deploy(target: str, ctx: Context) -> str:
    """Report three actions on the tap, in order, then answer."""
    rid = ctx.request_context.request_id
    for step in ("resolve", "upload", "activate"):
        tap.executed(step, request_id=rid, target=target)
    return f"deployed {target}"


@app.tool()
def raw_tap(hex_bytes: str) -> str:
    """Write arbitrary bytes (given in hex) to the tap fd, bypassing the helper."""
    os.write(int(os.environ["MCPTAPE_EXEC_FD"]), bytes.fromhex(hex_bytes))
    return "written"


@app.tool()
def flood(megabytes: int) -> str:
    """Write `megabytes` MiB of tap lines as fast as possible, then answer."""
    line = b'{"action":"flood","pad":"' + b"x" * 1000 + b'"}\n'
    block = line * 1024
    fd = int(os.environ["MCPTAPE_EXEC_FD"])
    total = 0
    while total < megabytes << 20:
        view = memoryview(block)
        while view:
            view = view[os.write(fd, view) :]
        total += len(block)
    return f"flooded {total}"


if __name__ == "__main__":
    print("fx_tap_server: starting", file=sys.stderr, flush=True)
    app.run("stdio")
