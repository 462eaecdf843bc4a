"""A small Streamable HTTP MCP server (stdlib only) speaking both eras, with one transport fault chosen
by MODE, for the tests of the HTTP session and status rules (tests/check/rules/test_hr_*.py and
tests/check/http/test_hr_recorded.py).

`python hr_server.py PORT MODE`, MODE one of:

* `clean`: what the specification asks of every case below;
* `spaced-id`: mints session ids with spaces (`hr session 1`: not visible ASCII only);
* `alive-after-delete`: a session ended by DELETE still answers its requests (200, not 404);
* `sessionless-ok`: a request without the assigned session id is served (200, not 400);
* `broadcast`: each progress notification of `steps` is sent on its POST stream and on the GET stream;
* `modern-session`: a server of 2026-07-28 only (its server/discover lists no other version, an
  initialize is refused) whose answers carry an Mcp-Session-Id (the request's echoed, else minted);
* `modern-200`: the 2026-07-28 errors -32601 (method not found) and -32022 (unsupported version)
  are sent with 200, not 404 and 400.

Every mode refuses a foreign Origin with 403 and a JSON-RPC error that has no `id` (which the spec
allows). Tools: `add(a, b)`; `steps(n)`, an SSE answer with a progress notification per step.
"""

from __future__ import annotations

import itertools
import json
import queue
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PORT, MODE = int(sys.argv[1]), sys.argv[2]
MODERN, LEGACY = "2026-07-28", "2025-11-25"
HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
META_VERSION = "io.modelcontextprotocol/protocolVersion"
MODERN_METHODS = ("server/discover", "tools/list", "tools/call")
NUMBER = {"type": "integer"}
TOOLS = [
    {"name": "add", "inputSchema": {"type": "object", "properties": {"a": NUMBER, "b": NUMBER}}},
    {"name": "steps", "inputSchema": {"type": "object", "properties": {"n": NUMBER}}},
]


class Session:
    def __init__(self, sid: str) -> None:
        self.id = sid
        self.ended = False
        self.stream: queue.Queue[dict[str, Any]] | None = None  # the open GET stream's messages
        self.stream_open = threading.Event()


SESSIONS: dict[str, Session] = {}
COUNTER = itertools.count(1)


def mint() -> str:
    return f"hr session {next(COUNTER)}" if MODE == "spaced-id" else uuid.uuid4().hex


def meta_version(message: dict[str, Any]) -> str | None:
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get(META_VERSION) if isinstance(meta, dict) else None


