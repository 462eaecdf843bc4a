"""The detail pane: the selected row's findings, pretty JSON, raw bytes (escaped or hex), and pair."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from mcptape.textsafe import escape, hexdump
from mcptape.tui.model.detail import Detail, Spans
from mcptape.tui.model.safe import safe_text
from mcptape.tui.widgets.surface import surface_tables

RAW_LIMIT = 64 * 1024
HEX_LIMIT = 16 * 1024
PRETTY_LIMIT = 64 * 1024  # characters of pretty JSON (laying out megabytes froze the viewer)
PAIR_LIMIT = 400


def spans_text(spans: Spans, *, end: str = "") -> Text:
    """Rich text from the model's (style, text) pieces (already escaped)."""
    out = Text(end=end)
    for style, text in spans:
        out.append(text, style=style or None)
    return out


def render_detail(detail: Detail, *, hex_mode: bool) -> Text:
    """The pane's text (without the surface's tables): nothing from the transcript reaches it
    without `escape`."""
    out = _head(detail)
    out.append_text(_tail(detail, hex_mode=hex_mode))
    return out


def detail_renderable(detail: Detail, *, hex_mode: bool) -> Group | Text:
    """The pane: the title and notes, a listing's tools or a drift side by side, then the rest."""
    tables = surface_tables(detail)
    if not tables:
        return render_detail(detail, hex_mode=hex_mode)
    head = _head(detail)
    head.rstrip()  # the group puts each part on lines of its own
    return Group(head, *tables, _tail(detail, hex_mode=hex_mode))


def _head(detail: Detail) -> Text:
    out = Text(no_wrap=False, end="")
    out.append(safe_text(detail.title), style="bold")
    out.append("\n")
    for style, note in detail.notes:
        out.append(safe_text(note), style=style)
        out.append("\n")
    return out


def _tail(detail: Detail, *, hex_mode: bool) -> Text:
    out = Text(no_wrap=False, end="")
    if detail.pair_title is not None:
        out.append("paired with ", style="bold")
        out.append(safe_text(detail.pair_title), style="italic")
        out.append("\n")
        if detail.pair_raw is not None:
            out.append(escape(detail.pair_raw, limit=PAIR_LIMIT), style="dim")
            out.append("\n")
    label = "hex" if hex_mode else "escaped"
    out.append(f"\nraw bytes ({len(detail.raw)}, {label})\n", style="bold underline")
    if hex_mode:
        shown = detail.raw[:HEX_LIMIT]
        out.append(hexdump(shown) or "(empty)")
        if len(detail.raw) > HEX_LIMIT:
            out.append(f"\n...(+{len(detail.raw) - HEX_LIMIT} bytes)")
    else:
        out.append(escape(detail.raw, limit=RAW_LIMIT) or "(empty)")
    out.append("\n")
    if detail.pretty is not None:
        out.append("\nJSON\n", style="bold underline")
        out.append(safe_text(detail.pretty[:PRETTY_LIMIT]))
        if len(detail.pretty) > PRETTY_LIMIT:
            out.append(f"\n...(+{len(detail.pretty) - PRETTY_LIMIT:,} characters)", style="dim")
        out.append("\n")
    return out


class DetailPane(VerticalScroll, can_focus=True):
    """Scrollable detail of the row under the cursor."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.body = Static(Text("no row selected"), id="detail-body")
        self.hex_mode = False
        self.detail: Detail | None = None
        self.empty = "no row selected"

    def compose(self) -> ComposeResult:
        yield self.body

    def show(
        self, detail: Detail | None, empty: str = "no row selected", *, keep_scroll: bool = False
    ) -> None:
        self.detail = detail
        self.empty = empty
        self._update()
        if not keep_scroll:
            self.scroll_home(animate=False)

    def toggle_hex(self) -> None:
        self.hex_mode = not self.hex_mode
        self._update()

    def _update(self) -> None:
        if self.detail is None:
            self.body.update(Text(self.empty))
        else:
            self.body.update(detail_renderable(self.detail, hex_mode=self.hex_mode))
