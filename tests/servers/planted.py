"""A tiny Streamable HTTP MCP server (2026-07-28, stateless) with one planted fault, written with raw
sockets so every byte it sends is the test's choice.

`python planted.py PORT MODE`, MODE one of:

* `clean`: answers each request with a JSON body (`tools/call` of `count` with an SSE stream);
* `log-before-json`: a JSON body that starts with a log line;
* `bad-sse`: the SSE stream of `tools/call` holds a line that is no SSE field;
* `no-validation`: answers whatever the headers say (a `Mcp-Method` that disagrees with the body too);
* `garbage`: answers bytes that are not HTTP;
* `reset`: sends the head and one SSE event of the answer, then resets the connection;
* `close-early`: closes the connection without answering;
* `slow-sse`: the SSE answer of `tools/call` sends a progress event, waits a second, then the answer.
"""

from __future__ import annotations

import socket
import struct
import sys
import threading
import time

import h11
import orjson

PORT = int(sys.argv[1])
MODE = sys.argv[2]
LOG_LINE = b"debug: handling the request\n"
BAD_SSE_LINE = b"dta: oops"


def result(request_id: object, value: dict[str, object]) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"resultType": "complete", **value}})


def answer(message: dict[str, object]) -> dict[str, object]:
    method = message.get("method")
    if method == "server/discover":
        return {
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "planted", "version": "1"}},
        }
    if method == "tools/list":
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
        return {"tools": [{"name": "count", "inputSchema": schema}], "ttlMs": 0, "cacheScope": "private"}
    return {"content": [{"type": "text", "text": "done"}], "isError": False}


def head(status: bytes, media: bytes, length: int | None) -> bytes:
    lines = [b"HTTP/1.1 " + status, b"content-type: " + media]
    if length is not None:
        lines.append(b"content-length: %d" % length)
    return b"\r\n".join(lines) + b"\r\n\r\n"


def respond(conn: socket.socket, message: dict[str, object]) -> bool:
    """Send the answer; False when the connection must end."""
    if "id" not in message:
        conn.sendall(head(b"202 Accepted", b"application/json", 0))
        return True
    body = result(message["id"], answer(message))
    sse = message.get("method") == "tools/call"
    if MODE == "garbage":
        conn.sendall(b"this is not HTTP at all\r\n\r\n")
        return False
    if MODE == "close-early":
        return False
    if MODE == "reset" and sse:
        conn.sendall(
            head(b"200 OK", b"text/event-stream", None).replace(b"\r\n\r\n", b"\r\nconnection: close\r\n\r\n")
        )
        conn.sendall(
            b'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n'
        )
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        return False
    if MODE == "slow-sse" and sse:  # a progress event, a pause, then the answer (chunked)
        progress = (
            b'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n'
        )
        conn.sendall(
            head(b"200 OK", b"text/event-stream", None).replace(
                b"\r\n\r\n", b"\r\ntransfer-encoding: chunked\r\n\r\n"
            )
        )
        conn.sendall(b"%x\r\n%s\r\n" % (len(progress), progress))
        time.sleep(1.0)
        final = b"event: message\ndata: " + body + b"\n\n"
        conn.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(final), final))
        return True
    if sse:
        stream = b"event: message\ndata: " + body + b"\n\n"
        if MODE == "bad-sse":
            stream = BAD_SSE_LINE + b"\n" + stream
        conn.sendall(head(b"200 OK", b"text/event-stream", len(stream)) + stream)
        return True
    if MODE == "log-before-json":
        body = LOG_LINE + body
    conn.sendall(head(b"200 OK", b"application/json", len(body)) + body)
    return True


def serve(conn: socket.socket) -> None:
    parser = h11.Connection(h11.SERVER)
    body = bytearray()
    try:
        while True:
            event = parser.next_event()
            if event is h11.NEED_DATA:
                data = conn.recv(65536)
                if not data:
                    return
                parser.receive_data(data)
                continue
            if isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                message = orjson.loads(bytes(body)) if body else {}
                body.clear()
                if not respond(conn, message):
                    return
                leftover = parser.trailing_data[0]
                parser = h11.Connection(h11.SERVER)  # the answer was written raw: start afresh
                if leftover:  # (an empty receive_data would mean the end of the connection)
                    parser.receive_data(leftover)
            elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
                return
    except (OSError, h11.ProtocolError):
        return
    finally:
        conn.close()


def main() -> None:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", PORT))
    listener.listen(16)
    print(f"planted {MODE} on {PORT}", flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # the recorder forwards the SIGINT that ends a test
        pass
