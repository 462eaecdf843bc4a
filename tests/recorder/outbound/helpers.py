"""Shared helpers: run a test server under the installed `mcptape record` and read what it wrote."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent

from mcptape.transcript.events import Event
from mcptape.transcript.reader import open_transcript
from tests.conftest import PYTHON, SERVERS, console_script


def server(name: str) -> list[str]:
    """The command line of test server `tests/servers/NAME.py`."""
    return [PYTHON, str(SERVERS / f"{name}.py")]


def recorder(out: Path, command: Sequence[str], flags: Sequence[str] = ()) -> StdioServerParameters:
    """`mcptape record -q -o OUT FLAGS -- COMMAND` as the SDK client's server."""
    return StdioServerParameters(
        command=console_script(), args=["record", "-q", "-o", str(out), *flags, "--", *command]
    )


async def call_tools(
    out: Path,
    command: Sequence[str],
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    flags: Sequence[str] = (),
    env: dict[str, str] | None = None,
) -> list[str]:
    """Call each tool in turn through the recorder; return each result's first text."""
    params = recorder(out, command, flags)
    if env is not None:
        params.env = env
    texts: list[str] = []
    async with Client(params) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, dict(arguments))
            first = result.content[0] if result.content else None
            texts.append(first.text if isinstance(first, TextContent) else "")
    return texts


def events(path: Path) -> list[Event]:
    """Every event of the transcript at `path`, in file order."""
    return list(open_transcript(path).events())


def records(evs: Sequence[Event], ch: str) -> list[tuple[float, dict[str, Any]]]:
    """The JSON objects of channel `ch` (one per event: these channels hold whole lines), with `t`."""
    return [(e.t, json.loads(e.data)) for e in evs if e.ch == ch]


def message_t(evs: Sequence[Event], ch: str, **match: Any) -> float:
    """`t` of the one `in`/`out` JSON-RPC message whose top-level fields equal `match`."""
    found = []
    for e in evs:
        if e.ch != ch:
            continue
        try:
            msg = json.loads(e.data)
        except ValueError:
            continue
        if isinstance(msg, dict) and all(msg.get(k) == v for k, v in match.items()):
            found.append(e.t)
    assert len(found) == 1, f"expected one {ch} message with {match}, found {len(found)}"
    return found[0]


def call_span(evs: Sequence[Event], name: str, arguments: Mapping[str, Any]) -> tuple[Any, float, float]:
    """(id, t of the request, t of its response) of the one `tools/call` of `name` with `arguments`."""
    found = []
    for e in evs:
        if e.ch != "in":
            continue
        try:
            msg = json.loads(e.data)
        except ValueError:
            continue
        params = msg.get("params") if isinstance(msg, dict) else None
        if (
            msg.get("method") == "tools/call"
            and isinstance(params, dict)
            and params.get("name") == name
            and params.get("arguments") == dict(arguments)
        ):
            found.append((msg["id"], e.t))
    assert len(found) == 1, f"expected one call of {name} with {arguments}, found {len(found)}"
    rid, t_request = found[0]
    return rid, t_request, message_t(evs, "out", id=rid)


class ListSink:
    """A `Sink` that keeps what it is given, for in-process tests."""

    def __init__(self) -> None:
        self.chunks: list[tuple[float, str, bytes]] = []

    def now(self) -> float:
        return 0.0

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        self.chunks.append((t, ch, bytes(data)))
