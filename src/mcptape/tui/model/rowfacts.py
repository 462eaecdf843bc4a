"""What the check core said about each row, kept compactly (a few bytes per row): `RowFacts`.

One byte per row for its kind (`rows.KINDS`, the most alarming it was given) and its channel, a
partner row for a pair, a code per (method, tool), the findings of the rows they point at, the
fragments of a frame that came in pieces and an HTTP transcript's exchanges. The check core's
callbacks fill it (`on_message`, `on_finding`, ...) during the pass `facts.py` runs; the viewer
queries it. It decides nothing itself.
"""

from __future__ import annotations

import copy
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from mcptape.check.model import Analysis, ExecCall, Finding, Kind, Message, Severity
from mcptape.check.report import HTTP_FRAME_RULES
from mcptape.check.rules import EXEC_AFTER_REJECT, FRAME_RULES
from mcptape.tui.model import rows as K
from mcptape.tui.model.order import IDENTITY, RowOrder
from mcptape.tui.model.wirerows import ExchangeRows

CHANNELS = ("", "in", "out", "err", "exec", "http", "eof", "exit", "note", "http-in", "http-out", "stdout")
CHANNEL_CODE = {name: code for code, name in enumerate(CHANNELS)}
OTHER_CHANNEL = len(CHANNELS)
KIND_CODE = {name: code for code, name in enumerate(K.KINDS)}
FIRST_LINE_RULES = FRAME_RULES | HTTP_FRAME_RULES  # a line, or an HTTP message, that is not protocol


