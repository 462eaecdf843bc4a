"""The raw bytes of an HTTP transcript's exchanges (`http-in`, `http-out`), redacted for `mcptape
redact` and still HTTP, so the copy can be checked, viewed and replayed over HTTP.

Each exchange's request and response are read as their records come (pure: no I/O). The head (the
request or status line and the header lines) is redacted as text, line by line, like any other
line (`Authorization: Bearer ...`, `Cookie: ...`, a `?token=` in the target). The body is redacted
in whole lines, and its framing is written again around what the redaction left:

* `Content-Length`: the body is read whole, redacted, and the head says its new length (a body the
  recording cut short stays as many bytes short);
* `Transfer-Encoding: chunked` (an SSE stream): the chunks are read, the lines they carry redacted
  as they end, and each record's whole lines written as one chunk at that record's time;
* a response read until the connection closed: its lines, as they end.

A message mcptape cannot read this way (a compressed body, a head that never ends within 1 MiB,
chunk sizes that are not numbers, a protocol switch) becomes what every `mcptape redact` made of
raw HTTP before: one placeholder per record, without its exchange number (shown, never judged, and
nothing of it leaks). Every placeholder is the one the same value has on `in`/`out`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcptape.share.httphead import redact_head
from mcptape.share.jsonscan import json_text
from mcptape.share.redact import Redactor
from mcptape.transcript.events import HTTP_IN, WIRE_CHANNELS, Event
from mcptape.transcript.wire import EXCHANGE

MAX_HEAD = 1 << 20
HEAD, LENGTH, CHUNKED, CLOSE, OPAQUE = "head", "length", "chunked", "close", "opaque"
_LENGTH_LINE = re.compile(rb"(?im)^(content-length[ \t]*:[ \t]*)(\d+)([ \t]*\r?)$")
_HEAD_END = re.compile(rb"\n\r?\n")  # as h11 reads it: CRLF CRLF, or bare LFs
_SSE_FIELDS = (b"event:", b"id:", b"retry:")  # an SSE stream's lines that carry no data
_NO_BODY = frozenset({204, 304})


class _Message:
    """One exchange's request or response, as its records come."""

    def __init__(self, ch: str, x: int, method: str) -> None:
        self.ch = ch
        self.x = x
        self.method = method  # of the request (a response to HEAD has no body)
        self.state = HEAD
        self.buf = bytearray()  # bytes read, not yet written
        self.head = b""
        self.head_t = 0.0
        self.t = 0.0  # of the last record
        self.left = 0  # body bytes still to come (LENGTH), or of the current chunk (CHUNKED)
        self.lines = bytearray()  # a chunked or close-delimited body's text not yet ended by a newline
        self.in_data = False  # CHUNKED: inside a chunk's data (else at a size line or a trailer)
        self.trailer = False  # CHUNKED: past the last chunk
        self.keep = False  # LENGTH: no body whatever the head says (HEAD, 204, 304): its length stays
        self.sse = False  # the body is an SSE stream (`text/event-stream`)
        self.json = False  # CHUNKED or CLOSE: the body is JSON, redacted whole at its end


