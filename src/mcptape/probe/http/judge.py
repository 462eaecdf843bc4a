"""The verdicts of an HTTP probe: the answers the probe read, held against `cases.Expect`, and the
executor and HTTP lines the check core read from the transcript. A line that names the id of a
request the probe sent (`request_id` on the tap) is that request's, however late it was recorded:
the tap is a pipe of its own, read by another thread than the proxy that records the answer, so a
tool's tap line can be recorded after the answer and after the next request. A line that names
none is attributed by the times the probe kept (`run`): between a hard input and the valid request
after it, the hard input's; after that, the valid request's; unless a valid call sent before it owes
it (the ledger of the stdio probe, `probe/ledger.py`: each valid call answered with a result owes as
many nameless lines as the clean start's valid call made, from the moment it is sent; walking the
transcript in time order, a nameless line is the valid calls' while any is owed). The clean start's
count ends where the first hard input begins (one process for all), so a valid call's line recorded
later than that is missed there; a line recorded a little late for a later valid call (the tap is
read by another thread) is its own, not the next hard input's. A call of a tool declaring
`readOnlyHint` that caused an action that may change state is the check core's `hint-read-only`
finding at that action's line: "declared read-only but wrote", a failure for the case that owns
the action (the same rule as the stdio probe's judge).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.check import rules
from mcptape.check.analyze import analyze_file
from mcptape.check.model import HTTP, ExecCall, Finding, Kind, Message
from mcptape.probe.cases import START, Call, Case, title_for
from mcptape.probe.driver import same_id
from mcptape.probe.http.cases import HttpCase
from mcptape.probe.http.client import Answer
from mcptape.probe.judge import SHOW, WROTE, CaseResult, call_names
from mcptape.probe.observed import Verdict
from mcptape.textsafe import escape

START_CASE = Case("start", START, "clean start over Streamable HTTP: initialize, tools/list, {request}")
SSE = "text/event-stream"


@dataclass
class StartRun:
    """What the clean start saw."""

    t0: float
    call_id: Any = None  # the id of the valid call (the last candidate tried)
    t_call: float = 0.0
    t_end: float = 0.0
    initialize: Answer | None = None
    wire: Any = None
    tools: list[dict[str, Any]] | None = None
    call: Call | None = None
    call_answer: Answer | None = None
    call_error: str | None = None
    refused: str | None = None
    tried: list[str] = field(default_factory=list)


@dataclass
class CaseRun:
    """What one hard input saw: its answer, the valid request's after it, and when each was sent."""

    http: HttpCase
    marker: str
    t_bad: float = 0.0
    t_after: float = 0.0
    t_end: float = 0.0
    answer: Answer | None = None
    after: Answer | None = None
    after_id: Any = None
    deleted: int | None = None
    na: str | None = None


