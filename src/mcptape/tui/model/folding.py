"""Listing an HTTP transcript by exchange: which exchanges are open, the list built folded
(`foldview.fold`), and the row that stands for each exchange (`exchangerow.exchange_info`).

The main list of an HTTP transcript is listed by exchange unless a channel, method, tool or findings
filter is on (a filter lists the rows that pass it, one by one) or the user asked for the list by
record (`z`). A jump or a landing on a row folded into its exchange opens that exchange.
"""

from __future__ import annotations

from typing import Protocol

from mcptape.transcript.index import LRU, TranscriptIndex
from mcptape.tui.model import rows as K
from mcptape.tui.model.exchange import Exchanges
from mcptape.tui.model.exchangerow import exchange_info
from mcptape.tui.model.foldview import FoldedView, fold
from mcptape.tui.model.rowfacts import CHANNEL_CODE, KIND_CODE, RowFacts
from mcptape.tui.model.rows import RowInfo


class ViewerModel(Protocol):
    """What this reads of the viewer's model (`viewer.ViewerModel`)."""

    http: bool
    newline_pieces: set[int]
    facts: RowFacts | None
    exchanges: Exchanges
    index: TranscriptIndex

    def describe(self, row: int) -> RowInfo: ...


_MESSAGES = (CHANNEL_CODE["in"], CHANNEL_CODE["out"])
_WIRE = KIND_CODE[K.WIRE]
_ERR = CHANNEL_CODE["err"]


class Folding:
    """The by-exchange state of one viewer model."""

    def __init__(self, model: ViewerModel) -> None:
        self.model = model
        self.by_exchange = model.http  # `z` switches to the list by record and back
        self.opened: set[int] = set()  # the exchanges listed with their messages
        self.folded: FoldedView | None = None  # the main list, when it is listed by exchange
        self.rows: LRU[tuple[int, bool], RowInfo] = LRU(256)  # exchange rows drawn lately

    def build(self, facts: RowFacts, *, exclude_stderr: bool, plain: bool) -> FoldedView | None:
        """The main list by exchange (None: it is listed by record)."""
        self.folded = None
        if not (self.by_exchange and plain and facts.exchanges is not None):
            return None
        members = {x: self.members(x) for x in self.opened}
        self.folded = fold(
            facts.order.rows(facts.rows),
            facts.rows,
            facts.exchanges.of_row,
            members,
            self.opened,
            self.model.newline_pieces,
            facts.channel,
            _ERR if exclude_stderr else -1,
        )
        return self.folded

    def head_of(self, row: int) -> int | None:
        """The exchange `row` stands for in the list by exchange (None: a row like any other)."""
        folded = self.folded
        if folded is None or row >= len(folded.of_row):
            return None
        x = folded.of_row[row]
        return x if x and folded.heads.get(x) == row else None

    def exchange_row(self, row: int, x: int) -> RowInfo:
        model = self.model
        opened = x in self.opened
        found = self.rows.get((x, opened))
        if found is None and model.facts is not None:
            found = exchange_info(
                row,
                x,
                opened=opened,
                facts=model.facts,
                exchanges=model.exchanges,
                index=model.index,
                describe=model.describe,
            )
            self.rows.put((x, opened), found)
        return found if found is not None else model.describe(row)

    def open_for(self, row: int | None) -> bool:
        """Open the folded exchange `row` is listed under once opened (a jump, a landing): true when
        the list must be built again."""
        folded, facts = self.folded, self.model.facts
        if row is None or folded is None or facts is None or folded.contains(row) or row >= facts.rows:
            return False
        x = folded.of_row[row] if row < len(folded.of_row) else 0
        if not x or x in self.opened or row not in self.members(x):
            return False
        self.opened.add(x)
        return True

    def toggle(self, row: int | None) -> int | None:
        """Open or close the exchange of `row` (its own row, or a row it lists): the row to keep the
        cursor on (None: `row` is no exchange's, or the list is by record)."""
        folded = self.folded
        if folded is None or row is None or row >= len(folded.of_row) or not folded.of_row[row]:
            return None
        x = folded.of_row[row]
        if x in self.opened:
            self.opened.discard(x)
            return folded.heads.get(x, row)
        self.opened.add(x)
        return row

    def members(self, x: int) -> list[int]:
        """The rows an opened exchange lists under its own: its messages, and any other row a
        finding (or something worse than a raw record) marks; in time order."""
        facts = self.model.facts
        if facts is None or facts.exchanges is None:
            return []
        chan, kind, order = facts.channel, facts.kind, facts.order
        found = [r for r in facts.exchanges.rows(x) if chan[r] in _MESSAGES or kind[r] > _WIRE]
        return sorted(found, key=order.position_of)
