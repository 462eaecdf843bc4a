"""Which rows each HTTP exchange holds, kept while the check pass reads the rows (HTTP transcripts only).

An HTTP transcript tags its records (`http-in`, `http-out`, and the messages on `in`/`out`) with
their exchange's number `x`. The check pass hands each tagged row here: per row its exchange (4
bytes), per exchange its first and last row. An exchange's rows are then found by scanning its span
of the per-row array in C (`array.index`), never by decoding the file again. A stdio transcript
never makes one of these.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator

MAX_JUMP = 4096
"""Exchanges are numbered from 1 as requests arrive; a number further than this past the highest
seen so far is not indexed (a damaged or hostile file could name exchange 2**31 on its first row)."""


class ExchangeRows:
    """Per row the exchange it belongs to (0: none); per exchange its first and last row."""

    def __init__(self, rows: int = 0) -> None:
        self.of_row = array("i", [0]) * rows
        self.first = array("i", [-1])  # by exchange number (index 0 unused)
        self.last = array("i", [-1])

    def grow(self, rows: int) -> None:
        more = rows - len(self.of_row)
        if more > 0:
            self.of_row += array("i", [0]) * more

    def add(self, row: int, x: int) -> None:
        """Row `row` (fed in increasing order) belongs to exchange `x`."""
        if x <= 0 or x >= len(self.first) + MAX_JUMP or not 0 <= row < len(self.of_row):
            return
        if x >= len(self.first):
            more = x + 1 - len(self.first)
            self.first += array("i", [-1]) * more
            self.last += array("i", [-1]) * more
        self.of_row[row] = x
        if self.first[x] < 0:
            self.first[x] = row
        self.last[x] = row

    def copy(self) -> ExchangeRows:
        twin = ExchangeRows()
        twin.of_row, twin.first, twin.last = self.of_row[:], self.first[:], self.last[:]
        return twin

    @property
    def count(self) -> int:
        """The highest exchange number indexed."""
        return len(self.first) - 1

    def exchange_of(self, row: int) -> int:
        """The exchange of `row` (0: none, or not indexed)."""
        return self.of_row[row] if 0 <= row < len(self.of_row) else 0

    def rows(self, x: int) -> Iterator[int]:
        """The rows of exchange `x`, in file order."""
        if not 0 < x < len(self.first) or self.first[x] < 0:
            return
        pos, stop, of_row = self.first[x], self.last[x] + 1, self.of_row
        while pos < stop:
            try:
                found = of_row.index(x, pos, stop)
            except ValueError:
                return
            yield found
            pos = found + 1
