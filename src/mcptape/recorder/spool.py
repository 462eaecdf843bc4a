"""Record small reads inline, hand large ones to a writer thread, keep every record in order.

Encoding and the transcript's file writes are the recorder's largest costs under a flood; the
pumps spend their time in read and write syscalls, which release the GIL, so a writer thread
overlaps the two (bench_record: 64 KiB lines at ~1.0x a direct pipe instead of ~0.85x). For
interactive traffic the handover itself costs more than it saves (a thread wake-up on every
message: +15-60 µs at the 99th percentile), so a read below `inline_below` bytes is encoded and
written by the pump itself, whenever nothing is queued or being written (which keeps the order).

The queue is bounded: a pump waits when the writer falls more than `max_pending` bytes (8 MiB)
behind, so memory stays flat under a flood, and a recorder killed with SIGKILL loses at most that
much of what it had already forwarded. Records leave in the order they were handed over.
"""

from __future__ import annotations

import base64
import threading
from collections import deque

TYPE_CHECKING = False  # typing stays unimported on the record path
if TYPE_CHECKING:
    from typing import Any

    from mcptape.recorder.sinks import Target


RAW = "raw records"  # the channel of a queued item that is `write_raw`'s (compared by identity)
PARTS = "parts of raw records"  # ... that is `write_parts`'s


class Spool:
    """A `TranscriptWriter` front (same `now`/`chunk`/`fields`/`lines`); large reads go to a writer
    thread."""

    def __init__(self, inner: Target, max_pending: int = 8 << 20, inline_below: int = 64 << 10) -> None:
        self.inner = inner
        self.now = inner.now
        self.max_pending = max_pending
        self.inline_below = inline_below
        self._items: deque[tuple[float, str, Any, dict[str, Any] | None]] = deque()
        self._pending = 0
        self._busy = False  # the writer thread holds a batch it has not finished writing
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="mcptape-spool", daemon=True)
        self._thread.start()

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        if len(data) < self.inline_below:
            with self._cond:
                if not self._items and not self._busy:
                    self.inner.chunk(t, ch, data)
                    return
        self._put((t, ch, bytes(data), None), len(data))

    def fields(self, t: float, ch: str, **fields: Any) -> None:
        data = fields.get("data") or fields.get("b64") or ""  # an HTTP exchange's bytes (http/tap.py)
        size = 64 + len(data)
        with self._cond:
            if size < self.inline_below and not self._items and not self._busy:
                self.inner.fields(t, ch, **fields)
                return
        self._put((t, ch, None, fields), size)

    def lines(self, t: float, ch: str, data: bytes, **fields: Any) -> None:
        """One record per line of `data` (whole lines), each with `fields` (the SSE messages of an
        HTTP read: encoded in one call and written at once, by the writer thread under a flood)."""
        size = 64 + len(data)
        with self._cond:
            if size < self.inline_below and not self._items and not self._busy:
                write_lines(self.inner, t, ch, data, fields)
                return
        self._put((t, ch, data, fields), size)

    def write_raw(self, records: bytes) -> None:
        """Records already encoded (an HTTP read's: its bytes, then the messages they carried, made
        by http/tap.py as the writer makes them): written as they are, in order with the rest. Only
        for an inner target that has `write_raw` (a `TranscriptWriter`)."""
        with self._cond:
            if len(records) < self.inline_below and not self._items and not self._busy:
                self.inner.write_raw(records)  # type: ignore[attr-defined]
                return
        self._put((0.0, RAW, records, None), len(records))

    def write_parts(self, parts: list[bytes], size: int) -> None:
        """`write_raw(b"".join(parts))` (`size` bytes), the join left to the writer (one writev
        where it has `write_parts`): http/tap.py's records of a read, their largest parts never copied."""
        with self._cond:
            if size < self.inline_below and not self._items and not self._busy:
                _write_parts(self.inner, parts, size)
                return
        self._put((float(size), PARTS, parts, None), size)

    def _put(self, item: tuple[float, str, Any, dict[str, Any] | None], size: int) -> None:
        with self._cond:
            while self._pending > self.max_pending and not self._closed:
                self._cond.wait()
            self._items.append(item)
            self._pending += size
            self._cond.notify_all()

    def _run(self) -> None:
        inner = self.inner
        while True:
            with self._cond:
                while not self._items and not self._closed:
                    self._cond.wait()
                if not self._items:
                    return
                batch = list(self._items)
                self._items.clear()
                self._busy = True
            done = 0
            for t, ch, data, fields in batch:
                if ch is RAW and data is not None:
                    inner.write_raw(data)  # type: ignore[attr-defined]
                    done += len(data)
                elif ch is PARTS:
                    _write_parts(inner, data, int(t))  # (its size is where a record's time is)
                    done += int(t)
                elif data is not None and fields is not None:
                    write_lines(inner, t, ch, data, fields)
                    done += 64 + len(data)
                elif data is not None:
                    inner.chunk(t, ch, data)
                    done += len(data)
                else:
                    fields = fields or {}
                    inner.fields(t, ch, **fields)
                    done += 64 + len(fields.get("data") or fields.get("b64") or "")
            with self._cond:
                self._pending -= done
                self._busy = False
                self._cond.notify_all()

    def close(self) -> None:
        """Write everything handed over so far, then stop the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join()


def _write_parts(inner: Any, parts: list[bytes], size: int) -> None:
    write_parts = getattr(inner, "write_parts", None)
    if write_parts is not None:
        write_parts(parts, size)
    else:
        inner.write_raw(b"".join(parts))


def write_lines(sink: Target, t: float, ch: str, data: bytes, fields: dict[str, Any]) -> None:
    """`sink.lines(...)` where it has one (the transcript writer, a spool), else a record a line."""
    lines = getattr(sink, "lines", None)
    if lines is not None:
        lines(t, ch, data, **fields)
        return
    for line in data[:-1].split(b"\n") if data else ():
        line += b"\n"
        try:
            sink.fields(t, ch, **fields, data=line.decode("utf-8"))
        except UnicodeDecodeError:
            sink.fields(t, ch, **fields, b64=base64.b64encode(line).decode("ascii"))
