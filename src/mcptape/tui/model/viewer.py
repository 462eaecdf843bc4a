"""What the viewer shows for a row: the index's bytes plus the check core's verdicts, escaped.

The model asks the check core (`classify_line`) about the rows on screen only, and reads the
per-row results of the full analysis (`RowFacts`) once the background pass has finished.
"""

from __future__ import annotations

from mcptape.check.classify import classify_line
from mcptape.check.model import Finding, Kind, Message
from mcptape.check.rules import TOOLS_DRIFT
from mcptape.jsonsafe import dumps
from mcptape.textsafe import escape
from mcptape.transcript.events import BYTE_CHANNELS, WIRE_CHANNELS, Event
from mcptape.transcript.index import LRU, TranscriptIndex
from mcptape.transcript.reader import BadLine
from mcptape.tui.model import rows as K
from mcptape.tui.model.detail import Detail
from mcptape.tui.model.essence import essence
from mcptape.tui.model.exchange import Exchanges, exchange_of
from mcptape.tui.model.filters import Filters as Filters  # re-exported: tests import it from here
from mcptape.tui.model.filters import filtered_view
from mcptape.tui.model.folding import Folding
from mcptape.tui.model.rowfacts import RowFacts
from mcptape.tui.model.rows import RowInfo, layout_for, row_text
from mcptape.tui.model.rowview import RowView
from mcptape.tui.model.surfaceview import drift_view, tools_table

PREVIEW = 240
# How a finding and the lines it names are drawn in the detail pane, by severity: info is dimmed.
SEVERITY_STYLES = {"error": ("bold red", "red"), "warning": ("bold yellow", "yellow"), "info": ("dim", "dim")}
_NO_MESSAGE = object()


