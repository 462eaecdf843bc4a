"""A minimal stdio MCP server whose tools/list comes in three pages (cursors "2" and "3"), and that
asks the client for a ping while it is listed: what `tools lock` must follow and answer. With
`--modern` it refuses initialize and answers server/discover (the stateless revision only); with
`--no-tools` it has prompts only (no tools capability, tools/list refused)."""

from __future__ import annotations

import json
import sys

NO_TOOLS = "--no-tools" in sys.argv  # a server of prompts only: no tools capability, no tools/list
MODERN = "--modern" in sys.argv  # of the stateless 2026-07-28 revision only: no initialize
PAGES = {None: (["alpha", "beta"], "2"), "2": (["gamma"], "3"), "3": (["delta"], None)}


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    method, rid = message.get("method"), message.get("id")
    if method == "initialize" and MODERN:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
    elif method == "initialize" and NO_TOOLS:
        result = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"prompts": {}},
            "serverInfo": {"name": "p", "version": "1"},
        }
        send({"jsonrpc": "2.0", "id": rid, "result": result})
    elif method == "server/discover":
        meta = {"io.modelcontextprotocol/serverInfo": {"name": "paged", "version": "2"}}
        result = {"capabilities": {"tools": {}}, "supportedVersions": ["2026-07-28"], "_meta": meta}
        send({"jsonrpc": "2.0", "id": rid, "result": {**result, "resultType": "complete"}})
    elif method == "initialize":
        info = {"name": "paged", "version": "1"}
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": info,
                },
            }
        )
    elif method == "prompts/list":
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {"prompts": [{"name": "greet", "description": "Say hello."}]},
            }
        )
    elif method == "tools/list" and not NO_TOOLS:
        if not MODERN:  # a 2026-07-28 server sends no request of its own
            send({"jsonrpc": "2.0", "id": "server-ping", "method": "ping"})
        names, cursor = PAGES[message.get("params", {}).get("cursor")]
        tools = [
            {"name": n, "description": f"The {n} tool.", "inputSchema": {"type": "object"}} for n in names
        ]
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {"tools": tools, **({"nextCursor": cursor} if cursor else {})},
            }
        )
    elif rid is not None and method is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
