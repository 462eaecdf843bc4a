"""The records of an HTTP transcript: the reader keeps each exchange's number, the writer writes it
back, and the one SSE decoder and the carried line behave as docs/format.md says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.transcript.events import Header
from mcptape.transcript.reader import open_transcript
from mcptape.transcript.wire import SseDecoder, carried_line
from mcptape.transcript.writer import write_transcript

HEADER = {"mcptape": 1, "started": "2026-12-01T00:00:00Z", "command": [], "cwd": "/", "recorder": {}}
RECORDS: list[dict[str, Any]] = [
    {"t": 0.1, "ch": "http-in", "x": 1, "data": "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}"},
    {"t": 0.1, "ch": "in", "x": 1, "data": "{}\n"},
    {"t": 0.2, "ch": "http-out", "x": 1, "b64": "SFRUUC8xLjEgMjAwIE9LDQoNCv8="},
    {"t": 0.3, "ch": "http-out", "data": "no exchange number"},
]


def _file(path: Path) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in [HEADER, *RECORDS]))
    return path


def test_the_reader_keeps_the_exchange_number_and_the_analysis_gets_it(tmp_path: Path) -> None:
    """Events keep `x`; `payload` and the fast batches give an exchange's bytes with its number,
    and bytes without a number as plain bytes (they are not judged)."""
    transcript = open_transcript(_file(tmp_path / "t.jsonl"))
    events = list(transcript.events())
    assert [e.fields for e in events] == [{"x": 1}, {"x": 1}, {"x": 1}, None]
    assert events[0].payload == {"x": 1, "data": RECORDS[0]["data"].encode()}
    assert events[1].payload == "{}\n"  # a carried message reads as on stdio
    assert events[2].payload == {"x": 1, "data": b"HTTP/1.1 200 OK\r\n\r\n\xff"}
    fast = [r for batch in transcript.batches() for r in batch.records]
    assert [r[2] for r in fast] == [e.payload for e in events]


def test_the_writer_writes_the_exchange_number_back(tmp_path: Path) -> None:
    """An event with its `x` is written as one record with it (a redacted or updated copy keeps it)."""
    events = list(open_transcript(_file(tmp_path / "t.jsonl")).events())
    copy = tmp_path / "copy.jsonl"
    write_transcript(copy, Header.from_record(HEADER), events)
    assert list(open_transcript(copy).events()) == events
    lines = [orjson.loads(line) for line in copy.read_bytes().splitlines()[1:]]
    assert lines[0] == RECORDS[0] and lines[2] == RECORDS[2]


def test_a_carried_line_keeps_every_offset() -> None:
    """CR and LF become spaces (JSON allows them only between tokens), then one newline ends it."""
    body = b'{\r\n  "jsonrpc": "2.0",\n  "id": 1}'
    line = carried_line(body)
    assert line == b'{    "jsonrpc": "2.0",   "id": 1}\n' and len(line) == len(body) + 1
    assert orjson.loads(line) == orjson.loads(body)


@pytest.mark.parametrize("cut", [1, 2, 3, 7, 1000])
def test_the_sse_decoder_gives_the_same_events_however_the_stream_is_cut(cut: int) -> None:
    """Events, their data (data lines joined by LF), ids, and their offsets do not depend on the reads;
    CRLF, LF and CR all end a line; a comment and a priming `id:` event dispatch nothing."""
    stream = (
        b"\xef\xbb\xbfid: 0\ndata:\n\n: keep-alive\r\n"
        b'event: message\r\ndata: {"a":\r\ndata: 1}\r\n\r\n'
        b"data: x\rretry: 10\r\r"
    )
    decoder = SseDecoder()
    events = []
    for i in range(0, len(stream), cut):
        events += decoder.feed(stream[i : i + cut])
    assert [(e.data, e.event, e.id, e.retry) for e in events] == [
        (b'{"a":\n1}', "message", "0", None),
        (b"x", "message", "0", 10),
    ]
    assert stream[events[0].start :].startswith(b"event: message")
    assert decoder.problems == [] and decoder.close() is None


def test_the_sse_decoder_names_what_a_client_ignores() -> None:
    """A line that is no SSE field, a retry that is not a number, and an event the stream's end cut
    short, each with its byte offset."""
    decoder = SseDecoder()
    decoder.feed(b'server log line\ndata: {"ok":1}\n\nretry: soon\ndata: {"cut"')
    assert [(p.offset, p.raw, p.why.split(" (")[0]) for p in decoder.problems] == [
        (0, b"server log line", "not an SSE field"),
        (32, b"retry: soon", "retry is not a number of milliseconds"),
    ]
    cut = decoder.close()
    assert cut is not None and cut.offset == 32 and "ended inside an event" in cut.why


def test_a_redacted_copy_keeps_each_exchange_and_reads_back_whole(tmp_path: Path) -> None:
    """`mcptape redact`: an exchange's raw bytes keep their number (nothing secret in them here, so
    they are as recorded), bytes without a number stay a placeholder (never judged, nothing of them
    leaks), the carried messages stay on `in`, and every line of the copy is readable."""
    from mcptape.share.copy import redact_file
    from mcptape.share.rules import Rules

    source = _file(tmp_path / "t.jsonl")
    copy = tmp_path / "redacted.jsonl"
    redact_file(source, copy, Rules.build((), ()), environ={})
    transcript = open_transcript(copy)
    events = list(transcript.events())
    assert transcript.problems == []
    wire = [e for e in events if e.ch.startswith("http-")]
    numbered = [e for e in wire if e.fields == {"x": 1}]
    assert b"".join(e.data for e in numbered if e.ch == "http-in") == RECORDS[0]["data"].encode()
    assert b"".join(e.data for e in numbered if e.ch == "http-out") == b"HTTP/1.1 200 OK\r\n\r\n\xff"
    [unnumbered] = [e for e in wire if e.fields is None]
    assert unnumbered.data.startswith(b"[redacted:") and b"exchange" not in unnumbered.data
    assert [(e.data, e.fields) for e in events if e.ch == "in"] == [(b"{}\n", {"x": 1})]
