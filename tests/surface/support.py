"""Helpers for the tool-surface tests: the real servers' command lines and `mcptape tools` as a
real process."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests import inprocess
from tests.clients import run_session
from tests.conftest import NODE_DIR, PYTHON, SERVERS, console_script, once_per_run, server_everything

WEATHER = SERVERS / "weather.py"
VENV_BIN = Path(PYTHON).parent


def weather(variant: str = "base") -> list[str]:
    """The SDK weather server of `tests/servers/weather.py`, in one of its variants, on stdio."""
    return [PYTHON, str(WEATHER), variant]


async def upgrade_and_list_again(client: Client) -> dict[str, Any]:
    """Call `upgrade` (a drift variant rewrites get_forecast's description), then list the tools again."""
    await client.call_tool("upgrade", {})
    await anyio.sleep(0.2)  # the notification, if any, before the second listing
    listed = await client.list_tools()
    return {"descriptions": [t.description for t in listed.tools]}


async def list_again(client: Client) -> dict[str, Any]:
    await client.list_tools()
    return {}


def listed_twice(tmp_path_factory: pytest.TempPathFactory, variant: str) -> Path:
    """A real session (the SDK client, the weather server's VARIANT through `mcptape record`, the
    handshake): tools/list, then for `drift` and `drift-quiet` the `upgrade` that rewrites a
    description mid-session, then tools/list again. Made once per run for every xdist worker (the
    surface and viewer tests that read it share it: read it, never modify it)."""

    def make(folder: Path) -> None:
        script = upgrade_and_list_again if variant.startswith("drift") else list_again
        seen = anyio.run(
            lambda: run_session(weather(variant), record_to=folder / "s.jsonl", script=script, mode="legacy")
        )
        if variant.startswith("drift"):
            assert any("IMPORTANT" in (d or "") for d in seen.results["descriptions"])

    return once_per_run(tmp_path_factory, f"weather-{variant}-listed-twice", make) / "s.jsonl"


def base_lock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`tools lock -o tools.lock.json -- python weather.py base`: the base build listed live (the
    SDK server and a `mcptape tools` process: about a second of CPU), made once per run for every
    module and xdist worker that reads it (read it, never modify it)."""

    def make(folder: Path) -> None:
        result = tools("lock", "-o", str(folder / "tools.lock.json"), "--", *weather("base"))
        assert result.returncode == 0, result.stderr

    return once_per_run(tmp_path_factory, "weather-base-lock", make) / "tools.lock.json"


def node_server(name: str, *args: str) -> list[str]:
    script = NODE_DIR / "node_modules" / "@modelcontextprotocol" / name / "dist" / "index.js"
    node = shutil.which("node")
    assert node and script.exists(), "run ./dev.sh test to install the npm test servers"
    return [node, str(script), *args]


def real_server(name: str, scratch: Path) -> list[str]:
    """A real server's command line: mcp-server-time, server-everything, -memory, -filesystem."""
    if name == "mcp-server-time":
        return [str(VENV_BIN / "mcp-server-time")]
    if name == "server-everything":
        return server_everything()
    if name == "server-filesystem":
        scratch.mkdir(exist_ok=True)
        return node_server(name, str(scratch))
    return node_server(name)


def tools(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`mcptape tools ARGS...` (stdin closed), its output as text: a real process when it starts a
    server (`-- SERVER` or `--url`), else in this process (tests/inprocess.py: files in, files out)."""
    if "--" not in args and "--url" not in args:
        return inprocess.run("tools", *args, cwd=cwd, text=True)
    return subprocess.run(
        [console_script(), "tools", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )
