"""`mcptape view OLD NEW`: two sessions side by side, one row per pair replay's diff aligned.

The cursor opens on the first differing pair; `]` / `[` move between differing pairs, `f` shows
only them; the detail pane lists the selected pair's changed paths and both sides' raw bytes.
"""

from __future__ import annotations

from array import array
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Static

from mcptape.diff.sessions import Diff
from mcptape.tui.bindings import DIFF_BINDINGS
from mcptape.tui.model.diffrows import (
    LEGEND,
    columns_text,
    pair_detail,
    pair_kind,
    pair_line,
    session_detail,
    session_summary,
)
from mcptape.tui.model.rowview import RowView
from mcptape.tui.model.safe import one_line
from mcptape.tui.screens.help import HelpScreen, binding_rows
from mcptape.tui.widgets.detail import DetailPane, spans_text
from mcptape.tui.widgets.header import SessionHeader
from mcptape.tui.widgets.message_list import MessageList


class DiffApp(App[None]):
    """The diff viewer over a `Diff` computed by replay."""

    TITLE = "mcptape view (diff)"
    CSS_PATH = "viewer.tcss"
    BINDINGS: ClassVar[list[BindingType]] = list(DIFF_BINDINGS)

    def __init__(self, diff: Diff, old_name: str, new_name: str) -> None:
        super().__init__()
        self.diff = diff
        self.old_name = old_name
        self.new_name = new_name
        self.differing = array("i", [i for i, p in enumerate(diff.pairs) if p.differs])
        self.only_differing = False
        self.reason = ""

    def compose(self) -> ComposeResult:
        yield SessionHeader(id="session")
        with Vertical(id="main"):
            with Vertical(id="lists"):
                yield Static(Text(columns_text()), id="columns")
                yield MessageList(self._line, self._view(), id="messages")
            yield DetailPane(id="detail")
        yield Footer()

    @property
    def pairs_list(self) -> MessageList:
        return self.query_one("#messages", MessageList)

    def _line(self, row: int, width: int) -> tuple[str, str]:
        return pair_line(self.diff.pairs[row], width)

    def _view(self) -> RowView:
        total = len(self.diff.pairs)
        return RowView(lambda: total, self.differing if self.only_differing else None)

    def on_mount(self) -> None:
        first, second = session_summary(self.diff, self.old_name, self.new_name)
        if self.differing:
            row = self.differing[0]
            pair = self.diff.pairs[row]
            self.reason = (
                f"cursor: first differing pair ({pair.kind} {one_line(pair.scope)}, {pair_kind(pair)})"
            )
        else:
            row = 0
            self.reason = "no pair differs" + ("" if self.diff.same else "; see the detail pane")
        self.query_one(SessionHeader).set(
            session=first,
            status=second,
            verdict="",
            reason=self.reason,
            verdict_style="",
        )
        self.pairs_list.focus()
        if self.diff.pairs:
            self.pairs_list.select_row(row)
        self._show(row if self.diff.pairs else None)

    def on_message_list_resized(self, event: MessageList.Resized) -> None:
        self.query_one("#columns", Static).update(Text(columns_text(event.width)))

    def on_message_list_highlighted(self, event: MessageList.Highlighted) -> None:
        if self.is_running:  # not while shutting down: the widgets are gone
            self._show(event.row)

    def _show(self, row: int | None) -> None:
        spans = []
        if row is not None and row < len(self.diff.pairs):
            spans += pair_detail(self.diff.pairs[row])
        elif not self.diff.pairs:
            spans.append(("", "no messages to compare\n"))
        spans += session_detail(self.diff)
        text = spans_text(spans)
        detail = self.query_one(DetailPane)
        detail.body.update(text)

    def action_difference(self, direction: int) -> None:
        if not self.differing:
            self.notify("no pair differs")
            return
        current = self.pairs_list.current_row or 0
        later = [r for r in self.differing if (r > current if direction > 0 else r < current)]
        if later:
            target = later[0] if direction > 0 else later[-1]
        else:
            target = self.differing[0] if direction > 0 else self.differing[-1]
        self.pairs_list.user_moved = True
        self.pairs_list.select_row(target)

    def action_only_differing(self) -> None:
        self.only_differing = not self.only_differing
        self.pairs_list.set_view(self._view(), self.pairs_list.current_row)

    def action_toggle_detail(self) -> None:
        self.query_one(DetailPane).toggle_class("hidden")

    def action_help(self) -> None:
        self.push_screen(HelpScreen(binding_rows(self), LEGEND, example="diff.next"))
