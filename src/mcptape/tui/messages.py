"""What the viewer's workers tell the app: typed messages, as Toolong passes worker results.

Each worker thread posts these to the app (`post_message` is thread-safe) and never touches a
widget; the app's handlers (`on_scan_progress`, `on_scanned`, ...) are the only place their
results reach the screen. Progress messages may replace an older one still queued (`can_replace`):
a busy event loop handles the newest, not every step. Whether a worker is still running is asked of
Textual's worker registry, never kept in a flag.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from mcptape.check.model import Finding
from mcptape.tui.model.rowfacts import RowFacts


@dataclass
class ScanProgress(Message):
    """The index worker scanned another window: `rows` so far, `scanned` of `size` bytes."""

    rows: int
    scanned: int
    size: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ScanProgress)


@dataclass
class Scanned(Message):
    """The index worker reached the end of the file (for now, with --follow): `added` new rows."""

    added: int


@dataclass
class ScanFailed(Message):
    """The file could not be read any further (one line, already escaped)."""

    error: str


@dataclass
class CheckProgress(Message):
    """The check worker fed `done` of `total` rows to the check core."""

    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, CheckProgress)


@dataclass
class FirstBadLine(Message):
    """The check core's first line-level finding, sent as soon as it is known."""

    finding: Finding


@dataclass
class Checked(Message):
    """The check core's per-row results for rows 0..facts.rows-1, the analysis finished."""

    facts: RowFacts


@dataclass
class SearchDone(Message):
    """A search for `needle` ended on `row` (None: not found anywhere)."""

    needle: bytes
    row: int | None
