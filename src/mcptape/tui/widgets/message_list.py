"""The message list: a Line-API ScrollView that renders only the rows on screen.

Rows come from a `RowView` (which rows, in which order) and a `line` callable (a row's plain,
already escaped text at a given width, and its kind, which picks the style); neither is
materialised for the whole file. Rendered strips are kept in an LRU cache keyed by row, so
scrolling back and forth does not re-read or re-decode anything. The diff viewer uses the same
widget with one row per pair.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mcptape.tui.bindings import LIST_BINDINGS
from mcptape.tui.model.rows import KINDS
from mcptape.tui.model.rowview import RowView

DIFF_KINDS = ("same", "changed", "added", "removed")


RENDERED_KEPT = 4096  # rows remembered in `rendered_rows` (scrolling a million rows keeps memory flat)


class MessageList(ScrollView, can_focus=True):
    """One row per transcript event; the cursor row is what the detail pane shows."""

    BINDINGS: ClassVar[list[BindingType]] = list(LIST_BINDINGS)
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "message-list--cursor",
        *(f"message-list--{kind}" for kind in (*KINDS, *DIFF_KINDS)),
    }

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    class Resized(Message):
        """The list's width changed (its owner lays the column header out again)."""

        def __init__(self, source: MessageList, width: int) -> None:
            super().__init__()
            self.source = source
            self.width = width

    class Highlighted(Message):
        """The cursor moved to another transcript row."""

        def __init__(self, source: MessageList, row: int | None) -> None:
            super().__init__()
            self.source = source
            self.row = row

    def __init__(
        self,
        line: Callable[[int, int], tuple[str, str]],
        view: RowView,
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.line = line
        self.view = view
        self._strips: LRUCache[tuple[int, bool, int], Strip] = LRUCache(1024)
        self.user_moved = False
        """True once the user moved the cursor (the viewer then never moves it on its own)."""
        self.rendered_rows: set[int] = set()
        """Rows rendered since the last `invalidate` (tests use it to prove laziness)."""
        self._reveal: bool | None = None
        """A landing not yet seen on screen: center the cursor (True) or just bring it in (False)."""

    # -- content size ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.sync_size()

    def sync_size(self) -> None:
        """Tell the ScrollView how many rows there are (after the index grew or the view changed)."""
        self.virtual_size = Size(self.size.width, len(self.view))
        self.refresh()
        self._apply_reveal()

    def on_resize(self, event: events.Resize) -> None:
        self._strips.clear()
        self.sync_size()
        self.post_message(self.Resized(self, self.scrollable_content_region.width))

    def notify_style_update(self) -> None:
        """Focus or the theme changed the rows' styles: draw them again (the cursor dims unfocused)."""
        super().notify_style_update()
        self._strips.clear()

    def invalidate(self) -> None:
        """Forget rendered rows (new analysis results, new styles)."""
        self._strips.clear()
        self.rendered_rows.clear()
        self.refresh()

    def set_view(self, view: RowView, keep_row: int | None, *, center: bool = True) -> None:
        """Show another selection of rows, keeping the cursor on `keep_row` (or the nearest row).

        `center=False` (the same filters over more rows) leaves the scroll position alone unless
        the cursor had to leave its row."""
        self.view = view
        self._strips.clear()
        self.sync_size()
        self.cursor = 0 if keep_row is None or not len(view) else view.position(keep_row)
        if center:
            self._land(center=True)
        elif self.current_row != keep_row:
            self._land(center=False)

    # -- cursor ------------------------------------------------------------------------------------
    @property
    def current_row(self) -> int | None:
        if not len(self.view):
            return None
        return self.view.row(min(self.cursor, len(self.view) - 1))

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.view) - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        self._strips.clear()
        self.refresh()
        self.post_message(self.Highlighted(self, self.current_row))

    def on_focus(self, event: events.Focus) -> None:
        """The focused list's row is the one the detail pane shows."""
        self.post_message(self.Highlighted(self, self.current_row))

    def select_row(self, row: int, *, center: bool = True) -> None:
        """Put the cursor on transcript row `row` (or the nearest shown row)."""
        if not len(self.view):
            return
        self.cursor = self.view.position(row)
        self._land(center=center)

    def _land(self, *, center: bool) -> None:
        """Bring the cursor on screen now, or as soon as the list has a size.

        A landing can come in the same turn of the event loop as the rows it lands on (a busy loop
        handles the workers' messages back to back), or before the list's first layout: its
        scrollbar was not computed yet, and a plain `scroll_to` was dropped, which left the cursor
        below the screen until a key was pressed. The scroll is forced, and a landing the list
        cannot show yet (no height, or rows it has not been told of) is kept until `sync_size` or
        the next resize.
        """
        self._reveal = center
        self._apply_reveal()

    def _apply_reveal(self) -> None:
        center = self._reveal
        height = self.scrollable_content_region.height
        if center is None or height <= 0:
            return
        if center:
            self._center(self.cursor)
        else:
            self._show(self.cursor)
        top = round(self.scroll_offset.y)
        if top <= self.cursor < top + height:
            self._reveal = None

    def _center(self, position: int) -> None:
        y = max(0, position - self.scrollable_content_region.height // 2)
        self.scroll_to(y=y, animate=False, force=True)

    def _show(self, position: int) -> None:
        height = self.scrollable_content_region.height
        top = round(self.scroll_offset.y)
        if position < top:
            self.scroll_to(y=position, animate=False, force=True)
        elif position >= top + height:
            self.scroll_to(y=max(0, position - height + 1), animate=False, force=True)

    def action_cursor(self, delta: int) -> None:
        self.user_moved = True
        self._reveal = None
        self.cursor = self.cursor + delta
        self._show(self.cursor)

    def action_page(self, direction: int) -> None:
        self.user_moved = True
        self._reveal = None
        self.cursor = self.cursor + direction * max(1, self.scrollable_content_region.height - 1)
        self._show(self.cursor)

    def action_edge(self, end: int) -> None:
        self.user_moved = True
        self._reveal = None
        self.cursor = len(self.view) - 1 if end else 0
        self._show(self.cursor)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self.user_moved = True
            self._reveal = None
            self.cursor = round(self.scroll_offset.y) + offset.y

    # -- rendering ---------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        position = round(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        if position >= len(self.view) or width <= 0:
            return Strip.blank(width, self.rich_style)
        selected = position == self.cursor
        row = self.view.row(position)
        key = (row, selected, width)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._render_row(row, selected, width)
            self._strips[key] = strip
        return strip

    def _render_row(self, row: int, selected: bool, width: int) -> Strip:
        if len(self.rendered_rows) >= RENDERED_KEPT:  # it tells what was drawn lately, not ever
            self.rendered_rows.clear()
        self.rendered_rows.add(row)
        plain, kind = self.line(row, width)
        style: Style = self.rich_style + self.get_component_rich_style(f"message-list--{kind}")
        if selected:
            style += self.get_component_rich_style("message-list--cursor")
        # One styled segment: rich's Text.render leaves a span-less text's base style to its caller,
        # so rendering a Text here drew every row unstyled (no cursor, no alarm colours).
        return Strip([Segment(plain, style)]).crop_extend(0, width, style)

    def region_of(self, position: int) -> Region:
        return Region(0, position, self.size.width, 1)
