"""Which rows a list shows: its `Filters`, and the rows of the analysed transcript that pass them."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from mcptape.tui.model.rowfacts import CHANNEL_CODE, RowFacts
from mcptape.tui.model.rowview import RowView


@dataclass(frozen=True)
class Filters:
    """Which rows a list shows: every active filter must pass."""

    channels: frozenset[str] | None = None
    method: str | None = None
    tool: str | None = None
    finding_rule: str | None = None
    findings_only: bool = False
    exclude_stderr: bool = False
    only_stderr: bool = False

    @property
    def active(self) -> bool:
        return bool(
            self.channels
            or self.method
            or self.tool
            or self.findings_only
            or self.exclude_stderr
            or self.only_stderr
        )


def filtered_view(facts: RowFacts, filters: Filters, total: Callable[[], int], hidden: set[int]) -> RowView:
    """The rows that pass every active filter (all rows when none is active), in time order; never
    a `hidden` row (a newline piece, shown on its line's first row). One loop over the candidates,
    no call per row."""
    order = facts.order
    if not filters.active and not hidden:
        return RowView(total, order=order)
    finding_rule = filters.finding_rule
    if filters.findings_only:
        candidates: Iterable[tuple[int, int]] = [
            (pos, r)
            for pos, r in zip(facts.finding_positions, facts.finding_rows, strict=True)
            if finding_rule is None or any(f.rule == finding_rule for f in facts.findings[r])
        ]
    else:
        candidates = enumerate(order.rows(facts.rows))
    chan = facts.channel
    allowed: set[int] | None = None
    if filters.channels:
        allowed = {CHANNEL_CODE[c] for c in filters.channels if c in CHANNEL_CODE}
    err = CHANNEL_CODE["err"]
    if filters.only_stderr:
        allowed = {err}
    exclude_stderr = filters.exclude_stderr
    wanted = facts.codes_matching(filters.method, filters.tool)
    shown = array("i")
    append = shown.append
    codes = facts.method
    for pos, r in candidates:
        if r in hidden:
            continue
        c = chan[r]
        if allowed is not None and c not in allowed:
            continue
        if exclude_stderr and c == err:
            continue
        if wanted is not None and codes[r] not in wanted:
            continue
        append(pos)
    return RowView(total, shown, order)
