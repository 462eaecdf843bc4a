"""Find the next row whose raw bytes contain a byte string (runs in a worker thread).

The search is over the bytes each event carries (what the server or client really wrote), not over
the transcript's JSON encoding. A row is decoded only when its line could hold the bytes: its JSON
text contains the JSON-escaped needle, or it is a base64 (non-UTF-8) event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import orjson

from mcptape.transcript.events import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.reader import read_line

_CHUNK = 4096


def _encoded(needle: bytes) -> bytes | None:
    """How `needle` appears inside a `data` string of the transcript, or None if it cannot."""
    try:
        text = needle.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return orjson.dumps(text)[1:-1]


def _ranges(start: int, total: int, direction: int) -> Iterator[tuple[int, int]]:
    """Chunks of rows to visit after `start`, wrapping around once (each (lo, hi), hi exclusive)."""
    if direction > 0:
        order = [(start + 1, total), (0, start + 1)]
        for lo, hi in order:
            for a in range(lo, hi, _CHUNK):
                yield a, min(hi, a + _CHUNK)
    else:
        order = [(0, start), (start, total)]
        for lo, hi in order:
            for b in range(hi, lo, -_CHUNK):
                yield max(lo, b - _CHUNK), b


def find_bytes(
    index: TranscriptIndex,
    needle: bytes,
    start: int,
    direction: int = 1,
    cancelled: Callable[[], bool] | None = None,
) -> int | None:
    """The first row after (or before) `start` whose event bytes contain `needle`, wrapping once."""
    if not needle:
        return None
    total = len(index)
    encoded = _encoded(needle)
    for lo, hi in _ranges(start, total, direction):
        if cancelled is not None and cancelled():
            return None
        lines = index.read_rows(lo, hi)
        rows = range(len(lines)) if direction > 0 else range(len(lines) - 1, -1, -1)
        for i in rows:
            line = lines[i]
            if not ((encoded is not None and encoded in line) or b'"b64"' in line):
                continue
            event = read_line(line, lo + i)
            if isinstance(event, Event) and needle in event.data:
                return lo + i
    return None
