"""The reorder buffer is bounded in bytes too: a transcript of large records is analysed in bounded
memory, and records written a few lines late are still put in order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from mcptape.check.analyze import BATCH, KEEP_UNDER_PRESSURE, Analyzer
from mcptape.transcript import Event, open_transcript
from mcptape.transcript.writer import new_header, write_transcript

BIG = 64 * 1024


def large_session(path: Path, pairs: int = 200) -> Path:
    """`pairs` pings answered with 64 KiB results; every 5th request's record lands after its answer."""
    events: list[Event] = []
    t = 0.0
    for rid in range(1, pairs + 1):
        ping = {"jsonrpc": "2.0", "id": rid, "method": "ping"}
        req = Event(t, "in", text=orjson.dumps(ping).decode() + "\n")
        t += 0.001
        body = {"jsonrpc": "2.0", "id": rid, "result": {"blob": "x" * BIG}}
        res = Event(t, "out", text=orjson.dumps(body).decode() + "\n")
        t += 0.001
        events.extend([res, req] if rid % 5 == 0 else [req, res])
    events.append(Event(t + 0.001, "exit", fields={"code": 0}))
    for index, event in enumerate(events):
        event.index = index
    write_transcript(path, new_header(["server"], "/"), events)
    return path


def analyse(path: Path, flush_bytes: int | None) -> tuple[Any, int]:
    """The analysis, and the most bytes the reorder buffer held at a drain (what it held before
    a batch, plus the batch)."""
    analyzer = Analyzer() if flush_bytes is None else Analyzer(flush_bytes=flush_bytes)
    most = 0
    for batch in open_transcript(str(path)).batches(BATCH, analyzer.flush_bytes):
        most = max(most, analyzer.held + batch.size)
        analyzer.feed_records(batch.records, batch.size)
    return analyzer.finish(), most


def test_large_records_are_analysed_in_bounded_memory(tmp_path: Path) -> None:
    """13 MB of 64 KiB records with a 1 MiB bound: the buffer never holds much more than the bound
    plus the few records kept back, and the verdict is the unbounded one (clean, every pair made)."""
    path = large_session(tmp_path / "large.jsonl")
    bounded, most = analyse(path, 1 << 20)
    unbounded, most_unbounded = analyse(path, None)
    assert most_unbounded > 12 * (1 << 20)  # all 400 records waited for the end before
    assert most <= (1 << 20) + (KEEP_UNDER_PRESSURE + 1) * (BIG + 100)
    assert bounded.findings == [] and unbounded.findings == []
    assert bounded.messages == unbounded.messages == {"in": 200, "out": 200}
    assert bounded.latency.count == 200
