"""An HTTP transcript's exchanges, read back from their raw bytes for the formats (HAR above all):
each request's and response's head and body, and when each began and ended on the recording's
clock. The bytes are read by the check core's h11 readers (`check.http.exchanges.HttpMessage`), which
keep here every body byte (up to `BODY_LIMIT`), SSE streams as the text that crossed the wire."""

from __future__ import annotations

from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path

from mcptape.check.http.exchanges import Budget, Head, HttpMessage
from mcptape.transcript.events import HTTP_IN, HTTP_OUT, IN, OUT
from mcptape.transcript.reader import open_transcript

BODY_LIMIT = 16 << 20  # bytes of one body kept for an export; past this the body is cut


class KeptMessage(HttpMessage):
    """An h11 reader of one direction that keeps the whole body, SSE included."""

    def __init__(self, *, request: bool) -> None:
        super().__init__(request=request, budget=Budget(0))
        self.kept = bytearray()
        self.cut = 0  # body bytes not kept (past BODY_LIMIT)

    def _data(self, data: bytes, index: int) -> None:
        room = BODY_LIMIT - len(self.kept)
        self.kept += data[: max(room, 0)]
        self.cut += max(len(data) - max(room, 0), 0)
        super()._data(data, index)


@dataclass
class Side:
    """One direction of an exchange: its head, body, and the times of its first and last record."""

    head: Head | None = None
    body: bytes = b""
    cut: int = 0
    body_size: int = 0  # bytes of body, de-chunked (kept or not)
    head_size: int = 0  # bytes of the request or status line and headers
    first: float | None = None
    last: float | None = None
    size: int = 0  # bytes of the whole message on the wire
    broken: str | None = None  # why h11 stopped reading it


@dataclass
class HttpExchange:
    """One HTTP request and its response, as recorded."""

    x: int
    request: Side = field(default_factory=Side)
    response: Side = field(default_factory=Side)

    @property
    def status_text(self) -> str:
        head = self.response.head
        if head is None:
            return ""
        try:
            return HTTPStatus(head.status).phrase
        except ValueError:
            return ""

    def response_header(self, name: str) -> str | None:
        head = self.response.head
        return head.get(name) if head is not None else None


def read_exchanges(path: Path) -> tuple[list[HttpExchange], dict[int, int]]:
    """The exchanges of the HTTP transcript at `path` in the order of their numbers, and the
    exchange of each carried `in`/`out` line (event index -> exchange number)."""
    transcript = open_transcript(path)
    readers: dict[tuple[int, str], KeptMessage] = {}
    sides: dict[tuple[int, str], Side] = {}
    carried: dict[int, int] = {}
    for event in transcript.events():
        x = event.get("x")
        if type(x) is not int:
            continue
        if event.ch in (IN, OUT):
            carried[event.index] = x
            continue
        if event.ch not in (HTTP_IN, HTTP_OUT):
            continue
        key = (x, event.ch)
        reader = readers.get(key)
        if reader is None:
            reader = readers[key] = KeptMessage(request=event.ch == HTTP_IN)
            sides[key] = Side(first=event.t)
        data = event.data
        reader.feed(data, event.index, event.t)
        side = sides[key]
        side.last = event.t
        side.size += len(data)
    exchanges: dict[int, HttpExchange] = {}
    for (x, ch), reader in readers.items():
        reader.close(-1)
        side = sides[(x, ch)]
        side.head = reader.head
        side.body = bytes(reader.kept)
        side.cut = reader.cut
        side.body_size = reader.body_size
        side.head_size = reader.body_start if reader.head is not None else 0
        side.broken = reader.broken.why if reader.broken is not None else None
        exchange = exchanges.setdefault(x, HttpExchange(x))
        if ch == HTTP_IN:
            exchange.request = side
        else:
            exchange.response = side
    return [exchanges[x] for x in sorted(exchanges)], carried
