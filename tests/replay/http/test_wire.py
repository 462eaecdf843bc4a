"""The requests a replay sends and the responses it reads (replay/httpwire.py, pure): the recorded
bytes changed only where the new session differs; messages read from JSON bodies and SSE events."""

from __future__ import annotations

import base64

import h11

from mcptape.diff.minted import Use
from mcptape.recorder.http.clientread import ResponseReader
from mcptape.replay.http.wire import RecordedRequest
from mcptape.replay.minted import substitute, with_id

BODY = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"h":"old-token-1234"}}}'
HEAD = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nOrigin: http://127.0.0.1:4000\r\n"
    b"content-type: application/json\r\nMcp-Session-Id: s-old\r\nmcp-name: =?base64?"
    + base64.b64encode(b"old-token-1234")
    + b"?=\r\nX-Other:  kept as it was \r\n"
)


def _read_back(data: bytes) -> tuple[h11.Request, bytes]:
    """What a server reads from `data`: the request and its body."""
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(data)
    request = conn.next_event()
    assert isinstance(request, h11.Request)
    body = b""
    while True:
        event = conn.next_event()
        if isinstance(event, h11.Data):
            body += event.data
        else:
            assert isinstance(event, h11.EndOfMessage), event
            return request, body


def test_a_request_unchanged_is_sent_byte_for_byte() -> None:
    """Nothing differs in the new session: the recorded bytes, exactly."""
    raw = HEAD + b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY
    request = RecordedRequest.read(raw)
    assert request.whole and request.method == "POST" and request.body == BODY
    assert request.rebuilt() == raw


def test_the_new_sessions_values_replace_the_recorded_ones_and_nothing_else() -> None:
    """Host, the session id, the body (and its length), a header repeating a minted value (in its
    base64 form), an Origin naming the old address: changed; every other byte as recorded."""
    raw = HEAD + b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY
    body = BODY.replace(b"old-token-1234", b"a-much-longer-new-token-5678")
    sent = RecordedRequest.read(raw).rebuilt(
        host="127.0.0.1:5000",
        session={"s-old": "s-new"}.get,
        body=body,
        values={"old-token-1234": "a-much-longer-new-token-5678"},
        origin=("127.0.0.1:4000", "127.0.0.1:5000"),
    )
    request, got = _read_back(sent)
    assert got == body
    headers = dict(request.headers.raw_items())
    assert headers[b"Host"] == b"127.0.0.1:5000" and headers[b"Origin"] == b"http://127.0.0.1:5000"
    assert headers[b"Mcp-Session-Id"] == b"s-new"
    assert headers[b"mcp-name"] == b"=?base64?" + base64.b64encode(b"a-much-longer-new-token-5678") + b"?="
    assert headers[b"Content-Length"] == str(len(body)).encode()
    assert b"X-Other:  kept as it was \r\n" in sent  # an untouched line keeps its spacing


def test_a_chunked_body_is_sent_again_as_one_chunk() -> None:
    """A recorded chunked body that changes: the new body in one chunk, read back whole."""
    head = b"POST /mcp HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
    raw = head + b'5\r\n{"a":\r\n4\r\n"b"}\r\n0\r\n\r\n'
    request = RecordedRequest.read(raw)
    assert request.chunked and request.body == b'{"a":"b"}'
    assert request.rebuilt() == raw
    _, body = _read_back(request.rebuilt(body=b'{"a":"changed"}'))
    assert body == b'{"a":"changed"}'


def test_bytes_that_are_not_a_whole_request_are_sent_as_recorded() -> None:
    """Not HTTP, or cut short: nothing is changed in them."""
    for raw in (b"hello there\r\n\r\n", b"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n{}"):
        request = RecordedRequest.read(raw)
        assert not request.whole
        assert request.rebuilt(host="x:1", body=b"{}") == raw


def test_a_json_body_is_one_message() -> None:
    """The body, whatever the pieces it came in, as the recorder's `out` line."""
    lines: list[bytes] = []
    reader = ResponseReader("POST", lines.append)
    body = b'{"jsonrpc":"2.0",\n"id":1,"result":{}}'
    response = (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(body) + body
    )
    for i in range(0, len(response), 7):
        reader.feed(response[i : i + 7])
    assert reader.ended and reader.status == 200
    assert lines == [b'{"jsonrpc":"2.0", "id":1,"result":{}}\n']


def test_sse_events_are_messages_as_they_come_and_a_cut_stream_has_not_ended() -> None:
    """Each event's data as soon as its blank line arrives; a stream closed before its last chunk
    has not ended by itself."""
    lines: list[bytes] = []
    reader = ResponseReader("POST", lines.append)
    reader.feed(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
    event = b'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\r\n\r\n'
    reader.feed(b"%x\r\n" % len(event) + event + b"\r\n")
    assert lines == [b'{"jsonrpc":"2.0","method":"notifications/progress"}\n']
    reader.close()
    assert not reader.ended and reader.header("Content-Type") == "text/event-stream"


def test_a_head_request_has_no_body_to_wait_for() -> None:
    """h11 is told the request's method: a HEAD answer ends with its head."""
    reader = ResponseReader("HEAD")
    reader.feed(b"HTTP/1.1 200 OK\r\ncontent-length: 99\r\n\r\n")
    assert reader.ended


def test_a_minted_value_is_replaced_where_it_stands_or_at_its_path() -> None:
    """Its JSON string's bytes replaced (every other byte kept); a value the recording escaped
    differently is put at its path, the body written again."""
    use = Use("tok-12345678", ("id", 1, 1), "tools/call", ("result",), 2, 5, ("params", "h"))
    body = b'{"jsonrpc":"2.0", "params": {"h":"tok-12345678"}}'
    assert substitute(body, use, "tok-87654321") == (body.replace(b"12345678", b"87654321"), False)
    escaped = b'{"params":{"h":"tok-\\u0031\\u0032345678"}}'
    assert substitute(escaped, use, "new-99999999") == (b'{"params":{"h":"new-99999999"}}', True)


def test_an_answer_goes_under_the_new_servers_request_id() -> None:
    """The members in their recorded order; the same id leaves the bytes alone."""
    body = b'{"jsonrpc":"2.0","id":1,"result":{"action":"accept"}}'
    assert with_id(body, 1, 1) is body
    assert with_id(body, 1, "srv-7") == b'{"jsonrpc":"2.0","id":"srv-7","result":{"action":"accept"}}'
