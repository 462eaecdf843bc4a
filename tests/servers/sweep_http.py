"""An official-SDK MCPServer on Streamable HTTP for the real-traffic sweep, in each configuration
the SDK offers: `python sweep_http.py PORT [--stateless] [--json] [--events]` (`--events`: an event
store, so SSE events carry ids and each stream opens with a priming event with empty data).

add(a, b)            an int (structured output `{"result": ...}`)
weather(city)        a model (structured output with an output schema)
chatty(n, delay=0)   logs and reports progress n times, `delay` s apart, then "done N"
confirm(name)        asks the user first (2026-07-28: `input_required`; before: elicitation/create)
fail(kind)           raises: "tool" a ToolError, anything else a ValueError
slow(seconds)        sleeps, then "slept"
big(size)            a text of `size` characters
notes://{name}       a resource template; résumé(topic) a prompt whose name is not ASCII
It prints a line on its stdout at start-up, as HTTP servers do.
"""

from __future__ import annotations

import sys
from typing import Annotated

import anyio
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.types import JSONRPCMessage
from pydantic import BaseModel

ARGS = sys.argv[2:]


class Events(EventStore):
    """Every event kept in memory, replayable after its id (resumability)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, JSONRPCMessage | None]] = []

    async def store_event(self, stream_id: str, message: JSONRPCMessage | None) -> str:
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        index = next((i for i, event in enumerate(self.events) if event[0] == last_event_id), None)
        if index is None:
            return None
        stream = self.events[index][1]
        for event_id, stream_id, message in self.events[index + 1 :]:
            if stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream


app = MCPServer("sweep-http", log_level="WARNING")


class Weather(BaseModel):
    city: str
    celsius: float
    sky: str


class Confirm(BaseModel):
    ok: bool


def ask(name: str) -> Elicit[Confirm]:
    return Elicit(f"Really {name}?", Confirm)


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def weather(city: str) -> Weather:
    """The weather in a city."""
    return Weather(city=city, celsius=21.5, sky="clear")


@app.tool()
async def chatty(n: int, ctx: Context, delay: float = 0.0) -> str:
    """Log and report progress n times, `delay` seconds apart."""
    for i in range(1, n + 1):
        await ctx.info(f"step {i} of {n}")
        await ctx.report_progress(i, n, f"step {i}")
        await anyio.sleep(delay)
    return f"done {n}"


@app.tool()
def confirm(name: str, answer: Annotated[Confirm, Resolve(ask)]) -> str:
    """Do something after the user confirms."""
    return f"did {name}" if answer.ok else "kept"


@app.tool()
def fail(kind: str) -> str:
    """Raise."""
    if kind == "tool":
        raise ToolError("the tool refused")
    raise ValueError("something broke inside")


@app.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return "slept"


@app.tool()
def big(size: int) -> str:
    """A text of `size` characters."""
    return "x" * size


@app.resource("notes://{name}")
def note(name: str) -> str:
    """A note by name."""
    return f"the note {name}"


@app.prompt()
def résumé(topic: str) -> str:
    """A prompt whose name is not ASCII."""
    return f"Summarise {topic}."


if __name__ == "__main__":
    port = int(sys.argv[1])
    print(f"sweep_http: serving on 127.0.0.1:{port}", flush=True)
    app.run(
        "streamable-http",
        host="127.0.0.1",
        port=port,
        json_response="--json" in ARGS,
        stateless_http="--stateless" in ARGS,
        event_store=Events() if "--events" in ARGS else None,
        retry_interval=1000 if "--events" in ARGS else None,
    )
