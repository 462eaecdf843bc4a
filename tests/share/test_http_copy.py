"""`mcptape redact` on an HTTP transcript (share/httpcopy.py, no socket): each exchange keeps its
number and stays HTTP (a body's new length, an SSE stream's chunks written again, a message cut
short stays as short), a secret split across chunks and records is found whole, a body mcptape
cannot read is placeholders; and `replay --secret` puts the value back in the head and the body."""

from __future__ import annotations

import gzip
from pathlib import Path

import h11
import orjson

from mcptape.replay.http.driver import HttpDriver
from mcptape.replay.http.plan import make_http_plan
from mcptape.replay.outcome import Run
from mcptape.replay.skeleton import _per_line
from mcptape.share.unredact import load_unredactor
from mcptape.transcript.reader import open_transcript
from tests.share.http_records import SECRET, SSE_HEAD, copied, record, response_body, wire

TOKEN = "tok-0123456789abcdef"
BODY = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"password":"%s"}}}' % (
    SECRET.encode()
)
REQUEST = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:9\r\nAuthorization: Bearer %s\r\n"
    b"content-type: application/json\r\nContent-Length: %d\r\n\r\n" % (TOKEN.encode(), len(BODY))
)
EVENT = b'event: message\r\ndata: {"jsonrpc":"2.0","id":1,"result":{"text":"password=%s ok"}}\r\n\r\n' % (
    SECRET.encode()
)


def test_an_sse_stream_with_a_secret_split_across_chunks_and_records_stays_http(tmp_path: Path) -> None:
    """The event's secret is cut between two chunks, the second chunk between two records: the copy
    holds no part of it, its chunks read back (h11) to the event with the placeholder, whole."""
    cut = EVENT.index(SECRET.encode()) + 5
    first, second = EVENT[:cut], EVENT[cut:]
    stream = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(first), first, len(second), second)
    split = len(SSE_HEAD) + len(first) + 20
    raw = SSE_HEAD + stream
    copy = copied(
        tmp_path,
        [
            record(0.1, "http-in", REQUEST + BODY),
            record(0.2, "http-out", raw[:split]),
            record(0.3, "http-out", raw[split:]),
        ],
    )
    out = wire(copy, "http-out")
    assert SECRET[:5].encode() not in out and SECRET[5:].encode() not in out
    head, body, ended = response_body(out)
    assert ended and head.status_code == 200
    assert body.startswith(
        b'event: message\r\ndata: {"jsonrpc":"2.0","id":1,"result":{"text":"password=[redacted:'
    )
    assert body.endswith(b'] ok"}}\r\n\r\n')


def test_a_body_gets_its_new_length_and_the_head_its_secrets_hidden(tmp_path: Path) -> None:
    """The request's body holds a placeholder now: `Content-Length` says its length, h11 reads the
    request whole; the bearer token in the head is a placeholder too."""
    copy = copied(
        tmp_path, [record(0.1, "http-in", REQUEST[:40]), record(0.2, "http-in", REQUEST[40:] + BODY)]
    )
    data = wire(copy, "http-in")
    assert SECRET.encode() not in data and TOKEN.encode() not in data
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(data)
    request = conn.next_event()
    assert isinstance(request, h11.Request)
    body = conn.next_event()
    assert isinstance(body, h11.Data) and isinstance(conn.next_event(), h11.EndOfMessage)
    assert body.data == data.partition(b"\r\n\r\n")[2]  # the whole body, at the length its head says
    assert orjson.loads(body.data)["params"]["arguments"]["password"].startswith("[redacted:")
    assert dict(request.headers)[b"authorization"].startswith(b"Bearer [redacted:")


def test_a_body_the_recording_cut_short_stays_as_many_bytes_short(tmp_path: Path) -> None:
    """A response whose connection closed 10 bytes before its `Content-Length`: the copy's head
    promises its redacted part plus the same 10 bytes (a reader still waits for them)."""
    answer = b'{"password":"%s","n":1234567890}' % SECRET.encode()
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(answer)
    copy = copied(
        tmp_path,
        [record(0.1, "http-in", REQUEST + BODY), record(0.2, "http-out", head + answer[:-10])],
    )
    out = wire(copy, "http-out")
    sent_head, _, sent_body = out.partition(b"\r\n\r\n")
    assert SECRET.encode() not in out
    assert sent_head.endswith(b"content-length: %d" % (len(sent_body) + 10))


def test_a_compressed_body_is_placeholders_without_a_number(tmp_path: Path) -> None:
    """A gzip body cannot be read for secrets: its records are placeholders, never judged; the
    request, which can, keeps its number."""
    answer = gzip.compress(b'{"password":"%s"}' % SECRET.encode())
    head = b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: %d\r\n\r\n" % len(answer)
    copy = copied(tmp_path, [record(0.1, "http-in", REQUEST + BODY), record(0.2, "http-out", head + answer)])
    events = [e for e in open_transcript(copy).events() if e.ch == "http-out"]
    assert [e.fields for e in events] == [None] and events[0].data.startswith(b"[redacted:")
    assert wire(copy, "http-in").startswith(b"POST /mcp HTTP/1.1\r\n")


def test_replay_secret_puts_the_values_back_into_the_head_and_the_body(tmp_path: Path) -> None:
    """`--secret`: the replayed request of the copy carries the real token in `Authorization` and
    the real password in its body, at the body's length again."""
    copy = copied(tmp_path, [record(0.1, "http-in", REQUEST + BODY), record(0.1, "in", BODY + b"\n")])
    unredactor = load_unredactor(copy, [f"password={SECRET}", f"token={TOKEN}"], environ={})
    assert unredactor.unmatched == []
    plan = make_http_plan(open_transcript(copy).events)
    driver = HttpDriver(
        plan, "127.0.0.1", 9, Run(path=tmp_path / "new.jsonl"), transform=_per_line(unredactor.line)
    )
    [step] = plan.steps
    sent = driver._request(step)
    assert sent.replace(b"127.0.0.1:9", b"") == (REQUEST + BODY).replace(b"127.0.0.1:9", b"")