@dataclass
class Evidence:
    """The transcript as the check core read it: every executor/HTTP line and every finding, and
    the ids of the requests the probe sent (`sent`: a line naming one of them is that request's)."""

    calls: list[ExecCall]
    findings: list[Finding]
    stderr: bytes
    sent: list[Any] = field(default_factory=list)
    owed: set[int] = field(default_factory=set)  # the events of nameless lines valid calls owe (`owe`)
    unnamed: int = 0  # the nameless lines one valid call makes (the clean start's), once `owe` knows it

    @classmethod
    def read(cls, path: Path, sent: list[Any] | None = None) -> Evidence:
        calls: list[ExecCall] = []
        _, analysis = analyze_file(str(path), on_exec=calls.append)
        return cls(calls, list(analysis.findings), bytes(analysis.stderr.head[:8192]), list(sent or []))

    def owned(self, ids: list[Any], start: float, end: float) -> list[ExecCall]:
        """The lines of the requests with these ids: those naming one of them, anywhere, and those
        naming no request the probe sent, recorded in [start, end)."""

        def ours(call: ExecCall) -> bool:
            named = call_names(call)
            if any(same_id(named, i) for i in ids):
                return True
            return self.nameless(call) and start <= call.frame.t < end

        return [c for c in self.calls if ours(c)]

    def nameless(self, call: ExecCall) -> bool:
        """A line that names no request the probe sent (placed by its time, or by the ledger)."""
        named = call_names(call)
        return not any(same_id(named, i) for i in self.sent)

    def owe(self, start: StartRun, runs: list[CaseRun], unnamed: int | None) -> None:
        """Give the valid calls the nameless lines they owe (`owed`): the clean start's valid call,
        each valid request after a hard input and each lenient hard input that ran as the valid
        call it is (a well-formed call in a tolerated envelope), answered with a result, owe
        `unnamed` lines each (what the clean start's made), from the moment each is sent. A line
        carrying a case's marker is that case's. Fewer nameless lines in all than they owe: the
        valid call does not always make as many (a cache), and owing could hide a bad request's
        line: the windows decide alone."""
        if not unnamed or start.call is None:
            return
        sent = [start.t_call] if start.call_error is None else []
        sent += [r.t_after for r in runs if r.after is not None and _succeeded(r.after.answer_to(r.after_id))]
        sent += [
            r.t_bad
            for r in runs
            if r.http.case.lenient and r.answer is not None and _succeeded(r.answer.answer_to(r.marker))
        ]
        markers = [r.marker.encode() for r in runs]
        lines = [c for c in self.calls if self.nameless(c) and not any(m in c.frame.raw for m in markers)]
        if len(lines) < len(sent) * unnamed:
            return
        self.unnamed = unnamed
        events = sorted([(t, 0, -1) for t in sent] + [(c.frame.t, 1, c.frame.event) for c in lines])
        owing = 0
        for _, is_line, event in events:
            if not is_line:
                owing += unnamed
            elif owing:
                owing -= 1
                self.owed.add(event)

    def at(self, calls: list[ExecCall], start: float, end: float) -> list[Finding]:
        """The findings at these action lines, and those in [start, end) at no action line."""
        actions = {(c.frame.channel, c.frame.line) for c in self.calls}
        chosen = {(c.frame.channel, c.frame.line) for c in calls}
        return [
            f
            for f in self.findings
            if (f.channel, f.line) in chosen
            or ((f.channel, f.line) not in actions and start <= (f.t or 0.0) < end)
        ]


def start_ids(start: StartRun) -> list[Any]:
    """The ids of the clean start's requests: initialize, tools/list, every valid call tried."""
    return [1, 2, 3, *(f"probe-call-{n}" for n in range(2, 2 + len(start.tried)))]


def probe_ids(start: StartRun, runs: list[CaseRun]) -> list[Any]:
    """Every request id the probe sent in the session (a tap line naming one is that request's)."""
    ids = start_ids(start)
    for run in runs:
        ids += [run.marker, f"{run.marker}-init", *([run.after_id] if run.after_id is not None else [])]
    return ids


def _counts(calls: list[ExecCall]) -> tuple[int, int]:
    http = sum(1 for c in calls if c.frame.channel == HTTP)
    return len(calls) - http, http