class WireCopy:
    """The redacted records of every exchange of one HTTP transcript (`feed`, then `finish`)."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.open: dict[tuple[str, int], _Message] = {}
        self.methods: dict[int, str] = {}  # exchange -> its request's method

    def feed(self, ev: Event) -> Iterator[Event]:
        """The redacted records for one `http-in`/`http-out` record with its exchange number."""
        x = (ev.fields or {}).get(EXCHANGE)
        assert ev.ch in WIRE_CHANNELS and type(x) is int
        msg = self.open.get((ev.ch, x))
        if msg is None:
            msg = self.open[(ev.ch, x)] = _Message(ev.ch, x, self.methods.get(x, ""))
            msg.head_t = ev.t
        msg.t = ev.t
        if msg.state == OPAQUE:
            yield from self._opaque(msg, ev.data)
            return
        msg.buf += ev.data
        yield from self._advance(msg)

    def finish(self) -> Iterator[Event]:
        """The end of the recording: what each unfinished message still holds, as it was cut."""
        for msg in self.open.values():
            yield from self._rest(msg)
        self.open.clear()

    # -- reading ---------------------------------------------------------------------------
    def _advance(self, msg: _Message) -> Iterator[Event]:
        while msg.buf and msg.state == HEAD:
            found = _HEAD_END.search(msg.buf)
            if found is None:
                if len(msg.buf) > MAX_HEAD:
                    yield from self._opaque(msg, b"")
                return
            msg.head = bytes(msg.buf[: found.end()])
            del msg.buf[: found.end()]
            yield from self._begin(msg)
        if msg.state == LENGTH and len(msg.buf) >= msg.left:
            yield from self._whole_body(msg)
        elif msg.state == CHUNKED:
            yield from self._chunks(msg)
        elif msg.state == CLOSE:
            msg.lines += msg.buf
            msg.buf.clear()
            yield from self._ended_lines(msg)

    def _begin(self, msg: _Message) -> Iterator[Event]:
        """A head has ended: how its body is framed decides what comes next."""
        fields = _fields(msg.head)
        if fields is None or _encoded(fields):
            yield from self._opaque(msg, b"")
            return
        start, headers = fields
        if msg.ch == HTTP_IN:
            self.methods[msg.x] = msg.method = start.split(b" ", 1)[0].decode("latin-1")
        status = _status(start) if msg.ch != HTTP_IN else 0
        chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
        length = headers.get(b"content-length")
        kind = headers.get(b"content-type", b"").split(b";", 1)[0].strip().lower()
        msg.sse, msg.json = (
            kind == b"text/event-stream",
            kind == b"application/json" or kind.endswith(b"+json"),
        )
        if 100 <= status < 200 and status != 101:  # an informational answer: the real head follows
            yield self._event(msg, self._head(msg, msg.head), msg.head_t)
            msg.head, msg.head_t = b"", msg.t
        elif status == 101:
            yield from self._opaque(msg, b"")
        elif (msg.method == "HEAD" and msg.ch != HTTP_IN) or status in _NO_BODY:
            msg.state, msg.left, msg.keep = LENGTH, 0, True
        elif chunked:
            msg.state = CHUNKED
            yield self._event(msg, self._head(msg, msg.head), msg.head_t)
        elif (
            length is not None
            and length.strip().isascii()
            and length.strip().isdigit()
            and len(length) <= 4300
        ):
            msg.state, msg.left = LENGTH, int(length)
        elif msg.ch == HTTP_IN:  # a request without a length has no body
            msg.state, msg.left = LENGTH, 0
        else:  # a response read until the connection closes
            msg.state = CLOSE
            yield self._event(msg, self._head(msg, msg.head), msg.head_t)

    def _whole_body(self, msg: _Message) -> Iterator[Event]:
        body = bytes(msg.buf[: msg.left])
        del msg.buf[: msg.left]
        yield from self._length_body(msg, body, missing=0)
        msg.state, msg.json = CLOSE, False  # bytes past the message (there should be none): lines
        msg.lines += msg.buf
        msg.buf.clear()
        yield from self._ended_lines(msg)

    def _length_body(self, msg: _Message, body: bytes, *, missing: int) -> Iterator[Event]:
        """The head, saying the redacted body's length (plus the bytes the recording never got),
        then the body. A message without a body whatever its head says keeps the length it says."""
        redacted = self._body(msg, body) if body else body
        head = self._head(msg, msg.head)
        length = str(len(redacted) + missing).encode()
        if not msg.keep:
            head = _LENGTH_LINE.sub(lambda m: m.group(1) + length + m.group(3), head)
        yield self._event(msg, head, msg.head_t)
        if redacted:
            yield self._event(msg, redacted, msg.t)

    def _chunks(self, msg: _Message) -> Iterator[Event]:
        """Read the chunks in `buf` into `lines`; write the lines ended so far as one chunk; at the
        last chunk, what is left and the end (trailers redacted)."""
        buf = msg.buf
        while buf:
            if msg.in_data:
                take = min(msg.left, len(buf))
                msg.lines += buf[:take]
                del buf[:take]
                msg.left -= take
                if msg.left:
                    break
                if len(buf) < 2:
                    break
                if buf[:2] != b"\r\n":
                    yield from self._opaque(msg, b"")
                    return
                del buf[:2]
                msg.in_data = False
                continue
            end = buf.find(b"\r\n")
            if end < 0:
                break
            line = bytes(buf[:end])
            if msg.trailer:
                del buf[: end + 2]
                if not line:
                    yield from self._last_chunk(msg)
                    return
                msg.head += line + b"\r\n"  # kept with the end, redacted
                continue
            size = _chunk_size(line)
            if size is None:
                yield from self._opaque(msg, b"")
                return
            del buf[: end + 2]
            if size == 0:
                msg.trailer, msg.head = True, b""
            else:
                msg.in_data, msg.left = True, size
        if not msg.trailer:
            yield from self._ended_lines(msg)

    def _last_chunk(self, msg: _Message) -> Iterator[Event]:
        if msg.lines:
            yield self._event(msg, _chunk(self._body(msg, bytes(msg.lines))), msg.t)
            msg.lines.clear()
        end = b"0\r\n" + (redact_head(self.redactor, msg.head, None) if msg.head else b"") + b"\r\n"
        yield self._event(msg, end, msg.t)
        msg.state, msg.json = CLOSE, False  # anything after it: lines, as they come
        msg.lines += msg.buf
        msg.buf.clear()

    def _ended_lines(self, msg: _Message) -> Iterator[Event]:
        """The lines of a chunked or close-delimited body that have ended, as one chunk or record
        (a JSON body waits for its end: it is one JSON value, read whole)."""
        end = msg.lines.rfind(b"\n") + 1
        if not end or msg.json:
            return
        data = self._body(msg, bytes(msg.lines[:end]))
        del msg.lines[:end]
        yield self._event(msg, _chunk(data) if msg.state == CHUNKED else data, msg.t)

    def _rest(self, msg: _Message) -> Iterator[Event]:
        """An unfinished message at the end of the recording, cut where the recording cut it."""
        if msg.state == HEAD and msg.buf:
            yield self._event(msg, self._head(msg, bytes(msg.buf)), msg.t)
        elif msg.state == LENGTH:
            body = bytes(msg.buf)
            yield from self._length_body(msg, body, missing=msg.left - len(body))
        elif msg.state in (CHUNKED, CLOSE):
            rest = bytes(msg.lines) + (bytes(msg.buf) if msg.state == CLOSE else b"")
            if rest:
                data = self._body(msg, rest)
                yield self._event(msg, _chunk(data) if msg.state == CHUNKED else data, msg.t)
        msg.buf.clear()
        msg.lines.clear()

    # -- writing ---------------------------------------------------------------------------
    def _redacted(self, msg: _Message, data: bytes) -> bytes:
        return self.redactor.block(data, f"{msg.ch}:{msg.x}")

    def _head(self, msg: _Message, head: bytes) -> bytes:
        return redact_head(self.redactor, head, "request" if msg.ch == HTTP_IN else "response")

    def _body(self, msg: _Message, data: bytes) -> bytes:
        """Whole lines of a body, redacted. A JSON value over several lines is read as one (its
        structure is JSON: a short secret stays out of it); an SSE stream's `event:`, `id:` and
        `retry:` lines keep short secrets (an event id `7` is not the password `7`)."""
        if msg.sse:
            if not any(field in data for field in _SSE_FIELDS):
                return self._redacted(msg, data)
            lines = data.split(b"\n")
            return b"\n".join(
                _text(self.redactor, line, words=False)
                if line.startswith(_SSE_FIELDS)
                else self._redacted(msg, line)
                for line in lines
            )
        if b"\n" in data and json_text(data.decode("utf-8", "surrogateescape")):
            return _text(self.redactor, data, words=True)
        return self._redacted(msg, data)

    def _event(self, msg: _Message, data: bytes, t: float) -> Event:
        return Event(t, msg.ch, raw=data, fields={EXCHANGE: msg.x})

    def _opaque(self, msg: _Message, data: bytes) -> Iterator[Event]:
        """From here on, this message's bytes are placeholders without a number (never judged)."""
        held = bytes(msg.head if msg.state == HEAD else b"") + bytes(msg.lines) + bytes(msg.buf) + data
        msg.state = OPAQUE
        msg.head, msg.lines, msg.buf = b"", bytearray(), bytearray()
        if held:
            shown = held.decode("utf-8", "surrogateescape")
            yield Event(msg.t, msg.ch, text=self.redactor.placeholder(shown, "unknown-record"))


