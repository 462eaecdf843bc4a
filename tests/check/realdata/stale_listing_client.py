"""A raw 2025-11-25 client that lists the tools (two pages: `count`, with an outputSchema, on the
second), calls `count`, calls `flip` (the server then sends notifications/tools/list_changed: `count`
no longer declares an outputSchema) and calls `count` again without listing anew. Recorded into
stale-listing.tape: `python stale_listing_client.py mcptape record -o X -- python probe_server.py`."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}


def main() -> None:
    p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert p.stdin is not None and p.stdout is not None
    stdin, stdout = p.stdin, p.stdout

    def ask(rid: int, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        stdin.write((json.dumps(message) + "\n").encode())
        stdin.flush()
        while json.loads(stdout.readline()).get("id") != rid:
            pass

    ask(1, "initialize", INIT)
    stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    ask(2, "tools/list")
    ask(3, "tools/list", {"cursor": "page2"})
    ask(4, "tools/call", {"name": "count", "arguments": {}})
    ask(5, "tools/call", {"name": "flip", "arguments": {}})
    ask(6, "tools/call", {"name": "count", "arguments": {}})
    stdin.close()
    p.wait(timeout=10)


if __name__ == "__main__":
    main()
