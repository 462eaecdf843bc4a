"""An HTTP transcript's exchanges are written by one thread per client connection: one exchange's
records are in order in the file (its request's bytes, the message they carried, the answer), but
two connections' records of one channel are not. Every reader that orders by time (check's reader
and reorder buffer, the viewer's list) keeps an exchange's own order, not a channel's across
connections."""

from __future__ import annotations

import json
from pathlib import Path

from mcptape.check.analyze import ordered
from mcptape.check.reorder import Reorder
from mcptape.transcript import Event
from mcptape.transcript.events import EXCHANGES_KEPT
from mcptape.transcript.reader import open_transcript
from mcptape.tui.model.order import OrderBuilder

HEADER = {"mcptape": 1, "started": "2026-12-06T00:00:00Z", "command": ["server"], "cwd": "/"}

# Connection A's request (exchange 1) was read at 0.6941; connection B's (exchange 2) at 0.6939 but
# written after A's: B's bytes and the message they carried share one time, and B's `http-in` must
# stay above its `in`, though A's `http-in` is younger.
RECORDS = [
    {"t": 0.6941, "ch": "http-in", "x": 1, "data": "POST /mcp HTTP/1.1\r\n\r\n"},
    {"t": 0.6939, "ch": "http-in", "x": 2, "data": "POST /mcp HTTP/1.1\r\n\r\n"},
    {"t": 0.6939, "ch": "in", "x": 2, "data": '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'},
    {"t": 0.6941, "ch": "in", "x": 1, "data": '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'},
    # within one exchange the file order is the causal one: the answer held until its request was
    # read carries an earlier time, and still comes after it
    {"t": 0.6950, "ch": "http-in", "x": 3, "data": "POST /mcp HTTP/1.1\r\n\r\n"},
    {"t": 0.6945, "ch": "http-out", "x": 3, "data": "HTTP/1.1 202 Accepted\r\n\r\n"},
]
EXPECTED = [1, 2, 0, 3, 4, 5]  # file rows in time order (row i is RECORDS[i])


def _write(path: Path) -> Path:
    lines = [json.dumps(HEADER), *(json.dumps(r) for r in RECORDS)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_check_reads_an_exchange_in_its_own_order(tmp_path: Path) -> None:
    """check's record reader and its event order put exchange 2's message after its request's bytes."""
    transcript = open_transcript(_write(tmp_path / "t.jsonl"))
    events = list(transcript.events())
    assert [e.index for e in ordered(events)] == EXPECTED
    records = [record for batch in transcript.batches() for record in batch.records]
    assert [r[3] for r in sorted(records, key=lambda r: r[0])] == EXPECTED


def test_the_viewer_lists_an_exchange_in_its_own_order() -> None:
    """The viewer's time order lists exchange 2's `http-in` above its `in`, and exchange 3's answer last."""
    builder = OrderBuilder()
    for row, record in enumerate(RECORDS):
        event = Event.from_record(record, row)
        builder.add(row, event.t, event.stream)
    assert list(builder.freeze().rows(len(RECORDS))) == EXPECTED


def test_a_stdio_channel_keeps_its_own_order() -> None:
    """Records without an exchange keep their channel's order: a clock glitch never reorders them."""
    glitch = [{"t": 0.2, "ch": "out", "data": "a\n"}, {"t": 0.1, "ch": "out", "data": "b\n"}]
    assert [Event.from_record(r).stream for r in glitch] == ["out", "out"]
    events = [Event.from_record(r, i) for i, r in enumerate(glitch)]
    assert [e.index for e in ordered(events)] == [0, 1]


def _times_both_ways(path: Path) -> tuple[list[float], list[float]]:
    """The times check's batch reader gives, and the times its reorder buffer gives fed event by event."""
    transcript = open_transcript(path)
    read = [r[0] for batch in transcript.batches() for r in batch.records]
    buffer = Reorder()
    for e in transcript.events():
        buffer.push(e.t, e.ch, e.payload, e.index, e.stream)
    return read, [r[0] for r in buffer.records]


def test_the_batch_reader_and_the_event_feed_agree_when_channels_mix_exchanges(tmp_path: Path) -> None:
    """A channel that carried a record without an exchange, then an exchange's: both readers clamp
    the exchange's late record to its exchange's last time, and leave the channel's own alone."""
    records = [
        {"t": 1.0, "ch": "in", "data": "a\n"},
        {"t": 5.0, "ch": "out", "x": 1, "data": "r1\n"},
        {"t": 10.0, "ch": "in", "x": 1, "data": "q1\n"},
        {"t": 7.0, "ch": "out", "x": 1, "data": "r2\n"},
        {"t": 6.0, "ch": "in", "data": "b\n"},
        {"t": 0.5, "ch": "in", "data": "c\n"},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [HEADER, *records]) + "\n")
    read, fed = _times_both_ways(path)
    assert read == fed == [1.0, 5.0, 10.0, 10.0, 6.0, 6.0]


def test_the_times_of_old_exchanges_are_forgotten() -> None:
    """200,000 exchanges fed one record each keep at most a few thousand exchange times in memory."""
    buffer = Reorder()
    for x in range(200_000):
        buffer.push(x * 0.001, "in", "m\n", x, x + 1)
        if len(buffer.records) >= 4096:
            buffer.take()
    assert len(buffer.last_t) <= 2 * EXCHANGES_KEPT + 1
