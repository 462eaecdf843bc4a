"""The transcript file format v1: a header line, then one JSON event per line (see docs/format.md).

Every line after the header has an event index (its line number minus 2), whatever it holds: the
one reader (`reader.open_transcript`, `reader.read_line`) numbers them for every command.

Names are imported on first use, so `mcptape record` can open its output (`transcript.files`)
before orjson and the reader are loaded.
"""

from __future__ import annotations

from mcptape.lazy import lazy_attributes

TYPE_CHECKING = False  # no `typing` at run time: `mcptape record` imports this before the spawn
if TYPE_CHECKING:
    from mcptape.transcript.events import BYTE_CHANNELS, Event, Header
    from mcptape.transcript.reader import BadLine, Transcript, open_transcript, read_line

__all__ = ["BYTE_CHANNELS", "BadLine", "Event", "Header", "Transcript", "open_transcript", "read_line"]

_WHERE = {
    "BYTE_CHANNELS": "mcptape.transcript.events",
    "Event": "mcptape.transcript.events",
    "Header": "mcptape.transcript.events",
    "BadLine": "mcptape.transcript.reader",
    "Transcript": "mcptape.transcript.reader",
    "open_transcript": "mcptape.transcript.reader",
    "read_line": "mcptape.transcript.reader",
}


__getattr__ = lazy_attributes(__name__, _WHERE)
