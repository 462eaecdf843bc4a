"""Reading a Streamable HTTP response as its bytes come, on the client's side of a connection: what
replay and probe send through the recording proxy is answered here (pure: no I/O).

`ResponseReader` gives its status and headers, the JSON-RPC messages its JSON body or its SSE events
carry (as the `out` lines the recorder writes: `transcript.wire.carried_line`), and whether it ended.
"""

from __future__ import annotations

from collections.abc import Callable

import h11

from mcptape.transcript.wire import SSE_TYPE, SseDecoder, carried_line, header, is_json_type, media_type

MAX_BODY = 64 << 20  # a JSON body past this is not read for messages (the recorder keeps its bytes)


class ResponseReader:
    """Reads one exchange's response as its bytes come (`feed`, then `close` at the end of the
    connection): `status`, `headers`, `ended` (h11 saw the whole response), and `on_line(line)` for
    each JSON-RPC message it carries, as the recorder's `out` line."""

    def __init__(self, method: str, on_line: Callable[[bytes], None] | None = None) -> None:
        self.conn = h11.Connection(h11.CLIENT)
        # h11 must know the request (a HEAD answer has no body); its bytes were sent by the caller
        self.conn.send(h11.Request(method=method or "POST", target="/", headers=[("host", "x")]))
        self.conn.send(h11.EndOfMessage())
        self.on_line = on_line
        self.status: int | None = None
        self.headers: list[tuple[str, str]] = []
        self.ended = False
        self.failed = False
        self._sse: SseDecoder | None = None
        self._json: bytearray | None = None

    def feed(self, data: bytes) -> None:
        if self.ended or self.failed:
            return
        self.conn.receive_data(data)
        self._events()

    def close(self) -> None:
        """The connection ended: a response read until close ends here."""
        if not (self.ended or self.failed):
            self.conn.receive_data(b"")
            self._events()

    def header(self, name: str) -> str | None:
        return header(self.headers, name)

    def _events(self) -> None:
        try:
            while True:
                event = self.conn.next_event()
                if event is h11.NEED_DATA or event is h11.PAUSED or isinstance(event, h11.ConnectionClosed):
                    return
                if isinstance(event, h11.InformationalResponse):
                    continue
                if isinstance(event, h11.Response):
                    self._head(event)
                elif isinstance(event, h11.Data):
                    self._data(bytes(event.data))
                elif isinstance(event, h11.EndOfMessage):
                    self._end()
                    return
        except h11.ProtocolError:
            self.failed = True

    def _head(self, event: h11.Response) -> None:
        self.status = event.status_code
        self.headers = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in event.headers.raw_items()]
        media = media_type(self.header("content-type"))
        if media == SSE_TYPE:
            self._sse = SseDecoder()
        elif is_json_type(media):
            self._json = bytearray()

    def _data(self, data: bytes) -> None:
        if self._sse is not None:
            for sse in self._sse.feed(data):
                self._line(sse.data)
        elif self._json is not None:
            if len(self._json) + len(data) > MAX_BODY:
                self._json = None
            else:
                self._json += data

    def _end(self) -> None:
        self.ended = True
        if self._json is not None and self._json.strip():
            self._line(bytes(self._json))
        self._json = None

    def _line(self, message: bytes) -> None:
        if self.on_line is not None:
            self.on_line(carried_line(message))
