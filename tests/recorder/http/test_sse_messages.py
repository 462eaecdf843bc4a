"""The recorder reads an SSE stream's messages its own way (recorder/http/ssereader.SseMessages): on any
stream cut into any pieces, it gives the messages `SseDecoder` gives, in the same pieces."""

from __future__ import annotations

import itertools
import time
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcptape.recorder.http import ssereader
from mcptape.recorder.http.reply import as_line
from mcptape.recorder.http.ssereader import SseMessages
from mcptape.transcript.wire import SseDecoder, carried_line

NAMES = [b"data", b"data", b"data", b"event", b"id", b"retry", b"", b"dat", b"datax", b"Data"]
VALUES = [
    b'{"jsonrpc":"2.0","method":"n"}',
    b"",
    b" two spaces",
    b"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",  # UTF-8 of 2, 3 and 4 bytes
    b"\xff\xfe",  # not UTF-8
    b"\xef\xbb\xbf",  # a BOM inside a line
    b"x" * 300,
    b"7",
    b'\x00\x1f\t\\"',
]
ENDS = [b"\n", b"\n", b"\r\n", b"\r\n", b"\r"]


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    """Lines of SSE fields (data often), comments, blank lines and lines starting with a BOM, ended by
    LF, CRLF or a CR (a third of the streams by LF alone: `ssereader._messages` reads those an event at
    a time)."""
    ends = draw(st.sampled_from([[b"\n"], [b"\n", b"\r\n"], ENDS]))
    out = [b"\xef\xbb\xbf"] if draw(st.integers(0, 5)) == 0 else []
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.integers(0, 9))
        if kind < 3:
            line = b""  # a blank line ends an event
        elif kind == 3:
            line = draw(st.sampled_from([b":", b"\xef\xbb\xbfdata: "])) + draw(st.sampled_from(VALUES))
        else:
            name = draw(st.sampled_from(NAMES))
            colon = draw(st.sampled_from([b": ", b":", b""]))
            line = name + colon + (draw(st.sampled_from(VALUES)) if colon else b"")
        out.append(line + draw(st.sampled_from(ends)))
    if draw(st.booleans()):
        out.append(b"data: not ended")
    return b"".join(out)


def _pieces(data: bytes, points: list[int]) -> list[bytes]:
    edges = [0, *sorted({p for p in points if 0 < p < len(data)}), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


def _both(pieces: list[bytes]) -> tuple[list[list[bytes]], list[list[bytes]]]:
    mine, decoder = SseMessages(), SseDecoder()
    got = [[as_line(m) for m in mine.feed(p)] for p in pieces]
    want = [[carried_line(e.data) for e in decoder.feed(p)] for p in pieces]
    return got, want


@settings(max_examples=600, deadline=None)
@given(streams(), st.lists(st.integers(0, 2000), max_size=8))
@example(b"data: a\n\n\xef\xbb\xbfdata: b\ndata: \xff\n\n", [10])  # the decoder takes over mid-stream
def test_the_same_messages_in_the_same_pieces(stream: bytes, points: list[int]) -> None:
    """Any stream, any cut: each piece gives the decoder's messages, each as its carried line."""
    got, want = _both(_pieces(stream, points))
    assert got == want


@settings(max_examples=200, deadline=None)
@given(streams(), st.lists(st.integers(0, 2000), max_size=8), st.integers(1, 300))
def test_an_event_longer_than_the_limit_is_the_decoders(stream: bytes, points: list[int], limit: int) -> None:
    """Past MAX_REST bytes not dispatched (a line or an event that long), the decoder reads on
    (bytes read again and again otherwise): still the same messages in the same pieces."""
    with mock.patch.object(ssereader, "MAX_REST", limit):
        got, want = _both(_pieces(stream, points))
    assert got == want


@settings(max_examples=200, deadline=None)
@given(streams(), st.integers(1, 7))
def test_pieces_of_a_few_bytes(stream: bytes, size: int) -> None:
    """Pieces of 1 to 7 bytes: a CRLF, a UTF-8 character and a BOM cut anywhere."""
    got, want = _both([stream[i : i + size] for i in range(0, len(stream), size)])
    assert got == want


def test_the_common_stream_stays_with_the_recorder() -> None:
    """An SDK stream (CRLF, event and id lines, a priming event with retry, comments) cut anywhere is
    read without the decoder; a CR ending a line by itself hands the rest to it."""
    stream = (
        b"id: 0\r\nretry: 1000\r\ndata: \r\n\r\n: ping\r\n"
        + b'event: message\r\nid: 1\r\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\r\n\r\n' * 20
    )
    mine = SseMessages()
    messages = [m for i in range(0, len(stream), 37) for m in mine.feed(stream[i : i + 37])]
    assert mine.decoder is None
    assert messages == ['{"jsonrpc":"2.0","id":1,"result":{}}\n'] * 20
    assert mine.feed(b"data: a\rdata: b\r\r") == [b"a\nb"]
    assert mine.decoder is not None


def test_an_event_fed_a_line_at_a_time_is_read_once() -> None:
    """A 1 MiB event in 10,000 pieces of one `data:` line each costs well under a second of CPU (it
    was read again with each piece: 23 s), and carries its one message when the blank line comes."""
    line = b"data: " + b"a" * 93 + b"\n"
    reader = SseMessages()
    start = time.process_time()
    assert all(reader.feed(line) == [] for _ in range(10_000))
    messages = reader.feed(b"\n")
    assert time.process_time() - start < 2.0
    assert len(messages) == 1 and as_line(messages[0]) == b" ".join([b"a" * 93] * 10_000) + b"\n"


def _decoded(piece: bytes) -> str | None:
    try:
        return piece.decode("utf-8")
    except UnicodeDecodeError:
        return None


@settings(max_examples=600, deadline=None)
@given(streams(), st.lists(st.integers(0, 2000), max_size=8))
@example(b"data: a\n\ndata: b\n\n", [3])  # the event in progress ends in the next piece, another follows
@example(b"data: a\ndata: b\n\ndata: c\n", [8, 9])  # a piece that is the blank line alone
def test_the_same_messages_when_the_piece_is_decoded_already(stream: bytes, points: list[int]) -> None:
    """Given each piece's text (the tap's raw record decoded it), the reader gives the decoder's
    messages in the same pieces, whether it reads on the text or, not ASCII or with a CR, as before."""
    pieces = _pieces(stream, points)
    mine, decoder = SseMessages(), SseDecoder()
    got = [[as_line(m) for m in mine.feed(p, _decoded(p))] for p in pieces]
    want = [[carried_line(e.data) for e in decoder.feed(p)] for p in pieces]
    assert got == want
