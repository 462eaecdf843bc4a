"""Client code for the recorded sessions of the HTTP session and status rules (test_hr_recorded.py):
the official SDK client (a handshake session, a 2026-07-28 one) and, for what no SDK client does
(a request of an ended session, a request without its session id, an unknown method, an unsupported
version, a foreign Origin), raw HTTP requests with the SDK's own httpx2. Each driver takes the
recorder's URL and returns the HTTP statuses the server answered."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import orjson
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import PYTHON, SERVERS
from tests.recorder.http.helpers import free_port, recording

HR_SERVER = SERVERS / "hr_server.py"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LEGACY = {**HEADERS, "MCP-Protocol-Version": "2025-11-25"}
MODERN = "2026-07-28"
Drive = Callable[[str], Awaitable[dict[str, Any]]]


def record_hr(path: Path, mode: str, drive: Drive) -> dict[str, Any]:
    """`drive(url)` against `hr_server.py MODE`, recorded through `mcptape record --http-upstream`."""
    port = free_port()
    command = [PYTHON, str(HR_SERVER), str(port), mode]
    with recording(f"http://127.0.0.1:{port}/mcp", path, command) as rec:
        seen: dict[str, Any] = anyio.run(drive, rec.url)
        rec.stop()
    return seen


async def _progress(progress: float, total: float | None, message: str | None) -> None:
    pass


def meta(version: str = MODERN) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    }


async def post(url: str, body: dict[str, Any], headers: dict[str, str]) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(url, content=orjson.dumps(body), headers=headers)


async def handshake_session(url: str, tool: str = "steps") -> dict[str, Any]:
    """The SDK client's handshake session (its GET stream open): tools listed, `tool` called with a
    progress token, then left (DELETE). Returns its session id."""
    sessions: list[str] = []

    async def keep(response: httpx2.Response) -> None:
        if response.headers.get("mcp-session-id") and not sessions:
            sessions.append(response.headers["mcp-session-id"])

    http = httpx2.AsyncClient(event_hooks={"response": [keep]}, timeout=30)
    async with http, Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
        await client.list_tools()
        await anyio.sleep(0.3)  # the GET stream opens
        text = (await client.call_tool(tool, {"n": 2}, progress_callback=_progress)).content[0]
    return {"session": sessions[0] if sessions else None, "text": getattr(text, "text", None)}


async def after_delete(url: str, tool: str = "steps") -> dict[str, Any]:
    """A handshake session left by DELETE, then a request with its session id."""
    seen = await handshake_session(url, tool)
    if seen["session"] is None:  # a stateless server: no session to end
        return seen
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
    again = await post(url, body, {**LEGACY, "Mcp-Session-Id": seen["session"]})
    return {**seen, "after_delete": again.status_code}


async def without_session(url: str) -> dict[str, Any]:
    """A raw handshake, then a request without the session id the server assigned."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    opened = await post(url, init, HEADERS)
    session = opened.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await post(url, initialized, {**LEGACY, "Mcp-Session-Id": session})
    forgot = await post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, LEGACY)
    return {"without_session": forgot.status_code}


async def modern_session(url: str) -> dict[str, Any]:
    """The SDK client's 2026-07-28 session: discover, list, call; the session headers it got."""
    headers: list[str] = []

    async def keep(response: httpx2.Response) -> None:
        if response.headers.get("mcp-session-id"):
            headers.append(response.headers["mcp-session-id"])

    http = httpx2.AsyncClient(event_hooks={"response": [keep]}, timeout=30)
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        await client.list_tools()
        text = (await client.call_tool("add", {"a": 1, "b": 2})).content[0]
    return {"text": getattr(text, "text", None), "session_headers": len(headers)}


async def stale_session(url: str) -> dict[str, Any]:
    """The SDK client's 2026-07-28 session, then two 2026-07-28 requests carrying the session id an
    older client kept (`Mcp-Session-Id: stale-1`): the session ids the answers carried."""
    seen = await modern_session(url)
    body = {"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": {"_meta": meta()}}
    headers = {
        **HEADERS,
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/list",
        "Mcp-Session-Id": "stale-1",
    }
    answers = [await post(url, body, headers) for _ in range(2)]
    return {**seen, "stale": [answer.headers.get("mcp-session-id") for answer in answers]}


async def modern_errors(url: str) -> dict[str, Any]:
    """A 2026-07-28 session, then a method the server does not implement and a version it does not."""
    seen = await modern_session(url)
    unknown = {"jsonrpc": "2.0", "id": 8, "method": "tools/frobnicate", "params": {"_meta": meta()}}
    headers = {**HEADERS, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/frobnicate"}
    method = await post(url, unknown, headers)
    old = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": meta("1900-01-01")}}
    version = await post(
        url, old, {**HEADERS, "MCP-Protocol-Version": "1900-01-01", "Mcp-Method": "tools/list"}
    )
    return {**seen, "unknown_method": method.status_code, "unknown_version": version.status_code}


async def foreign_origin(url: str) -> dict[str, Any]:
    """A 2026-07-28 request from a web page of another origin: refused 403."""
    body = {"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": {"_meta": meta()}}
    headers = {
        **HEADERS,
        "Origin": "http://evil.example",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/list",
    }
    refused = await post(url, body, headers)
    return {"origin": refused.status_code, "origin_body": refused.text}


def every(tool: str) -> Drive:
    """Every driver but `without_session` (a client mistake), one after the other."""

    async def drive(url: str) -> dict[str, Any]:
        seen = await after_delete(url, tool)
        seen.update(await modern_errors(url))
        seen.update(await foreign_origin(url))
        return seen

    return drive
