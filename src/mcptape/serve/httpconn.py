"""One HTTP/1.1 connection of serve --listen, read and written with h11: a request whole, an answer
whole, a look at whether the client left.
"""

from __future__ import annotations

import socket
from http import HTTPStatus

import h11

from mcptape.transcript.wire import header

MAX_BODY = 64 << 20
READ = 65536


class Close(Exception):
    """The answer ends by closing the connection (a stream cut on purpose)."""


def gone(sock: socket.socket) -> bool:
    """True when the client closed the connection (a look that takes nothing)."""
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def request_header(request: h11.Request, name: str) -> str | None:
    fields = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in request.headers.raw_items()]
    return header(fields, name)


def read_request(conn: h11.Connection, sock: socket.socket) -> tuple[h11.Request | None, bytes]:
    request: h11.Request | None = None
    body = bytearray()
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            data = sock.recv(READ)
            conn.receive_data(data)
            if not data and conn.their_state is h11.IDLE:
                return None, b""
            continue
        if isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
            return None, b""
        if isinstance(event, h11.Request):
            request = event
        elif isinstance(event, h11.Data):
            if len(body) + len(event.data) > MAX_BODY:
                raise h11.RemoteProtocolError("body too large")
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            return request, bytes(body)


def conn_send(conn: h11.Connection, sock: socket.socket, event: h11.Event) -> None:
    data = conn.send(event)
    if data:
        sock.sendall(data)


def send(
    conn: h11.Connection, sock: socket.socket, status: int, headers: list[tuple[str, str]], body: bytes
) -> None:
    headers = [*headers, ("content-length", str(len(body)))]
    reason = HTTPStatus(status).phrase.encode()
    conn_send(conn, sock, h11.Response(status_code=status, headers=headers, reason=reason))
    if body:
        conn_send(conn, sock, h11.Data(data=body))
    conn_send(conn, sock, h11.EndOfMessage())
