"""Must show: a browser-based client on this machine (an Inspector-like web app on
http://localhost:6274) talking to an SDK server on 127.0.0.1 sends its Origin; the server validates
it (its DNS-rebinding protection accepts local origins, refuses others with 403), so accepting it is
no `http-origin-accepted` warning: "Servers MUST validate the Origin header on all incoming
connections to prevent DNS rebinding attacks", and a loopback origin is no rebinding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.realhttp.helpers import record_sweep, verdicts


async def _from_a_local_web_app(url: str) -> dict[str, Any]:
    local = httpx2.AsyncClient(headers={"Origin": "http://localhost:6274"})
    async with local, Client(streamable_http_client(url, http_client=local)) as client:
        tools = len((await client.list_tools()).tools)
    async with httpx2.AsyncClient(headers={"Origin": "http://evil.example"}) as http:
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        body = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": meta}}
        headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28"}
        refused = await http.post(url, json=body, headers={**headers, "Mcp-Method": "tools/list"})
    return {"tools": tools, "evil": refused.status_code}


def test_a_local_web_apps_origin_accepted_by_a_validating_server_is_no_warning(tmp_path: Path) -> None:
    """The localhost origin's requests are answered 200 and the foreign one 403: no error or warning."""
    path = tmp_path / "origin.jsonl"
    seen, _, _ = record_sweep(path, _from_a_local_web_app)
    assert seen["tools"] > 0 and seen["evil"] == 403
    assert [(f.rule, f.message) for f in verdicts(path)] == []
