"""`mcptape serve FILE --listen HOST:PORT`: the recorded server for a client speaking Streamable HTTP.

The served session is the stdio one (`session.Session`, matching and answering as `serve` does),
run on two pipes; this module is its HTTP face. Each POST's JSON-RPC message is written to the
session as a line, and the session's lines are routed back: a response to the POST that sent its
request (by id), any other line (a notification, a server request such as a legacy
`elicitation/create`) to the latest POST whose answer is still awaited. A request is answered
with JSON or an SSE stream as the recording answered the request it matched (an SSE stream
whatever the recording did when lines come before the response); a notification or a response
POST gets `202 Accepted`; GET and DELETE get `405` (no standalone stream, no session to end). When
the recording's server assigned an `Mcp-Session-Id` at initialize, the initialize answer carries a
new one. HTTP/1.1 is read and written with h11, one thread per connection (keep-alive works).
"""

from __future__ import annotations

import os
import queue
import socket
import threading
import uuid
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path

import h11
import orjson

from mcptape.check.classify import classify
from mcptape.check.framing import ChannelFramer
from mcptape.check.httpvalues import kind as message_kind
from mcptape.check.model import OUT, Kind, Message
from mcptape.serve.session import Session
from mcptape.transcript.reader import open_transcript
from mcptape.transcript.wire import EXCHANGE, HTTP_OUT, SSE_TYPE, carried_line, header, media_type

MAX_BODY = 64 << 20
READ = 65536
ENDED = (b"", True)  # the session ended before answering


class Waiter:
    """A POST waiting for the session's lines: each (line, last), `last` for the response to it."""

    def __init__(self, rid: object) -> None:
        self.rid = rid
        self.lines: queue.Queue[tuple[bytes, bool]] = queue.Queue()


def recorded_forms(paths: list[Path]) -> dict[tuple[Path, int], str]:
    """For each recorded request line of an HTTP transcript (its file, its first `in` event), the
    media type its exchange was answered with (`text/event-stream`, `application/json`)."""
    forms: dict[tuple[Path, int], str] = {}
    for path in paths:
        carried: dict[int, list[int]] = {}  # exchange -> its `in` events
        answered: dict[int, str] = {}
        heads: dict[int, bytes] = {}
        for event in open_transcript(path).events():
            x = (event.fields or {}).get(EXCHANGE)
            if type(x) is not int:
                continue
            if event.ch == "in":
                carried.setdefault(x, []).append(event.index)
            elif event.ch == HTTP_OUT and x not in answered:
                heads[x] = heads.get(x, b"") + event.data
                head, sep, _ = heads[x].partition(b"\r\n\r\n")
                if sep:
                    answered[x] = media_type(_header(head, "content-type"))
                    del heads[x]
        for x, indexes in carried.items():
            for index in indexes:
                forms[(path, index)] = answered.get(x, "")
    return forms


def _header(head: bytes, name: str) -> str | None:
    fields = []
    for line in head.split(b"\r\n")[1:]:
        key, colon, value = line.partition(b":")
        if colon:
            fields.append((key.strip().decode("latin-1"), value.strip().decode("latin-1")))
    return header(fields, name)


