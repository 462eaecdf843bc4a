"""A server built with the official SDK's MCPServer (2.x), speaking 2026-07-28 on stdio.

`deploy(branch)` asks the user to confirm through MRTR (a `Resolve(...)` elicitation: an
`InputRequiredResult` with a sealed `requestState`), then logs and reports progress; `slow(seconds)`
sleeps (a call to cancel); `forecast(days)` is read-only and refuses more than 7 days.

`--declare-logging`: declare the `logging` capability, which the SDK 2.3.0 does only when a
`logging/setLevel` handler is registered (a method 2026-07-28 removed), while `ctx.info()` emits
`notifications/message` either way: "Servers that emit log message notifications MUST declare the
`logging` capability" (server/utilities/logging). Without the flag, the stock server breaks it.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp_types import EmptyResult, SetLevelRequestParams, ToolAnnotations
from pydantic import BaseModel, Field

app = MCPServer("verdicts-modern")


class Confirm(BaseModel):
    ok: bool


def ask(branch: str) -> Elicit[Confirm]:
    return Elicit(f"Deploy {branch}?", Confirm)


@app.tool()
async def deploy(branch: str, confirm: Annotated[Confirm, Resolve(ask)], ctx: Context) -> str:
    """Deploy a branch once the user confirms."""
    if not confirm.ok:
        return "not deployed"
    await ctx.info(f"deploying {branch}")
    for step in range(1, 4):
        await ctx.report_progress(step, 3, f"step {step}")
    return f"deployed {branch}"


@app.tool()
async def slow(seconds: float) -> str:
    """Sleep (a call a client cancels)."""
    await anyio.sleep(seconds)
    return "done"


@app.tool(annotations=ToolAnnotations(read_only_hint=True))
async def forecast(days: Annotated[int, Field(ge=1, le=7)]) -> str:
    """The weather for the next days (at most 7)."""
    return f"sunny for {days} days"


async def _set_level(ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
    return EmptyResult()


if __name__ == "__main__":
    if "--declare-logging" in sys.argv[1:]:
        app._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, _set_level)
    app.run()
