"""The transcript file format v1: a header line, then one JSON event per line (see docs/format.md)."""

from mcptape.transcript.events import BYTE_CHANNELS, Event, Header
from mcptape.transcript.reader import Transcript, open_transcript

__all__ = ["BYTE_CHANNELS", "Event", "Header", "Transcript", "open_transcript"]
