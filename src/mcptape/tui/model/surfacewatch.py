"""The tool surface, watched during the viewer's check pass as `mcptape check` watches it.

`mcptape check` feeds every message to `surface.findings.SessionSurface` and adds its findings
(`tools-drift`: a listing that changed mid-session) to the analysis (`commands/check.py`). The
viewer's check pass does the same here, so its verdict is `check`'s. The surface package (jsonschema,
referencing: 0.4 s to import) is imported by the check pass's thread with the first message, never
before the first screen is drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mcptape.check.findings import Findings
from mcptape.check.model import Analysis, Callbacks, Finding, Message
from mcptape.check.rules import TOOLS_DRIFT

if TYPE_CHECKING:
    from mcptape.surface.findings import SessionSurface


class SurfaceWatch:
    """A `SessionSurface` made with the first message it is fed."""

    __slots__ = ("session",)

    def __init__(self) -> None:
        self.session: SessionSurface | None = None

    def feed(self, message: Message) -> None:
        session = self.session
        if session is None:
            from mcptape.surface.findings import SessionSurface

            session = self.session = SessionSurface()
        session.feed(message)

    def findings(self) -> list[Finding]:
        return [] if self.session is None else self.session.findings()[0]


def both(first: Callable[[Message], None], second: Callable[[Message], None]) -> Callable[[Message], None]:
    """One `on_message` callback calling two."""

    def call(message: Message) -> None:
        first(message)
        second(message)

    return call


def add_surface_findings(
    analysis: Analysis, on_finding: Callable[[Finding], None], watch: SurfaceWatch
) -> Analysis:
    """The surface's findings join the analysis (and the per-row results, through `on_finding`),
    unless the check core already made them; the analysis is returned."""
    if any(f.rule == TOOLS_DRIFT for f in analysis.findings):
        return analysis
    findings = Findings(analysis, Callbacks(on_finding=on_finding))
    for one in watch.findings():
        findings.add(one)
    return analysis