def _text(redactor: Redactor, data: bytes, *, words: bool) -> bytes:
    """`data` redacted as one text (`Redactor.text`)."""
    text = data.decode("utf-8", "surrogateescape")
    out = redactor.text(text, words=words)
    return data if out is text else out.encode("utf-8", "surrogateescape")


def _fields(head: bytes) -> tuple[bytes, dict[bytes, bytes]] | None:
    """The start line and the headers (names lower-cased, the last value of each) of a head."""
    lines = [line.rstrip(b"\r") for line in head.split(b"\n")]
    while lines and not lines[-1]:
        lines.pop()
    headers: dict[bytes, bytes] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            return None
        headers[name.strip().lower()] = value.strip()
    return lines[0], headers


def _encoded(headers: tuple[bytes, dict[bytes, bytes]]) -> bool:
    """Whether the body is compressed (its bytes cannot be read for secrets)."""
    coding = headers[1].get(b"content-encoding", b"identity").strip().lower()
    return coding not in (b"", b"identity")


def _status(start: bytes) -> int:
    parts = start.split(b" ", 2)
    return (
        int(parts[1])
        if len(parts) > 1 and parts[1].isascii() and parts[1].isdigit() and len(parts[1]) < 9
        else 0
    )


def _chunk_size(line: bytes) -> int | None:
    size = line.split(b";", 1)[0].strip()
    try:
        return int(size, 16) if size else None
    except ValueError:
        return None


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n" if data else b""


def exchange_of(ev: Event) -> int | None:
    """The exchange number of a byte record of an HTTP transcript (None: not one)."""
    x = ev.get(EXCHANGE) if ev.text is not None or ev.raw is not None else None
    return x if type(x) is int else None
