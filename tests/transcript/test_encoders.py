"""The batch encoder (many short lines in one orjson call) and the per-line encoder agree."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.transcript.reader import parse_event
from mcptape.transcript.writer import _encode_many, encode_chunk

# Text of any characters but the batch encoder's marker U+001F (a chunk holding it is encoded per line).
text = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x1f"), max_size=400)
times = st.floats(min_value=0, max_value=1e9, allow_nan=False).map(lambda t: round(t, 6))


def lines_of(data: str) -> list[str]:
    """Split after each newline (str.splitlines also splits at \\r, \\x1c, U+2028...: not the format)."""
    return [piece.decode() for piece in byte_lines_of(data.encode())]


def byte_lines_of(data: bytes) -> list[bytes]:
    """Split after each newline only (bytes.splitlines also splits at \\r)."""
    pieces = data.split(b"\n")
    out = [p + b"\n" for p in pieces[:-1]]
    return [*out, pieces[-1]] if pieces[-1] else out


@given(data=text, t=times)
def test_batch_encoder_gives_the_per_line_records(data: str, t: float) -> None:
    """For any text, `_encode_many` yields exactly the records a per-line orjson.dumps would."""
    encoded = _encode_many(t, "out", data + "\n")
    assert encoded is not None  # U+001F is excluded from `text`: a marker is always available
    batch = [orjson.loads(r) for r in encoded.splitlines()]
    assert batch == [{"t": t, "ch": "out", "data": piece} for piece in lines_of(data + "\n")]


short_line = st.binary(max_size=80).map(lambda b: b.replace(b"\n", b"") + b"\n")


@settings(max_examples=50)
@given(lines=st.lists(short_line, min_size=1, max_size=20), tail=st.binary(max_size=20))
def test_large_chunks_of_short_lines_give_one_record_per_line(lines: list[bytes], tail: bytes) -> None:
    """A chunk over the batch threshold (any bytes, valid UTF-8 or not) gives one record per line."""
    filler = [b'{"jsonrpc":"2.0","id":%d,"result":{}}\n' % i for i in range(300)]
    chunk = b"".join(filler[:150] + lines + filler[150:]) + tail.replace(b"\n", b"")
    pieces = [parse_event(r).data for r in encode_chunk(3.25, "in", chunk).splitlines()]
    assert pieces == byte_lines_of(chunk)


marks = st.text(alphabet='`~^|\\\n"a\x1fé', max_size=200)


@given(data=marks, t=times)
def test_every_marker_branch_gives_the_per_line_records(data: str, t: float) -> None:
    """Texts full of the candidate markers (printable ones, then U+001F) still encode exactly; only a
    text holding every marker is refused (None), and then the per-line encoder takes it."""
    batch = _encode_many(t, "err", data + "\n")
    if batch is None:
        assert all(m in data for m in "`~^|\x1f")
        return
    records = [orjson.loads(r) for r in batch.splitlines()]
    assert records == [{"t": t, "ch": "err", "data": piece} for piece in lines_of(data + "\n")]


def test_the_escaped_marker_branch_is_taken_when_every_printable_marker_occurs() -> None:
    """`~^| all present: the U+001F marker splits correctly, a literal backslash-u001f included."""
    data = "a`b~c^d|e\\u001f\n" * 3 + "tail"
    records = [orjson.loads(r)["data"] for r in (_encode_many(1.0, "out", data) or b"").splitlines()]
    assert records == ["a`b~c^d|e\\u001f\n"] * 3 + ["tail"]
