"""The exchanges of an HTTP transcript, read back from their raw bytes (`http-in`, `http-out`).

Each exchange's records are fed, in time order, to two h11 readers of its own: one for the request
(the server's role), one for the response (the client's role). They give the heads (method, target,
status, headers) and the bodies; an SSE body goes through the one SSE decoder as it comes, so a
stream of any length is read in constant memory. A JSON body is kept whole (up to `BODY_KEPT`) with
the event index of each record it came in, so a problem found in it names the record holding the
offending byte. Bytes h11 cannot read stop the reading of that message and are remembered with
their offset. `transport.py` judges what this reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import h11

from mcptape.check.http.values import QUOTED, quoted, quoted_header
from mcptape.transcript.wire import SSE_TYPE, SseDecoder, SseEvent, SseProblem, is_json_type, media_type

BODY_KEPT = 1 << 20  # bytes of a JSON body kept for judging (past this, its JSON is not judged)
KEPT_TOTAL = 64 << 20  # bytes of bodies kept at once, all open exchanges together


class Budget:
    """The bytes of bodies an analysis may still keep (memory does not grow with the transcript)."""

    def __init__(self, left: int = KEPT_TOTAL) -> None:
        self.left = left


MAX_HEAD = 1 << 20
SHOWN = 4096  # bytes of a message's start kept to name where it stopped being HTTP


@dataclass
class Head:
    """A request line or status line and its headers (names lower-cased, values as text)."""

    method: str = ""
    target: str = ""
    status: int = 0
    headers: list[tuple[str, str]] = field(default_factory=list)

    def get(self, name: str) -> str | None:
        found = None
        for key, value in self.headers:
            if key == name:
                found = value
        return found

    @property
    def media(self) -> str:
        return media_type(self.get("content-type"))


@dataclass
class Broken:
    """Where a message stopped being HTTP: byte offset in the message, its bytes from there, why."""

    offset: int
    raw: bytes
    why: str
    event: int


class HttpMessage:
    """One direction of an exchange: a request (`server_role`) or a response, fed record by record."""

    def __init__(self, *, request: bool, budget: Budget) -> None:
        self.request = request
        self.budget = budget
        self.conn = h11.Connection(h11.SERVER if request else h11.CLIENT, max_incomplete_event_size=MAX_HEAD)
        self.head: Head | None = None
        self.body = bytearray()
        self.body_size = 0  # bytes of body seen (kept or not)
        self.over = False  # the body is larger than BODY_KEPT: not kept
        self.marks: list[tuple[int, int]] = []  # (body offset, event index) of each record's body bytes
        self.complete = False
        self.broken: Broken | None = None
        self.sse: SseDecoder | None = None
        self.events: list[SseEvent] = []  # SSE events decoded by the last feed
        self.fed = 0  # bytes of the message fed so far
        self.first_event = -1
        self.last_event = -1  # the record fed last (the one that completed what was just read)
        self.t = 0.0
        self.reported = False  # its `broken` was reported
        self.start = bytearray()  # the message's first SHOWN bytes (to name where it stopped being HTTP)
        self.body_start = 0  # offset of the body in the message (known once the head is read)

    def feed(self, data: bytes, index: int, t: float) -> None:
        """Add one record's bytes; `events` then holds the SSE events they completed."""
        self.events = []
        self.last_event = index
        if self.first_event < 0:
            self.first_event, self.t = index, t
        if self.broken is not None or self.complete:
            if data and self.complete and self.broken is None:
                self._break(self.fed, data, "bytes after the end of the message", index)
            self.fed += len(data)
            return
        if len(self.start) < SHOWN:
            self.start += data[: SHOWN - len(self.start)]
        self.fed += len(data)
        self.conn.receive_data(data)
        self._read(index)

    def close(self, index: int) -> None:
        """The transcript ended (or the connection did): h11 ends a read-until-close body here."""
        if self.broken is not None or self.complete or self.head is None:
            return
        try:
            self.conn.receive_data(b"")
        except RuntimeError:
            return
        self._read(index, closing=True)

    def _read(self, index: int, *, closing: bool = False) -> None:
        while True:
            try:
                event = self.conn.next_event()
            except h11.RemoteProtocolError as exc:
                if not closing:  # named from the start of the head or body part h11 refused
                    at = self.body_start if self.head is not None else 0
                    raw = (
                        bytes(self.start[at:]) if at < len(self.start) else bytes(self.conn.trailing_data[0])
                    )
                    self._break(at, raw, f"not HTTP/1.1: {exc}", index)
                return
            except Exception as exc:  # h11 lost track: what follows is not judged
                self._break(self.fed, b"", f"cannot be read ({exc!r})", index)
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                break
            if isinstance(event, h11.Request):
                self.head = Head(
                    method=event.method.decode("latin-1"),
                    target=event.target.decode("latin-1"),
                    headers=_headers(event),
                )
                self.body_start = self.fed - len(self.conn.trailing_data[0])
            elif isinstance(event, h11.Response):
                self.head = Head(status=event.status_code, headers=_headers(event))
                self.body_start = self.fed - len(self.conn.trailing_data[0])
                if self.head.media == SSE_TYPE:
                    self.sse = SseDecoder()
            elif isinstance(event, h11.InformationalResponse):
                continue
            elif isinstance(event, h11.Data):
                self._data(bytes(event.data), index)
            elif isinstance(event, h11.EndOfMessage):
                self.complete = True
                break
            else:
                break

    def _data(self, data: bytes, index: int) -> None:
        if self.sse is not None:
            self.events.extend(self.sse.feed(data))
            self.body_size += len(data)
            return
        if not self.marks or self.marks[-1][1] != index:
            self.marks.append((self.body_size, index))
        self.body_size += len(data)
        if self.over:
            return
        if len(self.body) + len(data) > BODY_KEPT or len(data) > self.budget.left:
            self.over = True
            self.release()
        else:
            self.body += data
            self.budget.left -= len(data)

    def release(self) -> None:
        """Give the kept body's bytes back to the budget."""
        self.budget.left += len(self.body)
        self.body = bytearray()

    def _break(self, offset: int, raw: bytes, why: str, index: int) -> None:
        self.broken = Broken(offset, raw[:SHOWN], why, index)

    def event_at(self, offset: int) -> int:
        """The event index of the record holding body byte `offset`."""
        found = self.first_event
        for start, index in self.marks:
            if start > offset:
                break
            found = index
        return found

    @property
    def json_body(self) -> bool:
        """A body to read as one JSON value: a request's, or a response declared JSON."""
        if self.head is None:
            return False
        return self.request or is_json_type(self.head.media)


