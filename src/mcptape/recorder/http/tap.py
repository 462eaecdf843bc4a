"""What the reverse proxy records of one client connection: its raw bytes, cut into exchanges, and
the JSON-RPC messages they carry (see `mcptape.transcript.wire` for the records).

The proxy forwards every byte first, then hands a copy here. Two h11 connections (or `fastconn`'s
readers) read the copy, one per direction: `requests` (the server's role) reads what the client sent,
`responses` (the client's role) what the server answered. Each tells the other what its peer did (a
mirror), so both stay in step and know where each message ends (a `HEAD` answer, a 1xx, a chunked
or a read-until-close body); nothing is ever re-encoded, the bytes the mirror produces are dropped.

The bytes the readers consumed since the last record are written as they come, tagged with their
exchange: a request's bytes open an exchange (numbered for the whole session), its response's close
it. A request body, once complete, goes on `in`; a JSON response body on `out` when complete; each
event of an SSE stream on `out` in the read its blank line arrives in (after that read's bytes, in
one write). A sink taking encoded records (`write_raw`: the spool of a transcript writer) gets them
encoded here as the writer encodes them (`reply.record`, `reply.carried_records`); any other sink,
fields. Bytes h11 cannot read (not HTTP) stop the reading, never the forwarding: they are recorded
as they are, on the exchange in progress, and the reason is kept for `exchange_problem`.
"""

from __future__ import annotations

import base64
import threading
from collections import deque
from collections.abc import Callable

import h11

from mcptape.recorder.http.fastconn import FastConn, Unsure
from mcptape.recorder.http.handover import fast_pair, h11_pair
from mcptape.recorder.http.reply import BODY_KEPT, Reply, carried_records, record
from mcptape.recorder.sinks import Target
from mcptape.transcript.wire import (
    EXCHANGE,
    HTTP_IN,
    HTTP_OUT,
    carried_line,
)

MAX_HEAD = 1 << 20  # h11's limit on a head (request line and headers)


