"""A server that mints values its client must send back (mcp 2.x MCPServer, 2026-07-28).

delete(name)         asks the user to confirm (an elicitation: `input_required` with a sealed
                     `requestState`, fresh in every process), then answers "deleted NAME"
open_notes(title)    returns a random handle: "notes-<32 hex digits>"
read_notes(handle)   refuses a handle this process did not mint; else "notes <handle>: TITLE"

--v2         delete answers "removed NAME" instead
--no-handles open_notes answers "no notes today" (mints nothing)
"""

from __future__ import annotations

import secrets
import sys
from typing import Annotated

from mcp.server.mcpserver import Elicit, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

ARGS = sys.argv[1:]
app = MCPServer("minted")
handles: dict[str, str] = {}


class Confirm(BaseModel):
    ok: bool


def ask(name: str) -> Elicit[Confirm]:
    return Elicit(f"Delete {name}?", Confirm)


@app.tool()
def delete(name: str, confirm: Annotated[Confirm, Resolve(ask)]) -> str:
    """Delete a file after the user confirms."""
    if not confirm.ok:
        return "kept"
    return f"removed {name}" if "--v2" in ARGS else f"deleted {name}"


@app.tool()
def open_notes(title: str) -> str:
    """Open a notebook: its handle."""
    if "--no-handles" in ARGS:
        return "no notes today"
    handle = f"notes-{secrets.token_hex(16)}"
    handles[handle] = title
    return handle


@app.tool()
def read_notes(handle: str) -> str:
    """Read a notebook opened by open_notes."""
    if handle not in handles:
        raise ToolError(f"unknown handle {handle}")
    return f"notes {handle}: {handles[handle]}"


if __name__ == "__main__":
    app.run("stdio")
