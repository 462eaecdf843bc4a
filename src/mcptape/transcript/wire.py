"""Streamable HTTP on the wire: what an HTTP transcript's records are, shared by the recorder (which
writes them) and the check core (which judges them). Pure: no I/O.

An HTTP transcript keeps each exchange's raw bytes on two channels, `http-in` (what the client sent)
and `http-out` (what the server answered), every record carrying the exchange's number `x`. The
JSON-RPC messages those bytes carry go on the usual `in` and `out` channels, one line each, so
everything that reads stdio transcripts reads them: `carried_line` makes that line from a body or
an SSE event's data. `SseDecoder` is the one Server-Sent Events decoder (the WHATWG "event stream
interpretation"), with the byte offset of every event and of every line it had to ignore.
"""

from __future__ import annotations

from typing import NamedTuple

from mcptape.transcript.events import HTTP_IN, HTTP_OUT, WIRE_CHANNELS

STDOUT = "stdout"  # an HTTP server's own stdout (not the protocol, unlike a stdio server's `out`)
EXCHANGE = "x"  # the record key holding the exchange number

JSON_TYPE, SSE_TYPE = "application/json", "text/event-stream"
_CR_LF = bytes.maketrans(b"\r\n", b"  ")


def carried_line(message: bytes) -> bytes:
    """The `in`/`out` line of a message an HTTP body (or an SSE event) carried: its bytes with each
    CR and LF made a space (JSON allows them only as whitespace between tokens, so a valid message
    keeps its value, and every byte keeps its offset), then a newline."""
    return message.translate(_CR_LF) + b"\n"


def carried_lines(messages: list[bytes]) -> bytes:
    """`carried_line` of each message, joined: one copy in all when no message holds a CR or an LF
    (the common SSE event: one `data:` line), else a copy of each."""
    joined = b"\n".join([*messages, b""])
    if joined.count(b"\n") == len(messages) and b"\r" not in joined:
        return joined
    return b"".join([carried_line(message) for message in messages])


def media_type(value: str | None) -> str:
    """The media type of a Content-Type value, lower-cased, without parameters (`""` when none)."""
    if not value:
        return ""
    return value.partition(";")[0].strip().lower()


def is_json_type(media: str) -> bool:
    """`application/json` or a `+json` type (`application/problem+json`)."""
    return media == JSON_TYPE or media.endswith("+json")


def header(headers: list[tuple[str, str]], name: str) -> str | None:
    """The last value of header `name` (any case), or None."""
    found = None
    lower = name.lower()
    for key, value in headers:
        if key.lower() == lower:
            found = value
    return found


class SseEvent(NamedTuple):
    """One dispatched event: its data (the `data` lines joined by LF), its `event` type, the last
    event id (`id`), `retry` when it set one, and the byte offsets of its first line and past its
    terminating blank line within the stream."""

    data: bytes
    event: str
    id: str | None
    retry: int | None
    start: int
    end: int


class SseProblem(NamedTuple):
    """A line of the stream an SSE client ignores or drops: where (byte offset in the stream), its
    bytes, and why."""

    offset: int
    raw: bytes
    why: str


FIELDS = frozenset({b"data", b"event", b"id", b"retry"})
MAX_SHOWN = 256


