"""The planted upstream (tests/servers/planted.py, its faults chosen by mode) and the requests the
tests post to it."""

from __future__ import annotations

from tests.conftest import PYTHON, SERVERS

PLANTED = SERVERS / "planted.py"
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "count",
        "arguments": {"n": 1},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
    },
}
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "count",
}


def planted(port: int, mode: str) -> list[str]:
    return [PYTHON, str(PLANTED), str(port), mode]


DISCOVER = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "server/discover",
    "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
}
DISCOVER_HEADERS = {**HEADERS, "mcp-method": "server/discover"}
del DISCOVER_HEADERS["mcp-name"]
