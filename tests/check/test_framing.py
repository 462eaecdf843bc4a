"""Framing: fragments joined into lines with line numbers and byte offsets; nothing lost or added."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.check.framing import frames, join
from mcptape.transcript import Event
from tests.check.helpers import events


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_framing_then_joining_gives_back_the_channel_bytes(data: bytes, cuts: list[int]) -> None:
    """However a channel's bytes are cut into events, its frames join back to exactly those bytes."""
    evs = [Event(i * 0.001, "out", raw=part, index=i) for i, part in enumerate(_split(data, cuts))]
    got = list(frames(evs))
    assert join(got) == data
    assert [f.line for f in got] == list(range(1, len(got) + 1))
    offsets = [f.offset for f in got]
    assert offsets == [sum(len(f.raw) for f in got[:i]) for i in range(len(got))]
    assert all(f.complete == f.raw.endswith(b"\n") for f in got)
    assert all(f.complete for f in got[:-1])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["in", "out", "err"]), st.binary(max_size=40)), max_size=30))
def test_interleaved_channels_are_framed_independently(items: list[tuple[str, bytes]]) -> None:
    """Each channel keeps its own line numbers and offsets, whatever the interleaving."""
    evs = [Event(i * 0.001, ch, raw=data, index=i) for i, (ch, data) in enumerate(items)]
    got = list(frames(evs))
    for ch in ("in", "out", "err"):
        expected = b"".join(data for c, data in items if c == ch)
        assert join(f for f in got if f.channel == ch) == expected


def test_a_line_split_over_three_events_is_one_frame_naming_its_events() -> None:
    """The frame lists the transcript events it came from; its time is the completing event's."""
    evs = events(("in", b'{"jsonrpc":'), ("out", b"x\n"), ("in", b'"2.0",'), ("in", b'"method":"a"}\nnext'))
    got = [f for f in frames(evs) if f.channel == "in"]
    assert got[0].raw == b'{"jsonrpc":"2.0","method":"a"}\n'
    assert got[0].events == (0, 2, 3)
    assert got[0].t == evs[3].t
    assert (got[1].raw, got[1].complete, got[1].line, got[1].offset) == (b"next", False, 2, len(got[0].raw))


def test_an_eof_closes_the_pending_line_as_an_incomplete_frame() -> None:
    """A stream that ends without a newline yields an incomplete last frame at its eof."""
    evs = events(("out", b'{"a":1}\n{"b"'), ("eof", {"of": "out"}), ("in", b"z\n"))
    got = list(frames(evs))
    assert [(f.channel, f.raw, f.complete) for f in got] == [
        ("out", b'{"a":1}\n', True),
        ("out", b'{"b"', False),
        ("in", b"z\n", True),
    ]


def test_offsets_count_bytes_not_characters() -> None:
    """Byte offsets stay exact with multi-byte UTF-8."""
    evs = events(("out", "é€\n".encode()), ("out", b"x\n"))
    assert [f.offset for f in frames(evs)] == [0, len("é€\n".encode())]
