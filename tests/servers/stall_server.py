"""A line-based MCP server that answers normally but stops reading its stdin for good once a
partial line passes 64 KiB (a server with a line limit that stalls instead of rejecting)."""

from __future__ import annotations

import json
import os
import time
from typing import Any


def send(obj: Any) -> None:
    os.write(1, json.dumps(obj).encode() + b"\n")


buf = b""
while True:
    chunk = os.read(0, 4096)
    if not chunk:
        break
    buf += chunk
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "id" not in msg:
            continue
        m = msg.get("method")
        if m == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "result": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "stall", "version": "1"},
                    },
                }
            )
        elif m == "tools/list":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]},
                }
            )
        elif m == "tools/call":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": "ok"}]}})
        elif m == "ping":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})
    if len(buf) > 65536:
        time.sleep(3600)  # stalls: never reads its stdin again
