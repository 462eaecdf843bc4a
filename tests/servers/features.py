"""An SDK `MCPServer` (mcp 2.3.0) exercising the features a real client uses beside tools.

Tools: `add(a, b)`; `pick(color)` (an enum); `weather(city)` (structured output, an outputSchema);
`explode()` (raises); `count(n)` (progress and a log line per step); `slow(seconds)` (a call to
cancel); `touch(name)` (publishes `notes://NAME` as updated); `grow()` (adds `shrink`: the tool
list changed); `stamp(item)` (a time of day: noise); `shout(text)` (a log line on stderr).
Resources: `config://app` and the template `notes://{name}`, `resources/list` paginated two at a
time; prompts: `review(code, language)`; `completion/complete` for the prompt's `language` and the
template's `name`.
`logging/setLevel` and `resources/subscribe`/`unsubscribe` are registered, so the `logging` and
`resources.subscribe` capabilities are declared (the handshake-era methods a legacy client uses).
"""

from __future__ import annotations

import os
import sys
from datetime import datetime
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    Completion,
    EmptyResult,
    ListResourcesResult,
    PaginatedRequestParams,
    PromptReference,
    Resource,
    SetLevelRequestParams,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
)
from pydantic import BaseModel, Field

app = MCPServer("realtraffic-features")
NOTES = {"alpha": "first note", "beta": "second note", "gamma": "third note"}


class Weather(BaseModel):
    city: str
    celsius: float
    sky: str


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def pick(color: Literal["red", "green", "blue"]) -> str:
    """Pick a colour."""
    return f"picked {color}"


@app.tool()
def weather(city: str) -> Weather:
    """Today's weather in a city, as structured output."""
    return Weather(city=city, celsius=21.5, sky="clear")


@app.tool()
def explode() -> str:
    """Always fails."""
    raise ValueError("the reactor is offline")


@app.tool()
async def count(n: Annotated[int, Field(ge=1, le=10)], ctx: Context) -> str:
    """Count to n, reporting progress and logging each step."""
    for step in range(1, n + 1):
        await ctx.info(f"step {step}")
        await ctx.report_progress(step, n, f"step {step} of {n}")
    return f"counted to {n}"


@app.tool()
async def slow(seconds: float) -> str:
    """Sleep (a call a client cancels)."""
    await anyio.sleep(seconds)
    return "done"


@app.tool()
async def touch(name: str, ctx: Context) -> str:
    """Mark a note as updated."""
    await ctx.notify_resource_updated(f"notes://{name}")
    if ctx.request_context.session.protocol_version < "2026-07-28":  # a resources/subscribe client
        await ctx.request_context.session.send_resource_updated(f"notes://{name}")
    return f"touched {name}"


@app.tool()
async def grow(ctx: Context) -> str:
    """Add a tool and say the tool list changed (on a listen stream, or on the legacy session)."""
    if "shrink" not in {tool.name for tool in await app.list_tools()}:
        app.add_tool(shrink)
    await ctx.notify_tools_changed()
    if ctx.request_context.session.protocol_version < "2026-07-28":
        await ctx.request_context.session.send_tool_list_changed()
    return "grown"


def shrink() -> str:
    """A tool added at run time."""
    return "shrunk"


@app.tool()
def shout(text: str) -> str:
    """Log a line on stderr as Rich's handler does: the time column, or blank in the same second
    (`FEATURES_LOG_TIME=1` writes the time, so a test chooses which a run gets)."""
    column = datetime.now().strftime("[%x %X] ") if os.environ.get("FEATURES_LOG_TIME") else " " * 20
    print(f"{column}WARNING  {text}", file=sys.stderr, flush=True)
    return text


@app.tool()
def stamp(item: int) -> str:
    """An item with the time of day it was stamped (noise a replay learns)."""
    return f"item {item} stamped at {datetime.now().strftime('%H:%M:%S.%f')}"


@app.resource("config://app", mime_type="application/json")
def config() -> str:
    """The app's configuration."""
    return '{"debug": false}'


@app.resource("notes://{name}")
def note(name: str) -> str:
    """A note by name."""
    return NOTES[name]


@app.prompt()
def review(code: str, language: str = "python") -> str:
    """Ask for a code review."""
    return f"Review this {language} code:\n{code}"


@app.completion()  # type: ignore[no-untyped-call]
async def complete(ref: Any, argument: Any, context: Any) -> Completion:
    options = ["python", "perl", "php", "rust"] if isinstance(ref, PromptReference) else sorted(NOTES)
    return Completion(values=[o for o in options if o.startswith(argument.value)])


async def _list_resources(ctx: Any, params: PaginatedRequestParams) -> ListResourcesResult:
    every = [Resource(uri="config://app", name="config")] + [
        Resource(uri=f"notes://{name}", name=name) for name in sorted(NOTES)
    ]
    start = int(params.cursor) if params is not None and params.cursor else 0
    page = every[start : start + 2]
    after = str(start + 2) if start + 2 < len(every) else None
    return ListResourcesResult(resources=page, next_cursor=after)


async def _set_level(ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
    return EmptyResult()


async def _subscribe(ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
    return EmptyResult()


async def _unsubscribe(ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
    return EmptyResult()


low = app._lowlevel_server
low.add_request_handler("resources/list", PaginatedRequestParams, _list_resources)
low.add_request_handler("logging/setLevel", SetLevelRequestParams, _set_level)
low.add_request_handler("resources/subscribe", SubscribeRequestParams, _subscribe)
low.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, _unsubscribe)

if __name__ == "__main__":
    app.run()
