"""The findings a broken promise gives: worded, located at the call or its action, one per call and rule.

`PromiseFindings` is the half of `check/promises.Promises` that speaks: `_at_action` (a finding at an
action's line), `_idempotent` and `_retried` (at the second request). The rules that decide are in
`promises.py`.
"""

from __future__ import annotations

from collections.abc import Callable

from mcptape.check import rules
from mcptape.check.evidence import Action, Call
from mcptape.check.findings import finding, frame_ref
from mcptape.check.model import CLIENT, IN, Finding, Ref, Severity


class PromiseFindings:
    """Builds and emits the promise rules' findings (see `Promises`)."""

    emit: Callable[[Finding], None]
    retried: set[int]

    def _idempotent(self, record: Call, previous: Call, act: Action) -> None:
        if not self._first(record, rules.HINT_IDEMPOTENT):
            return
        hints = record.hints
        assert hints is not None
        ref = record.request.ref()
        seen = previous.first
        related = (
            frame_ref(act.call.frame.channel, act.call.frame),
            previous.request.ref(role="first-request"),
            *((frame_ref(seen.frame.channel, seen.frame),) if seen is not None else ()),
            hints.where,
        )
        self.emit(
            finding(
                rules.HINT_IDEMPOTENT,
                channel=IN,
                line=ref.line,
                offset=ref.offset,
                raw=ref.raw,
                message=f"{record.describe()} repeats request {previous.rid!r} "
                f"(in line {previous.request.line}) with the same arguments and caused {act.what}, which "
                "that call did not; the tool declares "
                f"idempotentHint: true in tools/list ({self._where(hints.where)}): calling it again with the "
                "same arguments has no additional effect",
                request_id=record.rid,
                t=act.call.frame.t,
                event=ref.event,
                related=related,
            )
        )

    def _retried(self, first: Call, again: Call) -> None:
        """`first` was cancelled or never answered, `again` is the same call sent with a new id, and
        both ran an action: a warning for the client (info when the tool declares itself idempotent)."""
        self.retried.update((id(first), id(again)))
        hints = again.hints or first.hints
        idempotent = hints is not None and hints.idempotent is True and hints.read_only is not True
        a, b = first.first, again.first
        assert a is not None and b is not None
        if first.cancelled is not None:
            how = f"cancelled (notifications/cancelled, in line {first.cancelled.line})"
        else:
            how = "never answered (cancelled by the transport, or timed out)"
        why = (
            "the tool declares idempotentHint: true, so sending it again is allowed"
            if idempotent
            else "the tool does not declare idempotentHint: true, so the client re-sent a call that had "
            "already acted"
        )
        ref = again.request.ref()
        related = (
            first.request.ref(),
            frame_ref(a.frame.channel, a.frame),
            *((first.cancelled,) if first.cancelled is not None else ()),
            again.request.ref(role="retry"),
            frame_ref(b.frame.channel, b.frame),
        )
        self.emit(
            finding(
                rules.RAN_TWICE,
                channel=IN,
                line=ref.line,
                offset=ref.offset,
                raw=ref.raw,
                message=f"ran twice: {again.describe()} is request {first.rid!r} "
                f"(in line {first.request.line}) sent again with the same name and arguments after it was "
                f"{how}, and both ran: "
                f"{a.frame.channel} line {a.frame.line} for the first, {b.frame.channel} line {b.frame.line} "
                f"for the second; {why}",
                request_id=again.rid,
                t=again.request.t,
                event=ref.event,
                related=related,
                severity=Severity.INFO if idempotent else Severity.WARNING,
                party=CLIENT,
            )
        )

    def _at_action(
        self,
        record: Call,
        rule: str,
        act: Action,
        message: str,
        severity: Severity | None = None,
        extra: tuple[Ref, ...] = (),
    ) -> None:
        """A finding at the action's line (one per call and rule): the action, its request and the
        listing that made the promise."""
        if not self._first(record, rule):
            return
        frame = act.call.frame
        ref = frame_ref(frame.channel, frame)
        where = (
            record.hints.where if record.hints is not None and rule != rules.UNKNOWN_TOOL else record.unlisted
        )
        related = (ref, *extra, record.request.ref(), *((where,) if where is not None else ()))
        self.emit(
            finding(
                rule,
                channel=frame.channel,
                line=frame.line,
                offset=frame.offset,
                raw=frame.body,
                message=message,
                request_id=record.rid,
                t=frame.t,
                event=frame.event,
                related=related,
                severity=severity,
            )
        )

    @staticmethod
    def _first(record: Call, rule: str) -> bool:
        if record.flagged is None:
            record.flagged = set()
        if rule in record.flagged:
            return False
        record.flagged.add(rule)
        return True

    @staticmethod
    def _where(ref: Ref | None) -> str:
        return f"{ref.channel} line {ref.line}" if ref is not None else "not kept"
