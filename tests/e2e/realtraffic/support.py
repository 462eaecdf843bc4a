"""Real sessions for the sweep's tests: an SDK client through the installed `mcptape record`."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from mcptape.check.analyze import analyze_file
from mcptape.check.model import Analysis
from tests.clients import recorded
from tests.conftest import SERVERS

FEATURES = [sys.executable, str(SERVERS / "features.py")]
Script = Callable[[Client], Awaitable[None]]


def record(command: list[str], path: Path, script: Script, *, mode: str = "auto", **client: Any) -> Analysis:
    """Run `script` with the SDK client against `command` recorded to `path`; check the recording."""
    argv = recorded(command, path)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(params, mode=mode, **client) as session:
                await script(session)

    anyio.run(main)
    return analyze_file(str(path))[1]


def loud(analysis: Analysis) -> list[tuple[str, str, str]]:
    """The findings that fail a gate (errors and warnings): rule, severity, message."""
    return [(f.rule, f.severity.value, f.message) for f in analysis.findings if f.severity.value != "info"]
