"""Frames that share one server process, each judged in its own window of the transcript.

The per-tool hard inputs (`tools`) and the MRTR state cases (`mrtr`) send many frames to one
process. An executor or HTTP line belongs to a frame when it names its id, carries its marker (or
the value it must not act on), or names nothing and came between the frame and the next one sent
(a base call, which is no case, ends a window too), unless a valid call sent before it owes it
(`ledger`: a late action of the valid request after the last hard input, of an MRTR probe of the
valid call's tool, or of `unknown-arguments` on that tool when it ran its declared arguments). The
frame's answer is found by its id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.check.model import HTTP, OUT, ExecCall
from mcptape.check.rules import FRAME_RULES
from mcptape.probe.cases import Call, Case
from mcptape.probe.driver import Status, same_id
from mcptape.probe.judge import SHOW, STDERR_KEPT, CaseResult, call_names
from mcptape.probe.ledger import Owing
from mcptape.probe.observed import Verdict
from mcptape.probe.seen import Read, Seen, read
from mcptape.textsafe import escape


@dataclass
class ToolFrame:
    """One hard input for one tool, and what became of it in the shared process."""

    case: Case
    tool: str
    rid: str
    data: bytes
    forbidden: bool  # the declared schema forbids these arguments (a result is a failure)
    acted_on: bytes | None = None  # bytes that, in an executor line, show it acted on the bad part
    accepted: str | None = None  # the reason when it is answered with a success (else: the schema's)
    path: Path | None = None
    sent_at: float = 0.0
    closed: bool = False  # the session ended right after it: the server closed on the reject
    hung: str | None = None
    answer: str | None = None  # how the transcript shows it answered: "result", "error -32602"...
    reply: Status | None = None
    seconds: float = 0.0
    extra: list[str] = field(default_factory=list)
    uses_base: bool = False  # built on the tool's base arguments (their refusal makes it inconclusive)
    base: str | None = None  # not a case: the call of the tool's base arguments, from this source
    refused: str | None = None  # (the base call) why the server refused it
    skipped: bool = False  # (the base call) not sent: the base was known to work by then


def owing_ids(frames: Sequence[ToolFrame], call: Call | None) -> list[str]:
    """The frames that owe, when answered with a result, what one valid call makes (`ledger`): the
    valid call's tool run with its own arguments (a base call, extras its schema allows)."""
    if call is None:
        return []
    return [
        f.rid
        for f in frames
        if f.tool == call.tool and (f.base is not None or (f.acted_on is not None and not f.forbidden))
    ]


def judge_frames(
    path: Path,
    frames: list[ToolFrame],
    owing: Owing | None = None,
    until: str | None = None,
    transcript: Read | None = None,
    also: Sequence[Any] = (),
) -> list[CaseResult]:
    """The verdict of each frame of one shared transcript (a base call is a window's end, no case);
    `owing`: the valid call and what it makes, to give the valid calls their late nameless lines;
    `until`: the marker of the case sent after the last frame in the same process (its window's
    end); `transcript`: the transcript already read (`judge.read`), when hard inputs share it;
    `also`: the ids of the hard inputs in it that owe what a valid call makes (`judge.lenient_ids`)."""
    seen, analysis = transcript if transcript is not None else read(path)
    owed: set[int] = set()
    if owing is not None and owing.call is not None:
        owed = owing.owed(seen.messages, seen.calls, also=[*owing_ids(frames, owing.call), *also])
    starts = []
    for frame in frames:
        rid = frame.rid.encode()
        t = seen.first_in(lambda m, rid=rid: rid in m.frame.raw)
        starts.append(t)
    end = until.encode() if until is not None else None
    t_end = seen.first_in(lambda m: end in m.frame.raw) if end is not None else None
    stderr = bytes(analysis.stderr.head[:STDERR_KEPT])
    results = []
    for i, frame in enumerate(frames):
        if frame.base is not None:
            continue
        t_bad = starts[i]
        t_next = next((t for t in starts[i + 1 :] if t is not None), t_end)
        mine = [c for c in seen.calls if c.frame.event not in owed and _belongs(c, frame, t_bad, t_next)]
        result = _judge_one(frame, mine, seen, t_bad)
        out = [
            f
            for f in analysis.findings
            if f.channel == OUT
            and f.rule in FRAME_RULES
            and t_bad is not None
            and (f.t or 0) >= t_bad
            and (t_next is None or (f.t or 0) < t_next)
        ]
        if out:
            result.reasons.append(
                f"stdout is not protocol-only: {out[0].message}: {escape(out[0].raw, SHOW)}"
            )
            result.findings = out
        result.stderr = stderr
        result.transcript = path
        if any(not r.startswith("warning: ") for r in result.reasons):
            result.verdict = Verdict.FAIL
        elif result.reasons:
            result.verdict = Verdict.WARN
        results.append(result)
    return results


