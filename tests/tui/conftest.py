"""Helpers for driving the viewer headless: open a transcript, wait until the check has run; real
HTTP transcripts recorded through `mcptape record --http-upstream`."""

from __future__ import annotations

import asyncio
import re
from html import unescape
from pathlib import Path

import anyio
import httpx
import orjson
import pytest
from mcp import Client
from textual.app import App
from textual.pilot import Pilot

from mcptape.tui.app import ViewerApp
from tests.conftest import PYTHON, SERVERS, once_per_run, server_everything
from tests.recorder.http.helpers import free_port, recording, sdk_server

PLANTED = SERVERS / "planted.py"
PREFIX = "io.modelcontextprotocol"  # of the 2026-07-28 `_meta` keys


async def settle(pilot: Pilot[None], timeout: float = 10.0) -> None:
    """Wait until the index is built and the check core's results are on screen."""
    app = pilot.app
    assert isinstance(app, ViewerApp)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while app.busy:
        assert loop.time() < deadline, "the viewer did not finish indexing and checking in time"
        await pilot.pause(0.01)
    await app.workers.wait_for_complete()
    await pilot.pause()


async def wait_for(pilot: Pilot[None], condition: object, timeout: float = 5.0) -> None:
    """Pause until `condition()` is true (for results delivered by a worker thread)."""
    assert callable(condition)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await pilot.pause(0.01)
    await pilot.pause()


def screen_text(app: App[None]) -> str:
    """What the terminal shows right now, as plain text (from the SVG screenshot's text runs)."""
    svg = app.export_screenshot()
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), unescape(m.group(3))))
    return "\n".join(
        "".join(t for _, t in sorted(runs)).replace("\xa0", " ") for _, runs in sorted(rows.items())
    )


# -- real HTTP transcripts (`mcptape record --http-upstream`), recorded once per test session ------------


async def _sdk_session(url: str) -> list[float]:
    """A 2026-07-28 session (JSON answers), then a handshake one whose tool call streams its progress
    on SSE before its answer; returns the progress the client saw."""
    async with Client(url) as client:
        await client.list_tools()
        await client.call_tool("add", {"a": 2, "b": 40})
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with Client(url, mode="legacy") as client:
        await client.call_tool("count", {"n": 3}, progress_callback=on_progress)
    return seen


@pytest.fixture(scope="session")
def sdk_http_transcript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The official SDK client and an official SDK `MCPServer` over streamable-http, recorded through
    `mcptape record --http-upstream URL -- server` (about a second), once per test run for every
    xdist worker (read it, never modify it)."""

    def make(folder: Path) -> None:
        port = free_port()
        with recording(f"http://127.0.0.1:{port}/mcp", folder / "sdk.jsonl", sdk_server(port)) as rec:
            assert anyio.run(_sdk_session, rec.url) == [1, 2, 3]
            rec.stop()

    return once_per_run(tmp_path_factory, "tui-sdk-http", make) / "sdk.jsonl"


async def _everything_session(url: str) -> list[float]:
    """An echo, then a long-running operation that streams three progress events before its answer."""
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with Client(url, mode="legacy") as client:
        await client.call_tool("echo", {"message": "hi"})
        await client.call_tool(
            "trigger-long-running-operation", {"duration": 0.3, "steps": 3}, progress_callback=on_progress
        )
    return seen


@pytest.fixture(scope="session")
def everything_http_transcript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """@modelcontextprotocol/server-everything in its Streamable HTTP mode, recorded through
    `mcptape record --http-upstream URL -- node index.js streamableHttp` (it reads its port from PORT),
    once per test run for every xdist worker (read it, never modify it)."""

    def make(folder: Path) -> None:
        port = free_port()
        with pytest.MonkeyPatch.context() as env:
            env.setenv("PORT", str(port))
            command = [*server_everything()[:-1], "streamableHttp"]
            with recording(f"http://127.0.0.1:{port}/mcp", folder / "everything.jsonl", command) as rec:
                assert anyio.run(_everything_session, rec.url) == [1, 2, 3]
                rec.stop()

    return once_per_run(tmp_path_factory, "tui-everything-http", make) / "everything.jsonl"


def planted_http_transcript(directory: Path, mode: str, headers: dict[str, str] | None = None) -> Path:
    """A server-discover and a tools/call (httpx, 2026-07-28 headers) against the planted Streamable
    HTTP server tests/servers/planted.py (`mode` names its fault), recorded through
    `mcptape record --http-upstream`."""
    meta = {f"{PREFIX}/protocolVersion": "2026-07-28", f"{PREFIX}/clientCapabilities": {}}
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "count", "arguments": {"n": 1}, "_meta": meta},
    }
    discover = {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": meta}}
    base = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
    }
    port = free_port()
    out = directory / f"{mode}.jsonl"
    with recording(f"http://127.0.0.1:{port}/mcp", out, [PYTHON, str(PLANTED), str(port), mode]) as rec:
        with httpx.Client(timeout=10) as client:
            client.post(
                rec.url, content=orjson.dumps(discover), headers={**base, "mcp-method": "server/discover"}
            )
            sent = {**base, "mcp-method": "tools/call", "mcp-name": "count", **(headers or {})}
            client.post(rec.url, content=orjson.dumps(call), headers=sent)
        rec.stop()
    return out


BUILD_SERVER = SERVERS / "build_http.py"


async def _build_session(url: str) -> list[float]:
    """A handshake session (session ids, a GET stream, a DELETE at the end): `add`, then `count`,
    whose answer comes on an SSE stream after its progress; returns the progress the client saw."""
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with Client(url, mode="legacy") as client:
        await client.call_tool("add", {"a": 2, "b": 40})
        await client.call_tool("count", {"n": 2}, progress_callback=on_progress)
    return seen


@pytest.fixture(scope="session")
def build_http_transcripts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same session recorded against two builds of an official SDK `MCPServer` over
    streamable-http (tests/servers/build_http.py): the new build's session-opening answer has
    another `x-build` header, its DELETE is refused 405 (with a header of hostile bytes), and its `add`
    is off by one. Recorded through `mcptape record --http-upstream URL -- server` (a few seconds),
    once per test run (shared by the xdist workers)."""

    def record(folder: Path) -> None:
        for build in ("old", "new"):
            port = free_port()
            command = [PYTHON, str(BUILD_SERVER), str(port), build]
            with recording(f"http://127.0.0.1:{port}/mcp", folder / f"{build}.jsonl", command) as rec:
                assert anyio.run(_build_session, rec.url) == [1, 2]
                rec.stop()

    folder = once_per_run(tmp_path_factory, "tui-builds", record)
    return folder / "old.jsonl", folder / "new.jsonl"