def result(rid: Any, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": value}


def error(rid: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    reply: dict[str, Any] = {"jsonrpc": "2.0", "error": body}
    if rid is not None:
        reply["id"] = rid
    return reply


def answer(method: str, params: dict[str, Any], modern: bool) -> dict[str, Any]:
    """The result of a request this server knows (both eras; 2026-07-28 results say their type)."""
    if method == "initialize":
        return {
            "protocolVersion": LEGACY,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hr", "version": "1"},
        }
    cache = {"ttlMs": 0, "cacheScope": "private"} if modern else {}
    if method == "server/discover":
        info = {"io.modelcontextprotocol/serverInfo": {"name": "hr", "version": "1"}}
        value: dict[str, Any] = {
            "supportedVersions": [MODERN] if MODE == "modern-session" else [MODERN, LEGACY],
            "capabilities": {"tools": {}},
            **cache,
            "_meta": info,
        }
    elif method == "tools/list":
        value = {"tools": TOOLS, **cache}
    elif method == "tools/call":
        arguments = params.get("arguments") or {}
        text = str(arguments.get("a", 0) + arguments.get("b", 0))
        value = {"content": [{"type": "text", "text": text}], "isError": False}
    else:
        value = {}
    return {**value, "resultType": "complete"} if modern else value


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- the wire --------------------------------------------------------------------------
    def _head(self, status: int, media: str | None, headers: dict[str, str], length: int | None) -> None:
        self.send_response(status)
        if media is not None:
            self.send_header("Content-Type", media)
        for name, value in headers.items():
            self.send_header(name, value)
        if length is None:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def _json(self, status: int, value: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        body = json.dumps(value).encode()
        self._head(status, "application/json", headers or {}, len(body))
        self.wfile.write(body)

    def _empty(self, status: int, headers: dict[str, str] | None = None) -> None:
        self._head(status, None, headers or {}, 0)

    def _event(self, value: dict[str, Any] | None) -> None:
        """One SSE event (a chunk), or the stream's end (None)."""
        data = b"" if value is None else b"event: message\ndata: " + json.dumps(value).encode() + b"\n\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _foreign_origin(self) -> bool:
        origin = self.headers.get("Origin")
        host = (origin or "").partition("://")[2].rpartition(":")[0] or (origin or "").partition("://")[2]
        if origin is None or host in ("localhost", "127.0.0.1"):
            return False
        self._json(403, error(None, -32600, "Forbidden: invalid Origin header"))
        return True

    def _session(self) -> Session | None:
        """The request's live session; None after answering 400 (none given) or 404 (unknown, ended)."""
        sid = self.headers.get("Mcp-Session-Id")
        if sid is None:
            if MODE == "sessionless-ok":
                return Session("")
            self._json(400, error(None, -32600, "Bad Request: Mcp-Session-Id header is required"))
            return None
        session = SESSIONS.get(sid)
        if session is None or (session.ended and MODE != "alive-after-delete"):
            self._json(404, error(None, -32600, "Session not found"))
            return None
        return session

    # -- methods ---------------------------------------------------------------------------
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self._foreign_origin():
            return
        message = json.loads(body)
        header = self.headers.get("MCP-Protocol-Version")
        if meta_version(message) is not None or (header is not None and header not in HANDSHAKE):
            self._modern(message)
        else:
            self._legacy(message)

    def do_GET(self) -> None:
        if self._foreign_origin():
            return
        session = self._session()
        if session is None:
            return
        session.stream = queue.Queue()
        self._head(200, "text/event-stream", {"Mcp-Session-Id": session.id}, None)
        session.stream_open.set()
        try:
            while not session.ended:
                try:
                    self._event(session.stream.get(timeout=0.05))
                except queue.Empty:
                    continue
            self._event(None)
        except OSError:
            return

    def do_DELETE(self) -> None:
        if self._foreign_origin():
            return
        session = self._session()
        if session is not None:
            session.ended = True
            self._empty(200)

    # -- the two eras ---------------------------------------------------------------------------
    def _legacy(self, message: dict[str, Any]) -> None:
        method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
        if MODE == "modern-session":  # 2026-07-28 only
            data = {"supported": [MODERN], "requested": params.get("protocolVersion")}
            self._json(400, error(rid, -32022, "Unsupported protocol version", data))
            return
        if method == "initialize":
            opened = Session(mint())
            SESSIONS[opened.id] = opened
            self._json(200, result(rid, answer("initialize", params, False)), {"Mcp-Session-Id": opened.id})
            return
        session = self._session()
        if session is None:
            return
        headers = {"Mcp-Session-Id": session.id} if session.id else {}
        if rid is None or method is None:  # a notification or a response
            self._empty(202, headers)
        elif method == "tools/call" and params.get("name") == "steps":
            self._steps(rid, params, session, headers, False)
        elif method in ("tools/list", "tools/call", "ping"):
            self._json(200, result(rid, answer(method, params, False)), headers)
        else:
            self._json(200, error(rid, -32601, f"Method not found: {method}"), headers)

    def _modern(self, message: dict[str, Any]) -> None:
        method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
        headers = {}
        if MODE == "modern-session":
            headers["Mcp-Session-Id"] = self.headers.get("Mcp-Session-Id") or mint()
        version = meta_version(message)
        wrong = 200 if MODE == "modern-200" else None
        if rid is None:
            self._empty(202, headers)
        elif version != MODERN:
            data = {"supported": [MODERN, LEGACY], "requested": version}
            self._json(wrong or 400, error(rid, -32022, "Unsupported protocol version", data), headers)
        elif method not in MODERN_METHODS:
            self._json(wrong or 404, error(rid, -32601, f"Method not found: {method}"), headers)
        elif method == "tools/call" and params.get("name") == "steps":
            self._steps(rid, params, None, headers, True)
        else:
            self._json(200, result(rid, answer(str(method), params, True)), headers)

    def _steps(
        self, rid: Any, params: dict[str, Any], session: Session | None, headers: dict[str, str], modern: bool
    ) -> None:
        """An SSE answer: a progress notification per step (broadcast: on the GET stream too)."""
        n = int((params.get("arguments") or {}).get("n", 2))
        token = (params.get("_meta") or {}).get("progressToken")
        self._head(200, "text/event-stream", headers, None)
        broadcast = MODE == "broadcast" and session is not None and session.stream_open.wait(5)
        for step in range(1, n + 1):
            if token is None:
                continue
            note = {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": token, "progress": step, "total": n},
            }
            self._event(note)
            if broadcast and session is not None and session.stream is not None:
                session.stream.put(note)
        done = {"content": [{"type": "text", "text": f"done {n}"}], "isError": False}
        self._event(result(rid, {**done, "resultType": "complete"} if modern else done))
        self._event(None)


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
    server.daemon_threads = True
    print(f"hr_server {MODE} on {PORT}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # the recorder forwards the SIGINT that ends a test
        pass


if __name__ == "__main__":
    main()
