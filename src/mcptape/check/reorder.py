"""The reorder buffer: a session's records in file order in, in time order out, bounded.

The recorder's pumps write each channel's records in order, but one channel's record may land in
the file a little after a later record of another channel. The analysis therefore holds the newest
records back (at least KEEP of them, or those within WINDOW seconds of the newest) and hands over
the older ones sorted by time; a stream's own order is exact (a clock glitch never reorders it): a
channel's, or an HTTP exchange's, whose records several connections' threads write (`Event.stream`).
The buffer is bounded in records (FLUSH) and in bytes (FLUSH_BYTES, then only KEEP_UNDER_PRESSURE
records wait), so memory does not depend on the transcript's length or its records' size.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import itemgetter

from mcptape.transcript.events import EXCHANGES_KEPT, Event, forget_exchanges
from mcptape.transcript.reader import Payload, Record

FLUSH = 4096  # records buffered before the oldest are processed
KEEP = 2048  # records kept back, at least, for records of other channels written late
FLUSH_BYTES = 64 << 20  # ... or once the buffered records hold this many bytes (large records)
KEEP_UNDER_PRESSURE = 16  # records kept back then (a late record is a few records late)
WINDOW = 0.5  # seconds: records older than the newest by this much are processed anyway
BATCH = FLUSH - KEEP  # records read at a time from a file (one drain per batch)

_by_time = itemgetter(0)


class Reorder:
    """Records in file order (`push` one, or `extend` with a batch), the ones no record still to
    come can precede out (`take`). `push` and `extend` say when a `take` is due."""

    __slots__ = ("buffered", "flush_bytes", "forget_at", "last", "last_t", "records")

    def __init__(self, flush_bytes: int = FLUSH_BYTES) -> None:
        self.flush_bytes = flush_bytes
        self.records: list[Record] = []
        self.buffered = 0  # bytes of the byte-channel records added since the last take
        self.last_t: dict[str | int, float] = {}  # each stream's latest time (`push` only)
        self.forget_at = EXCHANGES_KEPT  # when to forget old exchanges' times (bounded memory)
        self.last: tuple[float, int] | None = None  # (t, event index) of the last record added

    @property
    def held(self) -> int:
        """Bytes of the byte records waiting (for tests and diagnostics)."""
        return sum(len(r[2]) for r in self.records if not isinstance(r[2], dict))

    def push(self, t: float, ch: str, payload: Payload, index: int, stream: str | int | None = None) -> bool:
        """Add one record: `payload` is the text or bytes of a byte channel, else its fields;
        `stream` what its order is exact within (`Event.stream`; its channel when None)."""
        key = ch if stream is None else stream
        last = self.last_t.get(key)
        if last is not None and t < last:
            t = last  # a stream's own order is exact; never let a clock glitch reorder it
        else:
            self.last_t[key] = t
            if len(self.last_t) > self.forget_at:
                self.forget_at = forget_exchanges(self.last_t, t)
        self.last = (t, index)
        records = self.records
        records.append((t, ch, payload, index))
        if not isinstance(payload, dict):
            self.buffered += len(payload)
        return len(records) >= FLUSH or self.buffered >= self.flush_bytes

    def extend(self, records: list[Record], size: int) -> bool:
        """Add records in file order, `size` the bytes their byte records carry, each channel's
        times already non-decreasing (what `Transcript.batches` gives)."""
        if records:
            last = records[-1]
            self.last = (last[0], last[3])
        self.records += records
        self.buffered += size
        return len(self.records) >= FLUSH or self.buffered >= self.flush_bytes

    def take(self, *, final: bool = False) -> list[Record]:
        """The buffered records that no record still to come can precede, in time order (all of
        them when `final`).

        Normally the newest KEEP records wait (a record of another channel may still come before
        them); when the buffer holds `flush_bytes` or more (large records), only the newest
        KEEP_UNDER_PRESSURE do, so memory stays bounded whatever the records' size."""
        records = self.records
        records.sort(key=_by_time)
        if final:
            cut = len(records)
        else:
            keep = KEEP_UNDER_PRESSURE if self.buffered >= self.flush_bytes else KEEP
            horizon = records[-1][0] - WINDOW
            cut = max(0, len(records) - keep)
            while cut < len(records) and records[cut][0] <= horizon:
                cut += 1
        self.buffered = 0  # the records kept back are not counted again: at most `keep` of them
        batch = records[:cut]
        del records[:cut]
        return batch


def ordered(events: Iterable[Event], window: int = KEEP) -> Iterator[Event]:
    """Events in time order across streams (file order within a channel or an HTTP exchange:
    `Event.stream`), with a bounded buffer."""
    buf: list[tuple[float, int, Event]] = []
    last_t: dict[str | int, float] = {}
    forget_at = EXCHANGES_KEPT
    for seq, event in enumerate(events):
        stream = event.stream
        t = max(event.t, last_t.get(stream, event.t))
        last_t[stream] = t
        if len(last_t) > forget_at:
            forget_at = forget_exchanges(last_t, t)
        buf.append((t, seq, event))
        if len(buf) >= 2 * window:
            buf.sort(key=_by_time)
            for item in buf[:window]:
                yield item[2]
            del buf[:window]
    buf.sort(key=_by_time)
    for item in buf:
        yield item[2]
