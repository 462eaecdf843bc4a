"""Rows in time order: a small permutation of the file's order, kept for the rows that need it.

The recorder's per-channel threads append their records as they come, so a few records land in the
file a little after records that are younger (a response can be written above its request). The
list shows rows sorted by time the way the check core reads them: a record's time, never earlier
than the previous record of its own stream (a channel's or an HTTP exchange's own order is exact:
`Event.stream`), ties in file order.
A row keeps its number (its event index: every line after the header counts); only where it is
shown changes.

`OrderBuilder` is fed every row once, in file order, by the check pass. Almost every row is the
youngest so far and goes to the end (one comparison). A row older than the youngest is moved up,
within a bounded window of the last `WINDOW` rows, to just after the last row not younger than it;
it is then shown in the group of rows placed just before an unmoved row, its anchor. Only moved
rows are remembered, so a file in time order costs nothing. `RowOrder` is a frozen copy for the
screen: positions and rows both ways, in O(log moved rows).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from itertools import chain, islice

WINDOW = 2048
"""Rows back a late row may move (the check core keeps as many back for records written late)."""

_MASK = WINDOW - 1  # WINDOW is a power of two: a row's slot in the ring of recent keys


class RowOrder:
    """Where each row is shown: identity but for the moved rows (frozen; safe to share)."""

    def __init__(self, groups: dict[int, list[int]] | None = None) -> None:
        groups = groups or {}
        self.moved: dict[int, tuple[int, int]] = {}  # moved row -> (its anchor, index in the group)
        self._anchors = array("q")  # anchor rows, ascending
        self._group_pos = array("q")  # the display position of each anchor's group
        self._groups: list[list[int]] = []
        self._run_rows = array("q", [0])  # runs of unmoved rows: the first row,
        self._run_pos = array("q", [0])  # its display position,
        self._run_len = array("q", [-1])  # and how many (-1: the last run, which never ends)
        if not groups:
            return
        for anchor, members in groups.items():
            for i, row in enumerate(members):
                self.moved[row] = (anchor, i)
        self._run_rows, self._run_pos, self._run_len = array("q"), array("q"), array("q")
        pos = cur = 0
        for b in sorted(groups.keys() | self.moved.keys()):
            if b > cur:
                self._add_run(cur, pos, b - cur)
                pos += b - cur
                cur = b
            if b in groups:  # an anchor: its group, then (from `cur`) the anchor itself
                self._anchors.append(b)
                self._group_pos.append(pos)
                self._groups.append(groups[b])
                pos += len(groups[b])
            else:  # a moved row: not shown at its own place
                cur = b + 1
        self._add_run(cur, pos, -1)

    def _add_run(self, row: int, pos: int, length: int) -> None:
        self._run_rows.append(row)
        self._run_pos.append(pos)
        self._run_len.append(length)

    @property
    def identity(self) -> bool:
        """No row moved: position = row."""
        return not self.moved

    def position_of(self, row: int) -> int:
        """Where `row` is shown (0-based)."""
        if not self.moved:
            return row
        where = self.moved.get(row)
        if where is not None:
            anchor, i = where
            return self._group_pos[bisect_right(self._anchors, anchor) - 1] + i
        r = bisect_right(self._run_rows, row) - 1
        return self._run_pos[r] + row - self._run_rows[r]

    def row_at(self, position: int) -> int:
        """The row shown at `position`."""
        if not self.moved:
            return position
        g = bisect_right(self._group_pos, position) - 1
        if g >= 0 and position < self._group_pos[g] + len(self._groups[g]):
            return self._groups[g][position - self._group_pos[g]]
        r = bisect_right(self._run_pos, position) - 1
        return self._run_rows[r] + position - self._run_pos[r]

    def rows(self, count: int) -> Iterator[int]:
        """The rows shown at positions 0..count-1, in that order."""
        if not self.moved:
            return iter(range(count))
        pieces: list[Iterable[int]] = []
        g, groups = 0, len(self._groups)
        for r, start in enumerate(self._run_rows):
            pos = self._run_pos[r]
            while g < groups and self._group_pos[g] < pos:
                pieces.append(self._groups[g])
                g += 1
            length = self._run_len[r]
            pieces.append(range(start, start + (length if length >= 0 else max(0, count - pos))))
        pieces += self._groups[g:]
        return islice(chain.from_iterable(pieces), count)


IDENTITY = RowOrder()


class OrderBuilder:
    """Builds the time order while the check pass feeds it every row, in file order."""

    def __init__(self) -> None:
        self._keys = array("d", bytes(8 * WINDOW))  # the sort key of the last WINDOW rows, by row
        self._youngest = float("-inf")
        self._last_t: dict[str | int, float] = {}
        self._key = 0.0  # the previous row's key (an unreadable row sorts with the row above it)
        self.groups: dict[int, list[int]] = {}  # unmoved anchor -> moved rows shown just before it
        self._moved: dict[int, int] = {}  # moved row -> its anchor

    def add(self, row: int, t: float, stream: str | int) -> None:
        """Row `row` (the next one) was recorded at `t` on `stream` (`Event.stream`: its channel, or
        its HTTP exchange)."""
        if t >= self._youngest:  # the usual case: the youngest so far (so its stream's too)
            self._youngest = self._key = self._keys[row & _MASK] = self._last_t[stream] = t
            return
        last = self._last_t.get(stream)
        if last is not None and t < last:
            t = last  # a stream's own order is exact: never let a clock glitch reorder it
        else:
            self._last_t[stream] = t
        self._key = self._keys[row & _MASK] = t
        if t < self._youngest:
            self._move_up(row, t)

    def add_unreadable(self, row: int) -> None:
        """Row `row` is not an event: it sorts with the row above it."""
        key = self._keys[row & _MASK] = self._key
        if key >= self._youngest:
            self._youngest = key
        else:
            self._move_up(row, key)

    def _move_up(self, row: int, key: float) -> None:
        """Place a late row just after the last row (in display order) whose key is not larger,
        looking back at most WINDOW rows of the file."""
        keys, groups, moved = self._keys, self.groups, self._moved
        floor = max(0, row - WINDOW + 1)
        after_anchor = row + 1  # the unmoved row the late row will be shown before (row + 1: none yet)
        index = 0
        x = row - 1
        while x >= floor:
            if x in moved:
                x -= 1
                continue
            if keys[x & _MASK] <= key:  # x is not younger: the late row goes right after x
                break
            members = groups.get(x, ())
            for i in range(len(members) - 1, -1, -1):  # x's group, shown just before x, backwards
                member = members[i]
                if member < floor or keys[member & _MASK] <= key:
                    self._place(row, x, i + 1)
                    return
            after_anchor, index = x, 0
            x -= 1
        if after_anchor > row:  # nothing younger within reach: it stays where it is
            return
        self._place(row, after_anchor, index)

    def _place(self, row: int, anchor: int, index: int) -> None:
        self.groups.setdefault(anchor, []).insert(index, row)
        self._moved[row] = anchor

    def freeze(self) -> RowOrder:
        """The order of the rows fed so far, as the screen uses it."""
        if not self.groups:
            return IDENTITY
        return RowOrder({anchor: list(members) for anchor, members in self.groups.items()})
