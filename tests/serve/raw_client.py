"""A small stdio MCP client without the SDK, for the client probe's tests:
`raw_client.py --reader KIND SERVER_CMD...` (the server command last, the probe's convention).

It sends the requests of `tests/serve/test_client_probe_verdicts.py`'s recording one at a time
(one request in flight), waits for each answer and prints one line per answer's text. How it reads
the server's stdout is the point (`--reader`):

  strict    each line must be exactly one JSON-RPC message, and a response must answer the request
            in flight; anything else: a line on stderr and exit 1
  skipping  a line that is not JSON is skipped; a response with another id is dropped; it waits for
            its answer with no time limit (it hangs when the answer never comes)
  in-flight a line that is not JSON is skipped; any response is the answer to the request in flight,
            whatever its id
  stream    every JSON value on a line is a message (values glued on one line are all read); a
            response with another id is dropped
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("server/discover", {}),
    ("tools/list", {}),
    ("tools/call", {"name": "now", "arguments": {"zone": "UTC"}}),
    ("tools/call", {"name": "now", "arguments": {"zone": "Europe/Paris"}}),
    ("tools/call", {"name": "now", "arguments": {"zone": "Asia/Tokyo"}}),
]


def values(line: str, reader: str) -> list[Any]:
    """The messages one stdout line holds, as this reader sees them."""
    if reader == "stream":
        found: list[Any] = []
        decoder, at = json.JSONDecoder(), 0
        text = line.strip()
        while at < len(text):
            try:
                value, at = decoder.raw_decode(text, at)
            except ValueError:
                return found
            found.append(value)
            while at < len(text) and text[at].isspace():
                at += 1
        return found
    try:
        return [json.loads(line)]
    except ValueError:
        if reader == "strict":
            sys.exit(f"raw_client: a line that is not one JSON message: {line[:60]!r}")
        return []


def answer(server: subprocess.Popen[str], rid: int, reader: str) -> Any:
    assert server.stdout is not None
    while True:
        line = server.stdout.readline()
        if not line:
            sys.exit("raw_client: the server's stdout ended")
        for value in values(line, reader):
            if not isinstance(value, dict) or "method" in value:
                continue  # a notification or a server request: not what it waits for
            if value.get("id") == rid or reader == "in-flight":
                return value.get("result", value.get("error"))
            if reader == "strict":
                sys.exit(f"raw_client: a response to id {value.get('id')!r}, which is not in flight")


def main(reader: str, command: list[str]) -> None:
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdin is not None
    for rid, (method, params) in enumerate(REQUESTS, start=1):
        message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": META}}
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        result = answer(server, rid, reader)
        content = result.get("content") if isinstance(result, dict) else None
        print(json.dumps(content[0]["text"] if content else result), flush=True)
    server.stdin.close()
    server.wait(10)


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] != "--reader":
        sys.exit("usage: raw_client.py --reader strict|skipping|in-flight|stream SERVER_CMD...")
    main(sys.argv[2], sys.argv[3:])
