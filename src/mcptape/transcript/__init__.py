"""The transcript file format v1: a header line, then one JSON event per line (see docs/format.md).

Names are imported on first use, so `mcptape record` can open its output (`transcript.files`)
before orjson and the reader are loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'mcptape.transcript' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
