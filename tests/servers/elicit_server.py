"""A tool that asks the user's name (elicitation) before it answers: in the 2026-07-28 revision the
ask is an MRTR round (an `input_required` result, then the client's retry with `requestState`)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Elicit, MCPServer, Resolve
from pydantic import BaseModel

app = MCPServer("elicit-demo")


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@app.tool()
async def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Ask the user's name, then greet them."""
    return f"Hello, {who.name}!"


if __name__ == "__main__":
    app.run()
