"""The framing `mcptape redact`'s HTTP copy keeps: a head ended by bare LFs (as h11 and the recorder
read it) is a head, whose body gets its new length; the answer to a HEAD request and a 304 keep
the `Content-Length` they were sent with (no body follows whatever it says)."""

from __future__ import annotations

from pathlib import Path

import h11
import orjson
import pytest

from mcptape.check.analyze import analyze_file
from tests.share.http_records import SECRET, copied, record, wire

BODY = (
    b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"password":"%s"}}}'
    % SECRET.encode()
)
ANSWER = b'{"jsonrpc":"2.0","id":2,"result":{"content":[]}}'
RESPONSE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(ANSWER) + ANSWER
)


def _rules(path: Path) -> list[str]:
    return sorted(f.rule for f in analyze_file(str(path))[1].findings)


@pytest.mark.parametrize("end", [b"\n\n", b"\r\n\n"])
def test_a_head_ended_by_bare_line_feeds_gets_its_body_s_new_length(tmp_path: Path, end: bytes) -> None:
    """`POST ... \\n ... \\n\\n` then a body with a password: h11 reads the copy's request whole, at
    the length the head says now; check says of the copy what it says of the original."""
    head = (
        b"POST /mcp HTTP/1.1\nHost: h\ncontent-type: application/json\n"
        b"accept: application/json, text/event-stream\nContent-Length: %d" % len(BODY)
    )
    request = head + end + BODY
    copy = copied(tmp_path, [record(0.1, "http-in", request), record(0.2, "http-out", RESPONSE)])
    sent = wire(copy, "http-in")
    assert SECRET.encode() not in sent and sent.startswith(b"POST /mcp HTTP/1.1\nHost: h\n")
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(sent)
    assert isinstance(conn.next_event(), h11.Request)
    body = conn.next_event()
    assert isinstance(body, h11.Data) and sent.endswith(body.data)  # all of it, no more
    assert orjson.loads(body.data)["params"]["arguments"]["password"].startswith("[redacted:")
    assert isinstance(conn.next_event(), h11.EndOfMessage)
    assert _rules(copy) == _rules(tmp_path / "t.jsonl")


@pytest.mark.parametrize(("method", "status"), [(b"HEAD", b"200 OK"), (b"GET", b"304 Not Modified")])
def test_an_answer_without_a_body_keeps_its_content_length(
    tmp_path: Path, method: bytes, status: bytes
) -> None:
    """HEAD -> 200 and GET -> 304 say `content-length: 1234` of a body they do not send: the copy
    says the same (not 0)."""
    request = b"%s /mcp HTTP/1.1\r\nHost: h\r\naccept: text/event-stream\r\n\r\n" % method
    response = b"HTTP/1.1 %s\r\ncontent-type: application/json\r\ncontent-length: 1234\r\n\r\n" % status
    copy = copied(tmp_path, [record(0.1, "http-in", request), record(0.2, "http-out", response)])
    assert wire(copy, "http-out") == response
    assert _rules(copy) == _rules(tmp_path / "t.jsonl")