def clip(text: str, limit: int = QUOTED, header: bool = True) -> str:
    """A request line's part (`header`: read as latin-1) or a JSON string as a finding's message shows
    it: escaped and cut at `limit` bytes (values.quoted_header or quoted, without the quotes)."""
    return (quoted_header(text, limit) if header else quoted(text, limit))[1:-1]


def _headers(event: h11.Request | h11.Response) -> list[tuple[str, str]]:
    return [(n.decode("latin-1").lower(), v.decode("latin-1")) for n, v in event.headers.raw_items()]


class Exchange:
    """One request and its response, read as their records come."""

    def __init__(self, x: int, budget: Budget) -> None:
        self.x = x
        self.request = HttpMessage(request=True, budget=budget)
        self.response = HttpMessage(request=False, budget=budget)
        self.judged_request = False
        self.judged_head = False
        self.done = False
        self.value: object = None  # the request body's JSON value, once read
        self.mismatch: str | None = None  # how its headers disagree with its body
        self.sse_problems = 0  # SSE problems already reported
        # the Mcp-Session-Id its 2xx answer carries, to a request carrying one, while it is not yet
        # known whether the server supports only 2026-07-28 (its body may tell: check/http/session.py)
        self.pending_session: str | None = None

    def release(self) -> None:
        self.request.release()
        self.response.release()

    def request_line(self) -> bytes:
        """`METHOD target` of the request (empty before its head was read)."""
        head = self.request.head
        if head is None:
            return b""
        return f"{head.method} {head.target}".encode("latin-1", "replace")

    def describe(self) -> str:
        """`POST /mcp tools/call -> 200 text/event-stream`: what a finding names the exchange by."""
        request, response = self.request.head, self.response.head
        what = f"{clip(request.method)} {clip(request.target)}" if request is not None else "?"
        if type(self.value) is dict and type(self.value.get("method")) is str:
            what += f" {clip(self.value['method'], header=False)}"
        if response is not None:
            what += f" -> {response.status}"
            if response.media:
                what += f" {response.media}"
        return what

    def new_sse_problems(self) -> list[SseProblem]:
        sse = self.response.sse
        if sse is None or len(sse.problems) == self.sse_problems:
            return []
        fresh = sse.problems[self.sse_problems :]
        self.sse_problems = len(sse.problems)
        return fresh
