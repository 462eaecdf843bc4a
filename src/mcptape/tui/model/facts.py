"""One analysis pass over a transcript's rows for the viewer: `collect_facts`, `FactsCollector`.

`collect_facts` reads every row once, feeds the decoded events to the check core's streaming
`Analyzer`, and records its verdicts per row through the callbacks into a `RowFacts`
(`rowfacts.py`): which rows are non-protocol, rejected, executor calls, executor calls after a
reject, which rows findings point at, which rows pair up and with what latency (and `tools-drift`,
as `check` adds it: `surfacewatch.py`); and, in the same pass, the rows' time order (`order.py`).
It decides nothing itself. It runs in a worker thread.

For a transcript still being written (`view --follow`), a `FactsCollector` keeps one analyzer for
the whole session and feeds it only the rows added since its last pass; each pass returns a
finished copy of the state (the live analyzer keeps its reorder buffer and open requests for the
rows still to come), so following a long session costs the new rows, not the whole file again.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from mcptape.check.model import Finding
from mcptape.transcript.events import WIRE_CHANNELS
from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.reader import BadLine, read_line
from mcptape.tui.model import rows as K
from mcptape.tui.model.order import OrderBuilder
from mcptape.tui.model.rowfacts import CHANNEL_CODE, KIND_CODE, OTHER_CHANNEL, RowFacts
from mcptape.tui.model.surfacewatch import SurfaceWatch, add_surface_findings, both

if TYPE_CHECKING:
    from mcptape.check.analyze import Analyzer

TAGGED = WIRE_CHANNELS | {"in", "out"}  # the channels whose records an HTTP transcript tags with `x`
_CHUNK = 2048


def collect_facts(
    index: TranscriptIndex,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    first_line: Callable[[Finding], None] | None = None,
) -> RowFacts | None:
    """One pass over the rows indexed so far through the check core (None when cancelled).

    `first_line(finding)` is called as soon as the first line-level finding is known, long before
    the pass ends on a large file (the viewer moves its cursor there at once).
    """
    return FactsCollector(first_line).collect(index, progress=progress, cancelled=cancelled, final=True)


class FactsCollector:
    """One analysis that follows a growing index: each `collect` feeds only the rows added since."""

    def __init__(self, first_line: Callable[[Finding], None] | None = None) -> None:
        from mcptape.check.analyze import Analyzer

        self._first_line = first_line
        self.facts = RowFacts(0, first_line=self._first_line_once if first_line is not None else None)
        self.surface = SurfaceWatch()  # watched as `mcptape check` does (`tools-drift`)
        self.analyzer: Analyzer = Analyzer(
            on_message=both(self.facts.on_message, self.surface.feed),
            on_exec=self.facts.on_exec,
            on_finding=self.facts.on_finding,
            on_pair=self.facts.on_pair,
            on_reject=self.facts.on_reject,
        )
        self.fed = 0  # rows given to the analyzer so far
        self.order = OrderBuilder()  # and to the time order, alike
        self.finished = False
        self._lock = threading.Lock()  # one pass at a time (a newer pass waits for a cancelled one)

    def _first_line_once(self, finding: Finding) -> None:
        """The caller hears of the first bad line once, whether a snapshot or the live pass saw it."""
        first_line, self._first_line = self._first_line, None
        if first_line is not None:
            first_line(finding)

    def collect(
        self,
        index: TranscriptIndex,
        *,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        final: bool = False,
    ) -> RowFacts | None:
        """Feed the rows indexed since the last call; return the facts of rows 0..len(index)-1
        with the analysis finished (None when cancelled: the next call goes on from there).

        With `final` the live analysis itself is finished (no row will follow); otherwise a copy
        is, and the live one waits for more rows. Passes from several threads run one at a time.
        """
        with self._lock:
            return self._collect(index, progress=progress, cancelled=cancelled, final=final)

    def _collect(
        self,
        index: TranscriptIndex,
        *,
        progress: Callable[[int, int], None] | None,
        cancelled: Callable[[], bool] | None,
        final: bool,
    ) -> RowFacts | None:
        if self.finished:
            raise RuntimeError("this analysis was finished: no row can follow")
        facts = self.facts
        total = len(index)
        facts.grow(total)
        if not self._feed(index, total, progress, cancelled):
            return None
        if final:
            self.finished = True
            facts.finish(
                add_surface_findings(self.analyzer.finish(), facts.on_finding, self.surface),
                self.order.freeze(),
            )
            return facts
        return self._snapshot()

    def _feed(
        self,
        index: TranscriptIndex,
        total: int,
        progress: Callable[[int, int], None] | None,
        cancelled: Callable[[], bool] | None,
    ) -> bool:
        """Read rows `fed`..`total`-1, mark what the record alone says (an unreadable line, stderr,
        a control record, HTTP bytes, the channel, the exchange) and feed each event to the
        analyzer and the time order; False when cancelled between chunks. One loop with its
        lookups in locals, no call per row but the reader's, the order's and the analyzer's."""
        facts = self.facts
        channel = facts.channel
        codes = CHANNEL_CODE
        badline = KIND_CODE[K.BADLINE]
        stderr = KIND_CODE[K.STDERR]
        control = KIND_CODE[K.CONTROL]
        wire = KIND_CODE[K.WIRE]
        feed = self.analyzer.feed
        order, unreadable = self.order.add, self.order.add_unreadable
        while self.fed < total:
            if cancelled is not None and cancelled():
                return False
            start = self.fed
            for row, raw in enumerate(index.read_rows(start, min(total, start + _CHUNK)), start):
                self.fed = row + 1
                event = read_line(raw, row)
                if isinstance(event, BadLine):
                    facts.kind[row] = badline
                    unreadable(row)
                    continue
                ch = event.ch
                order(row, event.t, event.stream)
                channel[row] = codes.get(ch, OTHER_CHANNEL)
                if ch == "err":
                    facts.kind[row] = stderr
                elif ch in ("eof", "exit", "note"):
                    facts.kind[row] = control
                elif ch in WIRE_CHANNELS:
                    facts.kind[row] = wire
                fields = event.fields  # None on a stdio transcript's bytes: one comparison a row
                if fields is not None and ch in TAGGED:
                    x = fields.get("x")
                    if type(x) is int:
                        facts.tag(row, x)
                feed(event)
            if progress is not None:
                progress(self.fed, total)
        return True

    def _snapshot(self) -> RowFacts:
        """The facts so far, finished apart from the live analysis (which waits for more rows).

        The facts' containers are copied by hand, their findings shared (frozen); the analysis so
        far is finished on a copy of the analyzer, whose callbacks fill that copy of the facts."""
        snapshot = self.facts.copy()
        surface = copy.deepcopy(self.surface)  # the listings still in the reorder buffer feed the copy
        analysis = self.analyzer.snapshot(
            on_message=both(snapshot.on_message, surface.feed),
            on_exec=snapshot.on_exec,
            on_finding=snapshot.on_finding,
            on_pair=snapshot.on_pair,
            on_reject=snapshot.on_reject,
        )
        snapshot.finish(add_surface_findings(analysis, snapshot.on_finding, surface), self.order.freeze())
        return snapshot
