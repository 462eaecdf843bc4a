"""What a response body carries, for the recording tap (`tap.Tap`): the JSON-RPC messages of a
JSON body (one `out` line once the body is whole) or of an SSE stream (one `out` line an event),
by the body's Content-Type.

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

from mcptape.recorder.sinks import Target
from mcptape.recorder.spool import write_lines
from mcptape.transcript.wire import (
    EXCHANGE,
    SSE_TYPE,
    SseDecoder,
    carried_lines,
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


def record(t: float, ch: str, x: int, data: bytes) -> bytes:
    """The record of exchange `x`'s bytes `data`, as `TranscriptWriter.fields(t, ch, x=x,
    **encode_bytes(data))` writes it."""
    head = _head(t, ch, x)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return head + b',"b64":"' + base64.b64encode(data) + b'"}\n'
    return head + b',"data":' + _dumps(text) + b"}\n"  # type: ignore[no-any-return]


def carried_records(t: float, ch: str, x: int, messages: list[bytes]) -> bytes:
    """The `in`/`out` records of messages exchange `x` carried, one a message (its `carried_line`),
    as `TranscriptWriter.lines(t, ch, carried_lines(messages), x=x)` writes them."""
    head = _head(t, ch, x)
    dumps = _dumps
    records = []
    for message in messages:
        if b"\n" in message or b"\r" in message:
            message = message.translate(_CR_LF)
        try:
            text = message.decode("utf-8")
        except UnicodeDecodeError:
            records.append(head + b',"b64":"' + base64.b64encode(message + b"\n") + b'"}\n')
            continue
        records.append(head + b',"data":' + dumps(text)[:-1] + b'\\n"}\n')
    return b"".join(records)


class Reply:
    """The response being read: `begin` at its head, `data` for each piece of its body, `end`."""

    def __init__(self, sink: Target, carry: Callable[[float, str, int, bytes], None]) -> None:
        self.sink = sink
        self.carry = carry  # writes one carried message (the tap's, shared with request bodies)
        self.kind = ""  # "json", "sse" or "" (carries nothing)
        self.body = bytearray()  # a JSON body being read
        self.sse: SseDecoder | None = None
        self.messages: list[tuple[int, list[bytes]]] = []  # SSE messages read, not yet recorded

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
            self.sse = SseDecoder()
        elif is_json_type(media) or (media == "" and head.status_code != 202 and head.status_code < 400):
            # an untyped body is read as JSON, but for a refusal (a 403's "Invalid Origin header"):
            # its text is the HTTP answer, not a message
            self.kind = "json"
        else:
            self.kind = ""

    def data(self, x: int, data: bytes) -> None:
        if self.kind == "sse" and self.sse is not None:
            events = self.sse.feed(data)
            if events:  # one record a message, encoded and written together once the bytes are
                if self.messages and self.messages[-1][0] == x:
                    self.messages[-1][1].extend([e.data for e in events])
                else:
                    self.messages.append((x, [e.data for e in events]))
        elif self.kind == "json":
            if len(self.body) + len(data) > BODY_KEPT:
                self.kind = ""
                self.body = bytearray()
            else:
                self.body += data

    def written(self, t: float) -> None:
        """The bytes read so far are recorded: the SSE messages they carried go after them."""
        for x, messages in self.messages:
            write_lines(self.sink, t, "out", carried_lines(messages), {EXCHANGE: x})
        self.messages.clear()

    def encoded(self, t: float) -> bytes:
        """`written`'s records, encoded (for the write that records the bytes they came in)."""
        if not self.messages:
            return b""
        records = b"".join([carried_records(t, "out", x, messages) for x, messages in self.messages])
        self.messages.clear()
        return records

    def end(self, t: float, x: int) -> None:
        if self.kind == "json" and self.body:
            self.carry(t, "out", x, bytes(self.body))
        self.body = bytearray()
        self.kind = ""
        self.sse = None
