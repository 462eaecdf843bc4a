"""Must show: an LLM-driven client's mistakes (a call before listing tools, a missing argument, a
wrong type, an unknown tool, an extra argument) refused by a correct SDK server over Streamable HTTP
are at most `info`; a request that breaks the transport (a body that is not JSON, a session id the
server never assigned) is the client's finding, not the server's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from mcp import Client

from mcptape.check.analyze import analyze_file
from tests.e2e.realhttp.helpers import record_sweep, verdicts

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def _mistakes(client: Client) -> dict[str, bool]:
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "early": ("add", {"a": 1, "b": 2}),
        "missing": ("add", {"a": 1}),
        "wrong_type": ("add", {"a": "one", "b": 2}),
        "unknown": ("substract", {"a": 1, "b": 2}),
        "extra": ("add", {"a": 1, "b": 2, "c": 3}),
    }
    refused = {}
    for key, (name, arguments) in calls.items():
        refused[key] = (await client.call_tool(name, arguments)).is_error
    await client.list_tools()
    return refused


async def _modern(url: str) -> dict[str, bool]:
    async with Client(url) as client:
        return await _mistakes(client)


async def _legacy_then_raw(url: str) -> dict[str, Any]:
    async with Client(url, mode="legacy") as client:
        refused = await _mistakes(client)
        async with httpx.AsyncClient() as raw:
            cut = await raw.post(url, content=b'{"jsonrpc":"2.0","id":90,"method":', headers=HEADERS)
            body = {"jsonrpc": "2.0", "id": 91, "method": "tools/list"}
            stranger = await raw.post(url, json=body, headers={**HEADERS, "Mcp-Session-Id": "nope"})
        return {**refused, "cut": cut.status_code, "stranger": stranger.status_code}


REFUSED = {"early": False, "missing": True, "wrong_type": True, "unknown": True, "extra": False}


def test_llm_argument_mistakes_refused_by_a_stateless_json_server_are_not_verdicts(tmp_path: Path) -> None:
    """2026-07-28 client, stateless server answering JSON: each mistake refused with isError, and
    `check` has no error or warning (the schema violations and the call of an unlisted tool are info,
    on the client)."""
    path = tmp_path / "mistakes.jsonl"
    refused, _, _ = record_sweep(path, _modern, "--stateless", "--json")
    assert refused == REFUSED
    assert [(f.rule, f.message) for f in verdicts(path)] == []
    _, analysis = analyze_file(str(path))
    assert {(f.rule, f.severity, f.party) for f in analysis.findings} == {
        ("schema-violation", "info", "client"),
        ("unknown-tool", "info", "client"),
    }


def test_a_request_that_breaks_the_transport_is_the_clients_finding(tmp_path: Path) -> None:
    """Handshake client, stateful SSE server: the argument mistakes are no verdict; a cut JSON body
    (400) and a made-up session id (404) are findings on http-in whose party is the client."""
    path = tmp_path / "raw.jsonl"
    seen, _, _ = record_sweep(path, _legacy_then_raw)
    assert {k: seen[k] for k in REFUSED} == REFUSED and (seen["cut"], seen["stranger"]) == (400, 404)
    transport = {(f.rule, f.party) for f in verdicts(path) if f.channel == "http-in"}
    assert ("http-body-not-json", "client") in transport
    assert ("http-session-changed", "client") in transport
    assert all(party == "client" for _, party in transport)
    assert all(f.party == "client" for f in verdicts(path)), [(f.rule, f.party) for f in verdicts(path)]
