"""The tap's fast reader (recorder/http/fastconn.py) has a twin: the same tap reading everything with
h11. On any connection (common exchanges, the shapes only h11 reads, damaged bytes, ends of stream
anywhere), cut into any reads and interleaved in any order, both write the same records and name
the same problems."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.recorder.http.tap import Exchanges, Tap
from mcptape.transcript.wire import carried_line, carried_lines
from tests.recorder.http.streams import (
    REQUESTS,
    RESPONSES,
    Sink,
    connections,
)


def _replay(steps: list[tuple[str, bytes]], fast: bool) -> tuple[list[Any], list[Any]]:
    sink = Sink()
    problems: list[tuple[int, str]] = []
    tap = Tap(sink, Exchanges(), on_problem=lambda x, why: problems.append((x, why)), fast=fast)
    for t, (kind, data) in enumerate(steps):
        if kind == "client":
            tap.client_sending()
            tap.client_bytes(float(t), data)
        elif kind == "server":
            tap.server_bytes(float(t), data)
        elif kind == "client-end":
            tap.client_closed(float(t))
        else:
            tap.server_closed(float(t))
    unanswered = tap.unanswered(settle=0.0)
    return [*sink.records, ("unanswered", unanswered, tap.answering())], problems


@settings(max_examples=400, deadline=None)
@given(connections())
def test_the_fast_reader_writes_what_h11_alone_writes(steps: list[tuple[str, bytes]]) -> None:
    """Same records (channel, exchange, bytes, time), same problems, same unanswered exchanges."""
    assert _replay(steps, fast=True) == _replay(steps, fast=False)


def test_a_common_exchange_is_read_without_h11() -> None:
    """The common exchange keeps the fast readers on both sides, before and after it."""
    tap = Tap(Sink(), Exchanges())
    tap.client_sending()
    tap.client_bytes(0.0, REQUESTS[1])
    tap.server_bytes(0.0, RESPONSES[0])
    assert type(tap._req.conn).__name__ == type(tap._resp.conn).__name__ == "FastConn"


def test_h11_reads_a_chunked_answer_then_hands_back() -> None:
    """A chunked SSE answer is h11's to read; the next exchange is read fast again, and both are
    recorded as h11 alone records them."""
    steps = [
        ("client", REQUESTS[0]),
        ("server", RESPONSES[3]),
        ("client", REQUESTS[0]),
        ("server", RESPONSES[0]),
    ]
    assert _replay(steps, fast=True) == _replay(steps, fast=False)
    tap = Tap(Sink(), Exchanges())
    tap.client_sending()
    tap.client_bytes(0.0, REQUESTS[0])
    tap.server_bytes(0.0, RESPONSES[3])
    assert type(tap._resp.conn).__name__ == "FastConn"


@given(st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\x00", b"x")), max_size=5))
def test_the_carried_lines_of_many_messages_are_each_ones_carried_line(messages: list[bytes]) -> None:
    """One join where no message holds a CR or LF, each message's own line otherwise: the same bytes."""
    assert carried_lines(messages) == b"".join(carried_line(m) for m in messages)
