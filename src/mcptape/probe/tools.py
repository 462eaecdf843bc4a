"""Hard inputs sent to every tool: they must execute nothing anywhere.

The valid call goes to one tool; these go to each tool the server lists:

* `wrong-types:<tool>`: its typed properties given values of another JSON type (an object for a
  string, a string for a number, ...), values no lax coercion turns into the declared type;
* `unknown-arguments:<tool>`: its arguments plus one it does not declare. Accepting it is a failure
  only where the schema forbids it (`additionalProperties: false`), as in `mcptape check`; acting
  on it (the undeclared value reaches the executor) is a failure everywhere;
* `string-params:<tool>`: a `tools/call` whose `params` is a (JSON-encoded) string.

The first two are request-level refusals: a server answers them and goes on, so they share one
server process. A server may close the session on a malformed frame (the seed's policy), so when
the process ends, the frames not yet sent go to a new one: a new process only where the server's
policy needs one. Each frame is judged in its own window of the shared transcript: an executor or
HTTP line belongs to it when it names its id, carries its marker, or names nothing and came before
the next frame.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mcptape.check.model import HTTP, OUT, ExecCall
from mcptape.check.rules import FRAME_RULES
from mcptape.check.schema import compile_schema
from mcptape.harness import Harness
from mcptape.probe.args import minimal_arguments
from mcptape.probe.cases import TOOL, Call, Case
from mcptape.probe.driver import Driver, Status, same_id
from mcptape.probe.judge import SHOW, STDERR_KEPT, CaseResult, Seen, call_names, exit_text
from mcptape.probe.live import running
from mcptape.probe.observed import Verdict
from mcptape.probe.plan import Plan
from mcptape.textsafe import escape, escape_text

UNKNOWN = "mcptape_probe_unknown"
SETTLE = 0.02  # seconds after an answer: a tap line written just before it is recorded first
WRONG = {  # a value of another type, per declared type, that no lax coercion accepts
    "string": {"mcptape-probe": "an object, not a string"},
    "integer": "mcptape-probe: not an integer",
    "number": "mcptape-probe: not a number",
    "boolean": "mcptape-probe: not a boolean",
    "array": "mcptape-probe: not an array",
    "object": "mcptape-probe: not an object",
    "null": "mcptape-probe: not null",
}


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
    reply: Status | None = None
    seconds: float = 0.0
    extra: list[str] = field(default_factory=list)


def tool_frames(tools: list[dict[str, Any]], call: Call | None, token: str) -> list[ToolFrame]:
    """The hard inputs for every listed tool, in list order."""
    frames: list[ToolFrame] = []
    for entry in tools:
        name = entry.get("name")
        if not isinstance(name, str):
            continue
        schema = entry.get("inputSchema")
        base = dict(call.arguments) if call is not None and call.tool == name else minimal_arguments(schema)
        compiled = compile_schema(schema) if isinstance(schema, (dict, bool)) else None
        label = escape_text(name)[:60]
        marker = f"mcptape-probe-{len(frames)}-{token}"
        wrong = _wrong_types(schema, base)
        if wrong is not None and compiled is not None and compiled.violations(wrong):
            rid = f"{marker}-types"
            frames.append(
                ToolFrame(
                    Case(f"wrong-types:{label}", TOOL, f"{label}: arguments of the wrong JSON types"),
                    name,
                    rid,
                    Call(name, wrong).line(rid),
                    forbidden=True,
                )
            )
        value = f"{marker}-undeclared"
        unknown = {**base, UNKNOWN: value}
        forbidden = compiled is not None and len(compiled.violations(unknown)) > len(
            compiled.violations(base)
        )
        rid = f"{marker}-unknown"
        frames.append(
            ToolFrame(
                Case(
                    f"unknown-arguments:{label}",
                    TOOL,
                    f"{label}: an argument it does not declare"
                    + (" (its schema forbids it)" if forbidden else " (its schema allows it)"),
                ),
                name,
                rid,
                Call(name, unknown).line(rid),
                forbidden=forbidden,
                acted_on=value.encode(),
            )
        )
        rid = f"{marker}-string"
        request = Call(name, base).request(rid)
        request["params"] = orjson.dumps(request["params"]).decode()
        frames.append(
            ToolFrame(
                Case(f"string-params:{label}", TOOL, f"{label}: tools/call with params as a string"),
                name,
                rid,
                orjson.dumps(request) + b"\n",
                forbidden=True,
            )
        )
    return frames


def _wrong_types(schema: Any, base: dict[str, Any]) -> dict[str, Any] | None:
    """`base` with every property that declares one JSON type given a value of another type."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return None
    wrong = dict(base)
    for name, sub in schema["properties"].items():
        kind = sub.get("type") if isinstance(sub, dict) else None
        if isinstance(kind, str) and kind in WRONG:
            wrong[name] = WRONG[kind]
    return wrong if wrong != base else None


