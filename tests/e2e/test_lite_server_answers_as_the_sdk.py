"""tests/servers/lite.py stands in for the SDK's `MCPServer` where a test's subject is not the SDK
(it starts without importing it). It must answer what the real one answers: the same tools on both
(tests/servers/echo_tool.py on the SDK, tests/servers/fast/echo_tool.py on lite), the same requests
line by line, in both revisions, give the same bytes."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import PYTHON, SERVERS

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "pin", "version": "1"},
}
LEGACY: list[dict[str, Any]] = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "pin", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
    },
    {
        "jsonrpc": "2.0",
        "id": "s",
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}},
    },
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "nope", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 6, "method": "ping"},
]
MODERN: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META}},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": META},
    },
    {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {"name": "nope", "arguments": {}, "_meta": META},
    },
    {"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
    {
        "jsonrpc": "2.0",
        "id": 6,
        "method": "tools/list",
        "params": {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}},
    },
]


def _answers(server: Path, requests: list[dict[str, Any]]) -> list[bytes]:
    """Each request's answer line, sent one at a time (the next once the answer came)."""
    proc = subprocess.Popen(
        [PYTHON, str(server)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers = []
    try:
        for message in requests:
            proc.stdin.write(orjson.dumps(message) + b"\n")
            proc.stdin.flush()
            if "id" in message:
                answers.append(proc.stdout.readline().rstrip(b"\n"))
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    return answers


@pytest.mark.parametrize("requests", [LEGACY, MODERN], ids=["initialize", "2026-07-28"])
def test_the_stand_in_answers_byte_for_byte_as_the_sdk(requests: list[dict[str, Any]]) -> None:
    """Handshake or discovery, tools/list, calls that succeed and an unknown tool, a missing or
    unsupported `_meta` version: the same answer lines, byte for byte."""
    real = _answers(SERVERS / "echo_tool.py", requests)
    lite = _answers(SERVERS / "fast" / "echo_tool.py", requests)
    assert len(real) == sum("id" in m for m in requests) and all(real)
    assert lite == real
