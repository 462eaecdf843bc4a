"""Must show: over Streamable HTTP one transcript holds several sessions at once (one Mcp-Session-Id
each), and each numbers its request ids on its own; `duplicate-id` ("The request ID MUST NOT have been
previously used by the requestor within the same session", basic/index 2025-11-25) judges the ids of
each session apart. Recorded through `mcptape record --http-upstream` against the official SDK server
(stateful): two official SDK clients (legacy handshake) calling tools at once, then a third starting
while a fourth is mid-way, then a raw client whose one session sends an answered id again while an
SDK client runs beside it. Before, every id the concurrent clients shared was a duplicate-id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import orjson
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcptape.check.analyze import analyze_file
from mcptape.check.model import Finding
from tests.check.http.hr_drive import HEADERS, LEGACY
from tests.e2e.realhttp.helpers import record_sweep

pytestmark = pytest.mark.slow

CALLS = 5
REUSED = 2  # the id the raw client sends again, once answered


async def _sdk_client(
    url: str, b: int, gate: anyio.Event | None = None, opened: anyio.Event | None = None
) -> list[str]:
    """A legacy SDK session calling `add` CALLS times (waiting for `gate` before its third call;
    setting `opened` after its first)."""
    texts: list[str] = []
    async with Client(streamable_http_client(url), mode="legacy") as client:
        for a in range(CALLS):
            if gate is not None and a == 2:
                await gate.wait()
            content = (await client.call_tool("add", {"a": a, "b": b})).content[0]
            texts.append(getattr(content, "text", ""))
            if opened is not None:
                opened.set()
    return texts


async def _raw_reuse(url: str) -> int:
    """A handshake session sending tools/call with id REUSED twice, the first answered: the session's
    own fault. Returns the HTTP status of the second."""
    async with httpx2.AsyncClient(timeout=30) as http:
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
        opened = await http.post(url, content=orjson.dumps(init), headers=HEADERS)
        headers = {**LEGACY, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await http.post(url, content=orjson.dumps(initialized), headers=headers)
        call = {
            "jsonrpc": "2.0",
            "id": REUSED,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 1}},
        }
        await http.post(url, content=orjson.dumps(call), headers=headers)
        again = await http.post(url, content=orjson.dumps(call), headers=headers)
        await http.delete(url, headers=headers)
    return again.status_code


async def _drive(url: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    async def run(
        name: str, b: int, gate: anyio.Event | None = None, opened: anyio.Event | None = None
    ) -> None:
        seen[name] = await _sdk_client(url, b, gate, opened)

    async with anyio.create_task_group() as tg:  # two sessions at once, their calls interleaved
        tg.start_soon(run, "a", 1)
        tg.start_soon(run, "b", 2)
    gate, opened = anyio.Event(), anyio.Event()
    async with anyio.create_task_group() as tg:  # d starts while c is mid-way, then c goes on
        tg.start_soon(run, "c", 3, gate)
        await anyio.sleep(0.3)
        tg.start_soon(run, "d", 4, None, opened)
        await opened.wait()
        gate.set()

    async def raw() -> None:
        seen["raw"] = await _raw_reuse(url)

    async with anyio.create_task_group() as tg:  # one session's own reuse, another beside it
        tg.start_soon(run, "e", 5)
        tg.start_soon(raw)
    return seen


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    path = tmp_path_factory.mktemp("sessions") / "concurrent.jsonl"
    seen, _, _ = record_sweep(path, _drive)
    return path, seen


def _verdicts(path: Path) -> list[Finding]:
    _, analysis = analyze_file(str(path))
    return [f for f in analysis.findings if f.severity.value != "info" and f.party != "capture"]


def _raw_reuse_call(found: Finding) -> bool:
    """Whether `found` is on the raw client's tools/call (its id and arguments: no SDK session sends both)."""
    value = orjson.loads(found.raw)
    return bool(value.get("id") == REUSED and value.get("params", {}).get("arguments") == {"a": 1, "b": 1})


def test_concurrent_sdk_sessions_reusing_each_others_ids_are_clean(
    recorded: tuple[Path, dict[str, Any]],
) -> None:
    """Five SDK sessions numbering their ids from 1, two at a time, give no finding of their own."""
    path, seen = recorded
    assert all(seen[name] == [str(a + b) for a in range(CALLS)] for b, name in enumerate("abcde", 1))
    assert [f.rule for f in _verdicts(path) if not _raw_reuse_call(f)] == []


def test_one_session_reusing_its_own_answered_id_is_a_duplicate_id(
    recorded: tuple[Path, dict[str, Any]],
) -> None:
    """The raw session's second request with an id it used (and had answered) is the one finding."""
    path, seen = recorded
    assert seen["raw"] == 200
    found = [(f.rule, f.party, f.channel, f.request_id, _raw_reuse_call(f)) for f in _verdicts(path)]
    assert found == [("duplicate-id", "client", "in", REUSED, True)]