class Exchanges:
    """The session's exchange numbers (from 1), shared by every connection."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last = 0

    def next(self) -> int:
        with self._lock:
            self._last += 1
            return self._last


def _fields(data: bytes) -> dict[str, str]:
    try:
        return {"data": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"b64": base64.b64encode(data).decode("ascii")}


class _Side:
    """One direction of the connection: its h11 reader, the bytes fed and not yet recorded."""

    def __init__(self, role: type[h11.SERVER] | type[h11.CLIENT], channel: str, fast: bool) -> None:
        self.conn: h11.Connection | FastConn = (
            FastConn(role, MAX_HEAD) if fast else h11.Connection(role, max_incomplete_event_size=MAX_HEAD)
        )
        self.channel = channel
        self.pending: list[bytes] = []  # reads fed to the reader and not recorded yet
        self.size = 0  # their bytes
        self.failed: str | None = None  # why h11 stopped reading this direction
        self.x = 0  # the exchange the bytes being read belong to


class Tap:
    """One client connection's recorder. `client_bytes`/`server_bytes` take what was forwarded
    (after forwarding it), `client_closed`/`server_closed` the ends; thread-safe. `fast`: the common
    exchange is read by `fastconn` (False: h11 reads everything; the records are the same)."""

    def __init__(
        self,
        sink: Target,
        exchanges: Exchanges,
        *,
        on_problem: Callable[[int, str], None] | None = None,
        fast: bool = True,
    ) -> None:
        self.sink = sink
        self.exchanges = exchanges
        self.on_problem = on_problem
        self.fast = fast
        # a sink taking encoded records (the spool of a transcript writer): the tap encodes its own
        self._write: Callable[[bytes], None] | None = getattr(sink, "write_raw", None)
        self._write_parts: Callable[[list[bytes], int], None] | None = getattr(sink, "write_parts", None)
        self._lock = threading.Condition()
        self._req = _Side(h11.SERVER, HTTP_IN, fast)
        self._resp = _Side(h11.CLIENT, HTTP_OUT, fast)
        self._waiting: deque[int] = deque()  # exchanges whose request started, oldest first
        self._answered: set[int] = set()  # exchanges whose response has begun
        self._complete: set[int] = set()  # exchanges whose request was read whole, not yet answered
        self._body = bytearray()  # the request body being read
        self._body_over = False
        self._reply = Reply(sink, self._carry)  # what the response being read carries
        self._mirror_ok = True
        self._closing = False  # the server closed its end: a reading error is a message cut short
        self._client_gone = False  # the client closed its end (a stream it closed is not cut short)
        self._in_flight = 0  # client reads forwarded and not yet recorded
        self._held: deque[tuple[float, bytes | None]] = deque()  # server reads waiting for them

    # -- input -----------------------------------------------------------------------------
    # The client's bytes are forwarded before they are recorded, so the server's answer can be
    # read back before the request is: `client_sending` (called before forwarding) makes the
    # server's bytes wait in `_held` until the request they answer was read (never blocking a thread).
    def client_sending(self) -> None:
        with self._lock:
            self._in_flight += 1

    def client_bytes(self, t: float, data: bytes) -> None:
        with self._lock:
            self._feed(self._req, t, data)
            self._read_requests(t)
            self._flush(self._req, t)
            self._in_flight = max(0, self._in_flight - 1)
            self._release()
            self._lock.notify_all()

    def server_bytes(self, t: float, data: bytes) -> None:
        with self._lock:
            self._held.append((t, data))
            self._release()

    def client_closed(self, t: float) -> None:
        with self._lock:
            self._client_gone = True
            self._feed(self._req, t, b"")
            self._read_requests(t)
            self._flush(self._req, t)
            self._release()

    def client_unreachable(self) -> None:
        """The proxy could not write to the client: it left, though its end may not be read yet (the
        upstream's end that follows is then not the upstream's doing)."""
        with self._lock:
            self._client_gone = True

    @property
    def client_gone(self) -> bool:
        """True once the client closed its end of the connection."""
        with self._lock:
            return self._client_gone

    def client_left(self, t: float, x: int, when: str) -> None:
        """Note that the client closed exchange `x`'s connection `when` (no answer yet, or mid-response):
        `x` and `closed: "client"` let `check` know it (on 2026-07-28 that cancels the request)."""
        self.sink.fields(
            t, "note", msg=f"exchange {x}: the client closed the connection {when}", x=x, closed="client"
        )

    def server_closed(self, t: float) -> None:
        with self._lock:
            self._held.append((t, None))
            self._release()

    def _release(self) -> None:
        """Read the server's bytes held back, unless a request is still on its way to being read."""
        while self._held and not self._in_flight:
            t, data = self._held.popleft()
            if data is None:
                self._closing = True
                data = b""
            self._feed(self._resp, t, data)
            self._read_responses(t)
            self._flush(self._resp, t)

    def unanswered(self, settle: float = 1.0) -> list[int]:
        """The exchanges whose request came and whose response has not begun (once the client's
        bytes already forwarded are read, waiting at most `settle` seconds for that)."""
        with self._lock:
            self._lock.wait_for(lambda: not self._in_flight, settle)
            self._release()
            return [x for x in self._waiting if x not in self._answered]

    def request_complete(self, x: int) -> bool:
        """True once the whole request of exchange `x` was read."""
        with self._lock:
            return x in self._complete

    def answering(self) -> int:
        """The exchange the server's bytes were last recorded on (0 before any)."""
        with self._lock:
            return self._resp.x

    def substitute(self, t: float, x: int, data: bytes) -> None:
        """Record a response mcptape itself sent for exchange `x` (the upstream gave none)."""
        with self._lock:
            self._answered.add(x)
            self.sink.fields(t, HTTP_OUT, **{EXCHANGE: x}, **_fields(data))

    # -- reading ---------------------------------------------------------------------------
    def _feed(self, side: _Side, t: float, data: bytes) -> None:
        if side.failed is None:
            try:
                side.conn.receive_data(data)
            except RuntimeError:  # data after the end of the stream
                side.failed = "bytes after the connection was closed"
        if data:
            side.pending.append(data)
            side.size += len(data)

    def _problem(self, side: _Side, t: float, why: str) -> None:
        side.failed = why
        if side is self._resp:  # the bytes answer the oldest request waiting (if any)
            if self._waiting:
                side.x = self._waiting[0]
            self._answered.add(side.x)
        if side.x == 0:  # bytes that began no exchange: give them one
            side.x = self.exchanges.next()
            if side is self._req:
                self._waiting.append(side.x)
        if self.on_problem is not None:
            self.on_problem(side.x, why)

    def _read_requests(self, t: float) -> None:
        side = self._req
        while side.failed is None:
            try:
                event = side.conn.next_event()
            except Unsure:
                self._to_h11()
                continue
            except h11.RemoteProtocolError as exc:
                self._problem(side, t, f"the client sent what is not HTTP/1.1 ({exc})")
                return
            except Exception as exc:  # h11 lost track (the mirror went out of step): stop reading
                self._problem(side, t, f"cannot follow the client's bytes ({exc!r})")
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):  # its head was consumed: a new exchange's bytes
                side.x = self.exchanges.next()
                self._waiting.append(side.x)
                self._body = bytearray()
                self._body_over = False
                self._mirror(self._resp, event)
            elif isinstance(event, h11.Data):
                if not self._body_over:
                    if len(self._body) + len(event.data) > BODY_KEPT:
                        self._body_over = True
                        self._body = bytearray()
                    else:
                        self._body += event.data
                self._mirror(self._resp, event)
            elif isinstance(event, h11.EndOfMessage):
                self._complete.add(side.x)
                self._mirror(self._resp, event)
                self._flush(side, t)
                if self._body and not self._body_over:
                    self._carry(t, "in", side.x, bytes(self._body))
                self._body = bytearray()
                self._cycle(t)
            elif isinstance(event, h11.ConnectionClosed):
                return

    def _read_responses(self, t: float) -> None:
        side = self._resp
        while side.failed is None:
            try:
                event = side.conn.next_event()
            except Unsure:
                self._to_h11()
                continue
            except h11.RemoteProtocolError as exc:
                if self._closing and self._client_gone:  # the client closed first: not the server's doing
                    side.failed = "the client closed the connection before the end of the response"
                    if self._waiting and self._waiting[0] == side.x and side.x in self._answered:
                        self.client_left(t, side.x, "before the end of the response")
                    return
                if (
                    self._closing
                    and not side.size
                    and not (self._waiting and self._waiting[0] in self._answered)
                ):
                    side.failed = "the server closed the connection before answering"  # the proxy answers 502
                    return
                if self._closing:
                    why = "the server closed the connection in the middle of the response"
                else:
                    why = f"the server answered what is not HTTP/1.1 ({exc})"
                self._problem(side, t, why)
                return
            except Exception as exc:  # h11 lost track (the mirror went out of step): stop reading
                self._problem(side, t, f"cannot follow the server's bytes ({exc!r})")
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.InformationalResponse | h11.Response):  # its head was consumed
                side.x = self._waiting[0] if self._waiting else self.exchanges.next()
                self._answered.add(side.x)
                self._mirror(self._req, event)
                if isinstance(event, h11.Response):
                    self._reply.begin(event)
            elif isinstance(event, h11.Data):
                self._mirror(self._req, event)
                # The SSE messages wait for the flush that records the bytes they came in (`_flush`):
                # a read's bytes are one record, its events' messages the next, in one write.
                spanned = side.conn.take_spanned() if type(side.conn) is FastConn else None
                self._reply.data(side.x, bytes(event.data), spanned)  # (the same bytes, if bytes)
            elif isinstance(event, h11.EndOfMessage):
                self._mirror(self._req, event)
                self._flush(side, t)
                self._reply.end(t, side.x)
                if self._waiting and self._waiting[0] == side.x:
                    self._waiting.popleft()
                    self._answered.discard(side.x)
                    self._complete.discard(side.x)
                self._cycle(t)
            elif isinstance(event, h11.ConnectionClosed):
                return

    def _cycle(self, t: float) -> None:
        """Both messages of an exchange are done: ready both readers for the next one, and read a
        request the client already sent (pipelined) that h11 held back."""
        req, resp = self._req.conn, self._resp.conn
        if (req.our_state, req.their_state, resp.our_state, resp.their_state) != (h11.DONE,) * 4:
            return
        try:
            req.start_next_cycle()
            resp.start_next_cycle()
        except h11.LocalProtocolError:
            return  # a connection that must close: nothing more will be read on it
        if self.fast and isinstance(req, h11.Connection) and isinstance(resp, h11.Connection):
            self._req.conn, self._resp.conn = fast_pair(req, resp, MAX_HEAD)  # kept alive: fast again
        self._read_requests(t)
        self._flush(self._req, t)

    def _to_h11(self) -> None:
        """The fast readers met what they do not read (`fastconn`): h11 takes both directions over
        where they stopped, for the rest of this exchange."""
        req, resp = self._req.conn, self._resp.conn
        assert isinstance(req, FastConn) and isinstance(resp, FastConn)
        self._req.conn, self._resp.conn = h11_pair(req, resp, MAX_HEAD)

    def _mirror(self, other: _Side, event: h11.Event) -> None:
        """Tell the other reader what this side did (its output is dropped)."""
        if not self._mirror_ok:
            return
        try:
            other.conn.send(event)
        except Exception as exc:  # h11.LocalProtocolError, or h11 out of step
            self._mirror_ok = False
            other.failed = f"cannot follow the exchange ({exc})"

    def _flush(self, side: _Side, t: float, keep: int | None = None) -> None:
        """Record the bytes h11 consumed (all pending bytes once it stopped reading), on the
        exchange being read; `keep` bytes at the end stay pending (they belong to what follows)."""
        if side.failed is not None:
            keep = 0
        elif keep is None:
            conn = side.conn
            keep = conn.unconsumed if isinstance(conn, FastConn) else len(conn.trailing_data[0])
        pending = side.pending
        size = side.size - keep
        parts: list[bytes] = []
        written = 0  # the size of the records in `parts`
        if size > 0:
            data = pending[0] if len(pending) == 1 else b"".join(pending)
            pending.clear()
            side.size = keep
            if keep:  # a pipelined message's bytes follow
                pending.append(data[size:])
                data = data[:size]
            if side.x == 0:  # bytes before any exchange (a response nobody asked for): one of their own
                side.x = self.exchanges.next()
            if self._write is None:
                self.sink.fields(t, side.channel, **{EXCHANGE: side.x}, **_fields(data))
            else:
                text = self._reply.text_of(data) if side is self._resp else None
                written = record(parts, t, side.channel, side.x, data, text)
        if side is self._resp:  # the SSE messages those bytes carried, after them (one write)
            if self._write is None:
                self._reply.written(t)
            else:
                written += self._reply.encoded(parts, t)
        if parts:
            if self._write_parts is not None:  # one writev: the records' parts never joined
                self._write_parts(parts, written)
            else:
                self._write(b"".join(parts))  # type: ignore[misc]

    # -- what the bodies carry -----------------------------------------------------------------
    def _carry(self, t: float, ch: str, x: int, message: bytes) -> None:
        """A message the exchange carried, as one line of `in` or `out`."""
        if self._write is not None:
            parts: list[bytes] = []
            carried_records(parts, t, ch, x, [message])
            self._write(b"".join(parts))
        else:
            self.sink.fields(t, ch, **{EXCHANGE: x}, **_fields(carried_line(message)))
