"""The HTTP exchanges of an HTTP transcript, as the viewer shows them.

Each record of an HTTP transcript carries its exchange's number `x` (the raw bytes on `http-in` and
`http-out`, the messages they carried on `in` and `out`). The check pass indexes the rows of every
exchange (`wirerows.ExchangeRows`); from those rows this module reads, when a row is on screen or
selected, what the list and the detail pane say of its exchange:

* `cells(x)`: the exchange column of a row, `x3 POST /mcp 200 sse` (and without the path);
* `piece(row, ch, x)`: what a raw record is (`http request`, `response body`, `sse`);
* `notes(row, x, describe)`: the messages the exchange carried (its request, then its response's
  JSON body or its SSE stream's events, with their `event` type and `id`; the selected row marked),
  then the request line and headers and the status line and headers (as recorded, escaped; secrets
  as recorded: redaction is `mcptape redact`'s job).

The heads and the SSE stream are read by the check core's own readers (`check.http.exchanges`: h11 and
the one SSE decoder, `transcript.wire.SseDecoder`), bounded: the first `HEAD_READ` bytes of a message
for its head, the first `STREAM_READ` bytes of a response for its events.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcptape.textsafe import escape, escape_text
from mcptape.transcript.events import HTTP_IN, HTTP_OUT, Event
from mcptape.transcript.index import LRU, TranscriptIndex
from mcptape.transcript.wire import SSE_TYPE, is_json_type
from mcptape.tui.model.rowfacts import CHANNEL_CODE, RowFacts
from mcptape.tui.model.rows import ARROWS, RowInfo

if TYPE_CHECKING:
    from mcptape.check.http.exchanges import HttpMessage

HEAD_READ = 64 * 1024  # bytes of a message read to find its head
STREAM_READ = 1 << 20  # bytes of a response read to name its SSE events
LISTED = 200  # messages of an exchange listed in the detail pane
MAX_HEADERS = 64
SHOWN = 200  # bytes of a header line shown
_IN, _OUT = CHANNEL_CODE["in"], CHANNEL_CODE["out"]
_HTTP_IN, _HTTP_OUT = CHANNEL_CODE[HTTP_IN], CHANNEL_CODE[HTTP_OUT]


def exchange_of(event: Event) -> int | None:
    """The exchange number a record carries (None: not an HTTP transcript's record)."""
    x = (event.fields or {}).get("x")
    return x if type(x) is int else None


@dataclass(frozen=True)
class Head:
    """A request's or a response's head: where it starts, its lines as recorded, and what h11 read."""

    row: int
    lines: tuple[bytes, ...]
    method: str = ""
    target: str = ""
    status: int = 0
    media: str = ""
    problem: str | None = None  # not HTTP (h11 could not read it), or no end of head found
    session: str = ""  # its Mcp-Session-Id header


@dataclass(frozen=True)
class Heads:
    request: Head | None
    response: Head | None


@dataclass
class Stream:
    """The messages an exchange carried, in file order: what the client sent (`in`, a request body),
    what the server answered (`out`, a JSON body or each SSE event), and the `event` type and `id` of
    the SSE events decoded (the k-th `out` row is the k-th event)."""

    sent: array[int] = field(default_factory=lambda: array("i"))
    answered: array[int] = field(default_factory=lambda: array("i"))
    sse: bool = False
    events: list[tuple[str, str | None]] = field(default_factory=list)
    undecoded: bool = False  # the stream is longer than STREAM_READ: the events past it are not named


def _reader(*, request: bool) -> HttpMessage:
    from mcptape.check.http.exchanges import Budget, HttpMessage  # h11: only for an HTTP transcript

    return HttpMessage(request=request, budget=Budget(HEAD_READ))


def _read_head(records: Iterator[tuple[int, bytes]], *, request: bool) -> Head | None:
    """The head of the message whose records these are (the check core's h11 reader reads it)."""
    reader = _reader(request=request)
    first, data = -1, bytearray()
    for row, chunk in records:
        if first < 0:
            first = row
        piece = chunk[: HEAD_READ - len(data)]  # a head is read from the message's first bytes only
        data += piece
        reader.feed(piece, row, 0.0)
        if reader.head is not None or reader.broken is not None or len(data) >= HEAD_READ:
            break
    if first < 0:
        return None
    head = reader.head
    if head is None:
        problem = reader.broken.why if reader.broken is not None else "no end of head recorded"
        recorded = bytes(data).split(b"\r\n\r\n", 1)[0]  # the lines as they came, up to a blank one
        return Head(first, tuple(recorded.split(b"\r\n")), problem=problem)
    lines = tuple(bytes(data[: reader.body_start]).rstrip(b"\r\n").split(b"\r\n"))
    session = head.get("mcp-session-id") or ""
    return Head(first, lines, head.method, head.target, head.status, head.media, session=session)


def _short_media(media: str) -> str:
    if media == SSE_TYPE:
        return "sse"
    return "json" if is_json_type(media) else media


class Exchanges:
    """What the viewer says of each exchange, read on demand from the rows the check pass indexed."""

    def __init__(self, index: TranscriptIndex) -> None:
        self.index = index
        self.facts: RowFacts | None = None
        self._heads: LRU[int, Heads] = LRU(1024)
        self._streams: LRU[int, Stream] = LRU(8)

    def set_facts(self, facts: RowFacts) -> None:
        self.facts = facts
        self._heads.clear()
        self._streams.clear()

    def _records(self, x: int, channel: int) -> Iterator[tuple[int, bytes]]:
        """The rows and bytes of exchange `x` on one channel (by its code)."""
        facts = self.facts
        if facts is None or facts.exchanges is None:
            return
        for row in facts.exchanges.rows(x):
            if facts.channel[row] == channel:
                event = self.index.event(row)
                if isinstance(event, Event):
                    yield row, event.data

    def heads(self, x: int) -> Heads | None:
        """The request's and the response's heads (None before the check pass indexed the rows)."""
        facts = self.facts
        if facts is None or facts.exchanges is None or not 0 < x <= facts.exchanges.count:
            return None
        found = self._heads.get(x)
        if found is None:
            found = Heads(
                _read_head(self._records(x, _HTTP_IN), request=True),
                _read_head(self._records(x, _HTTP_OUT), request=False),
            )
            kept = (found.request, found.response)
            self._heads.put(x, found, sum(len(b) for h in kept if h is not None for b in h.lines))
        return found

    def cells(self, x: int) -> tuple[str, str]:
        """The exchange column: `x3 POST /mcp 200 sse`, and `x3 POST 200 sse` for a narrow list."""
        heads = self.heads(x)
        if heads is None:
            return f"x{x}", f"x{x}"
        request, response = heads.request, heads.response
        if request is None:
            method = target = "?"
        elif request.problem is not None:
            method, target = "not-HTTP", ""
        else:
            method, target = escape_text(request.method), escape_text(request.target)
        if response is None:
            answer = "…"
        elif response.problem is not None:
            answer = "not-HTTP"
        else:
            answer = " ".join(
                part for part in (str(response.status), escape_text(_short_media(response.media))) if part
            )
        full = " ".join(part for part in (f"x{x}", method, target, answer) if part)
        return full, " ".join(part for part in (f"x{x}", method, answer) if part)

    def piece(self, row: int, channel: str, x: int) -> str:
        """What a raw record is: the head of its message (`http request`, `http response`), or a
        part of its body (`request body`, `response body`, `sse` for an event stream's)."""
        heads = self.heads(x)
        if heads is None:  # before the check pass indexed the rows
            return ""
        head = heads.request if channel == HTTP_IN else heads.response
        if channel == HTTP_IN:
            return "http request" if head is None or head.row == row else "request body"
        if head is None or head.row == row:
            return "http response"
        return "sse" if head.media == SSE_TYPE else "response body"

    def stream(self, x: int) -> Stream:
        """The messages exchange `x` carried, and the SSE events of its response's first STREAM_READ bytes."""
        found = self._streams.get(x)
        if found is not None:
            return found
        stream = Stream()
        facts = self.facts
        if facts is None or facts.exchanges is None:
            return stream
        reader = _reader(request=False)
        read = 0
        for row in facts.exchanges.rows(x):
            code = facts.channel[row]
            if code == _IN:
                stream.sent.append(row)
            elif code == _OUT:
                stream.answered.append(row)
            elif code == _HTTP_OUT and reader.broken is None and not reader.complete:
                if read >= STREAM_READ or (reader.head is not None and reader.sse is None):
                    stream.undecoded = read >= STREAM_READ
                    continue
                event = self.index.event(row)
                if isinstance(event, Event):
                    read += event.size
                    reader.feed(event.data, row, event.t)
                    stream.events += [
                        (e.event[:SHOWN], None if e.id is None else e.id[:SHOWN]) for e in reader.events
                    ]
        stream.sse = reader.sse is not None
        weight = 4 * (len(stream.sent) + len(stream.answered)) + 100 * len(stream.events)
        self._streams.put(x, stream, weight)
        return stream

    def notes(self, row: int, x: int, describe: Callable[[int], RowInfo]) -> list[tuple[str, str]]:
        """The detail pane's lines on exchange `x` of `row`: the messages it carried, then its heads."""
        heads = self.heads(x)
        if heads is None:
            if self.facts is None:
                return [("dim", f"exchange {x}: its request and response are shown once the check has run")]
            return [("dim", f"exchange {x}: not indexed (no such exchange number in this transcript)")]
        notes: list[tuple[str, str]] = [("bold", f"exchange {x}: {self.cells(x)[0]}")]
        notes.extend(self._carried(row, x, describe))  # first: short, and what the row is part of
        for head, title, mark in ((heads.request, "request", ">"), (heads.response, "response", "<")):
            if head is None:
                notes.append(("dim", f"exchange {x}: no {title} recorded"))
                continue
            notes.append(
                ("bold", f"exchange {x} {title} (row {head.row + 1}): {escape(head.lines[0], SHOWN)}")
            )
            if head.problem is not None:
                notes.append(("red", f"  {mark} not read as HTTP: {escape_text(head.problem)}"))
            for line in head.lines[1 : MAX_HEADERS + 1]:
                notes.append(("dim", f"  {mark} {escape(line, SHOWN)}"))
            if len(head.lines) > MAX_HEADERS + 1:
                notes.append(("dim", f"  {mark} ... {len(head.lines) - MAX_HEADERS - 1} more header lines"))
        return notes

    def _carried(self, row: int, x: int, describe: Callable[[int], RowInfo]) -> list[tuple[str, str]]:
        """The messages, each under the client's: the first LISTED, or LISTED around `row`."""
        stream = self.stream(x)
        sent, answered = stream.sent, stream.answered
        if not sent and not answered:
            return [("dim", f"exchange {x} carried no message")]
        how = " (its SSE stream's events)" if stream.sse and answered else ""
        total = len(sent) + len(answered)
        said = f"{len(sent)} from the client, {len(answered)} from the server{how}"
        notes = [("bold", f"exchange {x} carried {total} message{'s' if total != 1 else ''}: {said}")]
        for at in sent[:LISTED]:
            notes.append(self._message(at, "in", None, row, describe))
        if len(sent) > LISTED:
            notes.append(("dim", f"  ... {len(sent) - LISTED} more from the client"))
        first = max(0, min(bisect_left(answered, row) - LISTED // 2, len(answered) - LISTED))
        last = min(len(answered), first + LISTED)
        if first:
            notes.append(("dim", f"    ... {first} earlier"))
        for k in range(first, last):
            event = stream.events[k] if stream.sse and k < len(stream.events) else None
            notes.append(self._message(answered[k], "out", event, row, describe))
        if last < len(answered):
            notes.append(("dim", f"    ... {len(answered) - last} more"))
        if stream.undecoded and last > len(stream.events):
            past = f"past its first {STREAM_READ >> 20} MiB"
            notes.append(("dim", f"    (the `event` and `id` of the stream's events {past} are not read)"))
        return notes

    @staticmethod
    def _message(
        at: int,
        channel: str,
        event: tuple[str, str | None] | None,
        row: int,
        describe: Callable[[int], RowInfo],
    ) -> tuple[str, str]:
        """A message of the list: its row, its SSE event, what it says; the selected one marked."""
        info = describe(at)
        parts = [f"row {at + 1}", channel]
        if event is not None:
            parts.append(f"event {escape_text(event[0])}")
            if event[1] is not None:
                parts.append(f"id {escape_text(event[1])}")
        parts += [p for p in (info.label, info.status, info.preview[:120]) if p]
        indent = "  " if channel == "in" else "    "
        mark = "   ◂ this row" if at == row else ""
        return ("bold" if at == row else "", f"{indent}{ARROWS.get(channel, ' ')} {' · '.join(parts)}{mark}")
