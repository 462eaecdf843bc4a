"""The verdict of one case, from the check core's analysis of its transcript and what the probe knows.

The check core says what every line is (`analyze_file`: classified messages, executor calls,
findings). The probe adds what only it knows: which `in` frame was the bad one (it carries the
case's marker), which ids that frame carried, and which request was the valid one sent after it.
An executor or HTTP call belongs to the bad frame when it names one of its ids or carries the
marker, or, naming nothing, when it happened between the bad frame and the valid request after it.

Verdicts: FAIL when the bad frame caused an action, was accepted (answered with a result), when the
valid request after it made more calls than a valid call alone or carried the marker, when stdout
held anything but protocol, when the server hung, or when a call of a tool that declares
`readOnlyHint: true` caused an action that may change state (the check core's `hint-read-only`
finding: "declared read-only but wrote"). A warning when the server dropped the bad
frame without a word (tolerant), accepted a well-formed but suspect frame (lenient cases: the
oversized line is a valid call, so running it is what a valid call does), or did not exit when
stdin closed.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.check import rules
from mcptape.check.attribution import named_value
from mcptape.check.model import EXECUTOR_CHANNELS, HTTP, IN, OUT, ExecCall, Finding
from mcptape.check.protocol import batches_allowed
from mcptape.check.rules import FRAME_RULES
from mcptape.probe.cases import INPUT, Case, title_for
from mcptape.probe.driver import same_id
from mcptape.probe.ledger import OneCall, owed_lines, token_of
from mcptape.probe.observed import AFTER_STEP, PING_STEP, Observed, Verdict
from mcptape.probe.seen import Read, Seen, answers, message_id, read, window
from mcptape.recorder.session import ExitStatus
from mcptape.textsafe import escape

SHOW = 120  # bytes of a raw line quoted in a reason
# Steps after the bad frame: a session that ends there closed on the reject (a good outcome).
AFTER_BAD = frozenset({PING_STEP, AFTER_STEP})
STDERR_KEPT = 8192  # bytes of the server's stderr kept for the report
WROTE = "declared read-only but wrote"  # a hint-read-only finding in a case's window
WENT_ON = "the session went on"  # a start case whose process other cases shared after it


@dataclass
class CaseResult:
    """One row of the report."""

    case: Case
    verdict: Verdict
    did: str
    reasons: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    transcript: Path | None = None
    seconds: float = 0.0
    exit: str | None = None
    executed: int = 0  # executor calls caused by the bad frame
    http: int = 0  # HTTP attempts caused by the bad frame
    baseline: int | None = None  # executor calls + HTTP attempts of one valid call (start case)
    baseline_unnamed: int | None = None  # of them, the lines that name no request
    marker: str | None = None
    ran: bool = True  # False: not run at all (see `not_run`)
    stderr: bytes = b""  # the first bytes the server wrote on stderr (the report's separate attachment)
    blocking: bool = False  # the clean start failed: the other cases cannot run
    title: str = ""  # the case's title with the request it used (default: the case's own)
    was: Verdict | None = None  # the verdict before the baseline accepted it (`accepted`)
    accepted: str | None = None  # the baseline's reason, when it accepts this case

    def __post_init__(self) -> None:
        self.title = self.title or self.case.title

    @property
    def failed(self) -> bool:
        return self.verdict is Verdict.FAIL


def not_run(case: Case, why: str) -> CaseResult:
    """A case the probe could not run (the clean start failed): a failure, counted apart."""
    return CaseResult(case, Verdict.FAIL, why, [why], ran=False, title=title_for(case, None))


def inconclusive(result: CaseResult, why: str) -> None:
    """Turn a pass or a warning into `inconclusive`: the valid request was refused too (`why`).

    A failure stays a failure: an action, an accepted frame, noise on stdout, a hang are real
    whatever the valid request did.
    """
    if result.ran and result.verdict in (Verdict.PASS, Verdict.WARN):
        result.verdict = Verdict.INCONCLUSIVE
        result.reasons.insert(0, f"inconclusive: {why}")


def call_names(call: ExecCall) -> Any:
    """The request id an executor line names (`request_id`, or `requestId`: the check core's
    lookup), of any type (the bad frames' ids include `true`), or None."""
    return named_value(call.value)


def exit_text(status: ExitStatus | None) -> str | None:
    if status is None:
        return None
    return f"signal {status.signal}" if status.signal is not None else f"exit {status.code}"


def judge(
    observed: Observed, baseline: OneCall | None, transcript: Read | None = None, also: Collection[Any] = ()
) -> CaseResult:
    """The verdict of one case (`baseline`: the lines one valid request makes, from the clean start;
    `transcript`: its transcript already read, when other cases share it; `also`: the ids of other
    requests in it that owe as much as a valid call, `windows.owing_ids`)."""
    seen, analysis = transcript if transcript is not None else read(observed.path)
    result = CaseResult(
        observed.case,
        Verdict.PASS,
        "",
        transcript=observed.path,
        seconds=observed.seconds,
        exit=exit_text(observed.status),
        marker=observed.marker,
        stderr=bytes(analysis.stderr.head[:STDERR_KEPT]),
        title=title_for(observed.case, observed.call),
    )
    start, end = window(observed, seen)
    owed = (
        owed_lines(seen.messages, seen.calls, observed.call, token_of(observed.marker), baseline, also)
        if observed.case.group == INPUT
        else set()
    )
    # A finding at a line that a valid call before this case owes (its late action) is not this case's.
    theirs = {(c.frame.channel, c.frame.line) for c in seen.calls if c.frame.event in owed}
    findings = [
        f for f in analysis.findings if start <= (f.t or 0.0) < end and (f.channel, f.line) not in theirs
    ]
    out_errors = [f for f in findings if f.channel == OUT and f.rule in FRAME_RULES]
    if out_errors:
        first = out_errors[0]
        result.reasons.append(f"stdout is not protocol-only: {first.message}: {escape(first.raw, SHOW)}")
    if observed.hung:
        result.reasons.append(f"hung: {observed.hung}")
    if observed.case.group == INPUT:
        flagged = _judge_input(observed, seen, result, baseline, end, owed)
    else:
        flagged = set()
        _judge_start(observed, seen, result, end)
    if out_errors:
        result.did = f"non-protocol bytes on stdout (out line {out_errors[0].line}); {result.did}"
    wrote = [f for f in findings if f.rule == rules.HINT_READ_ONLY]
    if wrote:
        # The check core's promise rule (check/promises.py): a call of a tool that says readOnlyHint
        # caused an action that may change state. The probe calls only such tools by default.
        result.reasons.append(f"{WROTE}: {wrote[0].message}")
        result.did = f"{result.did}; {WROTE} ({len(wrote)} call(s))"
    result.findings = [f for f in findings if f.rule != rules.EXEC_AFTER_REJECT or f.event in flagged]
    if observed.lingered is not None:
        result.reasons.append(
            f"warning: did not exit within {observed.lingered:.1f}s after stdin closed (terminated)"
        )
    fails = [r for r in result.reasons if not r.startswith("warning: ")]
    if fails:
        result.verdict = Verdict.FAIL
    elif result.verdict is not Verdict.NA and result.reasons:
        result.verdict = Verdict.WARN
    return result


def lenient_ids(observed: list[Observed]) -> list[Any]:
    """The ids of the lenient hard inputs (a well-formed valid call in a tolerated frame: padded):
    answered with a result, each ran as the valid call it is and owes what one makes (`ledger`)."""
    return [i for o in observed if o.case.lenient and o.bad is not None for i in o.bad.ids]


def _judge_start(observed: Observed, seen: Seen, result: CaseResult, end: float) -> None:
    """A start case, in its window (`end`: where the cases that share its process begin; its
    process's exit is theirs then)."""
    parts: list[str] = []
    if observed.discover is not None:
        parts.append(f"no stateless revision: {observed.discover}")
        if observed.discover.startswith("no answer"):
            result.reasons.append(f"warning: {observed.discover}")
    elif observed.case.discover and observed.stateless:
        parts.append("server/discover answered (2026-07-28)")
    elif observed.version:
        parts.append(f"handshake ok ({observed.version})")
    if observed.gone:
        result.reasons.append(f"the server ended the session before answering {observed.gone}")
        parts.append(f"ended the session before answering {observed.gone}")
    if observed.refused:
        result.reasons.append(observed.refused)
        parts.append("handshake refused")
    if observed.tools is not None:
        parts.append(f"{len(observed.tools)} tools")
    t_call = seen.first_in(lambda m: m.value is not None and same_id(message_id(m.value), observed.call_id))
    if t_call is not None and not observed.hung and not observed.gone:
        made = [c for c in seen.calls if t_call <= c.frame.t < end]
        result.baseline = len(made)
        result.baseline_unnamed = sum(1 for c in made if call_names(c) is None)
        name = observed.call.tool if observed.call is not None else None
        parts.append(f"{name or 'tools/list'} made {len(made)} executor/HTTP calls")
        if observed.tried:
            parts.append(f"refused before it: {', '.join(observed.tried)}")
        if observed.call_error and observed.case.id == "start":
            result.reasons.append(
                f"warning: the valid call {name} was refused ({observed.call_error}); the hard inputs "
                "built from it cannot be judged: give arguments it accepts with --tool NAME --args JSON, "
                "or --from TRANSCRIPT (a recorded session that called it)"
            )
    status = observed.status
    if (
        status is not None
        and (status.code not in (0, None) or status.signal is not None)
        and observed.lingered is None
    ):
        result.reasons.append(f"warning: the server exited with {exit_text(status)} after stdin closed")
    if observed.hung:
        parts.append(observed.hung)
    result.blocking = observed.case.id == "start" and bool(observed.hung or observed.gone or observed.refused)
    went_on = observed.until is not None and not (observed.hung or observed.gone)
    parts.append(WENT_ON if went_on else result.exit or "still running")
    result.did = "; ".join(parts)


def _judge_input(
    observed: Observed, seen: Seen, result: CaseResult, baseline: OneCall | None, end: float, owed: set[int]
) -> set[int]:
    """Attribute calls and answers to the bad frame and to the valid request after it (`end`: where
    the next case sharing the process begins). A line naming no request that a valid call sent
    before it owes (`owed`, the events `ledger` gives them) is that call's, not this case's."""
    case, bad, marker = observed.case, observed.bad, observed.marker.encode()
    ids: tuple[Any, ...] = bad.ids if bad is not None else ()
    t_bad = seen.first_in(lambda m: marker in m.frame.raw)
    t_after = seen.first_in(lambda m: same_id(message_id(m.value), observed.after_id))
    rejected, accepted = answers(seen, t_bad, ids, end)
    # A lenient frame answered with a result ran as the valid call it is, and owes what one makes
    # (`lenient_ids`): the nameless lines it is owed before the valid request are its own.
    ran_as_valid = case.lenient and accepted > 0 and not rejected
    bad_calls, after_named, after_unnamed, inherited = _attribute(
        observed, seen, t_bad, t_after, end, owed, ran_as_valid
    )
    after_calls = after_named + after_unnamed
    beyond = [c for c in after_unnamed if c.frame.event not in owed]  # more than the valid calls owe
    parts = _what_it_did(case, result, bad_calls, accepted, rejected, ran_as_valid)
    closed = observed.gone in AFTER_BAD or case.eof
    early = observed.refused or (
        f"the server ended the session before answering {observed.gone}"
        if observed.gone and not closed
        else None
    )
    if early:
        result.reasons.append(f"the hard input was never judged: {early}")
        parts.append("ended before the hard input")
    elif not rejected and not accepted and not closed and not observed.hung:
        result.reasons.append("warning: tolerant: dropped the bad frame silently (no error response)")
    if inherited:
        first = inherited[0].frame
        result.reasons.append(
            f"the valid request after the reject inherited the bad frame: {first.channel} line {first.line}: "
            f"{escape(first.body, SHOW)}"
        )
    if baseline is not None and (beyond or len(after_named) > baseline.total - baseline.unnamed):
        made = max(len(after_calls), baseline.total + len(beyond))
        result.reasons.append(
            f"the valid request after the reject made {made} executor/HTTP calls "
            f"(a valid call alone makes {baseline.total})"
        )
    if observed.hung:
        parts.append(observed.hung)
    elif closed:
        parts.append(f"closed the session ({result.exit or 'still running'})")
    elif t_after is not None:
        parts.append(
            f"next request ran alone ({len(after_calls)} calls)"
            if not inherited
            else "next request inherited it"
        )
    if case.id == "batch" and batches_allowed(observed.version) and not bad_calls:
        result.verdict = Verdict.NA
        result.reasons = [r for r in result.reasons if not r.startswith("accepted")]
        parts.append(f"batches are allowed in {observed.version}")
    result.did = "; ".join(parts)
    flagged = inherited if ran_as_valid else bad_calls + inherited
    return {c.frame.event for c in flagged if c.frame.channel in EXECUTOR_CHANNELS}


def _attribute(
    observed: Observed,
    seen: Seen,
    t_bad: float | None,
    t_after: float | None,
    end: float,
    owed: set[int],
    ran_as_valid: bool,
) -> tuple[list[ExecCall], list[ExecCall], list[ExecCall], list[ExecCall]]:
    """The executor and HTTP lines between the bad frame and `end`, by whose they are: the bad
    frame's, the valid request's after it (naming it, or naming nothing after it was sent), and
    the valid request's that carry the bad frame's marker (it inherited the bad frame)."""
    marker = observed.marker.encode()
    ids: tuple[Any, ...] = observed.bad.ids if observed.bad is not None else ()
    bad_calls: list[ExecCall] = []
    after_named: list[ExecCall] = []  # lines naming the valid request after the reject
    after_unnamed: list[ExecCall] = []  # lines naming nothing, after it was sent
    inherited: list[ExecCall] = []
    # Requests sent before the bad frame (the handshake, an earlier case sharing the process): an
    # executor line naming one of them is theirs, however late it is recorded.
    earlier = [
        message_id(m.value)
        for m in seen.messages
        if m.channel == IN and t_bad is not None and m.frame.t < t_bad
    ]
    for call in seen.calls:
        if t_bad is None or call.frame.t < t_bad or call.frame.t >= end:
            continue
        named = call_names(call)  # None (naming nothing) matches no id: the ids are markers or true
        carries = marker in call.frame.raw
        if named is not None and not carries and any(same_id(named, e) for e in earlier):
            continue
        if same_id(named, observed.after_id):
            (inherited if carries else after_named).append(call)
        elif carries or any(same_id(named, i) for i in ids):
            bad_calls.append(call)  # it names the bad frame
        elif t_after is None or call.frame.t < t_after:
            if call.frame.event not in owed or ran_as_valid:
                bad_calls.append(call)  # it names nothing, and came before the valid request
        else:
            after_unnamed.append(call)
    return bad_calls, after_named, after_unnamed, inherited


def _what_it_did(
    case: Case,
    result: CaseResult,
    bad_calls: list[ExecCall],
    accepted: int,
    rejected: list[str],
    ran_as_valid: bool,
) -> list[str]:
    """How the server answered the bad frame and what it ran for it: the words of the case's line
    (returned), the counts and the reasons in `result`."""
    parts: list[str] = []
    if accepted:
        parts.append("accepted it (answered with a result)")
    elif rejected:
        parts.append(f"rejected it ({', '.join(rejected)})")
    else:
        parts.append("no answer to it")
    result.http = sum(1 for c in bad_calls if c.frame.channel == HTTP)
    result.executed = len(bad_calls) - result.http
    # A lenient frame is a well-formed call (padded, say): answered with a result, running is what
    # a valid call does. No line limit is worth a warning, not a failure.
    if bad_calls and ran_as_valid:
        parts.append(f"ran it ({result.executed} exec, {result.http} http)")
        result.reasons.append(
            f"warning: ran it as the valid call it is ({result.executed} executor call(s), {result.http} "
            "HTTP attempt(s)): no limit on the length of a line"
        )
    elif bad_calls:
        first = bad_calls[0].frame
        parts.append(f"executed it ({result.executed} exec, {result.http} http)")
        result.reasons.append(
            f"the bad frame caused {result.executed} executor call(s) and {result.http} HTTP attempt(s): "
            f"{first.channel} line {first.line}: {escape(first.body, SHOW)}"
        )
    elif accepted:
        if case.lenient:
            result.reasons.append("warning: accepted it (answered with a result); no executor call seen")
        else:
            result.reasons.append("accepted the bad frame (answered it with a result)")
    return parts
