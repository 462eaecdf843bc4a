"""The recorder's cut of one connection's bytes (recorder/http/tap.py), fed in any pieces: each byte on
its exchange, each message carried on in/out once, whatever the reads."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from mcptape.recorder.http.tap import Exchanges, Tap


class Sink:
    """A `Target` keeping the records."""

    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any]]] = []

    def now(self) -> float:
        return 0.0

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        raise AssertionError("the tap writes records with their exchange number")

    def fields(self, t: float, ch: str, **fields: Any) -> None:
        self.records.append((ch, fields))

    def by_exchange(self, channel: str) -> dict[int, bytes]:
        out: dict[int, bytes] = {}
        for ch, fields in self.records:
            if ch == channel:
                data = fields["data"].encode() if "data" in fields else base64.b64decode(fields["b64"])
                out[fields["x"]] = out.get(fields["x"], b"") + data
        return out

    def carried(self, channel: str) -> list[tuple[int, str]]:
        return [(f["x"], f["data"]) for ch, f in self.records if ch == channel]


def post(body: bytes) -> bytes:
    return b"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n" % len(body) + body


REQ1, REQ2 = (
    post(b'{"jsonrpc":"2.0","id":1,"method":"a"}'),
    post(b'{\n "jsonrpc": "2.0",\r\n "id": 2,"method":"b"}'),
)
SSE_BODY = (
    b'event: message\ndata: {"jsonrpc":"2.0","method":"n"}\n\n'
    b'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'
)
CHUNKED = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    + b"%x\r\n" % len(SSE_BODY[:30])
    + SSE_BODY[:30]
    + b"\r\n"
    + b"%x\r\n" % len(SSE_BODY[30:])
    + SSE_BODY[30:]
    + b"\r\n0\r\n\r\n"
)
JSON_BODY = b'{"jsonrpc":"2.0","id":2,"result":{}}'
JSON = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(JSON_BODY)
    + JSON_BODY
)


def pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@pytest.mark.parametrize("size", [1, 3, 17, 100000])
def test_pipelined_requests_and_a_chunked_sse_answer_are_cut_at_message_ends(size: int) -> None:
    """Two requests sent at once (pipelined), a chunked SSE answer then a JSON one, in reads of any
    size: each exchange gets exactly its bytes, the SSE events and the bodies are on in/out once, a
    body's newlines made spaces."""
    sink = Sink()
    tap = Tap(sink, Exchanges())
    for piece in pieces(REQ1 + REQ2, size):
        tap.client_sending()
        tap.client_bytes(0.0, piece)
    for piece in pieces(CHUNKED + JSON, size):
        tap.server_bytes(0.0, piece)
    tap.client_closed(0.0)
    tap.server_closed(0.0)
    assert sink.by_exchange("http-in") == {1: REQ1, 2: REQ2}
    assert sink.by_exchange("http-out") == {1: CHUNKED, 2: JSON}
    assert sink.carried("in") == [
        (1, '{"jsonrpc":"2.0","id":1,"method":"a"}\n'),
        (2, '{  "jsonrpc": "2.0",   "id": 2,"method":"b"}\n'),
    ]
    assert sink.carried("out") == [
        (1, '{"jsonrpc":"2.0","method":"n"}\n'),
        (1, '{"jsonrpc":"2.0","id":1,"result":{}}\n'),
        (2, JSON_BODY.decode() + "\n"),
    ]
    assert tap.unanswered(settle=0) == []


def test_an_answer_read_before_its_request_waits_for_it() -> None:
    """The server's bytes can be handed over before the request they answer was recorded (the two
    directions are two threads): they wait, and land on the right exchange."""
    sink = Sink()
    tap = Tap(sink, Exchanges())
    tap.client_sending()  # forwarded, not yet recorded
    tap.server_bytes(0.0, JSON)
    assert sink.records == []
    tap.client_bytes(0.0, REQ2)
    assert sink.by_exchange("http-out") == {1: JSON}


def test_bytes_that_are_not_http_are_kept_on_their_exchange_and_named_once() -> None:
    """h11 stops reading the server's side; its bytes are still recorded, on the exchange waiting."""
    sink = Sink()
    problems: list[tuple[int, str]] = []
    tap = Tap(sink, Exchanges(), on_problem=lambda x, why: problems.append((x, why)))
    tap.client_sending()
    tap.client_bytes(0.0, REQ1)
    tap.server_bytes(0.0, b"garbage\r\n\r\n")
    tap.server_bytes(0.0, b"more garbage")
    assert sink.by_exchange("http-out") == {1: b"garbage\r\n\r\nmore garbage"}
    assert [x for x, _ in problems] == [1] and "not HTTP/1.1" in problems[0][1]
    assert tap.unanswered(settle=0) == []  # it was answered (badly): no 502 on top
