"""Where the viewer puts the cursor on its own, and why, until the user moves it.

One small state machine instead of flags on the app: `WAITING` (nothing placed yet), `FOLLOWING`
(`view --follow` only: placed, but a first non-protocol line written later still takes the
cursor), `SETTLED` (the viewer never moves the cursor again). The app hands it what the workers
found (the first bad line, early; then each finished analysis) and whether the user moved the
cursor; it answers with a `Move`: the row to go to, if any, and the sentence the header shows.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from mcptape.check.model import Finding
from mcptape.check.report import HTTP_FRAME_RULES
from mcptape.tui.model.rowfacts import RowFacts
from mcptape.tui.model.safe import safe_text
from mcptape.tui.model.summary import first_non_protocol_row, landing


class Stage(enum.Enum):
    WAITING = "waiting"
    FOLLOWING = "following"
    SETTLED = "settled"


class Move(NamedTuple):
    """Where the cursor goes (None: it stays) and the header's sentence for it."""

    row: int | None
    reason: str


class Landing:
    """The cursor's own moves: the first bad line as soon as it is known, then the landing rule
    (`summary.landing`) once the check has run."""

    def __init__(self, *, follow: bool = False) -> None:
        self.follow = follow
        self.stage = Stage.WAITING

    def first_line(self, finding: Finding, *, user_moved: bool) -> Move | None:
        """The check core's first line-level finding, long before its pass ends: go there now."""
        if self.stage is Stage.SETTLED or user_moved or finding.event < 0:
            return None
        rule = finding.rule
        if rule.startswith("non-protocol"):
            what = "first non-protocol line"
        elif rule in HTTP_FRAME_RULES:
            what = f"first non-protocol bytes on {finding.channel} ({rule})"
        else:
            what = f"first bad line ({rule})"
        return Move(finding.event, f"cursor: {what} — {safe_text(finding.message)} (still checking…)")

    def checked(self, facts: RowFacts, *, user_moved: bool) -> Move | None:
        """A finished analysis: the first non-protocol line, else the first finding, else row 1.

        With --follow the cursor goes on to the first non-protocol line written later (until the
        user moves it), but never chases a finding that the next rows may resolve.
        """
        if self.stage is Stage.SETTLED:
            return None
        if user_moved:
            self.stage = Stage.SETTLED
            return Move(None, "cursor left where you put it")
        row, reason = landing(facts)
        bad_line = first_non_protocol_row(facts) is not None
        if self.stage is Stage.FOLLOWING and not bad_line and row is not None:
            row = None
            reason = "no non-protocol line so far (] goes to the findings); following"
        self.stage = Stage.SETTLED if bad_line or not self.follow else Stage.FOLLOWING
        return Move(row, reason)
