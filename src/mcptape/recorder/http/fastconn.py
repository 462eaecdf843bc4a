"""The recording tap's fast reader: the common HTTP/1.1 exchange read without h11's machinery.

`tap.Tap` reads each direction of a connection with an h11 state machine, which costs about
as much Python per exchange as the rest of the proxy (two machines, each event also sent to the
other as a mirror). Nearly every MCP exchange is the same shape: a keep-alive HTTP/1.1 request
with a Host and a Content-Length, answered by a keep-alive HTTP/1.1 response with a
Content-Length or a chunked body (an SSE stream). `FastConn` reads exactly that, with the subset of
h11's connection interface the tap uses (`receive_data`, `next_event`, `trailing_data`, the
states, `start_next_cycle`, `send` for the mirror), and consumes the same bytes at the same points:
a head once it is whole, a body's bytes as they come (one `Data` per piece fed, up to the length,
given on uncopied; in a chunked body, one `Data` of all the chunks a piece holds, where h11 gives
one a chunk: the tap records a read, not a chunk), its end, `PAUSED` after it until the cycle
restarts.

Anything else raises `Unsure` where it is met: at the start of a message (before a byte of it is
taken), a head this module does not read (no framing, `Connection`, `Expect`, `Upgrade`,
HTTP/1.0, a 1xx, 204 or 304 status, an answer to HEAD or CONNECT, a line h11's grammar refuses, a
bare LF, a head cut by the end of the stream) and bytes nobody asked for; inside a chunked body, a
chunk line h11's grammar refuses, a chunk's CRLF that is not one, trailer fields, a piece of a line
at the end of the stream. The tap then reads the rest of that exchange with h11 (`handover.h11_pair`,
resumed exactly where the fast readers stopped: `FastConn.resume`), and goes back to the fast
readers once both sides finished it on a connection kept alive. What h11 accepts that is not read
here is therefore read by h11 itself; what it refuses it refuses with its own words.
"""

from __future__ import annotations

from typing import Any

import h11

from mcptape.recorder.http.heads import (
    BLANK_LINE,
    CHUNK_HEADER,
    CHUNKED,
    REQUEST_LINE,
    SIZE_LINE,
    STATUS_LINE,
    body_length,
    header_fields,
    request_event,
    response_event,
)


class Unsure(Exception):
    """The next message is not one this module reads: let h11 read it (nothing of it was taken)."""


_END = h11.EndOfMessage()
_CLOSED = h11.ConnectionClosed()
IDLE, BODY, DONE, CLOSED, WAIT = "idle", "body", "done", "closed", "wait"