def judge_start(run: StartRun, evidence: Evidence, path: Path) -> CaseResult:
    result = CaseResult(START_CASE, Verdict.PASS, "", transcript=path, title=title_for(START_CASE, run.call))
    result.stderr = evidence.stderr
    parts: list[str] = []
    init = run.initialize
    if init is None or run.wire is None:
        said = _status(init)
        result.reasons.append(f"initialize was not answered with a result ({said})")
        result.blocking = True
        result.did = f"initialize: {said}"
        result.verdict = Verdict.FAIL
        return result
    parts.append(f"handshake ok ({run.wire.version})")
    parts.append(f"session {'minted' if run.wire.session else 'none (stateless)'}")
    if run.refused is not None:
        result.reasons.append(run.refused)
        result.blocking = True
    if run.tools is not None:
        parts.append(f"{len(run.tools)} tools")
    mine = evidence.owned(start_ids(run), run.t0, run.t_end)
    if run.call is not None and run.call_answer is not None:
        made = [c for c in mine if c.frame.t >= run.t_call or same_id(call_names(c), run.call_id)]
        result.baseline = len(made)
        result.baseline_unnamed = sum(1 for c in made if evidence.nameless(c))
        parts.append(f"{run.call.tool or 'tools/list'} made {len(made)} executor/HTTP calls")
        if run.tried:
            parts.append(f"refused before it: {', '.join(run.tried)}")
        if run.call_error is not None:
            result.reasons.append(
                f"warning: the valid call {run.call.tool} was refused ({run.call_error}); the hard "
                "inputs built from it cannot be judged: give arguments it accepts with --tool NAME "
                "--args JSON, or --from TRANSCRIPT"
            )
    findings = evidence.at(mine, run.t0, run.t_end)
    wrote = [f for f in findings if f.rule == rules.HINT_READ_ONLY]
    if wrote:
        result.reasons.append(f"{WROTE}: {wrote[0].message}")
        parts.append(WROTE)
    result.findings = [f for f in findings if f.rule != rules.EXEC_AFTER_REJECT]
    result.did = "; ".join(parts)
    _settle(result)
    return result


def judge_case(
    run: CaseRun, evidence: Evidence, path: Path, call: Call | None, baseline: int | None
) -> CaseResult:
    hc = run.http
    case = hc.case
    result = CaseResult(
        case, Verdict.PASS, "", transcript=path, marker=run.marker, title=title_for(case, call)
    )
    if run.na is not None:
        result.verdict, result.did = Verdict.NA, run.na
        return result
    parts: list[str] = []
    answer = run.answer or Answer()
    accepted = _answer(hc, answer, run.marker, result, parts)
    # A valid call's late nameless line is its own (`Evidence.owe`), in whichever window it lands.
    bad = [
        c
        for c in evidence.owned([run.marker, f"{run.marker}-init"], run.t_bad, run.t_after)
        if c.frame.event not in evidence.owed
    ]
    after = [c for c in evidence.owned([run.after_id], run.t_after, run.t_end) if c not in bad]
    result.executed, result.http = _counts(bad)
    ran_as_valid = case.lenient and accepted and (baseline is None or len(bad) <= baseline)
    if bad and ran_as_valid:
        parts.append(f"ran it as the valid call it is ({len(bad)} calls)")
    elif bad:
        first = bad[0].frame
        parts.append(f"executed it ({result.executed} exec, {result.http} http)")
        result.reasons.append(
            f"the bad request caused {result.executed} executor call(s) and {result.http} HTTP attempt(s): "
            f"{first.channel} line {first.line}: {escape(first.body, SHOW)}"
        )
    _after(run, result, parts, after, baseline, evidence)
    findings = evidence.at(bad + after, run.t_bad, run.t_end)
    wrote = [f for f in findings if f.rule == rules.HINT_READ_ONLY]
    if wrote:
        result.reasons.append(f"{WROTE}: {wrote[0].message}")
        parts.append(WROTE)
    # The check core reads the whole file as one session: an action after any refused request is
    # `exec-after-reject` there. Kept only for the actions this case's bad request caused.
    flagged = set() if ran_as_valid else {c.frame.event for c in bad}
    result.findings = [f for f in findings if f.rule != rules.EXEC_AFTER_REJECT or f.event in flagged]
    result.seconds = run.t_end - run.t_bad
    result.did = "; ".join(parts)
    _settle(result)
    return result