@dataclass
class RowFacts:
    """Per-row results of one analysis pass over rows 0..rows-1."""

    rows: int
    analysis: Analysis | None = None
    kind: bytearray = field(default_factory=bytearray)
    channel: bytearray = field(default_factory=bytearray)
    pair: array[int] = field(default_factory=lambda: array("i"))
    method: array[int] = field(default_factory=lambda: array("H"))
    methods: list[str] = field(default_factory=lambda: [""])
    """By code (`method`): the method of the rows with that code ..."""
    tools: list[str] = field(default_factory=lambda: [""])
    """... and the tool a `tools/call` names ("" for other methods): a code per (method, tool)."""
    findings: dict[int, list[Finding]] = field(default_factory=dict)
    finding_rows: list[int] = field(default_factory=list)
    """The rows findings point at, in display (time) order."""
    finding_positions: list[int] = field(default_factory=list)
    """Where each of `finding_rows` is shown."""
    order: RowOrder = IDENTITY
    """Where each row is shown: time order (`order.py`)."""
    frame_start: dict[int, int] = field(default_factory=dict)
    """For rows that are a later fragment of a multi-event frame: the frame's first row."""
    frame_rows: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """For the first row of a multi-event frame: every row of that frame."""
    _codes: dict[tuple[str, str], int] = field(default_factory=dict)
    first_line: Callable[[Finding], None] | None = None
    """Called once, during the pass, with the first frame-level finding (the first bad line)."""
    exchanges: ExchangeRows | None = None
    """An HTTP transcript's exchanges: the rows of each (None until a record names one)."""

    def __post_init__(self) -> None:
        n, self.rows = self.rows, 0
        if not self.kind:
            self.grow(n)

    def grow(self, rows: int) -> None:
        """Make room for rows up to `rows` (new rows are pending until the analysis reaches them)."""
        more = rows - self.rows
        if more <= 0:
            return
        self.kind += bytearray([KIND_CODE[K.PENDING]]) * more
        self.channel += bytearray(more)
        self.pair += array("i", [-1]) * more
        self.method += array("H", [0]) * more
        if self.exchanges is not None:
            self.exchanges.grow(rows)
        self.rows = rows

    def copy(self) -> RowFacts:
        """A copy that can be filled apart from this one (findings are frozen: shared, not copied)."""
        snap = copy.copy(self)
        snap.kind, snap.channel = self.kind[:], self.channel[:]
        snap.pair, snap.method = self.pair[:], self.method[:]
        snap.methods, snap.tools, snap._codes = self.methods[:], self.tools[:], dict(self._codes)
        snap.findings = {row: found[:] for row, found in self.findings.items()}
        snap.finding_rows, snap.finding_positions = self.finding_rows[:], self.finding_positions[:]
        snap.frame_start, snap.frame_rows = dict(self.frame_start), dict(self.frame_rows)
        snap.exchanges = self.exchanges.copy() if self.exchanges is not None else None
        return snap

    # -- queries -------------------------------------------------------------------------------------
    def kind_of(self, row: int) -> str:
        return K.KINDS[self.kind[row]] if row < self.rows else K.PENDING

    def channel_of(self, row: int) -> str:
        code = self.channel[row] if row < self.rows else 0
        return CHANNELS[code] if code < len(CHANNELS) else "?"

    def pair_of(self, row: int) -> int | None:
        if row >= self.rows:
            return None
        partner = self.pair[row]
        if partner == -1:
            return None
        return partner if partner >= 0 else -partner - 2

    def is_response(self, row: int) -> bool:
        """Whether `row` is the answer of its pair (a response may come first in the file: the
        recorder's threads write each channel's records as they come)."""
        return row < self.rows and self.pair[row] < -1

    def method_of(self, row: int) -> str:
        return self.methods[self.method[row]] if row < self.rows else ""

    def tool_of(self, row: int) -> str:
        """The tool a `tools/call` request (or its response) names; "" for other rows."""
        return self.tools[self.method[row]] if row < self.rows else ""

    def seen(self, names: list[str], limit: int = 20) -> list[str]:
        """The first `limit` distinct names of `methods` or `tools` (for a prompt's hint)."""
        return list(dict.fromkeys(name for name in names if name))[:limit]

    def codes_matching(self, method: str | None, tool: str | None) -> set[int] | None:
        """The codes of rows whose method begins with `method` and whose tool name contains
        `tool` (None for either: any); None when neither is given."""
        if method is None and tool is None:
            return None
        return {
            code
            for code in range(1, len(self.methods))
            if (method is None or self.methods[code].startswith(method))
            and (tool is None or tool in self.tools[code])
        }

    def next_finding(self, row: int, direction: int) -> int | None:
        """The next (direction 1) or previous (-1) row a finding points at, in display order,
        wrapping around (`row` -1: from the top)."""
        rows, positions = self.finding_rows, self.finding_positions
        if not rows:
            return None
        pos = -1 if row < 0 else self.order.position_of(row)
        if direction > 0:
            i = bisect_right(positions, pos)
            return rows[i] if i < len(rows) else rows[0]
        i = bisect_left(positions, pos) - 1
        return rows[i] if i >= 0 else rows[-1]

    # -- filling (called by the check core's callbacks) -----------------------------------------------
    def tag(self, row: int, x: int) -> None:
        """Row `row` belongs to HTTP exchange `x` (its record's `x`)."""
        if self.exchanges is None:
            self.exchanges = ExchangeRows(self.rows)
        self.exchanges.add(row, x)

    def _raise_kind(self, row: int, kind: str) -> None:
        """Keep the most alarming kind a row has been given."""
        if 0 <= row < self.rows:
            code = KIND_CODE[kind]
            if code > self.kind[row]:
                self.kind[row] = code

    def on_message(self, message: Message) -> None:
        events = message.frame.events
        if not events:
            return
        first = events[0]
        if len(events) > 1:
            self.frame_rows[first] = events
            for later in events[1:]:
                self.frame_start[later] = first
        if message.kind is Kind.NON_PROTOCOL:
            kind = K.NONPROTOCOL
        elif message.rule is not None:
            kind = K.FINDING
        elif message.kind is Kind.ERROR_RESPONSE:
            kind = K.REJECT
        else:
            kind = K.PROTOCOL
        if message.method and 0 <= first < self.rows:
            self.method[first] = self._code(message.method, _tool_name(message))
        for row in events:
            self._raise_kind(row, kind)

    def on_exec(self, call: ExecCall) -> None:
        for row in call.frame.events:
            self._raise_kind(row, K.EXEC)

    def on_finding(self, finding: Finding) -> None:
        row = finding.event
        if self.first_line is not None and finding.rule in FIRST_LINE_RULES:
            first_line, self.first_line = self.first_line, None
            first_line(finding)
        # the action rows a finding names (executor or HTTP lines: a promise a tool broke, an action
        # that ran twice) are marked next to its call, in the alarming action style unless it is info
        actions = [ref.event for ref in finding.related if ref.role in ("exec", "http") and ref.event != row]
        if finding.rule == EXEC_AFTER_REJECT:
            for target in [row, *actions]:
                self._raise_kind(target, K.EXEC_AFTER_REJECT)
        else:  # an info finding is worth seeing, not a fault: its row is dimmed, not alarming
            self._raise_kind(row, K.INFO if finding.severity is Severity.INFO else K.FINDING)
            if finding.severity is not Severity.INFO:
                own = [row] if finding.channel in ("exec", "http") else []
                for target in [*own, *actions]:
                    self._raise_kind(target, K.EXEC_AFTER_REJECT)
            for target in actions:  # the list names the finding on those rows too
                if 0 <= target < self.rows:
                    self.findings.setdefault(target, []).append(finding)
        if 0 <= row < self.rows:
            self.findings.setdefault(row, []).append(finding)

    def on_reject(self, response_row: int, why: str) -> None:
        """An answer that rejects its request (an error, `isError: true`, a schema violation): every
        row of it, when it came in pieces."""
        for row in self.frame_rows.get(response_row, (response_row,)):
            self._raise_kind(row, K.REJECT)

    def on_pair(self, request_row: int, response_row: int, latency: float) -> None:
        """A request and its response (the latency is shown as the difference of their times)."""
        if 0 <= request_row < self.rows and 0 <= response_row < self.rows:
            self.pair[request_row] = response_row
            self.pair[response_row] = -request_row - 2  # negative: this row is the response
            self.method[response_row] = self.method[request_row]

    def _code(self, method: str, tool: str) -> int:
        code = self._codes.get((method, tool))
        if code is None:
            if len(self.methods) >= 0xFFFF:
                return 0
            code = self._codes[(method, tool)] = len(self.methods)
            self.methods.append(method)
            self.tools.append(tool)
        return code

    def finish(self, analysis: Analysis, order: RowOrder = IDENTITY) -> None:
        self.analysis = analysis
        self.order = order
        placed = sorted((order.position_of(row), row) for row in self.findings)
        self.finding_positions = [pos for pos, _ in placed]
        self.finding_rows = [row for _, row in placed]


TOOL_NAME_KEPT = 200  # characters of a tool name kept for the filter (a hostile name can be huge)


def _tool_name(message: Message) -> str:
    """The tool a `tools/call` request names ("" for anything else)."""
    if message.kind is not Kind.REQUEST or message.method != "tools/call":
        return ""
    value = message.value
    params = value.get("params") if isinstance(value, dict) else None
    name = params.get("name") if isinstance(params, dict) else None
    return name[:TOOL_NAME_KEPT] if isinstance(name, str) else ""
