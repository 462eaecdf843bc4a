"""Where the cursor goes on a key: the next or previous finding, a row's pair, a raw-byte search.

`NavigationActions` sits between the filters (`filtering.py`, whose filters it drops when they hide
the row it goes to) and `ViewerApp` (`app.py`); the search runs in a thread worker over the index's
bytes (`model/search.py`) and reports through a typed message.
"""

from __future__ import annotations

from textual import work
from textual.worker import get_current_worker

from mcptape.textsafe import escape
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.filtering import FilterActions
from mcptape.tui.messages import SearchDone
from mcptape.tui.model.query import parse_query
from mcptape.tui.model.search import find_bytes
from mcptape.tui.model.viewer import ViewerModel
from mcptape.tui.screens.prompt import PromptScreen
from mcptape.tui.widgets.message_list import MessageList


class NavigationActions(FilterActions):
    """The moving actions and the search state (the base of `ViewerApp`, which sets `index`)."""

    index: TranscriptIndex

    def __init__(self, model: ViewerModel) -> None:
        super().__init__(model)
        self.last_search: bytes = b""
        self.search_text = ""

    def _focused_list(self) -> MessageList:
        focused = self.focused
        return focused if isinstance(focused, MessageList) else self.messages

    def _go(self, row: int) -> None:
        """Move the cursor of the main list to `row`, dropping filters that hide it."""
        row = self.model.shown_row(row)  # a line's newline, written apart, is shown on its first row
        target = self.messages
        if self.stderr_pane and self.model.facts is not None and self.model.facts.channel_of(row) == "err":
            target = self.stderr_list
        else:
            self.reveal(row)
        if not target.view.contains(row):
            self.channel_filter = 0
            self.method_filter = None
            self.tool_filter = None
            self.findings_filter = 0
            self._apply_filters(keep_row=row)
            self.notify("filters cleared to show the row")
        target.user_moved = True
        target.select_row(row)
        target.focus()

    def action_finding(self, direction: int) -> None:
        facts = self.model.facts
        if facts is None:
            self.notify("findings are available once the check has run", severity="warning")
            return
        current = self._focused_list().current_row
        row = facts.next_finding(-1 if current is None else current, direction)
        if row is None:
            self.notify("no findings in this transcript")
            return
        self._go(row)

    def action_pair(self) -> None:
        facts = self.model.facts
        current = self._focused_list().current_row
        if facts is None or current is None:
            return
        partner = facts.pair_of(current)
        if partner is None:
            self.notify("this row has no paired request or response")
            return
        self._go(partner)

    def action_search(self) -> None:
        hint = r"raw bytes; escapes: \x1b \n \r \t \\ \u00e9 · n / N: next / previous match"
        self.push_screen(PromptScreen("search raw bytes", hint, self.search_text), self._on_search_text)

    def _on_search_text(self, text: str | None) -> None:
        if not text:
            return
        self.search_text = text
        self.last_search = parse_query(text)
        self.action_search_again(1)

    def action_search_again(self, direction: int) -> None:
        if not self.last_search:
            self.action_search()
            return
        current = self._focused_list().current_row
        self._search_worker(self.last_search, -1 if current is None else current, direction)

    @work(thread=True, group="search", exclusive=True, exit_on_error=False)
    def _search_worker(self, needle: bytes, start: int, direction: int) -> None:
        worker = get_current_worker()
        row = find_bytes(self.index, needle, start, direction, cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(SearchDone(needle, row))

    def on_search_done(self, message: SearchDone) -> None:
        if not self.is_running:  # shutting down: the widgets are gone
            return
        if message.row is None:
            self.notify(f"not found: {escape(message.needle, 60)}", severity="warning")
            return
        self._go(message.row)