def _answer(hc: HttpCase, answer: Answer, marker: str, result: CaseResult, parts: list[str]) -> bool:
    """Judge the status and the body of the answer to the hard input; True when the server ran it."""
    expect, status = hc.expect, answer.status
    if status is None:
        parts.append(_status(answer))
        result.reasons.append(
            f"hung: {_status(answer)}" if answer.timed_out else f"no answer: {_status(answer)}"
        )
        return False
    message = answer.answer_to(marker)
    ran = message is not None and message.kind is Kind.RESPONSE and not _is_error(message.value)
    if hc.stream:
        if status in expect.statuses:
            parts.append(f"HTTP {status}")
        elif 200 <= status < 300 and answer.media == SSE:
            parts.append(f"HTTP {status}, an event stream")
        elif 200 <= status < 300:
            parts.append(f"HTTP {status} ({answer.media or 'no Content-Type'})")
            result.reasons.append(f"answered a GET with HTTP {status} {answer.media!r}: {expect.spec}")
        else:
            parts.append(f"HTTP {status}")
            result.reasons.append(f"warning: answered HTTP {status}; {expect.spec}")
        return False
    if 200 <= status < 300 and ran:
        parts.append(f"accepted it (HTTP {status}, a result)")
        if expect.accepted is Verdict.FAIL:
            result.reasons.append(f"accepted it (HTTP {status}, answered with a result): {expect.spec}")
        elif expect.accepted is Verdict.WARN:
            result.reasons.append(f"warning: accepted it (HTTP {status}): {expect.spec}")
        return True
    if 200 <= status < 300:
        parts.append(f"HTTP {status} without a result")
        result.reasons.append(
            f"warning: answered HTTP {status} (no result for it): the specification asks for an "
            "HTTP error status"
        )
        return False
    parts.append(f"refused it (HTTP {status})")
    if status in expect.statuses or (expect.any_error and 400 <= status < 500):
        return False
    if 400 <= status < 500:
        named = " or ".join(str(s) for s in sorted(expect.statuses))
        result.reasons.append(
            f"warning: refused it with HTTP {status} where the specification names {named}: {expect.spec}"
        )
    else:
        result.reasons.append(f"warning: answered HTTP {status}: a server error or a redirect, not a refusal")
    return False


def _after(
    run: CaseRun,
    result: CaseResult,
    parts: list[str],
    after: list[ExecCall],
    baseline: int | None,
    evidence: Evidence,
) -> None:
    answer = run.after
    if answer is None:
        return
    message = answer.answer_to(run.after_id)
    if message is None:
        result.reasons.append(
            f"the valid request after it got no answer ({_status(answer)}): the server stopped serving"
        )
        parts.append("next request unanswered")
        return
    parts.append(f"next request ran alone ({len(after)} calls)")
    if baseline is None:
        return
    owed = evidence.owed
    if owed:  # too many: a nameless line no valid call owes, or more named ones than a call makes
        named = [c for c in after if not evidence.nameless(c)]
        beyond = [c for c in after if evidence.nameless(c) and c.frame.event not in owed]
        too_many = bool(beyond) or len(named) > baseline - evidence.unnamed
    else:
        beyond, too_many = [], len(after) > baseline
    if too_many:
        made = max(len(after), baseline + len(beyond))
        result.reasons.append(
            f"the valid request after it made {made} executor/HTTP calls (a valid call alone "
            f"makes {baseline})"
        )


def _succeeded(message: Message | None) -> bool:
    """An answer with a result that is not an error (the valid call ran)."""
    return message is not None and message.kind is Kind.RESPONSE and not _is_error(message.value)


def _is_error(value: Any) -> bool:
    if not isinstance(value, dict):
        return True
    inner = value.get("result")
    return "error" in value or (isinstance(inner, dict) and inner.get("isError") is True)


def _status(answer: Answer | None) -> str:
    if answer is None:
        return "not sent"
    if answer.status is not None:
        return f"HTTP {answer.status}"
    if answer.timed_out:
        return f"no answer within {answer.waited:.1f}s"
    return f"no answer ({answer.refused or 'the connection closed'})"


def _settle(result: CaseResult) -> None:
    """The verdict from the reasons: a failure unless every reason is a warning."""
    fails = [r for r in result.reasons if not r.startswith("warning: ")]
    if fails:
        result.verdict = Verdict.FAIL
    elif result.reasons and result.verdict is not Verdict.NA:
        result.verdict = Verdict.WARN
