"""A Streamable HTTP server that answers hostile things (MODE): `newline`, `nonlatin`, `cr` (a
protocolVersion that cannot go back as a header), `trickle` (tools/list answered by an event stream
of keep-alives that never answers). `python hostile_http_server.py PORT MODE`."""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[2]


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a: object) -> None:
        pass

    def do_DELETE(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        n = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(n))
        rid = body.get("id")
        method = body.get("method")
        if rid is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if method == "initialize":
            pv = {
                "newline": "2025-06-18\nX-Evil: 1",
                "nonlatin": "版本",
                "cr": "2025\r",
                "nul": "2025\x00",
            }.get(MODE, "2025-06-18")
            out = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {
                        "protocolVersion": pv,
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "h", "version": "1"},
                    },
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            if MODE == "session-fold":
                self.send_header("Mcp-Session-Id", "abc\r\n def")
            if MODE == "session-ctl":
                self.send_header("Mcp-Session-Id", "abc\x1b]0;x\x07")
            self.end_headers()
            self.wfile.write(out)
            return
        if MODE == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for _ in range(1000):
                self.wfile.write(b": keepalive\n\n")
                self.wfile.flush()
                time.sleep(0.5)
            return
        if MODE == "sse-garbage":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", "40")
            self.end_headers()
            self.wfile.write(b"data: \xff\xfe\x1b]0;x\x07\n\nevent: x\ndata")
            return
        out = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"tools": []}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
