"""The transcript encoder: one record per line or fragment, exact bytes back, either encoder."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from mcptape.transcript.reader import parse_event
from mcptape.transcript.writer import encode_chunk

lines = st.lists(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=40).map(lambda s: s + "\n"),
    min_size=0,
    max_size=40,
)


def decode(records: bytes) -> list[bytes]:
    return [parse_event(line).data for line in records.splitlines()]


@given(lines=lines, tail=st.text(max_size=10))
def test_encoding_splits_after_each_newline_and_round_trips(lines: list[str], tail: str) -> None:
    """Joining the records gives back the chunk; every record but the last ends with a newline."""
    chunk = ("".join(lines) + tail).encode("utf-8", "surrogatepass")
    try:
        chunk.decode("utf-8")
    except UnicodeDecodeError:
        return
    pieces = decode(encode_chunk(1.5, "out", chunk))
    assert b"".join(pieces) == chunk
    assert all(p.endswith(b"\n") for p in pieces[:-1])
    assert len(pieces) == chunk.count(b"\n") + (0 if chunk.endswith(b"\n") or not chunk else 1)


@given(st.binary(max_size=300))
def test_arbitrary_bytes_round_trip(chunk: bytes) -> None:
    """NUL, CR and invalid UTF-8 come back exactly (as base64 where they are not UTF-8)."""
    assert b"".join(decode(encode_chunk(0.25, "err", chunk))) == chunk


def test_many_short_lines_use_the_batch_encoder_with_the_same_records() -> None:
    """Backslashes, quotes, a literal `\\n\\u001f` and controls survive the one-call encoder."""
    nasty = 'a"b\\n\\u001f\\\\n\t\x00é\u2028'
    chunk = "".join(f"{nasty}{i}\n" for i in range(40)).encode()
    records = encode_chunk(2.0, "in", chunk).splitlines()
    assert len(records) == 40
    assert [orjson.loads(r)["data"] for r in records] == [f"{nasty}{i}\n" for i in range(40)]
    assert all(orjson.loads(r)["t"] == 2.0 and orjson.loads(r)["ch"] == "in" for r in records)