class FastConn:
    """One direction of a connection read the fast way (`role`: h11.SERVER reads requests,
    h11.CLIENT reads responses); see the module for what it reads and what it leaves to h11."""

    def __init__(self, role: type[h11.SERVER] | type[h11.CLIENT], max_head: int, data: bytes = b"") -> None:
        self.role = role
        self.max_head = max_head
        self.buffer = bytearray(data)
        self.held: bytes | None = None  # a piece of a body fed to an empty buffer, not copied
        self.closed = False
        self.state = IDLE if role is h11.SERVER else WAIT  # a response waits for its request
        self.remaining = 0  # of a body with a Content-Length (`length`), or of the current chunk
        self.length = 0  # the Content-Length, or CHUNKED
        self.discard = b""  # (chunked) what is left to take of the CRLF after a chunk's bytes
        self.trailer = False  # (chunked) the last chunk came: the trailer section is read next
        self.method = b""  # (reading responses) the method of the request being answered
        self.spanned: tuple[bytes, list[tuple[int, int]]] | None = None  # (chunked) `take_spanned`
        self.spans: list[tuple[int, int]] = []  # (chunked) where the last `_chunks` took its bytes

    # -- the part of h11.Connection the tap uses ---------------------------------------------
    def receive_data(self, data: bytes | bytearray) -> None:
        if data:
            if self.closed:
                raise RuntimeError("received close, then received more data?")
            held = self.state == BODY and not self.buffer and self.held is None
            if held and type(data) is bytes:  # the common read: given on as it is (`_body`, `_chunked`)
                self.held = data
                return
            self._fold()
            self.buffer += data
        else:
            self.closed = True

    def _fold(self) -> None:
        """The piece held uncopied goes to the buffer (anything else is read there)."""
        if self.held is not None:
            self.buffer += self.held
            self.held = None

    @property
    def trailing_data(self) -> tuple[bytes, bool]:
        self._fold()
        return bytes(self.buffer), self.closed

    @property
    def unconsumed(self) -> int:
        return len(self.buffer) + (len(self.held) if self.held is not None else 0)

    @property
    def our_state(self) -> Any:
        return h11.DONE if self.state == DONE else h11.IDLE

    @property
    def their_state(self) -> Any:
        return self.our_state

    def start_next_cycle(self) -> None:
        self.state = IDLE if self.role is h11.SERVER else WAIT

    def send(self, event: h11.Event) -> None:
        """The mirror: the other side's event. A request tells the response reader its method and
        that a response may now come."""
        if isinstance(event, h11.Request):
            self.method = event.method
            if self.state == WAIT:
                self.state = IDLE

    def next_event(self) -> Any:
        state = self.state
        if state == BODY:
            return self._body()
        if state in (DONE, CLOSED):
            if self.buffer:
                return h11.PAUSED if state == DONE else self._unsure()
            if self.closed:
                self.state = CLOSED
                return _CLOSED
            return h11.NEED_DATA
        if not self.buffer:
            if self.closed:
                if state == IDLE and self.role is h11.SERVER:
                    self.state = CLOSED
                    return _CLOSED
                self._unsure()
            return h11.NEED_DATA
        if state == WAIT:
            self._unsure()  # a response before its request was read
        return self._head()

    # -- reading -------------------------------------------------------------------------------
    def _unsure(self) -> Any:
        raise Unsure()

    def _head(self) -> Any:
        buffer = self.buffer
        first = buffer[0]
        if first < 0x21:  # h11: a blank line or a space first is an error (its words)
            self._unsure()
        found = BLANK_LINE.search(buffer)
        if found is None:
            if self.closed or len(buffer) > self.max_head:
                self._unsure()
            return h11.NEED_DATA
        end = found.end()
        if end > self.max_head or found.group() != b"\n\r\n" or buffer[end - 4] != 0x0D:
            self._unsure()  # too long, or a bare LF ends a line: h11 reads it its own way
        head = bytes(buffer[: end - 4])
        if head.count(b"\n") != head.count(b"\r\n") or head.count(b"\r") != head.count(b"\r\n"):
            self._unsure()
        lines = head.split(b"\r\n")
        headers = header_fields(lines[1:])
        if headers is None:
            self._unsure()
        assert headers is not None
        if self.role is h11.SERVER:
            line = REQUEST_LINE.fullmatch(lines[0])
            if line is None or line.group(1) == b"CONNECT":
                self._unsure()
            assert line is not None
            length = body_length(headers, request=True)
            if length is None:
                self._unsure()
            event: Any = request_event(line.group(1), line.group(2), headers)
        else:
            line = STATUS_LINE.fullmatch(lines[0])
            if line is None or self.method in (b"HEAD", b"CONNECT"):
                self._unsure()
            assert line is not None
            status = int(line.group(1))
            length = body_length(headers, request=False)
            if status < 200 or status in (204, 304) or length is None:
                self._unsure()
            event = response_event(status, line.group(2) or b"", headers)
        assert length is not None
        del buffer[:end]
        self.state, self.length = BODY, length
        self.remaining = max(0, length)
        self.discard, self.trailer = b"", False
        return event

    def _body(self) -> Any:
        if self.length == CHUNKED:
            return self._chunked()
        if self.remaining == 0:
            self._fold()
            self.state = DONE
            return _END
        held = self.held
        if held is not None:  # all of it, or the rest of the body (the buffer is empty)
            self.held = None
            take = min(self.remaining, len(held))
            self.remaining -= take
            if take == len(held):
                return h11.Data(data=held)
            self.buffer += memoryview(held)[take:]
            return h11.Data(data=held[:take])
        buffer = self.buffer
        if not buffer:
            if self.closed:
                raise h11.RemoteProtocolError(
                    "peer closed connection without sending complete message body "
                    f"(received {self.length - self.remaining} bytes, expected {self.length})"
                )
            return h11.NEED_DATA
        take = min(self.remaining, len(buffer))
        if take == len(buffer):  # all of it (the common case): one copy, the buffer emptied in place
            data = bytes(buffer)
            buffer.clear()
        else:
            data = bytes(buffer[:take])
            del buffer[:take]
        self.remaining -= take
        return h11.Data(data=data)

    def _chunked(self) -> Any:
        """A chunked body, read as h11's ChunkedReader reads it: a chunk header once its line is
        whole, a chunk's bytes as they come (one `Data` per chunk or piece of one), its CRLF, and
        after the last chunk an empty trailer; a trailer with fields, a line h11's grammar refuses
        or a piece of one at the end of the stream is h11's (`Unsure`: `h11_pair` resumes there)."""
        if self.held is not None:
            chunks = self._held_chunks()
            if chunks is not None:
                return chunks
        buffer = self.buffer
        if not self.trailer and not self.discard and buffer:
            data, took = self._chunks(buffer)
            if data:
                del buffer[:took]
                return h11.Data(data=data)
        if self.trailer:
            if buffer[:2] == b"\r\n" or buffer[:1] == b"\n":
                del buffer[: 2 if buffer[:1] == b"\r" else 1]
                self.state = DONE
                return _END
            if buffer:
                self._unsure()  # trailer fields, or a piece of the blank line: h11 reads them
            return self._need()
        if self.discard:
            if not buffer:
                return self._need()
            taken = bytes(buffer[: len(self.discard)])
            if taken != self.discard[: len(taken)]:
                self._unsure()  # h11 says what was wrong
            del buffer[: len(taken)]
            self.discard = self.discard[len(taken) :]
            if self.discard:
                return self._need()
        start = False
        if self.remaining == 0:
            end = buffer.find(b"\r\n")
            if end < 0:
                return self._need()
            found = CHUNK_HEADER.fullmatch(buffer, 0, end + 2)
            if found is None:
                self._unsure()
            assert found is not None
            size = int(found.group(1), 16)
            del buffer[: end + 2]
            if size == 0:
                self.trailer = True
                return self._chunked()
            self.remaining, start = size, True
        if not buffer:
            return self._need()
        take = min(self.remaining, len(buffer))
        data = bytes(buffer[:take])
        del buffer[:take]
        self.remaining -= take
        if self.remaining == 0:
            self.discard = b"\r\n"
        return h11.Data(data=data, chunk_start=start, chunk_end=self.remaining == 0)

    def take_spanned(self) -> tuple[bytes, list[tuple[int, int]]] | None:
        """The read held whose chunks the last `Data` joined (all of it) and their spans in it, or None;
        forgotten (the tap takes it with that `Data`: `Reply.data` decodes the read once)."""
        spanned, self.spanned = self.spanned, None
        return spanned

    def _held_chunks(self) -> h11.Data | None:
        """The chunks of the read `held`, taken from it uncopied; None: none were (it is in the buffer)."""
        held = self.held
        assert held is not None
        self.held = None
        if not self.trailer and not self.discard:
            data, took = self._chunks(held)
            if data:
                if took < len(held):
                    self.buffer += memoryview(held)[took:]
                else:
                    self.spanned = (held, self.spans)
                return h11.Data(data=data)
        self.buffer += held
        return None

    def _chunks(self, buffer: bytes | bytearray) -> tuple[bytes, int]:
        """The chunks `buffer` (the buffer, or a read held) holds from where the reading is, joined (one
        `Data` for a read of many), and how many of its bytes they took. Stops, having taken nothing,
        at a chunk header not whole or not common (the last chunk's too), or a CRLF after a chunk not
        there yet or not one (`_chunked` reads those a step at a time). A chunk whose header (`SIZE_LINE`,
        else `CHUNK_HEADER`) and CRLF are in the buffer (nearly every one) is a few calls."""
        spans: list[tuple[int, int]] = []
        pos, n = 0, len(buffer)
        remaining = self.remaining
        startswith = buffer.startswith
        if remaining:  # the rest of the chunk in progress
            take = min(remaining, n)
            spans.append((0, take))
            pos = take
            remaining -= take
            if not remaining:
                if startswith(b"\r\n", pos):
                    pos += 2
                else:
                    self.discard = b"\r\n"  # `_chunked` takes it (or says it is not a CRLF)
        if not remaining and not self.discard:
            match = SIZE_LINE.match
            while True:
                found = match(buffer, pos)
                if found is None:
                    end = buffer.find(b"\r\n", pos)
                    found = CHUNK_HEADER.fullmatch(buffer, pos, end + 2) if end >= 0 else None
                    if found is None:
                        break
                    size = int(found.group(1), 16)
                else:
                    size = int(found.group(), 16)  # (int takes the CRLF after the digits as space)
                if not size:
                    break
                start = found.end()
                end = start + size
                if end + 2 <= n and startswith(b"\r\n", end):  # the whole chunk and its CRLF
                    spans.append((start, end))
                    pos = end + 2
                    continue
                if start < n:
                    spans.append((start, min(end, n)))
                pos = min(end, n)
                remaining = end - pos
                if not remaining:
                    self.discard = b"\r\n"
                break
        if not spans:
            return b"", 0
        self.remaining = remaining
        self.spans = spans
        with memoryview(buffer) as view:
            data = (
                bytes(view[spans[0][0] : spans[0][1]])
                if len(spans) == 1
                else b"".join([view[a:b] for a, b in spans])
            )
        return data, pos

    def _need(self) -> Any:
        """Nothing more can be read now: more bytes are needed, or, at the end of the stream, h11's
        error for a chunked body cut short (an empty buffer), or h11's reading (bytes left over)."""
        if self.buffer:
            if self.closed or len(self.buffer) > self.max_head:
                self._unsure()
            return h11.NEED_DATA
        if self.closed:
            raise h11.RemoteProtocolError(
                "peer closed connection without sending complete message body (incomplete chunked read)"
            )
        return h11.NEED_DATA

    def resume(self) -> bytes:
        """The bytes that take h11 to where this reader is inside a message: its head (the request
        method the mirror gave, or a 200), then in a chunked body the chunk it is in, the CRLF it is
        taking or the last chunk; never recorded, only told to h11."""
        if self.state not in (BODY, DONE):
            return b""
        if self.role is h11.SERVER:
            head = b"%s / HTTP/1.1\r\nhost: mcptape\r\n" % (self.method or b"POST")
        else:
            head = b"HTTP/1.1 200 OK\r\n"
        if self.state == DONE or self.length != CHUNKED:
            return head + b"content-length: %d\r\n\r\n" % self.remaining
        head += b"transfer-encoding: chunked\r\n\r\n"
        if self.trailer:
            return head + b"0\r\n"
        if self.discard:
            return head + b"1\r\nx" + b"\r\n"[: 2 - len(self.discard)]
        if self.remaining:
            return head + b"%x\r\n" % self.remaining
        return head
