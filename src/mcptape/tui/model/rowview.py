"""Which rows the message list shows, in order: every row, or a filtered subset, in time order."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable

from mcptape.tui.model.order import IDENTITY, RowOrder


class RowView:
    """Positions 0..len-1 of the list mapped to transcript rows.

    `order` says where each row is shown (time order); a filtered view keeps the display positions
    of the rows it shows (`shown`, ascending), so it keeps their order.
    """

    def __init__(
        self,
        total: Callable[[], int],
        shown: array[int] | None = None,
        order: RowOrder = IDENTITY,
    ) -> None:
        self._total = total
        self.shown = shown
        self.order = order

    @property
    def filtered(self) -> bool:
        return self.shown is not None

    def __len__(self) -> int:
        return self._total() if self.shown is None else len(self.shown)

    def row(self, position: int) -> int:
        """The transcript row shown at `position`."""
        return self.order.row_at(position if self.shown is None else self.shown[position])

    def position(self, row: int) -> int:
        """The position of `row`, or of the first shown row after it (clamped to the last one)."""
        where = self.order.position_of(row)
        if self.shown is None:
            return min(where, max(0, self._total() - 1))
        return min(bisect_left(self.shown, where), max(0, len(self.shown) - 1))

    def contains(self, row: int) -> bool:
        if self.shown is None:
            return 0 <= row < self._total()
        where = self.order.position_of(row)
        pos = bisect_left(self.shown, where)
        return pos < len(self.shown) and self.shown[pos] == where