def _belongs(call: ExecCall, frame: ToolFrame, t_bad: float | None, t_next: float | None) -> bool:
    if t_bad is None or call.frame.t < t_bad:
        return False
    if frame.rid.encode() in call.frame.raw or (
        frame.acted_on is not None and frame.acted_on in call.frame.raw
    ):
        return True
    named = call_names(call)
    if named is not None:
        return same_id(named, frame.rid)
    return t_next is None or call.frame.t < t_next


def _judge_one(frame: ToolFrame, mine: list[ExecCall], seen: Seen, t_bad: float | None) -> CaseResult:
    result = CaseResult(frame.case, Verdict.PASS, "", seconds=frame.seconds, exit=frame.extra[-1])
    answer = frame.answer = _answer(seen, frame.rid, t_bad)
    parts: list[str] = []
    if answer == "result":
        parts.append("accepted it (answered with a result)")
    elif answer:
        parts.append(f"refused it ({answer})")
    elif frame.closed:
        parts.append("closed the session")  # a good answer to a bad frame: the next ones get a new process
    elif frame.hung:
        parts.append(f"hung: {frame.hung}")
        result.reasons.append(f"hung: {frame.hung}")
    else:
        parts.append("no answer to it")
        result.reasons.append("warning: tolerant: dropped the bad frame silently (no error response)")
    result.http = sum(1 for c in mine if c.frame.channel == HTTP)
    result.executed = len(mine) - result.http
    acted = [c for c in mine if frame.acted_on is not None and frame.acted_on in c.frame.raw]
    if acted:
        first = acted[0].frame
        parts.append("acted on the undeclared argument")
        result.reasons.append(
            f"the tool acted on an argument it does not declare: {first.channel} line {first.line}: "
            f"{escape(first.body, SHOW)}"
        )
    elif mine and (frame.forbidden or answer != "result"):
        first = mine[0].frame
        parts.append(f"executed it ({result.executed} exec, {result.http} http)")
        result.reasons.append(
            f"the hard input caused {result.executed} executor call(s) and {result.http} HTTP attempt(s): "
            f"{first.channel} line {first.line}: {escape(first.body, SHOW)}"
        )
    elif mine:
        parts.append(f"ran its declared arguments ({len(mine)} calls), not the undeclared one")
    if answer == "result" and frame.accepted is not None and not mine:
        result.reasons.append(frame.accepted)
    elif answer == "result" and frame.forbidden and not mine:
        result.reasons.append("accepted arguments its own inputSchema forbids (answered with a result)")
    if frame.closed:
        parts.append(frame.extra[-1])
    result.did = "; ".join(parts)
    return result


def _answer(seen: Seen, rid: str, t_bad: float | None) -> str | None:
    """How the server answered `rid`: "result", an error code, "isError result", or None."""
    if t_bad is None:
        return None
    for message in seen.messages:
        if message.channel != OUT or message.frame.t < t_bad or not isinstance(message.value, dict):
            continue
        value = message.value
        if not same_id(value.get("id"), rid):
            continue
        error, result = value.get("error"), value.get("result")
        if isinstance(error, dict):
            return f"error {error.get('code')}"
        if isinstance(result, dict):
            if result.get("isError") is True:
                return "isError result"
            if result.get("resultType") == "input_required":
                return "input_required"
            return "result"
    return None