def run_tool_frames(plan: Plan, frames: list[ToolFrame]) -> list[CaseResult]:
    """Send every frame, sharing a server process while it stays open; judge each in its window."""
    results: list[CaseResult] = []
    waiting = list(frames)
    process = 0
    while waiting:
        process += 1
        path = plan.out_dir / f"tools-{process}.jsonl"
        sent = _run_process(plan, path, waiting)
        if not sent:  # the server could not even take one frame: say so for each, do not loop
            for frame in waiting:
                why = f"not run: the server's session ended before the hard input ({path.name})"
                results.append(CaseResult(frame.case, Verdict.FAIL, why, [why], transcript=path, ran=False))
            break
        results.extend(judge_frames(path, sent))
        waiting = waiting[len(sent) :]
    return results


def _run_process(plan: Plan, path: Path, frames: list[ToolFrame]) -> list[ToolFrame]:
    """One server process: handshake, then frames until they are done or the session ends."""
    header = {"probe": {"case": "tools", "title": "hard inputs to every tool", "marker": frames[0].rid}}
    sent: list[ToolFrame] = []
    t0 = time.monotonic()
    harness = Harness(list(plan.command), path, shutdown_timeout=plan.shutdown, header=header)
    with harness, running(harness):
        d = Driver(harness, plan.timeout, plan.start_timeout)
        reply = d.initialize()
        if reply.result is None or d.request("tools/list", 2, {}).status is not Status.ANSWERED:
            return []
        for n, frame in enumerate(frames):
            frame.path = path
            started = time.monotonic()
            if d.send(frame.data) is not None:
                break  # gone (or not reading): this frame goes to the next process
            sent.append(frame)
            if frame.case.id.startswith("string-params:"):
                frame.reply = d.request("ping", f"probe-ping-{n}").status
            else:
                frame.reply = d.wait_for(frame.rid).status
            frame.seconds = time.monotonic() - started
            if frame.reply is Status.GONE:
                frame.closed = True
                break
            if frame.reply is Status.TIMEOUT:
                frame.hung = f"no answer within {plan.timeout:g}s"
                harness.note(f"mcptape probe: {frame.case.id}: {frame.hung}")
                break
            harness.wait_exit(SETTLE)
        harness.close_stdin()
        harness.wait_exit(plan.shutdown)
    status = exit_text(harness.status)
    for frame in sent:
        frame.extra.append(status or "still running")
    if sent and sent[-1].closed:
        sent[-1].seconds = time.monotonic() - t0 - sum(f.seconds for f in sent[:-1])
    return sent


def judge_frames(path: Path, frames: list[ToolFrame]) -> list[CaseResult]:
    """The verdict of each frame of one shared transcript."""
    from mcptape.check.analyze import analyze_file

    seen = Seen()
    _, analysis = analyze_file(str(path), on_message=seen.keep, on_exec=seen.calls.append)
    starts = []
    for frame in frames:
        rid = frame.rid.encode()
        t = seen.first_in(lambda m, rid=rid: rid in m.frame.raw)
        starts.append(t)
    stderr = bytes(analysis.stderr.head[:STDERR_KEPT])
    results = []
    for i, frame in enumerate(frames):
        t_bad = starts[i]
        t_next = next((t for t in starts[i + 1 :] if t is not None), None)
        mine = [c for c in seen.calls if _belongs(c, frame, t_bad, t_next)]
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
    answer = _answer(seen, frame.rid, t_bad)
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
