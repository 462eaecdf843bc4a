"""The viewer application: wires the index, the check core's results and the widgets together.

Opening never waits for the whole file: a thread worker builds the index and rows appear as soon as
the first window is scanned; then a second worker runs the check core over every row and the list
gains its styles, the header its verdict, and the cursor moves to the first non-protocol line
(unless the user already moved it). The workers report through typed messages (`messages.py`);
where the cursor goes on its own is the headless `Landing`'s decision.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from mcptape.check.model import Finding
from mcptape.errors import MCPTapeError
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.bindings import APP_BINDINGS
from mcptape.tui.messages import (
    Checked,
    CheckProgress,
    FirstBadLine,
    ScanFailed,
    Scanned,
    ScanProgress,
)
from mcptape.tui.model.facts import FactsCollector
from mcptape.tui.model.landing import Landing
from mcptape.tui.model.rowfacts import RowFacts
from mcptape.tui.model.rows import Layout, header_text
from mcptape.tui.model.safe import safe_text
from mcptape.tui.model.summary import session_line, status_line, verdict
from mcptape.tui.model.viewer import ViewerModel
from mcptape.tui.navigation import NavigationActions
from mcptape.tui.screens.help import ROW_STYLES, HelpScreen, binding_rows
from mcptape.tui.widgets.detail import DetailPane
from mcptape.tui.widgets.header import SessionHeader
from mcptape.tui.widgets.message_list import MessageList

INDEX, CHECK = "index", "check"  # the two worker groups


class ViewerApp(NavigationActions):
    """`mcptape view FILE`."""

    TITLE = "mcptape view"
    CSS_PATH = "viewer.tcss"
    BINDINGS: ClassVar[list[BindingType]] = list(APP_BINDINGS)

    def __init__(
        self,
        index: TranscriptIndex,
        *,
        follow: bool = False,
        poll: float = 0.5,
        newer: Callable[[], Path | None] | None = None,
    ) -> None:
        super().__init__(ViewerModel(index))
        self.index = index
        self.follow = follow
        self.poll = poll
        self.newer = newer
        """With --follow on a folder: the newest session there, asked at each poll; when it is not
        this one, the app exits with `switch_to` set and the command opens that one."""
        self.switch_to: Path | None = None
        self.landing = Landing(follow=follow)
        self.reason = ""  # why the cursor is where it is (the header's third line)
        self.detail_row: int | None = None  # the row the detail pane shows
        # One analysis for the whole session: --follow feeds it only the rows each growth adds.
        self.collector = FactsCollector(first_line=self._post_first_line)

    # -- layout ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield SessionHeader(id="session")
        with Vertical(id="main"):
            with Vertical(id="lists"):
                yield Static(Text(header_text(Layout(http=self.model.http))), id="columns")
                yield MessageList(self.model.line, self.model.build_view(self._row_filters()), id="messages")
                yield MessageList(
                    self.model.line,
                    self.model.build_view(self._row_filters(stderr=True)),
                    id="stderr",
                    classes="hidden",
                )
            yield DetailPane(id="detail")
        yield Footer()

    @property
    def detail(self) -> DetailPane:
        return self.query_one("#detail", DetailPane)

    @property
    def header_widget(self) -> SessionHeader:
        return self.query_one("#session", SessionHeader)

    def on_mount(self) -> None:
        self.header_widget.set(
            session=session_line(self.index),
            status="indexing…",
            verdict="verdict: pending",
            reason="",
        )
        self.messages.focus()
        self._scan_worker()
        if self.follow:
            self.set_interval(self.poll, self._poll_growth)

    # -- workers -------------------------------------------------------------------------------------
    def running(self, group: str) -> bool:
        """Whether a worker of `group` (INDEX, CHECK) has work under way (asked of Textual)."""
        return any(w.group == group and not w.is_finished and not w.is_cancelled for w in self.workers)

    @property
    def busy(self) -> bool:
        """The index or the check is still being built (tests wait on this)."""
        facts = self.model.facts
        behind = facts is None or facts.rows < len(self.index)
        return self.running(INDEX) or self.running(CHECK) or behind

    def _poll_growth(self) -> None:
        if self.newer is not None and self.switch_to is None:
            newest = self.newer()
            if newest is not None and newest != self.index.path:
                self.switch_to = newest
                self.exit()
                return
        if not self.running(INDEX):
            self._scan_worker()

    @work(thread=True, group=INDEX, exit_on_error=False)
    def _scan_worker(self) -> None:
        worker = get_current_worker()

        def progress(rows: int, scanned: int, size: int) -> None:
            if not worker.is_cancelled:
                self.post_message(ScanProgress(rows, scanned, size))

        try:
            added = self.index.scan(
                final=not self.follow, progress=progress, cancelled=lambda: worker.is_cancelled
            )
        except MCPTapeError as exc:
            self.post_message(ScanFailed(str(exc)))
            return
        if not worker.is_cancelled:
            self.post_message(Scanned(added))

    @work(thread=True, group=CHECK, exclusive=True, exit_on_error=False)
    def _check_worker(self) -> None:
        """Feed the rows indexed since the last pass to the check core (a newer pass cancels this
        one, which stops between chunks; the collector goes on from there)."""
        worker = get_current_worker()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] > 0.2 and not worker.is_cancelled:
                last[0] = now
                self.post_message(CheckProgress(done, total))

        facts = self.collector.collect(
            self.index, progress=progress, cancelled=lambda: worker.is_cancelled, final=not self.follow
        )
        if facts is not None and not worker.is_cancelled:
            self.post_message(Checked(facts))

    def _post_first_line(self, finding: Finding) -> None:
        """Called in the check worker's thread."""
        self.post_message(FirstBadLine(finding))

    def _check_new_rows(self) -> None:
        """Start a check pass if rows were indexed that no pass has seen (a finished check, over a
        file that is not followed, has seen them all)."""
        facts = self.model.facts
        if not self.collector.finished and (facts is None or facts.rows < len(self.index)):
            self._check_worker()

    # -- worker messages -----------------------------------------------------------------------------
    def on_scan_progress(self, message: ScanProgress) -> None:
        if not self.is_running:  # shutting down: the widgets are gone
            return
        self.messages.sync_size()
        if self.stderr_pane:
            self.stderr_list.sync_size()
        if message.scanned < message.size:
            percent = 100 * message.scanned // max(message.size, 1)
            self.header_widget.set(status=f"indexing {percent}% · {message.rows:,} rows")

    def on_scanned(self, message: Scanned) -> None:
        if not self.is_running:  # shutting down: the widgets are gone
            return
        self.messages.sync_size()
        if self.stderr_pane:
            self.stderr_list.sync_size()
        self._show_columns()  # the row number column widens past 999,999 rows
        self.header_widget.set(status=self._status_line())
        if self.messages.current_row is not None and self.detail.detail is None:
            self._show_detail(self.messages.current_row)
        self._check_new_rows()

    def on_scan_failed(self, message: ScanFailed) -> None:
        if not self.is_running:  # shutting down: the widgets are gone
            return
        self.header_widget.set(status=f"error: {message.error}", verdict_style="bold red")

    def on_check_progress(self, message: CheckProgress) -> None:
        if not self.is_running:  # shutting down: the widgets are gone
            return
        if self.model.facts is None:
            self.header_widget.set(verdict=f"checking {100 * message.done // max(message.total, 1)}%")

    def on_first_bad_line(self, message: FirstBadLine) -> None:
        """The first bad line is known before the check ends: go there now (unless the user moved)."""
        if not self.is_running:  # shutting down: the widgets are gone
            return
        move = self.landing.first_line(message.finding, user_moved=self.messages.user_moved)
        if move is not None:
            self.reason = move.reason
            if move.row is not None:
                self.reveal(move.row)
                self.messages.select_row(move.row)
            self.header_widget.set(reason=self.reason)

    def on_checked(self, message: Checked) -> None:
        if not self.is_running:  # shutting down: the widgets are gone
            return
        facts = message.facts
        if self.model.facts is not None and facts.rows < self.model.facts.rows:
            return  # an older pass than the one shown
        self.model.set_facts(facts)
        self._apply_filters(keep_row=self.messages.current_row, center=False)  # the user's scroll stays
        self.messages.invalidate()
        self.stderr_list.invalidate()
        self._show_verdict(facts)
        move = self.landing.checked(facts, user_moved=self.messages.user_moved)
        if move is not None:
            self.reason = move.reason
            if move.row is not None:
                self.reveal(move.row)
                self.messages.select_row(move.row)
        shown = self._focused_list().current_row
        if shown is not None:
            self._show_detail(shown)
        self.header_widget.set(status=self._status_line(), reason=self.reason)
        self._check_new_rows()

    # -- header ----------------------------------------------------------------------------------------
    def _status_line(self) -> str:
        return status_line(self.index, self.model.facts, follow=self.follow)

    def _show_verdict(self, facts: RowFacts) -> None:
        text, style = verdict(facts)
        self.header_widget.set(verdict=text, verdict_style=style)

    # -- detail ------------------------------------------------------------------------------------
    def on_message_list_highlighted(self, event: MessageList.Highlighted) -> None:
        if not self.is_running or event.source is not self._focused_list():
            return
        if event.row is not None and len(self.index):
            self._show_detail(event.row)
            if event.source.user_moved:  # the header says why the cursor is where it is
                self._say_where(event.row)
        elif event.row is None and len(self.index):
            self.detail_row = None
            if event.source is self.stderr_list:
                self.detail.show(None, "no stderr line")
            else:
                self.detail.show(None, "no row matches the filters (c, m, t, f change them)")

    def _say_where(self, row: int) -> None:
        """Once the user moves the cursor, the header's reason follows it (the landing's no longer holds)."""
        facts = self.model.facts
        found = facts.findings.get(row) if facts is not None else None
        if found:
            first = found[0]
            more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
            self.reason = f"cursor: row {row + 1} — {first.rule}: {safe_text(first.message)}{more}"
        else:
            self.reason = f"cursor: row {row + 1} (] [ go through the findings)"
        self.header_widget.set(reason=self.reason)

    def _show_detail(self, row: int) -> None:
        """Show `row`; showing the same row again (new facts, --follow) keeps the pane's scroll."""
        self.detail.show(self.model.detail(row), keep_scroll=row == self.detail_row)
        self.detail_row = row

    def action_toggle_hex(self) -> None:
        self.detail.toggle_hex()

    def action_toggle_detail(self) -> None:
        self.detail.toggle_class("hidden")

    # -- help --------------------------------------------------------------------------------------
    def action_help(self) -> None:
        self.push_screen(HelpScreen(binding_rows(self), ROW_STYLES, example="finding.next"))
