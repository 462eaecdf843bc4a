"""A short secret (`1`, `7`, a response's length: replaced as a whole word) in `mcptape redact`'s
copy of an HTTP transcript: it goes from the bodies' JSON strings, from secret-looking header
values and from the target's query, never from the start line, the framing headers or the JSON
structure (of a `data:` line, of a body over several lines), so the copy stays the HTTP it was:
`mcptape check` says of it what it says of the original, and the secret is not its length."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mcptape.check.analyze import analyze_file
from mcptape.share.placeholder import key_from_header, placeholder
from mcptape.transcript.reader import open_transcript
from tests.share.http_records import SSE_HEAD, copied, record, response_body, wire

ACCEPT = b"accept: application/json, text/event-stream\r\n"


def _request(password: bytes, rid: int = 2, target: bytes = b"/mcp", extra: bytes = b"") -> bytes:
    arguments = b'{"name":"login","arguments":{"password":"%s"}}' % password
    body = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}' % (rid, arguments)
    head = b"POST %s HTTP/1.1\r\nHost: 127.0.0.1:9\r\ncontent-type: application/json\r\n%s%s" % (
        target,
        ACCEPT,
        extra,
    )
    return head + b"Content-Length: %d\r\n\r\n" % len(body) + body


def _response(body: bytes) -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(body) + body
    )


def _rules(path: Path) -> list[str]:
    return sorted(f.rule for f in analyze_file(str(path))[1].findings)


def _ph(copy: Path, value: str) -> bytes:
    key = key_from_header(open_transcript(copy).header.extra["redacted"])
    assert key is not None
    return placeholder(key, value).encode()


def _both(tmp_path: Path, records: list[dict[str, object]]) -> tuple[Path, Path]:
    """The copy, and the original written beside it; check says the same of both."""
    copy = copied(tmp_path, records)
    original = tmp_path / "t.jsonl"
    assert _rules(copy) == _rules(original)
    return original, copy


def test_a_one_character_password_leaves_the_heads_as_they_were(tmp_path: Path) -> None:
    """Password `1`: `HTTP/1.1`, `127.0.0.1:9` and `200` stay; the body's password is a placeholder."""
    answer = b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
    _, copy = _both(
        tmp_path, [record(0.1, "http-in", _request(b"1")), record(0.2, "http-out", _response(answer))]
    )
    sent = wire(copy, "http-in")
    assert sent.startswith(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:9\r\ncontent-type: application/json\r\n")
    assert b'"password":"' + _ph(copy, "1") + b'"' in sent
    assert wire(copy, "http-out") == _response(answer)  # `"id":1` is structure, not the password


def test_a_password_equal_to_a_length_does_not_replace_the_length(tmp_path: Path) -> None:
    """The answer is as many bytes as the password says: its `content-length` stays a number that
    h11 reads the body by (the secret is not given away as the one length that became a placeholder)."""
    answer = b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}'
    password = str(len(answer)).encode()
    _, copy = _both(
        tmp_path, [record(0.1, "http-in", _request(password)), record(0.2, "http-out", _response(answer))]
    )
    out = wire(copy, "http-out")
    head, body, ended = response_body(out)
    assert ended and body == answer and dict(head.headers)[b"content-length"] == password
    assert b"[redacted:" not in out


def test_a_short_secret_goes_from_a_secret_header_and_the_query_only(tmp_path: Path) -> None:
    """`pw1` learnt from the body goes from `X-Auth-Token` and from `?user=ada&pw=pw1`; a header
    that is not secret-looking (`User-Agent: pw1`) keeps it (it is not what carries a secret)."""
    extra = b"X-Auth-Token: ada pw1\r\nUser-Agent: pw1\r\n"
    request = _request(b"pw1", target=b"/mcp?user=ada&pw=pw1", extra=extra)
    answer = b'{"jsonrpc":"2.0","id":2,"result":{"content":[]}}'
    _, copy = _both(tmp_path, [record(0.1, "http-in", request), record(0.2, "http-out", _response(answer))])
    ph = _ph(copy, "pw1")
    sent = wire(copy, "http-in")
    assert sent.startswith(b"POST /mcp?user=ada&pw=" + ph + b" HTTP/1.1\r\n")
    assert b"\r\nX-Auth-Token: ada " + ph + b"\r\nUser-Agent: pw1\r\n" in sent


def test_a_short_secret_stays_in_the_json_of_a_data_line(tmp_path: Path) -> None:
    """Password `7`, request id 7: the SSE event's `"id":7` and its `id: 7` field stay, the `7` in
    its text goes; the carried message keeps `"id":7` as well."""
    message = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"password 7 ok"}]}}'
    event = b"event: message\r\nid: 7\r\ndata: " + message + b"\r\n\r\n"
    sse = SSE_HEAD + b"%x\r\n" % len(event) + event + b"\r\n0\r\n\r\n"
    records = [
        record(0.1, "http-in", _request(b"7", rid=7)),
        record(0.2, "http-out", sse),
        record(0.2, "out", message + b"\n"),
    ]
    _, copy = _both(tmp_path, records)
    ph = _ph(copy, "7")
    _, body, ended = response_body(wire(copy, "http-out"))
    assert ended and body == event.replace(b"password 7 ok", b"password " + ph + b" ok")
    [carried] = [e.data for e in open_transcript(copy).events() if e.ch == "out"]
    assert orjson.loads(carried)["id"] == 7


@pytest.mark.parametrize("indent", [b"  ", b"\t"])
def test_a_short_secret_stays_in_the_structure_of_a_body_over_several_lines(
    tmp_path: Path, indent: bytes
) -> None:
    """A pretty-printed JSON answer (`"id": 7,` on a line of its own) is JSON as a whole: its
    numbers stay, the password in its text goes, its length is the new one."""
    lines = [b"{", b'"jsonrpc": "2.0",', b'"id": 7,', b'"result": {"text": "password 7 ok"}', b"}"]
    answer = b"\n".join([lines[0], *(indent + line for line in lines[1:-1]), lines[-1]])
    _, copy = _both(
        tmp_path,
        [record(0.1, "http-in", _request(b"7", rid=7)), record(0.2, "http-out", _response(answer))],
    )
    _, body, ended = response_body(wire(copy, "http-out"))
    assert ended and body == answer.replace(b"password 7 ok", b"password " + _ph(copy, "7") + b" ok")


def test_a_chunked_json_body_over_several_lines_is_read_whole(tmp_path: Path) -> None:
    """The same pretty-printed answer sent in two chunks, over two records: read whole at its end,
    one chunk, its numbers kept."""
    answer = b'{\n  "jsonrpc": "2.0",\n  "id": 7,\n  "result": {"text": "password 7 ok"}\n}'
    cut = answer.index(b'"id"') + 3
    stream = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (cut, answer[:cut], len(answer) - cut, answer[cut:])
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
    split = len(head) + 10
    raw = head + stream
    _, copy = _both(
        tmp_path,
        [
            record(0.1, "http-in", _request(b"7", rid=7)),
            record(0.2, "http-out", raw[:split]),
            record(0.3, "http-out", raw[split:]),
        ],
    )
    _, body, ended = response_body(wire(copy, "http-out"))
    assert ended and body == answer.replace(b"password 7 ok", b"password " + _ph(copy, "7") + b" ok")
