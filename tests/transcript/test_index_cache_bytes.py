"""The index's row caches are bounded in bytes, not only in rows: a few huge rows do not keep
hundreds of MiB alive (the viewer reads rows through them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript import Event
from mcptape.transcript.index import CACHE_BYTES, LRU, TranscriptIndex
from mcptape.transcript.writer import new_header, write_transcript

pytestmark = pytest.mark.slow


def test_the_lru_evicts_the_oldest_entries_past_its_weight_and_keeps_the_newest() -> None:
    """Weights add up; past the bound the oldest go first; a single heavy entry still stays."""
    cache: LRU[str, str] = LRU(10, max_weight=100)
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # now "b" is the oldest
    cache.put("c", "C", 40)
    assert cache.get("b") is None and cache.get("a") == "A" and cache.get("c") == "C"
    assert cache.weight == 80
    cache.put("huge", "H", 500)
    assert cache.get("huge") == "H" and cache.get("a") is None and cache.weight == 500
    cache.put("huge", "H2", 10)  # replacing an entry replaces its weight
    assert cache.weight == 10


def test_reading_huge_rows_keeps_the_caches_within_their_bytes(tmp_path: Path) -> None:
    """Three 20 MB rows read one after the other: each cache holds at most its bound plus the newest."""
    big = 20 << 20
    events = [Event(float(i), "out", text="x" * big + "\n") for i in range(3)]
    path = tmp_path / "huge.jsonl"
    write_transcript(path, new_header(["server"], "/"), events)
    index = TranscriptIndex(path)
    index.scan()
    for row in range(3):
        event = index.event(row)
        assert isinstance(event, Event) and len(event.data) == big + 1
    assert index._lines.weight <= CACHE_BYTES + big + 1000
    assert index._events.weight <= CACHE_BYTES + 2 * (big + 1000)
