"""`mcptape view OLD NEW`: two sessions side by side, one row per pair replay's diff aligned.

The cursor opens on the first differing pair; `]` / `[` move between differing pairs, `f` shows
only them; the detail pane lists the selected pair's changed paths and both sides' raw bytes.

Two HTTP transcripts are listed by exchange (`model/exchangediff.py`): one row per aligned exchange
(status, session ids, the headers that differ), which `enter` opens into the message pairs it
carried; `z` lists the pairs alone, as for stdio. Row ids then: exchange k is k, pair p is E + p.
"""

from __future__ import annotations

import os
from array import array
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Static

from mcptape.diff.sessions import Diff
from mcptape.errors import MCPTapeError
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
from mcptape.tui.model.exchangediff import ExchangeDiff, exchange_diff, is_http
from mcptape.tui.model.exchangediffrows import (
    exchange_columns,
    exchange_detail,
    exchange_line,
    exchange_summary,
    exchange_title,
    listing,
    pair_row,
)
from mcptape.tui.model.foldview import FoldedView
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

    def __init__(
        self,
        diff: Diff,
        old_name: str,
        new_name: str,
        *,
        paths: tuple[str | os.PathLike[str], str | os.PathLike[str]] | None = None,
    ) -> None:
        """`paths`: the two transcripts; when both are HTTP ones, the list is by exchange."""
        super().__init__()
        self.diff = diff
        self.old_name = old_name
        self.new_name = new_name
        self.differing = array("i", [i for i, p in enumerate(diff.pairs) if p.differs])
        self.only_differing = False
        self.reason = ""
        self.exchanges: ExchangeDiff | None = _exchanges(diff, paths)
        self.by_exchange = self.exchanges is not None  # `z` lists the pairs alone and back
        self.opened: set[int] = set()  # the exchanges listed with their message pairs

    def compose(self) -> ComposeResult:
        yield SessionHeader(id="session")
        with Vertical(id="main"):
            with Vertical(id="lists"):
                yield Static(Text(self._columns()), id="columns")
                yield MessageList(self._line, self._view(), id="messages")
            yield DetailPane(id="detail")
        yield Footer()

    @property
    def pairs_list(self) -> MessageList:
        return self.query_one("#messages", MessageList)

    def _columns(self, width: int = 150) -> str:
        return exchange_columns(width) if self.by_exchange else columns_text(width)

    def _line(self, row: int, width: int) -> tuple[str, str]:
        exd = self.exchanges
        if exd is None or not self.by_exchange:
            return pair_line(self.diff.pairs[row], width)
        count = len(exd.exchanges)
        if row < count:
            return exchange_line(exd, row, opened=row in self.opened, width=width)
        pair = self.diff.pairs[row - count]
        return pair_row(pair, width) if row - count not in exd.loose else pair_line(pair, width)

    def _view(self) -> RowView:
        if self.exchanges is not None and self.by_exchange:
            return listing(self.exchanges, self.opened, only_differing=self.only_differing)
        total = len(self.diff.pairs)
        return RowView(lambda: total, self.differing if self.only_differing else None)

    def _differs(self, row: int) -> bool:
        """Whether the row shown as `row` differs (an exchange, or a pair)."""
        exd = self.exchanges
        if exd is None or not self.by_exchange:
            return self.diff.pairs[row].differs
        count = len(exd.exchanges)
        return exd.differs(exd.exchanges[row]) if row < count else self.diff.pairs[row - count].differs

    def on_mount(self) -> None:
        if self.exchanges is not None:
            self._mount_by_exchange(self.exchanges)
            return
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

    def _mount_by_exchange(self, exd: ExchangeDiff) -> None:
        """Two HTTP transcripts: the cursor on the first differing exchange, opened when a message
        pair it carried differs."""
        differing = exd.differing
        heads = any(e.heads_differ for e in differing)
        first, second = session_summary(
            self.diff, self.old_name, self.new_name, exchange_summary(exd), heads_differ=heads
        )
        row = 0
        if differing:
            row = exd.exchanges.index(differing[0])
            if any(self.diff.pairs[p].differs for p in differing[0].pairs):
                self.opened.add(row)
            self.reason = f"cursor: first differing exchange ({exchange_title(exd, differing[0])})"
        else:
            self.reason = "no exchange differs" + ("" if self.diff.same else "; see the detail pane")
        self.query_one(SessionHeader).set(
            session=first, status=second, verdict="", reason=self.reason, verdict_style=""
        )
        self.pairs_list.focus()
        self.pairs_list.set_view(self._view(), row)
        self._show(row if exd.exchanges else None)

    def on_message_list_resized(self, event: MessageList.Resized) -> None:
        self.query_one("#columns", Static).update(Text(self._columns(event.width)))

    def on_message_list_highlighted(self, event: MessageList.Highlighted) -> None:
        if self.is_running:  # not while shutting down: the widgets are gone
            self._show(event.row)

    def _show(self, row: int | None) -> None:
        spans = []
        exd = self.exchanges
        if exd is not None and self.by_exchange and row is not None:
            count = len(exd.exchanges)
            if row < count:
                spans += exchange_detail(exd, row)
            elif row - count < len(self.diff.pairs):
                spans += pair_detail(self.diff.pairs[row - count])
        elif row is not None and row < len(self.diff.pairs):
            spans += pair_detail(self.diff.pairs[row])
        elif not self.diff.pairs:
            spans.append(("", "no messages to compare\n"))
        spans += session_detail(self.diff)
        text = spans_text(spans)
        detail = self.query_one(DetailPane)
        detail.body.update(text)

    def action_difference(self, direction: int) -> None:
        if self.exchanges is not None and self.by_exchange:
            self._difference_shown(direction)
            return
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

    def _difference_shown(self, direction: int) -> None:
        """`]` / `[` by exchange: the next / previous differing row the list shows (wraps)."""
        view = self.pairs_list.view
        shown = [p for p in range(len(view)) if self._differs(view.row(p))]
        if not shown:
            self.notify("no exchange differs")
            return
        here = self.pairs_list.cursor
        later = [p for p in shown if (p > here if direction > 0 else p < here)]
        target = (later[0] if direction > 0 else later[-1]) if later else shown[0 if direction > 0 else -1]
        self.pairs_list.user_moved = True
        self.pairs_list.select_row(view.row(target))

    def action_only_differing(self) -> None:
        self.only_differing = not self.only_differing
        self.pairs_list.set_view(self._view(), self.pairs_list.current_row)

    def action_toggle_exchange(self) -> None:
        """Open the exchange under the cursor into its message pairs, or close it (from its row or
        one of its pairs: the cursor goes back to its row)."""
        exd = self.exchanges
        row = self.pairs_list.current_row
        if exd is None or not self.by_exchange or row is None:
            return
        count = len(exd.exchanges)
        view = self.pairs_list.view
        k = row if row < count else (view.of_row[row] - 1 if isinstance(view, FoldedView) else -1)
        if k < 0:
            return
        if k in self.opened:
            self.opened.discard(k)
        elif exd.exchanges[k].pairs:
            self.opened.add(k)
        self.pairs_list.set_view(self._view(), k, center=False)
        self._show(k)

    def action_by_exchange(self) -> None:
        """`z`: two HTTP transcripts listed by message pair (as stdio ones are), or by exchange again."""
        exd = self.exchanges
        if exd is None:
            self.notify("the list is by exchange for two HTTP transcripts only")
            return
        row, count = self.pairs_list.current_row, len(exd.exchanges)
        if self.by_exchange:  # the pair on the cursor, or the first the exchange carried
            pairs = exd.exchanges[row].pairs if row is not None and row < count else []
            keep = (pairs[0] if pairs else None) if row is None or row < count else row - count
        else:
            keep = None if row is None else row + count
        self.by_exchange = not self.by_exchange
        self.query_one("#columns", Static).update(Text(self._columns(self.pairs_list.size.width or 150)))
        self.pairs_list.set_view(self._view(), keep)
        self._show(self.pairs_list.current_row)

    def action_toggle_detail(self) -> None:
        self.query_one(DetailPane).toggle_class("hidden")

    def action_help(self) -> None:
        legend = LEGEND + ("; ▸ / ▾ an exchange enter opens / closes" if self.by_exchange else "")
        self.push_screen(HelpScreen(binding_rows(self), legend, example="diff.next"))


def _exchanges(
    diff: Diff, paths: tuple[str | os.PathLike[str], str | os.PathLike[str]] | None
) -> ExchangeDiff | None:
    """Two HTTP transcripts' exchanges, aligned (None: not both HTTP, or not readable again)."""
    if paths is None:
        return None
    try:
        if not (is_http(paths[0]) and is_http(paths[1])):
            return None
        return exchange_diff(diff, *paths)
    except (OSError, MCPTapeError):  # read by the diff a moment ago: gone since; the pairs stand
        return None
