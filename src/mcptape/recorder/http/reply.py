"""What a response body carries, for the recording tap (`tap.Tap`): the JSON-RPC messages of a
JSON body (one `out` line once the body is whole) or of an SSE stream (one `out` line an event),
by the body's Content-Type.

The messages of an SSE stream's events wait for the tap to record the bytes they came in (`written`,
called right after that record): a read's bytes, then its events' messages in one write.
"""

from __future__ import annotations

from collections.abc import Callable

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


class Reply:
    """The response being read: `begin` at its head, `data` for each piece of its body, `end`."""

    def __init__(self, sink: Target, carry: Callable[[float, str, int, bytes], None]) -> None:
        self.sink = sink
        self.carry = carry  # writes one carried message (the tap's, shared with request bodies)
        self.kind = ""  # "json", "sse" or "" (carries nothing)
        self.body = bytearray()  # a JSON body being read
        self.sse: SseDecoder | None = None
        self.messages: list[tuple[int, list[bytes]]] = []  # SSE messages read, not yet written

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
                lines = carried_lines([e.data for e in events])
                if self.messages and self.messages[-1][0] == x:
                    self.messages[-1][1].append(lines)
                else:
                    self.messages.append((x, [lines]))
        elif self.kind == "json":
            if len(self.body) + len(data) > BODY_KEPT:
                self.kind = ""
                self.body = bytearray()
            else:
                self.body += data

    def written(self, t: float) -> None:
        """The bytes read so far are recorded: the SSE messages they carried go after them."""
        for x, lines in self.messages:
            write_lines(self.sink, t, "out", b"".join(lines), {EXCHANGE: x})
        self.messages.clear()

    def end(self, t: float, x: int) -> None:
        if self.kind == "json" and self.body:
            self.carry(t, "out", x, bytes(self.body))
        self.body = bytearray()
        self.kind = ""
        self.sse = None
