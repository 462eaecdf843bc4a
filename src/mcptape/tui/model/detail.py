"""What the detail pane shows for one row, as plain data (the pane in `widgets.detail` draws it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcptape.tui.model.surfaceview import DriftView, ToolTable

Spans = list[tuple[str, str]]
"""Styled text without a terminal library: (style, text) pieces, the text already escaped."""


@dataclass
class Detail:
    """What the pane shows for one row: `raw` bytes are escaped here, strings are already escaped."""

    title: str
    raw: bytes
    notes: list[tuple[str, str]] = field(default_factory=list)  # (style, text)
    pretty: str | None = None  # pretty-printed JSON (escaped again before display)
    pair_title: str | None = None
    pair_raw: bytes | None = None
    tools: ToolTable | None = None  # a tools/list answer: its tools as a table
    drift: list[DriftView] = field(default_factory=list)  # a tools-drift finding: old and new side by side
