"""A raw 2025-11-25 client: two sequential tools/call with progress token "t" (a token may come again
once its request is answered), then two at once with the same token "same" (the client's mistake:
"Progress tokens MUST be unique across all active requests"), the second shorter. Recorded into
shared-progress-token.tape: `python shared_token_client.py mcptape record -o X -- python probe_server.py`."""

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

    def send(message: dict[str, Any]) -> None:
        stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        stdin.flush()

    def wait(*ids: int) -> None:
        left = set(ids)
        while left:
            left.discard(json.loads(stdout.readline()).get("id"))

    def prog(rid: int, token: str, steps: int) -> None:
        params = {"name": "prog", "arguments": {"steps": steps}, "_meta": {"progressToken": token}}
        send({"id": rid, "method": "tools/call", "params": params})

    send({"id": 1, "method": "initialize", "params": INIT})
    wait(1)
    send({"method": "notifications/initialized"})
    prog(2, "t", 3)
    wait(2)
    prog(3, "t", 3)
    wait(3)
    prog(4, "same", 4)
    prog(5, "same", 2)
    wait(4, 5)
    stdin.close()
    p.wait(timeout=10)


if __name__ == "__main__":
    main()
