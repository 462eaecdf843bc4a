"""An official-SDK MCPServer on Streamable HTTP (uvicorn) whose client must send back values it
minted, for replay over HTTP: `python notes_http.py PORT [--v2] [--hang] [--json] [--run NAME]`.

greet(name)        "Hello, NAME!" (--v2: "Hi, NAME!"; --hang: never answers)
delete(name)       asks the user to confirm first (2026-07-28: an `input_required` result with a
                   sealed `requestState`, fresh in every process; the handshake revisions: an
                   `elicitation/create` request on the call's SSE stream), then "deleted NAME"
open_notes(title)  a random handle "notes-<32 hex digits>"
read_notes(handle) refuses a handle this process did not mint; else "notes HANDLE: TITLE"
count(n)           reports progress n times, then "counted to N"

It prints a line on its stdout at start-up, as HTTP servers do. `--run NAME` runs the command
NAME (`NAME --version`) at start-up and prints its exit code on stdout.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from typing import Annotated

import anyio
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

ARGS = sys.argv[2:]
app = MCPServer("notes-http", log_level="WARNING")
handles: dict[str, str] = {}


class Confirm(BaseModel):
    ok: bool


def ask(name: str) -> Elicit[Confirm]:
    return Elicit(f"Delete {name}?", Confirm)


@app.tool()
async def greet(name: str) -> str:
    """Greet someone."""
    if "--hang" in ARGS:
        await anyio.sleep_forever()
    return f"Hi, {name}!" if "--v2" in ARGS else f"Hello, {name}!"


@app.tool()
def delete(name: str, confirm: Annotated[Confirm, Resolve(ask)]) -> str:
    """Delete a file after the user confirms."""
    return f"deleted {name}" if confirm.ok else "kept"


@app.tool()
def open_notes(title: str) -> str:
    """Open a notebook: its handle."""
    handle = f"notes-{secrets.token_hex(16)}"
    handles[handle] = title
    return handle


@app.tool()
def read_notes(handle: str) -> str:
    """Read a notebook opened by open_notes."""
    if handle not in handles:
        raise ToolError(f"unknown handle {handle}")
    return f"notes {handle}: {handles[handle]}"


@app.tool()
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress on the way."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
    return f"counted to {n}"


if __name__ == "__main__":
    port = int(sys.argv[1])
    print(f"notes_http: serving on 127.0.0.1:{port}", flush=True)
    if "--run" in ARGS:
        name = ARGS[ARGS.index("--run") + 1]
        ran = subprocess.run([name, "--version"], capture_output=True, check=False)
        print(f"notes_http: {name} exited {ran.returncode}", flush=True)
    app.run("streamable-http", host="127.0.0.1", port=port, json_response="--json" in ARGS)
