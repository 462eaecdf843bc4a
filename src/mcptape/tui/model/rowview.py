"""Which rows the message list shows, in order: every row, or a filtered subset."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable


class RowView:
    """Positions 0..len-1 of the list mapped to transcript rows (sorted ascending)."""

    def __init__(self, total: Callable[[], int], rows: array[int] | None = None, label: str = "") -> None:
        self._total = total
        self.rows = rows
        self.label = label

    @property
    def filtered(self) -> bool:
        return self.rows is not None

    def __len__(self) -> int:
        return self._total() if self.rows is None else len(self.rows)

    def row(self, position: int) -> int:
        """The transcript row shown at `position`."""
        return position if self.rows is None else self.rows[position]

    def position(self, row: int) -> int:
        """The position of `row`, or of the first shown row after it (clamped to the last one)."""
        if self.rows is None:
            return min(row, max(0, self._total() - 1))
        pos = bisect_left(self.rows, row)
        return min(pos, max(0, len(self.rows) - 1))

    def contains(self, row: int) -> bool:
        if self.rows is None:
            return 0 <= row < self._total()
        pos = bisect_left(self.rows, row)
        return pos < len(self.rows) and self.rows[pos] == row
