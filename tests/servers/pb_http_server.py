"""A deliberately tolerant Streamable HTTP MCP server, for `probe --url`'s tests (standard library).

    python pb_http_server.py PORT [--writes]

One tool, `lookup(key: string)`, declared read-only, reports an honest read on the executor tap
(`mcptape.tap.executed("lookup", request_id=..., kind="read")`), so every request it runs is seen;
`--writes` makes that line say kind `update`: a read-only tool that writes.
Tolerant everywhere a strict server refuses: it runs the first JSON object found anywhere in a body
(after decoding it with replacement characters), every element of a JSON array, whatever the
Content-Type; it mints a session id at `initialize` but serves requests without one, with a foreign
one, or with one it was asked to DELETE; it ignores MCP-Protocol-Version; it answers a GET with
`200 application/json`. Each answer is one JSON body.
"""

from __future__ import annotations

import json
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mcptape import tap

WRITES = "--writes" in sys.argv
TOOL = {
    "name": "lookup",
    "description": "Look a key up (reads only).",
    "annotations": {"readOnlyHint": True},
    "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
}


def first_json(raw: bytes) -> Any:
    """The first JSON value found anywhere in `raw` (the tolerance under test), or None."""
    text = raw.decode("utf-8", "replace")
    for start, char in enumerate(text):
        if char in "{[":
            try:
                value, _ = json.JSONDecoder().raw_decode(text, start)
            except ValueError:
                continue
            return value
    return None


def handle(message: Any) -> dict[str, Any] | None:
    if not isinstance(message, dict) or "id" not in message:
        return None
    rid, method = message.get("id"), message.get("method")
    given = message.get("params")
    params: dict[str, Any] = given if isinstance(given, dict) else {}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "pb_http_server", "version": "1.0"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        named = params.get("arguments")
        arguments: dict[str, Any] = named if isinstance(named, dict) else {}
        key = arguments.get("key")
        tap.executed("lookup", request_id=rid, kind="update" if WRITES else "read", key=key)
        result = {"content": [{"type": "text", "text": f"value of {key}"}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no {method}"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        print(f"pb_http_server: {format % args}", file=sys.stderr, flush=True)

    def reply(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        value = first_json(raw)
        messages = value if isinstance(value, list) else [value]
        answers = [a for a in (handle(m) for m in messages) if a is not None]
        minted = {}
        if any(isinstance(m, dict) and m.get("method") == "initialize" for m in messages):
            minted = {"Mcp-Session-Id": uuid.uuid4().hex}
        if not answers:
            self.reply(202, headers=minted)
        else:
            self.reply(200, answers if isinstance(value, list) else answers[0], minted)

    def do_GET(self) -> None:
        self.reply(200, {"server": "pb_http_server"})

    def do_DELETE(self) -> None:
        self.reply(200, {})


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
