"""What a response body carries, for the recording tap (`tap.Tap`): the JSON-RPC messages of a
JSON body (one `out` line once the body is whole) or of an SSE stream (one `out` line an event,
read by `SseMessages`, the recorder's own reader; `SseDecoder` stays the reference), by the body's
Content-Type.

The messages of an SSE stream's events wait for the tap to record the bytes they came in (`written`,
called right after that record): a read's bytes, then its events' messages in one write. Where the
sink takes records already encoded (`write_raw`: the transcript writer behind the spool), the tap
encodes them itself (`record`, `carried_records`, `encoded`), byte for byte as the writer does:
one orjson call a message, no join of the messages and no split of their escaped text.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import h11

from mcptape.recorder.http.ssereader import SseMessages
from mcptape.recorder.sinks import Target
from mcptape.recorder.spool import write_lines
from mcptape.transcript.wire import (
    EXCHANGE,
    SSE_TYPE,
    carried_line,
    is_json_type,
    media_type,
)

BODY_KEPT = 64 << 20  # a carried body past this is not put on in/out (its raw bytes still are)
_CR_LF = bytes.maketrans(b"\r\n", b"  ")
_dumps: Any = None


def _head(t: float, ch: str, x: int) -> bytes:
    """A record's start, up to its bytes: what `TranscriptWriter.fields(t, ch, x=x, ...)` writes."""
    global _dumps
    if _dumps is None:  # orjson is imported with the first record, as the writer imports it
        import orjson

        _dumps = orjson.dumps
    return _dumps({"t": round(t, 6), "ch": ch, EXCHANGE: x})[:-1]  # type: ignore[no-any-return]


def record(parts: list[bytes], t: float, ch: str, x: int, data: bytes, text: str | None = None) -> int:
    """The record of exchange `x`'s bytes `data`, as `TranscriptWriter.fields(t, ch, x=x,
    **encode_bytes(data))` writes it, appended to `parts` (written with a read's other records in
    one writev); `text`: `data` decoded already (`Reply.text_of`). Returns its size."""
    head = _head(t, ch, x)
    if text is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            encoded = base64.b64encode(data)
            parts += (head, b',"b64":"', encoded, b'"}\n')
            return len(head) + len(encoded) + 11
    escaped = _dumps(text)
    parts += (head, b',"data":', escaped, b"}\n")
    return len(head) + len(escaped) + 10


def carried_records(parts: list[bytes], t: float, ch: str, x: int, messages: list[bytes | str]) -> int:
    """The `in`/`out` records of messages exchange `x` carried, one a message (its `carried_line`),
    as `TranscriptWriter.lines(t, ch, carried_lines(messages), x=x)` writes them, appended to
    `parts`; returns their size. A message given as text (`SseMessages`) is its carried line already."""
    head = _head(t, ch, x)
    dumps = _dumps
    start = head + b',"data":'
    if messages and type(messages[0]) is str:  # read as text (`SseMessages`): one call each, no loop
        try:
            escaped = list(map(dumps, messages))
        except TypeError:  # bytes among them (`SseDecoder` took over): one at a time below
            pass
        else:  # start, message, "}\n" + start, message, ..., "}\n": the records of all of them
            between = b"}\n" + start
            records = [between] * (2 * len(escaped) - 1)
            records[::2] = escaped
            parts.append(start)
            parts += records
            parts.append(b"}\n")
            return len(start) + sum(map(len, escaped)) + len(between) * (len(escaped) - 1) + 2
    size = (len(start) + 2) * len(messages)
    for message in messages:
        if isinstance(message, str):
            escaped = dumps(message)
            parts += (start, escaped, b"}\n")
            size += len(escaped)
            continue
        if b"\n" in message or b"\r" in message:
            message = message.translate(_CR_LF)
        try:
            text = message.decode("utf-8")
        except UnicodeDecodeError:
            encoded = base64.b64encode(message + b"\n")
            parts += (head, b',"b64":"', encoded, b'"}\n')
            size += len(encoded) + 1  # (head, 8 and 3 bytes: start and 2 are counted)
            continue
        escaped = dumps(text)[:-1]
        parts += (start, escaped, b'\\n"}\n')
        size += len(escaped) + 3
    return size


