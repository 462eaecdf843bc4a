"""The demo's client: the official SDK client running a short session through `mcptape record`."""

from __future__ import annotations

import sys
from pathlib import Path

from mcptape.errors import MCPTapeError


def server_command(buggy: bool = False, changed: bool = False) -> list[str]:
    """The bundled demo server, as an MCP client config would start it."""
    flags = (["--buggy"] if buggy else []) + (["--changed"] if changed else [])
    return [sys.executable, "-m", "mcptape.demo.server", *flags]


def record_command(transcript: Path, server: list[str]) -> list[str]:
    """`mcptape record` in front of `server`, the way a user puts it in a client config."""
    return [
        sys.executable,
        "-m",
        "mcptape",
        "record",
        "-q",
        "--overwrite",
        "-o",
        str(transcript),
        "--",
        *server,
    ]


def run_session(transcript: Path, buggy: bool) -> list[str]:
    """Run the demo session through the recorder; return one line per thing the client saw."""
    try:
        import anyio
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters
    except ImportError:
        raise MCPTapeError(
            "mcptape demo needs the MCP Python SDK", hint="pip install 'mcptape[demo]'"
        ) from None

    import logging

    argv = record_command(transcript, server_command(buggy))
    seen: list[str] = []

    class Narrate(logging.Handler):
        """The SDK client's own complaints, one line each (it logs a traceback per bad line)."""

        def emit(self, record: logging.LogRecord) -> None:
            seen.append(f"the SDK client logged: {record.getMessage().splitlines()[0]}")

    sdk_log = logging.getLogger("mcp")
    sdk_log.addHandler(Narrate())
    sdk_log.propagate = False

    async def session() -> None:
        params = StdioServerParameters(command=argv[0], args=argv[1:])
        with anyio.fail_after(60):
            async with Client(params) as client:
                tools = await client.list_tools()
                seen.append("tools: " + ", ".join(sorted(t.name for t in tools.tools)))
                added = await client.call_tool("add", {"a": 2, "b": 3})
                seen.append(f"add(2, 3) -> {added.structured_content}")
                ok = await client.call_tool("deploy_preview", {"branch": "feature-x", "token": "demo-token"})
                seen.append(f"deploy_preview(feature-x, good token) -> error={ok.is_error}")
                bad = await client.call_tool("deploy_preview", {"branch": "main", "token": "stolen"})
                seen.append(f"deploy_preview(main, bad token) -> error={bad.is_error}")

    import os
    import subprocess

    # The server's stderr is recorded in the transcript; keep it off the demo's output.
    null = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    os.dup2(null, 2)
    try:
        anyio.run(session)
    except subprocess.SubprocessError as exc:
        raise MCPTapeError(f"the demo session failed: {exc}") from None
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)
    return seen
