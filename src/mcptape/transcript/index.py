"""Random access to a transcript's events: a newline index built in the background, lines on demand.

Opening a large transcript must not wait for the whole file. `TranscriptIndex` validates the header
at once (through the reader, so bad files fail with the same one-line errors), then `scan()` —
meant for a worker thread — walks an mmap of the file window by window, recording where each line
ends, and tells the caller how far it got. Rows are the lines after the header, in file order,
numbered like the reader's event indexes (row = event index: every line counts);
a row is read with `os.pread` only when asked for and decoded with the reader's `read_line`, both
behind small LRU caches. Scanned windows are released from the process (`MADV_DONTNEED`), so the
index costs 8 bytes per row however large the file is.

A growing file (a recording in progress) is followed by calling `scan()` again: only the new bytes
are read. A last line without its newline is held back until it is completed, unless the caller
says the file is finished (`final=True`), in which case it becomes a row of its own and
`truncated` is set.
"""

from __future__ import annotations

import mmap
import os
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from mcptape.errors import TranscriptError
from mcptape.transcript.events import Event, Header
from mcptape.transcript.reader import BadLine, open_file, open_transcript, read_line

K = TypeVar("K")
V = TypeVar("V")

WINDOW = 8 << 20
"""Bytes scanned between two progress reports (and released from memory afterwards)."""


CACHE_BYTES = 32 << 20  # what one cache may hold, at most (besides its newest entry)


class LRU(Generic[K, V]):
    """A small least-recently-used cache (thread-safe for single get/put calls), bounded by
    entries and by the bytes its entries weigh (`put(..., weight=len(data))`): a few huge rows
    must not keep hundreds of MiB alive."""

    def __init__(self, size: int, max_weight: int = CACHE_BYTES) -> None:
        self.size = size
        self.max_weight = max_weight
        self.weight = 0
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            entry = self._data.get(key)
            if entry is None:
                return None
            self._data.move_to_end(key)
            return entry[0]

    def put(self, key: K, value: V, weight: int = 0) -> None:
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.weight -= old[1]
            self._data[key] = (value, weight)
            self.weight += weight
            while len(self._data) > 1 and (len(self._data) > self.size or self.weight > self.max_weight):
                _, (_, dropped) = self._data.popitem(last=False)
                self.weight -= dropped

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.weight = 0


class TranscriptIndex:
    """Line offsets of one transcript, filled by `scan()`; rows read and decoded on demand."""

    def __init__(self, path: str | os.PathLike[str], *, cache_size: int = 4096) -> None:
        transcript = open_transcript(path)  # one clear error for a missing/empty/foreign file
        self.path: Path = transcript.path
        self.header: Header = transcript.header
        self._file = open_file(self.path)
        self._fd = self._file.fileno()
        # bounds[i] .. bounds[i + 1] are the bytes of row i (newline included).
        self._bounds = array("q", [transcript.header_size])
        self._scanned = transcript.header_size
        self._size = transcript.header_size
        self._lock = threading.Lock()
        self.truncated = False
        self._lines: LRU[int, bytes] = LRU(cache_size)
        self._events: LRU[int, Event | BadLine] = LRU(cache_size)

    # -- size and progress -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._bounds) - 1

    @property
    def scanned_bytes(self) -> int:
        return self._scanned

    @property
    def file_size(self) -> int:
        return self._size

    @property
    def complete(self) -> bool:
        """True when every byte known so far has been indexed."""
        return self._scanned >= self._size

    def close(self) -> None:
        self._file.close()

    # -- scanning ----------------------------------------------------------------------------------
    def scan(
        self,
        *,
        final: bool = True,
        progress: Callable[[int, int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> int:
        """Index the bytes added since the last scan; return how many rows were added.

        `progress(rows, scanned_bytes, file_size)` is called after each window. With `final`, a last
        line without a newline becomes a (truncated) row; otherwise it waits for more bytes.
        """
        try:
            size = os.fstat(self._fd).st_size
        except OSError as exc:
            raise TranscriptError(f"{self.path} cannot be read: {exc.strerror or exc}") from None
        before = len(self)
        if size < self._scanned:
            raise TranscriptError(f"{self.path} shrank while being read", hint="was it overwritten?")
        self._size = size
        if size > self._scanned:
            self._scan_range(size, progress, cancelled)
        if final and self._scanned < size and not (cancelled and cancelled()):
            with self._lock:
                self._bounds.append(size)
                self._scanned = size
                self.truncated = True
        if progress is not None:
            progress(len(self), self._scanned, self._size)
        return len(self) - before

    def _scan_range(
        self,
        size: int,
        progress: Callable[[int, int, int], None] | None,
        cancelled: Callable[[], bool] | None,
    ) -> None:
        with mmap.mmap(self._fd, size, access=mmap.ACCESS_READ) as mm:
            pos = self._scanned
            page = mmap.PAGESIZE
            while pos < size:
                if cancelled is not None and cancelled():
                    return
                stop = min(size, pos + WINDOW)
                found = array("q")
                find = mm.find
                append = found.append
                nl = find(b"\n", pos, stop)
                last = pos
                while nl >= 0:
                    last = nl + 1
                    append(last)
                    nl = find(b"\n", last, stop)
                with self._lock:
                    self._bounds.extend(found)
                    self._scanned = last
                release_from = (pos // page) * page
                release_to = (last // page) * page
                if release_to > release_from and hasattr(mm, "madvise"):
                    mm.madvise(mmap.MADV_DONTNEED, release_from, release_to - release_from)
                if last == pos:
                    # no newline in this window: the line is longer than WINDOW (or cut short)
                    more = find(b"\n", stop)
                    if more < 0:
                        break
                    with self._lock:
                        self._bounds.append(more + 1)
                        self._scanned = more + 1
                pos = self._scanned
                if progress is not None:
                    progress(len(self), self._scanned, size)

    # -- rows ----------------------------------------------------------------------------------------
    def span(self, row: int) -> tuple[int, int]:
        """(start, end) byte offsets of a row in the file."""
        with self._lock:
            return self._bounds[row], self._bounds[row + 1]

    def line(self, row: int) -> bytes:
        """The raw transcript line of a row (the JSON record, newline included)."""
        if not 0 <= row < len(self):
            raise IndexError(row)
        cached = self._lines.get(row)
        if cached is not None:
            return cached
        start, end = self.span(row)
        data = os.pread(self._fd, end - start, start)
        self._lines.put(row, data, len(data))
        return data

    def event(self, row: int) -> Event | BadLine:
        """The decoded event of a row (`index` = row), or a `BadLine` saying why it is not one."""
        cached = self._events.get(row)
        if cached is not None:
            return cached
        raw = self.line(row)
        result = read_line(raw, row)
        self._events.put(row, result, 2 * len(raw))  # decoded: about twice the line's size at most
        return result

    def read_rows(self, start: int, stop: int) -> list[bytes]:
        """The raw lines of rows start..stop-1 in one read (for sequential passes; not cached)."""
        stop = min(stop, len(self))
        if start >= stop:
            return []
        with self._lock:
            bounds = self._bounds[start : stop + 1]
        first = bounds[0]
        blob = os.pread(self._fd, bounds[-1] - first, first)
        return [blob[bounds[i] - first : bounds[i + 1] - first] for i in range(len(bounds) - 1)]