def as_line(message: bytes | str) -> bytes:
    """The carried line of a message `SseMessages` gives (text: its line already)."""
    return message.encode() if isinstance(message, str) else carried_line(message)


class Reply:
    """The response being read: `begin` at its head, `data` for each piece of its body, `end`."""

    def __init__(self, sink: Target, carry: Callable[[float, str, int, bytes], None]) -> None:
        self.sink = sink
        self.carry = carry  # writes one carried message (the tap's, shared with request bodies)
        self.kind = ""  # "json", "sse" or "" (carries nothing)
        self.body = bytearray()  # a JSON body being read
        self.sse: SseMessages | None = None
        self.messages: list[tuple[int, list[bytes | str]]] = []  # SSE messages read, not yet recorded
        self.piece: bytes | None = None  # the last piece of an SSE body and its text (`text_of`)
        self.text: str | None = None

    def begin(self, head: h11.Response) -> None:
        content_type = None
        for name, value in head.headers.raw_items():
            if name.lower() == b"content-type":
                content_type = value.decode("latin-1")
        media = media_type(content_type)
        self.body = bytearray()
        self.sse = None
        if media == SSE_TYPE:
            self.kind = "sse"
            self.sse = SseMessages()
        elif is_json_type(media) or (media == "" and head.status_code != 202 and head.status_code < 400):
            # an untyped body is read as JSON, but for a refusal (a 403's "Invalid Origin header"):
            # its text is the HTTP answer, not a message
            self.kind = "json"
        else:
            self.kind = ""

    def data(self, x: int, data: bytes, spanned: tuple[bytes, list[tuple[int, int]]] | None = None) -> None:
        """A piece of the body; `spanned`: the read it was joined from (the chunks of a chunked body
        a read held, all taken) and their spans in it, decoded once for the read's record and,
        when ASCII, sliced for the piece's text."""
        if self.kind == "sse" and self.sse is not None:
            piece = data
            if spanned is not None:
                piece = spanned[0]
            try:
                text: str | None = piece.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            self.piece, self.text = piece, text
            if piece is not data:  # the chunks' text: slices of the read's, else their own decoding
                if text is not None and text.isascii():
                    assert spanned is not None
                    text = "".join([text[a:b] for a, b in spanned[1]])
                else:
                    try:
                        text = data.decode("utf-8")
                    except UnicodeDecodeError:
                        text = None
            messages = self.sse.feed(data, text)
            if messages:  # one record a message, encoded and written together once the bytes are
                if self.messages and self.messages[-1][0] == x:
                    self.messages[-1][1].extend(messages)
                else:
                    self.messages.append((x, messages))
        elif self.kind == "json":
            if len(self.body) + len(data) > BODY_KEPT:
                self.kind = ""
                self.body = bytearray()
            else:
                self.body += data

    def text_of(self, data: bytes) -> str | None:
        """`data` decoded, when it is the SSE piece last read (a Content-Length body's read: the
        raw record shares the decoding), else None; forgotten then (one record a read)."""
        piece, text = self.piece, self.text
        self.piece = self.text = None
        return text if piece is data else None

    def written(self, t: float) -> None:
        """The bytes read so far are recorded: the SSE messages they carried go after them."""
        for x, messages in self.messages:
            write_lines(self.sink, t, "out", b"".join([as_line(m) for m in messages]), {EXCHANGE: x})
        self.messages.clear()

    def encoded(self, parts: list[bytes], t: float) -> int:
        """`written`'s records, encoded, appended to `parts` (the write that records their bytes);
        returns their size."""
        size = 0
        for x, messages in self.messages:
            size += carried_records(parts, t, "out", x, messages)
        self.messages.clear()
        return size

    def end(self, t: float, x: int) -> None:
        if self.kind == "json" and self.body:
            self.carry(t, "out", x, bytes(self.body))
        self.body = bytearray()
        self.kind = ""
        self.sse = None
