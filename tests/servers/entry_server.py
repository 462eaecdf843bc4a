"""A planted stateless (2026-07-28) stdio server that gets the protocol's entry points wrong.

It serves every request whatever its `_meta` says (no -32602 for a missing required field, no
-32022 for a version it does not list), and `tools/call` of `snap` returns an image without
`mimeType`. `server/discover` lists 2026-07-28 only; with `--no-discover` it answers -32601
(method not found). Results carry `resultType` and caching hints otherwise: a server of this era.
No dependency beyond the standard library.
"""

from __future__ import annotations

import json
import sys
from typing import Any

NO_DISCOVER = "--no-discover" in sys.argv[1:]
HINTS = {"ttlMs": 0, "cacheScope": "private"}


def answer(method: str) -> dict[str, Any]:
    if method == "server/discover":
        if NO_DISCOVER:
            return {"error": {"code": -32601, "message": "Method not found"}}
        return {
            "result": {
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                **HINTS,
            }
        }
    if method == "tools/list":
        tool = {"name": "snap", "inputSchema": {"type": "object"}}
        return {"result": {"resultType": "complete", "tools": [tool], **HINTS}}
    if method == "tools/call":
        return {"result": {"resultType": "complete", "content": [{"type": "image", "data": "iVBORw0KGgo="}]}}
    return {"error": {"code": -32601, "message": "Method not found"}}


def main() -> None:
    for raw in sys.stdin:
        message = json.loads(raw)
        if "id" not in message:
            continue
        reply = {"jsonrpc": "2.0", "id": message["id"], **answer(message.get("method", ""))}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
