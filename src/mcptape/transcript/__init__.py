"""The transcript file format v1: a header line, then one JSON event per line (see docs/format.md).

Names are imported on first use, so `mcptape record` can open its output (`transcript.files`)
before orjson and the reader are loaded.
"""

from __future__ import annotations

from mcptape.lazy import lazy_attributes

TYPE_CHECKING = False  # no `typing` at run time: `mcptape record` imports this before the spawn
if TYPE_CHECKING:
    from mcptape.transcript.events import BYTE_CHANNELS, Event, Header
    from mcptape.transcript.reader import Transcript, open_transcript

__all__ = ["BYTE_CHANNELS", "Event", "Header", "Transcript", "open_transcript"]

_WHERE = {
    "BYTE_CHANNELS": "mcptape.transcript.events",
    "Event": "mcptape.transcript.events",
    "Header": "mcptape.transcript.events",
    "Transcript": "mcptape.transcript.reader",
    "open_transcript": "mcptape.transcript.reader",
}


__getattr__ = lazy_attributes(__name__, _WHERE)