class SseDecoder:
    """Decode an event stream fed in pieces: `feed(data)` returns the events its bytes completed;
    `close()` the problem of an event the stream's end cut short. `problems` lists the lines an SSE
    client ignores (a field the standard does not define, a `retry` that is not digits, a line
    that is not UTF-8), each with its byte offset."""

    def __init__(self) -> None:
        self.problems: list[SseProblem] = []
        self._buffer = bytearray()
        self._at = 0  # stream offset of the buffer's first byte
        self._cr = False  # the last line ended with a CR: an LF right after belongs to it
        self._data: list[bytes] = []
        self._event = ""
        self._id: str | None = None
        self._set_retry: int | None = None
        self._start = -1  # offset of the pending event's first line
        self._first = True  # at the stream's start (a BOM is dropped there)

    def feed(self, data: bytes) -> list[SseEvent]:
        """The events the bytes of `data` completed (the rest waits in the buffer for the next piece).

        Over 60 lines on purpose: every SSE response recorded or checked goes through this loop
        (bench/bench_http.py), and its common lines are taken inline, without a call per line."""
        events: list[SseEvent] = []
        buffer = self._buffer
        buffer += data
        pos = 0
        n = len(buffer)
        if self._cr and n and buffer[0:1] == b"\n":
            pos = 1
        self._cr = False
        cr = lf = -2  # the next CR and LF at or after `pos` (-1: none), found again only when passed
        # In an ASCII piece (UTF-8, then) past the stream's first line, the common lines (`data: `,
        # `event: `, the blank line ending an event with data) are taken here as `_line` takes them,
        # without a call, a decode and two copies of each value; any other line goes to `_line`.
        plain = not self._first and buffer.isascii()
        view = memoryview(buffer)
        while pos < n:
            if plain and self._start < 0:  # an event's first line: the common event whole
                whole = self._whole(buffer, view, pos, events)
                if whole:
                    pos = whole
                    continue
            if -1 != cr < pos:
                cr = buffer.find(b"\r", pos)
            if -1 != lf < pos:
                lf = buffer.find(b"\n", pos)
            if cr < 0 and lf < 0:
                break
            end = lf if cr < 0 or (0 <= lf < cr) else cr
            if buffer[end] == 0x0D:
                if end + 1 < n:
                    nxt = end + 2 if buffer[end + 1] == 0x0A else end + 1
                else:
                    nxt = end + 1
                    self._cr = True  # an LF may follow in the next piece
            else:
                nxt = end + 1
            if not plain:
                self._line(bytes(view[pos:end]), self._at + pos, self._at + nxt, events)
            elif buffer.startswith(b"data: ", pos):
                if self._start < 0:
                    self._start = self._at + pos
                self._data.append(bytes(view[pos + 6 : end]))
            elif end == pos and self._data:  # the blank line after an event with data
                data = self._data[0] if len(self._data) == 1 else b"\n".join(self._data)
                if data:
                    start = self._start
                    events.append(
                        SseEvent(
                            data, self._event or "message", self._id, self._set_retry, start, self._at + nxt
                        )
                    )
                self._data = []
                self._event = ""
                self._set_retry = None
                self._start = -1
            elif buffer.startswith(b"event: ", pos):
                if self._start < 0:
                    self._start = self._at + pos
                self._event = bytes(view[pos + 7 : end]).decode("ascii")
            else:
                self._line(bytes(view[pos:end]), self._at + pos, self._at + nxt, events)
            pos = nxt
        view.release()
        del buffer[:pos]
        self._at += pos
        return events

    def _whole(self, buffer: bytearray, view: memoryview, pos: int, events: list[SseEvent]) -> int:
        """The common event at `pos` of an ASCII piece (an optional `event: ` line, one `data: ` line,
        a blank line; LF or CRLF line ends, no other CR) taken at once, as `_line` takes its lines;
        where it ends, or 0 (nothing taken) when the bytes there are anything else."""
        name = ""
        start = pos
        if buffer.startswith(b"event: ", pos):
            lf = buffer.find(b"\n", pos)
            end = lf - 1 if lf > 0 and buffer[lf - 1] == 0x0D else lf
            if lf < 0 or buffer.find(b"\r", pos, end) >= 0:
                return 0
            name = bytes(view[pos + 7 : end]).decode("ascii")
            pos = lf + 1
        if not buffer.startswith(b"data: ", pos):
            return 0
        lf = buffer.find(b"\n", pos)
        end = lf - 1 if lf > 0 and buffer[lf - 1] == 0x0D else lf
        if lf < 0 or buffer.find(b"\r", pos, end) >= 0:
            return 0
        after = lf + 1
        if buffer.startswith(b"\n", after):
            after += 1
        elif buffer.startswith(b"\r\n", after):
            after += 2
        else:
            return 0
        data = bytes(view[pos + 6 : end])
        if data:
            at = self._at
            events.append(SseEvent(data, name or "message", self._id, None, at + start, at + after))
        return after

    def _line(self, line: bytes, offset: int, end: int, events: list[SseEvent]) -> None:
        if self._first:
            self._first = False
            if line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
        if not line:
            data = b"\n".join(self._data)
            if data:  # an empty data buffer dispatches nothing (a priming `id:` event, `data:` alone)
                events.append(
                    SseEvent(data, self._event or "message", self._id, self._set_retry, self._start, end)
                )
            self._data = []
            self._event = ""
            self._set_retry = None
            self._start = -1
            return
        if line.startswith(b":"):
            return  # a comment (a keep-alive)
        if self._start < 0:
            self._start = offset
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        if name not in FIELDS:
            self.problems.append(SseProblem(offset, line[:MAX_SHOWN], f"not an SSE field ({_show(name)})"))
            return
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            self.problems.append(SseProblem(offset, line[:MAX_SHOWN], "not UTF-8"))
            return
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._event = text
        elif name == b"id":
            if "\x00" not in text:
                self._id = text
        elif text.isascii() and text.isdigit():
            self._set_retry = int(text) if len(text) <= 4300 else None  # int() reads 4300 digits at most
        else:
            self.problems.append(
                SseProblem(offset, line[:MAX_SHOWN], "retry is not a number of milliseconds")
            )

    def close(self) -> SseProblem | None:
        """The stream ended: an event not ended by a blank line is dropped by SSE clients."""
        pending = bytes(self._buffer)
        if self._start >= 0 or pending:
            start = self._start if self._start >= 0 else self._at
            self._data = []
            self._start = -1
            self._buffer.clear()
            why = "the stream ended inside an event (no blank line after it): SSE clients drop it"
            return SseProblem(start, pending[:MAX_SHOWN], why)
        return None


__all__ = ["HTTP_IN", "HTTP_OUT", "WIRE_CHANNELS"]  # defined with the other channels (events.py)


def _show(name: bytes) -> str:
    text = name[:40].decode("utf-8", "backslashreplace")
    return repr(text) if text else "an empty field name"
