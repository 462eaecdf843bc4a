"""The viewer application: wires the index, the check core's results and the widgets together.

Opening never waits for the whole file: the index is built by a thread worker and rows appear as
soon as the first window is scanned; then a second worker runs the check core over every row and
the list gains its styles, the header its verdict, and the cursor moves to the first non-protocol
line (unless the user already moved it).
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from mcptape.check.model import Finding
from mcptape.errors import MCPTapeError
from mcptape.textsafe import escape, escape_text
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.bindings import APP_BINDINGS
from mcptape.tui.facts import FactsCollector, RowFacts, collect_facts
from mcptape.tui.filtering import FilterActions
from mcptape.tui.model import ViewerModel
from mcptape.tui.query import parse_query
from mcptape.tui.rowinfo import header_text
from mcptape.tui.safe import safe_text
from mcptape.tui.screens.help import ROW_STYLES, HelpScreen, binding_rows
from mcptape.tui.screens.prompt import PromptScreen
from mcptape.tui.search import find_bytes
from mcptape.tui.summary import first_non_protocol_row, landing, status_line, verdict
from mcptape.tui.widgets.detail import DetailPane
from mcptape.tui.widgets.header import SessionHeader
from mcptape.tui.widgets.message_list import MessageList


class ViewerApp(FilterActions):
    """`mcptape view FILE`."""

    TITLE = "mcptape view"
    CSS_PATH = "viewer.tcss"
    BINDINGS: ClassVar[list[BindingType]] = list(APP_BINDINGS)

    def __init__(self, index: TranscriptIndex, *, follow: bool = False, poll: float = 0.5) -> None:
        super().__init__(ViewerModel(index))
        self.index = index
        self.follow = follow
        self.poll = poll
        self.placed = False  # the cursor is where it stays (a --follow view waits for a bad line)
        self.landed = False  # the cursor was placed once
        self.reason = ""
        self.detail_row: int | None = None  # the row the detail pane shows
        self.last_search: bytes = b""
        self.search_text = ""
        self.analysing = False
        self.reanalyse = False
        self.indexing = False
        # --follow: one analysis for the whole session, fed only the rows each growth adds.
        self.collector: FactsCollector | None = None

    # -- layout ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield SessionHeader(id="session")
        with Vertical(id="main"):
            with Vertical(id="lists"):
                yield Static(header_text(), id="columns")
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
        header = self.index.header
        command = " ".join(header.command) or "(no command recorded)"
        self.header_widget.set(
            session=escape_text(f"{self.index.path.name} — {command}"),
            status="indexing…",
            verdict="verdict: pending",
            reason="",
        )
        self.messages.focus()
        self.start_indexing()
        if self.follow:
            self.set_interval(self.poll, self._poll_growth)

    # -- indexing and analysis workers ------------------------------------------------------------
    def start_indexing(self) -> None:
        self.indexing = True
        self._index_worker()

    @work(thread=True, group="index", exit_on_error=False)
    def _index_worker(self) -> None:
        worker = get_current_worker()

        def progress(rows: int, scanned: int, size: int) -> None:
            if not worker.is_cancelled:
                self.call_from_thread(self._on_scan_progress, rows, scanned, size)

        try:
            added = self.index.scan(
                final=not self.follow, progress=progress, cancelled=lambda: worker.is_cancelled
            )
        except MCPTapeError as exc:
            self.call_from_thread(self._on_error, str(exc))
            return
        if not worker.is_cancelled:
            self.call_from_thread(self._on_scanned, added)

    def _on_scan_progress(self, rows: int, scanned: int, size: int) -> None:
        self.messages.sync_size()
        if self.stderr_pane:
            self.stderr_list.sync_size()
        if scanned < size:
            percent = 100 * scanned // max(size, 1)
            self.header_widget.set(status=f"indexing {percent}% · {rows:,} rows")

    def _on_scanned(self, added: int) -> None:
        self.indexing = False
        self.messages.sync_size()
        self._show_columns()  # the row number column widens past 999,999 rows
        self.header_widget.set(status=self._status_line())
        if self.messages.current_row is not None and self.detail.detail is None:
            self._show_detail(self.messages.current_row)
        if added or self.model.facts is None:
            self.start_analysis()

    def _on_error(self, message: str) -> None:
        self.indexing = False
        self.header_widget.set(status=f"error: {message}", verdict_style="bold red")

    def start_analysis(self) -> None:
        if self.analysing:
            self.reanalyse = True
            return
        self.analysing = True
        self._analysis_worker()

    @work(thread=True, group="analysis", exit_on_error=False)
    def _analysis_worker(self) -> None:
        worker = get_current_worker()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] > 0.2 and not worker.is_cancelled:
                last[0] = now
                self.call_from_thread(self._on_analysis_progress, done, total)

        def first_line(finding: Finding) -> None:
            if not worker.is_cancelled:
                self.call_from_thread(self._on_first_line, finding)

        if self.follow:
            if self.collector is None:
                self.collector = FactsCollector(first_line=self._first_line_from_thread)
            facts = self.collector.collect(
                self.index, progress=progress, cancelled=lambda: worker.is_cancelled
            )
        else:
            facts = collect_facts(
                self.index, progress=progress, cancelled=lambda: worker.is_cancelled, first_line=first_line
            )
        if facts is not None and not worker.is_cancelled:
            self.call_from_thread(self._on_facts, facts)

    def _first_line_from_thread(self, finding: Finding) -> None:
        if self.is_running:
            self.call_from_thread(self._on_first_line, finding)

    def _on_first_line(self, finding: Finding) -> None:
        """The first bad line is known before the check ends: go there now (unless the user moved)."""
        if self.placed or self.messages.user_moved or finding.event < 0:
            return
        rule = finding.rule
        what = "first non-protocol line" if rule.startswith("non-protocol") else f"first bad line ({rule})"
        self.reason = f"cursor: {what} — {safe_text(finding.message)} (still checking…)"
        self.messages.select_row(finding.event)
        self.header_widget.set(reason=self.reason)

    def _on_analysis_progress(self, done: int, total: int) -> None:
        self.header_widget.set(verdict=f"checking {100 * done // max(total, 1)}%")

    def _on_facts(self, facts: RowFacts) -> None:
        self.analysing = False
        self.model.set_facts(facts)
        self._apply_filters(keep_row=self.messages.current_row, center=False)  # the user's scroll stays
        self.messages.invalidate()
        self.stderr_list.invalidate()
        self._show_verdict(facts)
        if not self.placed:
            self._place_cursor(facts)
        shown = self._focused_list().current_row
        if shown is not None:
            self._show_detail(shown)
        self.header_widget.set(status=self._status_line(), reason=self.reason)
        if self.reanalyse:
            self.reanalyse = False
            self.start_analysis()

    def _poll_growth(self) -> None:
        if not self.indexing:
            self.start_indexing()

    # -- header ----------------------------------------------------------------------------------------
    def _status_line(self) -> str:
        return status_line(self.index, self.model.facts, follow=self.follow)

    def _show_verdict(self, facts: RowFacts) -> None:
        text, style = verdict(facts)
        self.header_widget.set(verdict=text, verdict_style=style)

    def _place_cursor(self, facts: RowFacts) -> None:
        """First non-protocol line, else first finding, else the first row; say why in the header.

        With --follow the cursor goes on to the first non-protocol line written later (until the
        user moves it), but never chases a finding that may be resolved by the next rows.
        """
        if self.messages.user_moved:
            self.placed = True
            self.reason = "cursor left where you put it"
            return
        row, self.reason = landing(facts)
        bad_line = first_non_protocol_row(facts) is not None
        self.placed = bad_line or not self.follow
        if self.landed and not bad_line and row is not None:
            row = None
            self.reason = "no non-protocol line so far (] goes to the findings); following"
        self.landed = True
        if row is not None:
            self.messages.select_row(row)

    # -- detail ------------------------------------------------------------------------------------
    def on_message_list_highlighted(self, event: MessageList.Highlighted) -> None:
        if event.source is not self._focused_list():
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
                self.detail.show(None, "no row matches the filters (c, m, f change them)")

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

    # -- navigation --------------------------------------------------------------------------------
    def _focused_list(self) -> MessageList:
        focused = self.focused
        return focused if isinstance(focused, MessageList) else self.messages

    def _go(self, row: int) -> None:
        """Move the cursor of the main list to `row`, dropping filters that hide it."""
        target = self.messages
        if self.stderr_pane and self.model.facts is not None and self.model.facts.channel_of(row) == "err":
            target = self.stderr_list
        if not target.view.contains(row):
            self.channel_filter = 0
            self.method_filter = None
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
            self.call_from_thread(self._on_search_result, needle, row)

    def _on_search_result(self, needle: bytes, row: int | None) -> None:
        if row is None:
            self.notify(f"not found: {escape(needle, 60)}", severity="warning")
            return
        self._go(row)

    # -- help --------------------------------------------------------------------------------------
    def action_help(self) -> None:
        self.push_screen(HelpScreen(binding_rows(self), ROW_STYLES, example="finding.next"))
