"""An HTTP transcript listed by exchange: one row per exchange, which opens into what it carried.

The check pass indexed the rows of every exchange (`wirerows.ExchangeRows`). Listed by exchange, each
exchange is one row (its first row in time order: the request's head), and its other rows are hidden
until it is opened; then they follow it, in time order: the messages it carried (the request, the
JSON answer or each SSE event's message) and any raw record a finding points at. The raw records
themselves are shown by the `raw HTTP` channel filter, or listed by record (`z`). Rows that belong
to no exchange (the server's stdout and stderr, eof, exit) are listed as ever.

Memory: the list (4 bytes a row shown) and where each row is shown (4 bytes a row); building it costs
one pass over the rows in time order, for HTTP transcripts only.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterator

from mcptape.tui.model.rowview import RowView

HIDDEN = -1


class FoldedView(RowView):
    """Positions of the list mapped to rows, exchanges folded (`RowView`'s interface)."""

    def __init__(
        self, rows: array[int], where: array[int], heads: dict[int, int], of_row: array[int]
    ) -> None:
        super().__init__(lambda: len(rows))
        self.rows = rows
        self.where = where  # per row: its position, or HIDDEN
        self.heads = heads  # exchange -> the row that stands for it
        self.of_row = of_row  # per row: its exchange (0: none)
        self.shown = rows  # a selection of the rows (`filtered`)

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, position: int) -> int:
        return self.rows[position]

    def position(self, row: int) -> int:
        """Where `row` is shown; a row folded into its exchange: where the exchange is; any other
        row: the nearest shown row before it in time order (the first row when none)."""
        if not self.rows:
            return 0
        where = self.where[row] if 0 <= row < len(self.where) else HIDDEN
        if where != HIDDEN:
            return where
        x = self.of_row[row] if row < len(self.of_row) else 0
        head = self.heads.get(x) if x else None
        if head is not None and self.where[head] != HIDDEN:
            return self.where[head]
        for earlier in range(min(row, len(self.where)) - 1, -1, -1):  # a hidden newline piece, stderr
            if self.where[earlier] != HIDDEN:
                return self.where[earlier]
        return 0

    def contains(self, row: int) -> bool:
        return 0 <= row < len(self.where) and self.where[row] != HIDDEN


def fold(
    order: Iterator[int],
    total: int,
    of_row: array[int],
    members: dict[int, list[int]],
    opened: Collection[int],
    skip: Collection[int],
    channel: bytearray,
    skip_channel: int = -1,
) -> FoldedView:
    """The list by exchange: `order` gives every row in time order, `of_row` each row's exchange,
    `members[x]` the rows an opened exchange shows under its own (in time order), `skip` rows listed
    nowhere (a newline written apart), nor those of `skip_channel` (stderr in its own pane)."""
    rows = array("i")
    where = array("i", [HIDDEN]) * total
    heads: dict[int, int] = {}
    known = len(of_row)
    for r in order:
        if r in skip or channel[r] == skip_channel:
            continue
        x = of_row[r] if r < known else 0
        if x:
            if x in heads:
                continue
            heads[x] = r
            if x in opened:
                where[r] = len(rows)
                rows.append(r)
                for m in members.get(x, ()):
                    if m != r and m not in skip:
                        where[m] = len(rows)
                        rows.append(m)
                continue
        where[r] = len(rows)
        rows.append(r)
    return FoldedView(rows, where, heads, of_row)
