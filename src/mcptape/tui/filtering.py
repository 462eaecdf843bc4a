"""The viewer's filters: by channel, by method, by tool name, to findings, and stderr in a pane
of its own.

Every filter works on the check core's per-row results (`RowFacts`), so it is available once the
check has run; the list keeps the cursor on the same transcript row when a filter changes.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App
from textual.widgets import Static

from mcptape.textsafe import escape_text
from mcptape.tui.model.filters import Filters
from mcptape.tui.model.rows import header_text, layout_for
from mcptape.tui.model.viewer import ViewerModel
from mcptape.tui.screens.prompt import PromptScreen
from mcptape.tui.widgets.message_list import MessageList

CHANNEL_FILTERS: list[tuple[str, frozenset[str] | None]] = [
    ("all channels", None),
    ("protocol (in+out)", frozenset({"in", "out"})),
    ("stdout", frozenset({"out"})),
    ("stdin", frozenset({"in"})),
    ("stderr", frozenset({"err"})),
    ("executor (exec+http)", frozenset({"exec", "http"})),
]
# An HTTP transcript (`record --http-upstream`): its messages, their raw exchanges, the server's own output.
HTTP_CHANNEL_FILTERS: list[tuple[str, frozenset[str] | None]] = [
    ("all channels", None),
    ("protocol (in+out)", frozenset({"in", "out"})),
    ("raw HTTP (http-in+http-out)", frozenset({"http-in", "http-out"})),
    ("out: server to client", frozenset({"out"})),
    ("in: client to server", frozenset({"in"})),
    ("the server's stdout and stderr", frozenset({"stdout", "err"})),
    ("executor (exec+http)", frozenset({"exec", "http"})),
]


class FilterActions(App[None]):
    """The filter state and the actions the filter keys run (the base of `ViewerApp`)."""

    def __init__(self, model: ViewerModel) -> None:
        super().__init__()
        self.model = model
        self.channel_filters = HTTP_CHANNEL_FILTERS if model.http else CHANNEL_FILTERS
        self.channel_filter = 0
        self.method_filter: str | None = None
        self.tool_filter: str | None = None
        self.findings_filter = 0  # 0 off, 1 all findings, 2.. one rule each
        self.finding_rule: str | None = None  # that rule, by name (--follow adds and drops rules)
        self.stderr_pane = False
        self.anchor_row: int | None = None

    @property
    def messages(self) -> MessageList:
        return self.query_one("#messages", MessageList)

    @property
    def stderr_list(self) -> MessageList:
        return self.query_one("#stderr", MessageList)

    # -- filters -----------------------------------------------------------------------------------
    def _row_filters(self, *, stderr: bool = False) -> Filters:
        if stderr:
            return Filters(only_stderr=True)
        rule = self.finding_rule if self.findings_filter >= 2 else None
        return Filters(
            channels=self.channel_filters[self.channel_filter][1],
            method=self.method_filter,
            tool=self.tool_filter,
            finding_rule=rule,
            findings_only=self.findings_filter > 0,
            exclude_stderr=self.stderr_pane,
        )

    def _finding_rules(self) -> list[str]:
        facts = self.model.facts
        if facts is None or facts.analysis is None:
            return []
        return sorted({f.rule for f in facts.analysis.findings})

    def _apply_filters(self, keep_row: int | None, *, center: bool = True) -> None:
        if keep_row is None:  # the list was empty: back to the row shown before it emptied
            keep_row = self.anchor_row
        self.anchor_row = keep_row
        self.model.folding.open_for(keep_row)  # a row folded into its exchange: open the exchange
        self.messages.set_view(self.model.build_view(self._row_filters()), keep_row, center=center)
        if self.stderr_pane:
            stderr_view = self.model.build_view(self._row_filters(stderr=True))
            self.stderr_list.set_view(stderr_view, self.stderr_list.current_row, center=center)
        self._show_columns()

    def _show_columns(self) -> None:
        """The column header, laid out for the list's width, and the active filters."""
        labels = []
        if self.channel_filter:
            labels.append(self.channel_filters[self.channel_filter][0])
        if self.method_filter:
            labels.append(f"method {escape_text(self.method_filter)}")
        if self.tool_filter:
            labels.append(f"tool {escape_text(self.tool_filter)}")
        if self.findings_filter == 1:
            labels.append("findings only")
        elif self.findings_filter >= 2:
            labels.append(f"finding {self.finding_rule}")
        width = self.messages.scrollable_content_region.width
        columns = Text(header_text(layout_for(width, len(self.model.index), http=self.model.http)))
        if labels:
            columns.append(f"   [filter: {'; '.join(labels)}]", style="bold yellow")
        elif self.model.folding.folded is not None:
            columns.append("  [by exchange: enter opens, z by record]", style="dim")
        self.query_one("#columns", Static).update(columns)

    def on_message_list_resized(self, event: MessageList.Resized) -> None:
        if event.source is self.messages:
            self._show_columns()

    def _need_facts(self, what: str) -> bool:
        if self.model.facts is None:
            self.notify(f"{what} is available once the check has run", severity="warning")
            return False
        return True

    def action_cycle_channel(self) -> None:
        if not self._need_facts("the channel filter"):
            return
        self.channel_filter = (self.channel_filter + 1) % len(self.channel_filters)
        self._apply_filters(keep_row=self.messages.current_row)

    def action_filter_findings(self) -> None:
        if not self._need_facts("the findings filter"):
            return
        rules = self._finding_rules()
        if self.findings_filter >= 2 and self.finding_rule in rules:  # rules may have come since
            self.findings_filter = 2 + rules.index(self.finding_rule)
        self.findings_filter = (self.findings_filter + 1) % (2 + len(rules))
        self.finding_rule = rules[self.findings_filter - 2] if self.findings_filter >= 2 else None
        if self.findings_filter == 1 and not rules:
            self.findings_filter = 0
            self.notify("no findings in this transcript")
        self._apply_filters(keep_row=self.messages.current_row)

    def action_filter_method(self) -> None:
        if not self._need_facts("the method filter"):
            return
        assert self.model.facts is not None
        methods = ", ".join(self.model.facts.seen(self.model.facts.methods))
        hint = f"a method, or the start of one (tools) · empty clears · seen: {escape_text(methods)}"
        self.push_screen(PromptScreen("filter by method", hint, self.method_filter or ""), self._on_method)

    def _on_method(self, text: str | None) -> None:
        if text is None:
            return
        self.method_filter = text.strip() or None
        self._apply_filters(keep_row=self.messages.current_row)

    def action_filter_tool(self) -> None:
        if not self._need_facts("the tool filter"):
            return
        assert self.model.facts is not None
        tools = ", ".join(self.model.facts.seen(self.model.facts.tools))
        hint = f"a tool name, or part of one · empty clears · seen: {escape_text(tools) or '(no tools/call)'}"
        self.push_screen(PromptScreen("filter by tool name", hint, self.tool_filter or ""), self._on_tool)

    def _on_tool(self, text: str | None) -> None:
        if text is None:
            return
        self.tool_filter = text.strip() or None
        self._apply_filters(keep_row=self.messages.current_row)

    def reveal(self, row: int) -> None:
        """Before the cursor goes to `row`: open the exchange it is folded into."""
        if self.model.folding.open_for(row):
            self._apply_filters(keep_row=row, center=False)

    def action_toggle_exchange(self) -> None:
        """Open or close the HTTP exchange under the cursor (listed by exchange)."""
        if not self.model.http:
            self.notify("not an HTTP transcript: rows are not grouped by exchange")
            return
        if self.model.folding.folded is None:
            self.notify("listed by record: z lists by exchange (a filter lists rows one by one)")
            return
        keep = self.model.folding.toggle(self.messages.current_row)
        if keep is None:
            self.notify("this row belongs to no HTTP exchange")
            return
        self.messages.user_moved = True
        self._apply_filters(keep_row=keep, center=False)

    def action_by_exchange(self) -> None:
        """List an HTTP transcript by exchange or by record."""
        if not self.model.http:
            self.notify("not an HTTP transcript: rows are not grouped by exchange")
            return
        folding = self.model.folding
        folding.by_exchange = not folding.by_exchange
        self._apply_filters(keep_row=self.messages.current_row)
        self.notify("listed by exchange" if folding.by_exchange else "listed by record")

    def action_toggle_stderr(self) -> None:
        if not self._need_facts("the stderr pane"):
            return
        self.stderr_pane = not self.stderr_pane
        self.stderr_list.set_class(not self.stderr_pane, "hidden")
        self._apply_filters(keep_row=self.messages.current_row)
