"""The HTTP exchange of a row, for the detail pane: the request line and headers, the status line and
headers, found near the row (an HTTP transcript's rows carry their exchange's number `x`)."""

from __future__ import annotations

from mcptape.textsafe import escape
from mcptape.transcript.events import HTTP_IN, HTTP_OUT, Event
from mcptape.transcript.index import TranscriptIndex

NEAR = 4096  # rows searched on each side of the row for its exchange's heads
MAX_HEADERS = 64


def exchange_of(event: Event) -> int | None:
    x = (event.fields or {}).get("x")
    return x if type(x) is int else None


def _head(index: TranscriptIndex, row: int, x: int, channel: str) -> tuple[int, bytes] | None:
    """The first record of `channel` for exchange `x` near `row`: its row and bytes."""
    first = None
    for other in range(max(0, row - NEAR), min(len(index), row + NEAR)):
        event = index.event(other)
        if isinstance(event, Event) and event.ch == channel and exchange_of(event) == x:
            first = (other, event.data)
            break
    return first


def exchange_notes(index: TranscriptIndex, row: int, x: int) -> list[tuple[str, str]]:
    """Notes naming exchange `x`: its request line and headers (`>`), status line and headers (`<`)."""
    notes: list[tuple[str, str]] = []
    for channel, mark in ((HTTP_IN, ">"), (HTTP_OUT, "<")):
        found = _head(index, row, x, channel)
        if found is None:
            notes.append(("dim", f"exchange {x}: no {channel} record near this row"))
            continue
        at, data = found
        head = data.partition(b"\r\n\r\n")[0].split(b"\r\n")
        title = "request" if channel == HTTP_IN else "response"
        notes.append(("bold", f"exchange {x} {title} (row {at + 1}): {escape(head[0], 200)}"))
        for line in head[1 : MAX_HEADERS + 1]:
            notes.append(("dim", f"  {mark} {escape(line, 200)}"))
        if len(head) > MAX_HEADERS + 1:
            notes.append(("dim", f"  {mark} ... {len(head) - MAX_HEADERS - 1} more header lines"))
    return notes
