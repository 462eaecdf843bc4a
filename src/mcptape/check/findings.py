"""Findings are built here, in one place, and kept in a bounded list.

`finding(rule, ...)` is the one constructor: the severity comes from the rule registry, every other
field is named. `Findings` keeps the first `limit` of a session (the rest counted, errors apart)
and tells the `on_finding` callback about each one as it is found.
"""

from __future__ import annotations

from mcptape.check.model import (
    CLIENT,
    IN,
    SERVER,
    Analysis,
    At,
    Callbacks,
    Finding,
    Frame,
    Ref,
    RequestId,
    Severity,
)
from mcptape.check.rules import RULES


def finding(
    rule: str,
    *,
    channel: str,
    line: int,
    offset: int,
    raw: bytes,
    message: str,
    request_id: RequestId | None = None,
    t: float | None = None,
    event: int = -1,
    related: tuple[Ref, ...] = (),
    severity: Severity | None = None,
    party: str | None = None,
) -> Finding:
    """A finding of `rule` at a line of `channel`. Its severity is the registry's unless given; its
    party too, else the sender of the line it points at (the client for `in`, the server for `out`
    and for the executor's `exec`/`http`)."""
    known = RULES[rule]
    who = party or known.party or (CLIENT if channel == IN else SERVER)
    return Finding(
        rule,
        severity or known.severity,
        channel,
        line,
        offset,
        raw,
        message,
        request_id,
        t,
        event,
        related,
        who,
    )


def finding_at(
    rule: str,
    at: At,
    message: str,
    request_id: RequestId | None = None,
    *,
    related: tuple[Ref, ...] = (),
    severity: Severity | None = None,
) -> Finding:
    """A finding of `rule` at the line `at` (see `finding`); its raw bytes are built here, only for
    a finding, never per line."""
    return finding(
        rule,
        channel=at.channel,
        line=at.line,
        offset=at.offset,
        raw=at.body,
        message=message,
        request_id=request_id,
        t=at.t,
        event=at.event,
        related=related,
        severity=severity,
    )


def frame_ref(role: str, frame: Frame) -> Ref:
    """A pointer to a frame, for a finding's `related` list."""
    return Ref(role, frame.channel, frame.line, frame.offset, frame.body, frame.event)


class Findings:
    """The findings of one analysis: the first `limit` kept in `analysis.findings`, the others
    counted; `on_finding` hears of every one."""

    __slots__ = ("analysis", "callbacks", "limit")

    def __init__(self, analysis: Analysis, callbacks: Callbacks, limit: int = 10_000) -> None:
        self.analysis = analysis
        self.callbacks = callbacks
        self.limit = limit

    def add(self, found: Finding) -> None:
        on_finding = self.callbacks.get("on_finding")
        if on_finding is not None:
            on_finding(found)
        analysis = self.analysis
        if len(analysis.findings) < self.limit:
            analysis.findings.append(found)
        else:
            analysis.findings_truncated += 1
            if found.severity is Severity.ERROR:
                analysis.errors_truncated += 1