class ViewerModel:
    """One open transcript as the widgets see it."""

    def __init__(self, index: TranscriptIndex) -> None:
        self.index = index
        self.facts: RowFacts | None = None
        self._messages: LRU[int, object] = LRU(4096)
        self.exchanges = Exchanges(index)
        self.http = "http" in index.header.extra
        """An HTTP transcript (`record --http-upstream`): rows name their exchange."""
        self.newline_pieces: set[int] = set()
        """Rows that only end a line begun on an earlier row (a server that wrote its newline
        apart): not shown as rows of their own; the line's first row has their bytes."""
        self._pieces_seen: set[int] = set()
        self.folding = Folding(self)
        """An HTTP transcript is listed by exchange (`folding.py`; `z` lists it by record)."""

    @property
    def version(self) -> str | None:
        if self.facts is None or self.facts.analysis is None:
            return None
        return self.facts.analysis.protocol_version

    def set_facts(self, facts: RowFacts) -> None:
        self.facts = facts
        self._messages.clear()
        self.folding.rows.clear()
        self.exchanges.set_facts(facts)
        for row in facts.frame_start.keys() - self._pieces_seen:
            self._pieces_seen.add(row)
            start, end = self.index.span(row)
            if end - start > 128:  # a record holding more than a newline
                continue
            event = self.index.event(row)
            if isinstance(event, Event) and event.data in (b"\n", b"\r\n"):
                self.newline_pieces.add(row)

    def shown_row(self, row: int) -> int:
        """The row that shows `row`: the line's first row for a newline piece, else itself."""
        if row in self.newline_pieces and self.facts is not None:
            return self.facts.frame_start.get(row, row)
        return row

    # -- per row -----------------------------------------------------------------------------------
    def frame_bytes(self, row: int, event: Event) -> bytes:
        """The bytes of the frame starting at `row` (several events when a line came in pieces)."""
        facts = self.facts
        if facts is not None and row in facts.frame_rows:
            parts = []
            for r in facts.frame_rows[row]:
                ev = self.index.event(r)
                if isinstance(ev, Event):
                    parts.append(ev.data)
            return b"".join(parts)
        return event.data

    def message(self, row: int) -> Message | None:
        """The check core's classification of an `in`/`out` row (None for other rows, fragments)."""
        cached = self._messages.get(row)
        if cached is not None:
            return None if cached is _NO_MESSAGE else cached  # type: ignore[return-value]
        event = self.index.event(row)
        result: Message | None = None
        fragment = self.facts is not None and row in self.facts.frame_start
        if isinstance(event, Event) and event.ch in ("in", "out") and not fragment:
            result = classify_line(self.frame_bytes(row, event), event.ch, self.version)
        weight = 0 if result is None else 3 * len(result.frame.raw)  # the bytes, and what parsed from them
        self._messages.put(row, _NO_MESSAGE if result is None else result, weight)
        return result

    def label(self, row: int, message: Message | None) -> str:
        method = message.method if message is not None else None
        if not method and self.facts is not None:
            method = self.facts.method_of(row) or None
        parts = []
        if method:
            parts.append(method)
        if message is not None and message.id is not None:
            parts.append(f"#{message.id}")
        return escape(" ".join(parts).encode("utf-8", "surrogatepass"))  # a method "\\ud800" is valid JSON

    def kind(self, row: int, event: Event | BadLine, message: Message | None) -> str:
        if self.facts is not None and row < self.facts.rows:
            return self.facts.kind_of(row)
        if isinstance(event, BadLine):
            return K.BADLINE
        if event.ch == "err":
            return K.STDERR
        if event.ch in ("exec", "http"):
            return K.EXEC
        if event.ch in WIRE_CHANNELS:
            return K.WIRE
        if event.ch not in BYTE_CHANNELS:
            return K.CONTROL
        if message is None:
            return K.PENDING
        if message.kind is Kind.NON_PROTOCOL:
            return K.NONPROTOCOL
        if message.rule is not None:
            return K.FINDING
        if message.kind is Kind.ERROR_RESPONSE:
            return K.REJECT
        return K.PROTOCOL

    def status(self, row: int, kind: str, message: Message | None, event: Event | None = None) -> str:
        facts = self.facts
        findings = facts.findings.get(row) if facts is not None else None
        if findings:
            more = f" +{len(findings) - 1}" if len(findings) > 1 else ""
            return findings[0].rule + more
        if kind == K.EXEC_AFTER_REJECT:
            return "EXEC AFTER REJECT"
        if facts is not None and row in facts.frame_start:
            return f"(part of row {facts.frame_start[row] + 1})"
        if message is not None:
            return message.rule or message.kind.value
        x = None if event is None or event.ch not in WIRE_CHANNELS else exchange_of(event)
        if x is not None and event is not None:
            return self.exchanges.piece(row, event.ch, x)
        return {K.EXEC: "executor call", K.STDERR: "stderr", K.CONTROL: "", K.BADLINE: "bad line"}.get(
            kind, ""
        )

    def describe(self, row: int) -> RowInfo:
        event = self.index.event(row)
        if isinstance(event, BadLine):
            preview = escape(event.raw, PREVIEW)
            return RowInfo(row, None, "?", len(event.raw), preview, status="bad line", kind=K.BADLINE)
        message = self.message(row)
        kind = self.kind(row, event, message)
        said = None if message is None else essence(message, self._method_answered(row, message))
        if said is not None:
            preview = said
        elif _carries_bytes(event):
            preview = escape(event.data, PREVIEW)
        else:
            preview = escape(dumps(event.fields or {}).encode(), PREVIEW)
        latency = self._latency(row, event)
        x = exchange_of(event)
        exchange, exchange_short = ("", "") if x is None else self.exchanges.cells(x)
        return RowInfo(
            row=row,
            t=event.t,
            ch=escape(event.ch.encode("utf-8", "surrogatepass"), 8),
            size=event.size,
            preview=preview,
            label=self.label(row, message),
            latency="" if latency is None else _ms(latency),
            status=self.status(row, kind, message, event),
            kind=kind,
            exchange=exchange,
            exchange_short=exchange_short,
        )

    def _method_answered(self, row: int, message: Message) -> str | None:
        """The method a row's message is about: its own, or (a response) its request's."""
        if message.method:
            return message.method
        return (self.facts.method_of(row) or None) if self.facts is not None else None

    def _latency(self, row: int, event: Event) -> float | None:
        """For a response: its time minus its request's (the pair is the check core's)."""
        facts = self.facts
        partner = facts.pair_of(row) if facts is not None else None
        if partner is None or facts is None or not facts.is_response(row):
            return None
        request = self.index.event(partner)
        return event.t - request.t if isinstance(request, Event) else None

    def line(self, row: int, width: int) -> tuple[str, str]:
        """A row as the message list draws it `width` cells wide: its text and its kind."""
        x = self.folding.head_of(row)
        info = self.describe(row) if x is None else self.folding.exchange_row(row, x)
        return row_text(info, layout_for(width, len(self.index), http=self.http)), info.kind

    def detail(self, row: int) -> Detail:
        info = self.describe(row)
        event = self.index.event(row)
        if isinstance(event, BadLine):
            return Detail(
                title=f"row {row + 1} · not a transcript event",
                raw=event.raw,
                notes=[("bold red", event.reason)],
            )
        title = f"row {row + 1} · {event.ch} · t={event.t:.6f}s · {info.kind}"
        if info.label:
            title += f" · {info.label}"
        notes: list[tuple[str, str]] = []
        findings = self.facts.findings.get(row, []) if self.facts is not None else []
        for finding in findings:
            where = f"{finding.channel} line {finding.line}, byte {finding.offset}"
            style, related = SEVERITY_STYLES.get(finding.severity.value, ("bold red", "red"))
            notes.append((style, f"{finding.rule} ({where}): {finding.message}"))
            for ref in finding.related:
                at = f"row {ref.event + 1}, " if ref.event >= 0 else ""
                shown = escape(ref.raw, 160)
                notes.append((related, f"  {ref.role}: {at}{ref.channel} line {ref.line}: {shown}"))
        message = self.message(row)
        if message is not None and message.problem and not findings:
            notes.append(("yellow", message.problem))
        exchange = exchange_of(event)
        if exchange is not None:  # an HTTP transcript: the exchange's heads and the messages it carried
            notes.extend(self.exchanges.notes(row, exchange, self.describe))
        pretty = None
        if message is not None and message.value is not None:
            pretty = dumps(message.value, indent=True)  # any depth (jsonsafe)
        raw = event.data if _carries_bytes(event) else dumps(event.fields or {}).encode()
        detail = Detail(title=title, raw=raw, notes=notes, pretty=pretty)
        partner = self.facts.pair_of(row) if self.facts is not None else None
        self._surface(row, message, partner, findings, detail)
        if partner is not None:
            other = self.describe(partner)
            what = "request" if self.facts is not None and self.facts.is_response(row) else "response"
            detail.pair_title = f"{what}: row {partner + 1} · {other.ch} · {other.label} · {other.status}"
            if other.latency:
                detail.pair_title += f" · latency {other.latency}"
            pair_event = self.index.event(partner)
            if isinstance(pair_event, Event):
                detail.pair_raw = pair_event.data
        return detail

    def _surface(
        self, row: int, message: Message | None, partner: int | None, findings: list[Finding], detail: Detail
    ) -> None:
        """A tools/list answer's table of tools; a drift finding's two listings side by side."""
        facts = self.facts
        if message is None or facts is None or not facts.is_response(row):
            return
        request = None if partner is None else self.message(partner)
        if facts.method_of(row) == "tools/list":
            detail.tools = tools_table(request, message)
        for finding in findings:
            earlier = next((r.event for r in finding.related if r.role == "earlier listing"), -1)
            if finding.rule != TOOLS_DRIFT or earlier < 0:
                continue
            before = self.message(earlier)
            asked = facts.pair_of(earlier)
            if before is not None:
                old = (None if asked is None else self.message(asked), before)
                view = drift_view(old, (request, message), (earlier, row))
                if view is not None:
                    detail.drift.append(view)

    # -- filters -----------------------------------------------------------------------------------
    def build_view(self, filters: Filters) -> RowView:
        """The rows that pass every active filter (all rows when none is active), in time order."""
        total = self.index.__len__
        facts = self.facts
        if facts is None:
            return RowView(total)
        if not filters.only_stderr:  # the main list (the stderr pane is never folded)
            plain = not (filters.channels or filters.method or filters.tool or filters.findings_only)
            folded = self.folding.build(facts, exclude_stderr=filters.exclude_stderr, plain=plain)
            if folded is not None:
                return folded
        return filtered_view(facts, filters, total, self.newline_pieces)


def _carries_bytes(event: Event) -> bool:
    """A byte channel, or any event with `data`/`b64` (a channel this version does not know)."""
    return event.ch in BYTE_CHANNELS or event.text is not None or event.raw is not None


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    if ms < 10:
        return f"{ms:.2f}ms"
    if ms < 10_000:
        return f"{ms:.0f}ms"
    return f"{seconds:.0f}s"
