"""Drive real MCP sessions with the official SDK client, optionally through `mcptape record`.

`sdk_session(command, record_to=...)` runs the SDK's stdio client against `command`, wrapped in
the installed `mcptape record` console script when `record_to` is given, and returns what the
client saw, so a test can compare a session with and without the recorder.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

Script = Callable[[Client], Awaitable[dict[str, Any]]]


@dataclass
class SessionResult:
    """What the client observed: tool names and the results the script collected."""

    tools: list[str]
    results: dict[str, Any] = field(default_factory=dict)


def recorded(command: list[str], record_to: Path, *extra: str) -> list[str]:
    """`command` wrapped in the installed `mcptape record` (what a client config would run)."""
    from tests.conftest import console_script

    return [console_script(), "record", "-q", "-o", str(record_to), *extra, "--", *command]


async def _no_script(client: Client) -> dict[str, Any]:
    return {}


async def run_session(
    command: list[str],
    *,
    record_to: Path | None = None,
    script: Script = _no_script,
    mode: str = "auto",
    env: dict[str, str] | None = None,
    **client_kwargs: Any,
) -> SessionResult:
    """Run one SDK client session (list tools, then `script`) and return what it saw."""
    argv = recorded(command, record_to) if record_to is not None else command
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    with anyio.fail_after(60):
        async with Client(params, mode=mode, **client_kwargs) as client:
            listed = await client.list_tools()
            results = await script(client)
    return SessionResult(tools=sorted(t.name for t in listed.tools), results=results)


def sdk_session(command: list[str], **kwargs: Any) -> SessionResult:
    """Synchronous wrapper around `run_session` for plain (non-async) tests."""

    async def main() -> SessionResult:
        return await run_session(command, **kwargs)

    return anyio.run(main)


def python_server(path: Path, *args: str) -> list[str]:
    return [sys.executable, str(path), *args]