class HttpFront:
    """The HTTP face of one served session: `attach(session)` before it runs, `start()`, then
    `stop()` (the session then sees its client close)."""

    def __init__(
        self,
        paths: list[Path],
        host: str,
        port: int,
        log: Callable[[str], None],
    ) -> None:
        self.log = log
        self.forms = recorded_forms(paths)
        self.session_ids = any(_assigned_session(p) for p in paths)
        self.in_r, self.in_w = os.pipe()  # the session's stdin
        self.out_r, self.out_w = os.pipe()  # the session's stdout
        self.session: Session | None = None
        self.lock = threading.Lock()
        self.pending: dict[object, Waiter] = {}
        self.current: Waiter | None = None
        self.dropped = 0
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.listener = socket.socket(family, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, port))
        self.listener.listen(64)
        self.host, self.port = self.listener.getsockname()[:2]
        self.stopping = threading.Event()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/mcp"

    def attach(self, session: Session) -> None:
        self.session = session

    def start(self) -> None:
        threading.Thread(target=self._route, name="mcptape-serve-out", daemon=True).start()
        threading.Thread(target=self._accept, name="mcptape-serve-accept", daemon=True).start()

    def stop(self) -> None:
        """Stop accepting and end the session's input (its client has gone)."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        try:
            os.close(self.in_w)
        except OSError:
            pass
        with self.lock:
            for waiter in list(self.pending.values()):
                waiter.lines.put(ENDED)
            self.pending.clear()

    def close(self) -> None:
        """After the session: its pipes closed (the router sees the end)."""
        closed_by_session = self.session is not None and self.session.result.closed_t is not None
        for fd in (self.in_r,) if closed_by_session else (self.in_r, self.out_w):
            try:
                os.close(fd)
            except OSError:
                pass

    # -- the session's lines --------------------------------------------------------------
    def _route(self) -> None:
        framer = ChannelFramer(OUT)
        while True:
            try:
                data = os.read(self.out_r, READ)
            except OSError:
                data = b""
            frames = framer.feed(data, 0.0, 0) if data else []
            last = framer.close() if not data else None
            for frame in [*frames, *([last] if last is not None else [])]:
                self._one(frame.raw, classify(frame))
            if not data:
                os.close(self.out_r)
                return

    def _one(self, raw: bytes, msg: Message) -> None:
        is_response = msg.method is None and msg.kind in (Kind.RESPONSE, Kind.ERROR_RESPONSE, Kind.INVALID)
        with self.lock:
            waiter = self.pending.pop(msg.id, None) if is_response else None
            if waiter is None and is_response and msg.id is None:
                waiter = self.current  # an error for a line that was not a request
            if waiter is not None:
                waiter.lines.put((raw, True))
                if self.current is waiter:
                    self.current = None
                return
            if self.current is not None:
                self.current.lines.put((raw, False))
            else:
                self.dropped += 1  # no stream to carry it (serve offers no GET stream)

    # -- HTTP -----------------------------------------------------------------------------
    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), name="mcptape-serve-http", daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=1 << 20)
        try:
            while not self.stopping.is_set():
                request, body = _read_request(conn, sock)
                if request is None:
                    return
                self._answer(conn, sock, request, body)
                if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    return
                conn.start_next_cycle()
        except (OSError, h11.ProtocolError):
            return
        finally:
            sock.close()

    def _answer(self, conn: h11.Connection, sock: socket.socket, request: h11.Request, body: bytes) -> None:
        method = request.method.decode("latin-1")
        if method != "POST":
            _send(conn, sock, 405, [("allow", "POST")], b"")
            return
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError:
            value = None
        kind = message_kind(value)
        if kind in ("notification", "response"):
            self._write(body)
            _send(conn, sock, 202, [], b"")
            return
        rid = value.get("id") if kind == "request" and type(value) is dict else None
        waiter = Waiter(rid)
        with self.lock:
            self.pending[rid] = waiter
            self.current = waiter
        self._write(body)
        first, last = waiter.lines.get()
        if (first, last) == ENDED:
            _send(conn, sock, 503, [("content-type", "text/plain")], b"mcptape serve: the session ended\n")
            return
        extra = []
        if self.session_ids and type(value) is dict and value.get("method") == "initialize":
            extra.append(("mcp-session-id", uuid.uuid4().hex))
        accepts_sse = SSE_TYPE in (_request_header(request, "accept") or SSE_TYPE)
        if last and not (accepts_sse and self._recorded_sse(rid)):
            _send(conn, sock, 200, [("content-type", "application/json"), *extra], first.rstrip(b"\n"))
            return
        head = [("content-type", SSE_TYPE), ("cache-control", "no-cache"), *extra]
        conn_send(conn, sock, h11.Response(status_code=200, headers=head, reason=b"OK"))
        line = first
        while line:
            event = b"event: message\r\ndata: " + line.rstrip(b"\n") + b"\r\n\r\n"
            conn_send(conn, sock, h11.Data(data=event))
            if last:
                break
            line, last = waiter.lines.get()
        conn_send(conn, sock, h11.EndOfMessage())

    def _write(self, body: bytes) -> None:
        """A POST's message, as one line of the session's stdin."""
        try:
            data = memoryview(carried_line(body))
            while data:
                data = data[os.write(self.in_w, data) :]
        except OSError:
            pass  # the session has ended

    def _recorded_sse(self, rid: object) -> bool:
        """Did the recording answer the request that answered client request `rid` with SSE?"""
        session = self.session
        if session is None:
            return False
        for entry, client_id in list(session.ids.items()):
            if client_id == rid:
                return self.forms.get((entry.source, entry.message.frame.event)) == SSE_TYPE
        return False


def _request_header(request: h11.Request, name: str) -> str | None:
    fields = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in request.headers.raw_items()]
    return header(fields, name)


def _assigned_session(path: Path) -> bool:
    """Did the recorded server assign an Mcp-Session-Id (the handshake revisions over HTTP)?"""
    return any(
        event.ch == HTTP_OUT and b"\nmcp-session-id:" in event.data.lower()
        for event in open_transcript(path).events()
    )


def _read_request(conn: h11.Connection, sock: socket.socket) -> tuple[h11.Request | None, bytes]:
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


def _send(
    conn: h11.Connection, sock: socket.socket, status: int, headers: list[tuple[str, str]], body: bytes
) -> None:
    headers = [*headers, ("content-length", str(len(body)))]
    reason = HTTPStatus(status).phrase.encode()
    conn_send(conn, sock, h11.Response(status_code=status, headers=headers, reason=reason))
    if body:
        conn_send(conn, sock, h11.Data(data=body))
    conn_send(conn, sock, h11.EndOfMessage())
