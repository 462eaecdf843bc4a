"""The tap encodes its records itself when its sink takes encoded records (the transcript writer
behind the spool): the transcript is byte for byte the one the writer writes from the same records
handed over as fields (the tap's other way, kept for sinks that take only fields)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.recorder.http.tap import Exchanges, Tap
from mcptape.recorder.spool import Spool
from mcptape.transcript.writer import TranscriptWriter
from tests.recorder.http.streams import REQUESTS, RESPONSES, connections


class FieldsOnly:
    """The writer's `now`, `fields` and `lines`, without `write_raw`: the tap hands records over as fields."""

    def __init__(self, writer: TranscriptWriter) -> None:
        self.writer = writer

    def now(self) -> float:
        return 0.0

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        raise AssertionError("the tap writes records with their exchange number")

    def fields(self, t: float, ch: str, **fields: Any) -> None:
        self.writer.fields(t, ch, **fields)

    def lines(self, t: float, ch: str, data: bytes, **fields: Any) -> None:
        self.writer.lines(t, ch, data, **fields)


class SizeChecked(TranscriptWriter):
    """The writer, checking the size the tap gives with each read's records (a short write is found by it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sizes: list[tuple[int, int]] = []  # (given, counted), of every write_parts

    def write_parts(self, parts: list[bytes], size: int) -> None:
        self.sizes.append((size, len(b"".join(parts))))
        super().write_parts(parts, size)


def _transcript(path: Path, steps: list[tuple[str, bytes]], encoded: bool) -> bytes:
    writer = SizeChecked(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600))
    writer.sizes = []
    sink: Any = Spool(writer, inline_below=64) if encoded else FieldsOnly(writer)
    tap = Tap(sink, Exchanges())
    for i, (kind, data) in enumerate(steps):
        t = i / 7  # times that round to 6 digits, as the writer rounds them
        if kind == "client":
            tap.client_sending()
            tap.client_bytes(t, data)
        elif kind == "server":
            tap.server_bytes(t, data)
        elif kind == "client-end":
            tap.client_closed(t)
        else:
            tap.server_closed(t)
    if encoded:
        sink.close()
        assert all(given == counted for given, counted in writer.sizes)
    writer.close()
    return path.read_bytes()


# SSE events whose data needs escaping, is not UTF-8, spans lines, or ends in CR, LF or CRLF
EVENTS = [
    b'event: message\ndata: {"jsonrpc":"2.0","method":"n","params":{"s":"a\\"b\\\\c\\n"}}\n\n',
    b'data: {"text":"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \\u0000"}\r\n\r\n',
    b"data: \xff\xfe not utf-8\n\n",
    b"data: one\ndata: two\r\ndata:three\rdata: \x01\x1f\t\n\n",
    b": a comment\nid: 7\nretry: 10\nevent: x\ndata: {}\n\n",
    b"data: \n\ndata\n\n",
    b"\xef\xbb\xbfdata: after a BOM\n\n",
    b"data: cut in the middle of an ev",
]


@st.composite
def sse_answers(draw: st.DrawFn) -> list[tuple[str, bytes]]:
    """One POST answered by an SSE stream of `EVENTS`, with a Content-Length or chunked, in any reads."""
    body = b"".join(draw(st.lists(st.sampled_from(EVENTS), min_size=1, max_size=6)))
    if draw(st.booleans()):
        head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n" % len(body)
        answer = head + body
    else:
        head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        cut = draw(st.integers(0, len(body)))
        chunks = [c for c in (body[:cut], body[cut:]) if c]
        answer = head + b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    points = sorted(set(draw(st.lists(st.integers(1, len(answer) - 1), max_size=5))))
    edges = [0, *points, len(answer)]
    reads = [("server", answer[a:b]) for a, b in itertools.pairwise(edges)]
    return [("client", REQUESTS[1]), *reads, ("server-end", b"")]


@settings(max_examples=150, deadline=None)
@given(st.one_of(connections(), sse_answers()))
def test_the_encoded_records_are_the_writers_bytes(
    tmp_path_factory: Any, steps: list[tuple[str, bytes]]
) -> None:
    """Any connection (the twin test's, or SSE streams of awkward events): the same transcript bytes."""
    folder = tmp_path_factory.mktemp("enc")
    assert _transcript(folder / "a.jsonl", steps, True) == _transcript(folder / "b.jsonl", steps, False)


def test_a_read_and_the_messages_it_carried_are_one_write(tmp_path: Path) -> None:
    """An SSE answer's read: its bytes' record, then its events' messages, written in one write."""
    writes: list[bytes] = []

    class Writer(TranscriptWriter):
        def write_raw(self, records: bytes) -> None:
            writes.append(records)

    writer = Writer(os.open(tmp_path / "t.jsonl", os.O_WRONLY | os.O_CREAT, 0o600))
    tap = Tap(writer, Exchanges())
    tap.client_sending()
    tap.client_bytes(0.0, REQUESTS[1])
    tap.server_bytes(1.0, RESPONSES[2])
    writer.close()
    answer = [w for w in writes if b'"http-out"' in w]
    assert len(answer) == 1
    assert [line.split(b'"ch":"')[1].split(b'"')[0] for line in answer[0].splitlines()] == [
        b"http-out",
        b"out",
        b"out",
    ]
