"""`mcptape serve FILE --listen HOST:PORT`: the recorded server for a client speaking Streamable HTTP.

The served session is the stdio one (`session.Session`, matching and answering as `serve` does),
run on two pipes; this module is its HTTP face. Each POST's JSON-RPC message is written to the
session as a line, and the session's lines are routed back: a response to the POST that sent its
request (by id); any other line (a notification, a server request such as a legacy
`elicitation/create`) to the latest POST whose answer is still awaited, else to the GET stream when
one is open (a method recorded on a GET stream goes there first), else nowhere (counted). A request
is answered with JSON or an SSE stream as the recording answered the request it matched (an SSE
stream whatever the recording did when lines come before the response); a notification or a
response POST gets `202 Accepted`. A GET opens the GET stream when the recorded server opened one
(a GET answered 200); otherwise it gets `405`, as the recorded server answered.

Every line routed to a stream is kept in that stream's history (`Stream`), so each SSE event has an
id (`<stream>-<n>`) and a client that lost a stream resumes it with a GET carrying `Last-Event-ID`:
the events after that one, then the stream goes on (the GET stream) or ends with its answer (a
POST's). One GET stream at a time (another gets `409`). When the recording's server assigned an
`Mcp-Session-Id` at initialize, the initialize answer carries a new one, `DELETE` with it ends that
session (`200`; its GET stream closes; later requests carrying it get `404`); without session ids,
`DELETE` gets `405`. `--inject` plays the HTTP hard outputs of `httpinject.py`. HTTP/1.1 is read and
written with h11, one thread per connection (keep-alive works).
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

import h11
import orjson

from mcptape.check.classify import classify, explain
from mcptape.check.framing import ChannelFramer
from mcptape.check.http.values import kind as message_kind
from mcptape.check.model import OUT, Kind, Message
from mcptape.serve.httpconn import READ, Close, conn_send, gone, read_request, request_header, send
from mcptape.serve.httpinject import REDIRECTED, HttpInjector, events_before
from mcptape.serve.httprecorded import assigned_session, get_streams, recorded_forms
from mcptape.serve.httpstream import LATER, Stream, event_bytes
from mcptape.serve.session import Session
from mcptape.textsafe import escape_text
from mcptape.transcript.wire import SSE_TYPE, carried_line

LOOK = 0.5  # seconds between two looks at whether a waiting SSE client is still there
PLAIN = [("content-type", "text/plain")]


class HttpFront:
    """The HTTP face of one served session: `attach(session)` before it runs, `start()`, then
    `stop()` (the session then sees its client close)."""

    def __init__(
        self,
        paths: list[Path],
        host: str,
        port: int,
        log: Callable[[str], None],
        inject: list[str] | None = None,
    ) -> None:
        self.log = log
        self.forms = recorded_forms(paths)
        self.get_offered, self.get_methods = get_streams(paths)
        self.session_ids = any(assigned_session(p) for p in paths)
        self.injector = HttpInjector(list(inject or []))
        self.in_r, self.in_w = os.pipe()  # the session's stdin
        self.out_r, self.out_w = os.pipe()  # the session's stdout
        self.session: Session | None = None
        self.lock = threading.Lock()
        self.streams: dict[int, Stream] = {}
        self.pending: dict[object, Stream] = {}
        self.current: Stream | None = None
        self.get_stream: Stream | None = None
        self.get_open = 0  # connections reading the GET stream now
        self.live: set[str] = set()  # the Mcp-Session-Ids assigned and not ended
        self.deleted: set[str] = set()
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
            streams = list(self.streams.values())
            self.pending.clear()
        for stream in streams:
            stream.end()

    def close(self) -> None:
        """After the session: its pipes closed (the router sees the end)."""
        closed_by_session = self.session is not None and self.session.result.closed_t is not None
        for fd in (self.in_r,) if closed_by_session else (self.in_r, self.out_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def _new_stream(self, rid: object) -> Stream:
        with self.lock:
            stream = Stream(len(self.streams) + 1, rid)
            self.streams[stream.sid] = stream
            return stream

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
            stream = self.pending.pop(msg.id, None) if is_response else None
            if stream is None and is_response and msg.id is None:
                stream = self.current  # an error for a line that was not a request
            if stream is not None:
                if self.current is stream:
                    self.current = None
                last = True
            else:
                listening = self.get_stream if self.get_open else None
                if listening is not None and msg.method in self.get_methods:
                    stream = listening  # recorded on the GET stream: played there
                else:
                    stream = self.current if self.current is not None else listening
                last = False
            if stream is None:
                self.dropped += 1  # no stream to carry it
                return
        stream.put(raw, last)

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
                request, body = read_request(conn, sock)
                if request is None:
                    return
                self._answer(conn, sock, request, body)
                if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    return
                conn.start_next_cycle()
        except (OSError, h11.ProtocolError, Close):
            return
        finally:
            sock.close()

    def _answer(self, conn: h11.Connection, sock: socket.socket, request: h11.Request, body: bytes) -> None:
        method = request.method.decode("latin-1")
        session_id = request_header(request, "mcp-session-id")
        if session_id is not None and session_id in self.deleted:
            send(
                conn, sock, 404, [("content-type", "text/plain")], b"mcptape serve: this session was ended\n"
            )
            return
        if method == "DELETE":
            self._delete(conn, sock, session_id)
        elif method == "GET":
            self._get(conn, sock, request)
        elif method == "POST":
            self._post(conn, sock, request, body)
        else:
            send(conn, sock, 405, [("allow", "GET, POST, DELETE")], b"")

    def _delete(self, conn: h11.Connection, sock: socket.socket, session_id: str | None) -> None:
        """End the session named (its GET stream closes; its id is refused from now on)."""
        if not self.session_ids:
            send(conn, sock, 405, [("allow", "GET, POST")], b"")  # no session to end
            return
        if session_id is None or session_id not in self.live:
            why = b"no Mcp-Session-Id" if session_id is None else b"no such session"
            send(
                conn, sock, 400 if session_id is None else 404, [("content-type", "text/plain")], why + b"\n"
            )
            return
        with self.lock:
            self.live.discard(session_id)
            self.deleted.add(session_id)
            stream, self.get_stream = self.get_stream, None
        if stream is not None:
            stream.end()
        send(conn, sock, 200, [], b"")

    def _get(self, conn: h11.Connection, sock: socket.socket, request: h11.Request) -> None:
        """The GET stream, or the resumption of a stream after the event `Last-Event-ID` names."""
        last_id = request_header(request, "last-event-id")
        if last_id is None and not self.get_offered:
            send(conn, sock, 405, [("allow", "POST")], b"")  # the recorded server offered none
            return
        if last_id is not None:
            sid_text, _, n_text = last_id.strip().partition("-") if len(last_id) < 40 else ("", "", "")
            found = self.streams.get(int(sid_text)) if sid_text.isdecimal() and n_text.isdecimal() else None
            if found is None:
                send(conn, sock, 400, PLAIN, b"mcptape serve: unknown Last-Event-ID\n")
                return
            self._stream(conn, sock, found, int(n_text) + 1, [], None)
            return
        with self.lock:
            if self.get_open:
                busy = True
            else:
                busy = False
                self.get_open += 1  # claimed before its headers go out: a second GET meanwhile gets 409
                if self.get_stream is None:
                    self.get_stream = Stream(len(self.streams) + 1, None)
                    self.streams[self.get_stream.sid] = self.get_stream
                stream = self.get_stream
        if busy:
            send(conn, sock, 409, [("content-type", "text/plain")], b"mcptape serve: a GET stream is open\n")
            return
        try:
            self._stream(conn, sock, stream, len(stream.lines), [], None, claimed=True)
        finally:
            with self.lock:
                self.get_open -= 1

    def _post(self, conn: h11.Connection, sock: socket.socket, request: h11.Request, body: bytes) -> None:
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError:  # orjson's limits (a lone surrogate escape): the session's reader
            value = explain(body)[1]
        kind = message_kind(value)
        if kind in ("notification", "response"):
            self._write(body)
            send(conn, sock, 202, [], b"")
            return
        rid = value.get("id") if kind == "request" and type(value) is dict else None
        method = value.get("method") if type(value) is dict else None
        redirected = REDIRECTED.encode() in request.target
        case = None if redirected else self.injector.take(method)
        if case is not None:
            said = escape_text(f"{method} (id {rid!r})")  # the client's bytes
            self.log(f"mcptape serve: injected {case} into the answer to {said}")
        if case == "http-redirect":
            path = request.target.decode("latin-1")
            where = path + ("&" if "?" in path else "?") + REDIRECTED
            send(conn, sock, 307, [("location", where)], b"")
            return
        stream = self._new_stream(rid)
        with self.lock:
            self.pending[rid] = stream
            self.current = stream
        self._write(body)
        first = stream.wait(0, None)
        while first == LATER:
            first = stream.wait(0, None)
        if not isinstance(first, tuple):
            send(conn, sock, 503, [("content-type", "text/plain")], b"mcptape serve: the session ended\n")
            return
        extra = self._session_headers(method, case)
        line, last = first
        accepts_sse = SSE_TYPE in (request_header(request, "accept") or SSE_TYPE)
        sse = not last or (accepts_sse and self._recorded_sse(rid))
        if case in ("http-sse-not-json", "http-foreign-id", "http-cut-mid-event"):
            sse = True
        if case == "http-empty-200":
            stream.wait_for_the_last(last, LOOK)  # the answer, when it comes, is not sent: an empty body
            send(conn, sock, 200, [("content-type", "application/json"), *extra], b"")
        elif not sse:
            media = "text/plain" if case == "http-wrong-content-type" else "application/json"
            send(conn, sock, 200, [("content-type", media), *extra], line.rstrip(b"\n"))
        else:
            media = "text/plain" if case == "http-wrong-content-type" else SSE_TYPE
            self._stream(conn, sock, stream, 0, events_before(case), case, [("content-type", media), *extra])

    def _session_headers(self, method: object, case: str | None) -> list[tuple[str, str]]:
        """The session id header of an answer: minted for an initialize when the recording had
        session ids, a new one on every answer under `--inject http-session-changes`."""
        extra = []
        if self.session_ids and method == "initialize":
            minted = uuid.uuid4().hex
            with self.lock:
                self.live.add(minted)
            extra.append(("mcp-session-id", minted))
        if case == "http-session-changes":
            extra.append(("mcp-session-id", uuid.uuid4().hex))
        return extra

    def _stream(
        self,
        conn: h11.Connection,
        sock: socket.socket,
        stream: Stream,
        index: int,
        before: list[bytes],
        case: str | None,
        head: list[tuple[str, str]] | None = None,
        claimed: bool = False,
    ) -> None:
        """Send `stream`'s entries from `index` as SSE events until its last (a POST's answer) or its
        end; `before`, events sent first (an injected case's)."""
        headers = head if head is not None else [("content-type", SSE_TYPE)]
        conn_send(
            conn,
            sock,
            h11.Response(status_code=200, headers=[*headers, ("cache-control", "no-cache")], reason=b"OK"),
        )
        for event in before:
            conn_send(conn, sock, h11.Data(data=event))
        is_get = stream.rid is None and not claimed  # `claimed`: the GET stream counted by `_get`
        if is_get:
            with self.lock:
                self.get_open += 1
        try:
            while True:
                entry = stream.wait(index, LOOK)
                if entry == LATER:
                    if gone(sock):
                        raise Close()
                    continue
                if not isinstance(entry, tuple):
                    break
                line, last = entry
                event = event_bytes(stream, index, line)
                if case == "http-cut-mid-event" and last:
                    conn_send(conn, sock, h11.Data(data=event[: len(event) // 2]))
                    raise Close()
                conn_send(conn, sock, h11.Data(data=event))
                index += 1
                if last:
                    break
        finally:
            if is_get:
                with self.lock:
                    self.get_open -= 1
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
