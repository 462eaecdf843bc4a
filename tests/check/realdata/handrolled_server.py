"""A hand-rolled stdio MCP server, as tutorials write one (a loop over stdin, no SDK): it declares
only `tools`, yet answers `prompts/list` and `prompts/get` with a prompt (a feature it did not
declare), and `resources/list` with an empty list (no support: nothing to declare). Recorded into
tests/check/realdata/handrolled-undeclared-prompts.tape:
`mcptape record -o X -- python handrolled_server.py`."""

from __future__ import annotations

import json
import sys
from typing import Any

TOOLS = [{"name": "hello", "description": "Say hello.", "inputSchema": {"type": "object"}}]
PROMPTS = [{"name": "greet", "description": "A greeting.", "arguments": []}]


def answer(method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "handrolled", "version": "0.1"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": "hello"}]}
    if method == "prompts/list":
        return {"prompts": PROMPTS}
    if method == "prompts/get":
        return {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hello."}}]}
    if method == "resources/list":
        return {"resources": []}
    if method == "ping":
        return {}
    return None


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        result = answer(message["method"], message.get("params") or {})
        if result is None:
            reply = {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32601, "message": "Method not found"},
            }
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
