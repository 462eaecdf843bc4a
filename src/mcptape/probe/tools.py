"""Hard inputs sent to every tool the probe may call: they must execute nothing anywhere.

The valid call goes to one tool; these go to each tool the server lists that the probe may name
(`safety`: read-only ones, or every tool with `--allow-mutating`):

* `wrong-types:<tool>`: its typed properties given values of another JSON type (an object for a
  string, a string for a number, ...), values no lax coercion turns into the declared type;
* `unknown-arguments:<tool>`: its arguments plus one it does not declare. Accepting it is a failure
  only where the schema forbids it (`additionalProperties: false`), as in `mcptape check`; acting
  on it (the undeclared value reaches the executor) is a failure everywhere;
* `string-params:<tool>`: a `tools/call` whose `params` is a (JSON-encoded) string.

A tool that may change data gets none of them without `--allow-mutating`: each carries the tool's
name and arguments, so a server that tolerates the fault under test (strips the unknown key,
coerces the types, decodes the string) runs it, and a missing or wrong argument is no guard (a
tolerant server writes `undefined`). The report says it was not tested (`safety.NOT_TESTED`).

Each is built on the tool's own arguments (its base): the valid call's for its tool, else the
tool's first successful call recorded in `--from TRANSCRIPT`, else arguments derived from its
schema. A refusal of a frame built on arguments the server refuses anyway proves nothing, so
after a tool's frames its base is called once (unless the valid call or the tool's
`unknown-arguments` answer showed it works): when the server refuses it, the tool's cases built
on it are inconclusive, not passes (a wrong-types frame that replaced every argument still counts).

These are request-level refusals: a server answers them and goes on, so they share one
server process. A server may close the session on a malformed frame (the seed's policy), so when
the process ends, the frames not yet sent go to a new one: a new process only where the server's
policy needs one. Each frame is judged in its own window of the shared transcript: an executor or
HTTP line belongs to it when it names its id, carries its marker, or names nothing and came before
the next frame.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mcptape.check.schema import Compiled, compile_schema
from mcptape.harness import Harness
from mcptape.probe.args import minimal_arguments
from mcptape.probe.cases import TOOL, Call, Case, sendable
from mcptape.probe.driver import Driver, Reply, Status, refusal
from mcptape.probe.judge import CaseResult, exit_text, inconclusive
from mcptape.probe.ledger import Later
from mcptape.probe.live import server
from mcptape.probe.observed import Verdict
from mcptape.probe.plan import Plan
from mcptape.probe.safety import Reach
from mcptape.probe.seen import Read
from mcptape.probe.windows import ToolFrame, judge_frames
from mcptape.textsafe import escape_text

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


def tool_frames(
    tools: list[dict[str, Any]],
    call: Call | None,
    token: str,
    recorded: Sequence[Call] = (),
    reach: Reach | None = None,
) -> list[ToolFrame]:
    """The hard inputs for every tool of `tools` the probe may name (`reach`: none that may change
    data without --allow-mutating; default: all), in list order, each tool's followed by the call
    of its base arguments. A frame that would name a forbidden tool anyway (a recorded argument
    holding another tool's name) is left out."""
    frames: list[ToolFrame] = []
    forbidden = reach.forbidden if reach is not None else {}
    for entry in tools:
        name = entry.get("name")
        if not isinstance(name, str) or name in forbidden:
            continue
        schema = entry.get("inputSchema")
        mine = [c for c in recorded if c.tool == name]
        if call is not None and call.tool == name:
            base, source = dict(call.arguments), "the valid call"
        elif mine:
            base, source = dict(mine[0].arguments), "recorded"
        else:
            base, source = minimal_arguments(schema), "derived from its schema"
        if not sendable([name, base, schema]):  # a lone surrogate in a name (frames repeat them): none
            continue
        marker = f"mcptape-probe-{len(frames)}-{token}"
        mine_frames = _frames_of(name, schema, base, source, marker)
        frames.extend(f for f in mine_frames if reach is None or not reach.forbidden_in(f.data))
    return frames


def _frames_of(name: str, schema: Any, base: dict[str, Any], source: str, marker: str) -> list[ToolFrame]:
    """One tool's hard inputs, in order: params as a string, arguments of the wrong JSON types
    (when the schema says which), an argument it does not declare, the call of its base arguments."""
    compiled = compile_schema(schema) if isinstance(schema, (dict, bool)) else None
    label = escape_text(name)[:60]
    return [
        *_malformed(name, label, schema, compiled, base, marker),
        *_undeclared_and_base(name, label, compiled, base, source, marker),
    ]


def _malformed(
    name: str, label: str, schema: Any, compiled: Compiled | None, base: dict[str, Any], marker: str
) -> list[ToolFrame]:
    """The tool's call with params as a string, and with arguments of the wrong JSON types."""
    mine_frames: list[ToolFrame] = []
    rid = f"{marker}-string"
    request = Call(name, base).request(rid)
    request["params"] = orjson.dumps(request["params"]).decode()
    mine_frames.append(
        ToolFrame(
            Case(f"string-params:{label}", TOOL, f"tools/call {label} with params as a string"),
            name,
            rid,
            orjson.dumps(request) + b"\n",
            forbidden=True,
            uses_base=True,
        )
    )
    wrong = _wrong_types(schema, base)
    if wrong is not None and compiled is not None and compiled.violations(wrong):
        rid = f"{marker}-types"
        mine_frames.append(
            ToolFrame(
                Case(
                    f"wrong-types:{label}",
                    TOOL,
                    f"tools/call {label} with arguments of the wrong JSON types",
                ),
                name,
                rid,
                Call(name, wrong).line(rid),
                forbidden=True,
                uses_base=any(k in wrong and wrong[k] == v for k, v in base.items()),
            )
        )
    return mine_frames


def _undeclared_and_base(
    name: str, label: str, compiled: Compiled | None, base: dict[str, Any], source: str, marker: str
) -> list[ToolFrame]:
    """The tool's call with an argument it does not declare, and with its base arguments."""
    mine_frames: list[ToolFrame] = []
    value = f"{marker}-undeclared"
    unknown = {**base, UNKNOWN: value}
    forbidden_key = compiled is not None and len(compiled.violations(unknown)) > len(
        compiled.violations(base)
    )
    rid = f"{marker}-unknown"
    mine_frames.append(
        ToolFrame(
            Case(
                f"unknown-arguments:{label}",
                TOOL,
                f"tools/call {label} with an argument it does not declare"
                + (" (its schema forbids it)" if forbidden_key else " (its schema allows it)"),
            ),
            name,
            rid,
            Call(name, unknown).line(rid),
            forbidden=forbidden_key,
            acted_on=value.encode(),
            uses_base=True,
        )
    )
    rid = f"{marker}-base"
    mine_frames.append(
        ToolFrame(
            Case(
                f"base:{label}",
                TOOL,
                f"tools/call {label} with its base arguments {_short(base)} ({source})",
            ),
            name,
            rid,
            Call(name, base).line(rid),
            forbidden=False,
            base=source,
        )
    )
    return mine_frames


def _described(base: ToolFrame) -> str:
    """A base call's title without its method and tool: "its base arguments {...} (recorded)"."""
    return base.case.title[len(f"tools/call {escape_text(base.tool)[:60]} with ") :]


def _short(value: Any) -> str:
    return escape_text(orjson.dumps(value).decode())[:120]


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


def run_tool_frames(
    plan: Plan,
    frames: list[ToolFrame],
    good: set[str] | None = None,
    linger: float | None = None,
    first: Shared | None = None,
    later: Later | None = None,
    reads: dict[Path, Read] | None = None,
    also: Sequence[Any] = (),
) -> list[CaseResult]:
    """Send every frame, sharing a server process while it stays open; judge each in its window.

    `good`: the tools whose base arguments are known to work (the valid call's); `linger`: how long
    a frame refused by a ping barrier may still take to be answered (default: --timeout); `first`:
    the frames already sent in a shared hard-input process (judged here in its transcript, read
    once: `reads`, where the hard inputs `also` owe what a valid call makes; the rest sent here)."""
    results: list[CaseResult] = []
    waiting = list(frames)
    known = first.good if first is not None else set(good or ())
    if first is not None and first.path is not None and first.sent:
        owing = later() if later is not None else None
        read_once = (reads or {}).get(first.path)
        results.extend(judge_frames(first.path, first.sent, owing, first.until, read_once, also))
        waiting = waiting[len(first.sent) :]
    process = 0
    while waiting:
        if waiting[0].base is not None and (waiting[0].skipped or waiting[0].tool in known):
            waiting[0].skipped = True  # a base call not needed (or not worth it): no process for it
            waiting.pop(0)
            continue
        process += 1
        path = plan.file(f"tools-{process}.jsonl")
        sent = _run_process(plan, path, waiting, known, plan.timeout if linger is None else linger)
        if not sent:  # the server could not even take one frame: say so for each, do not loop
            for frame in waiting:
                if frame.base is not None:
                    continue
                why = f"not run: the server's session ended before the hard input ({path.name})"
                results.append(CaseResult(frame.case, Verdict.FAIL, why, [why], transcript=path, ran=False))
            break
        results.extend(judge_frames(path, sent, later() if later is not None else None))
        waiting = waiting[len(sent) :]
    # A tool whose unknown-arguments frame was answered with a success (late, say) takes its base.
    works = {f.tool for f in frames if f.acted_on is not None and f.answer == "result"}
    refused = {f.tool: f for f in frames if f.base is not None and f.refused is not None}
    refused = {tool: base for tool, base in refused.items() if tool not in works}
    frame_of = {id(f.case): f for f in frames}
    for result in results:
        built = frame_of.get(id(result.case))
        base = refused.get(built.tool) if built is not None and built.uses_base else None
        if base is not None:
            name = escape_text(base.tool)[:60]
            inconclusive(
                result,
                f"the arguments it is built on ({_described(base)}) were not accepted "
                f"either ({base.refused}); give a recorded session that calls {name} successfully with "
                "--from TRANSCRIPT (or --tool NAME --args JSON)",
            )
    return results


@dataclass
class Shared:
    """The per-tool hard inputs riding in a shared hard-input process (`inputs`: after its first
    case, the dealt hard inputs after them), and what became of them there: `run_tool_frames(...,
    first=...)` judges those and sends the rest."""

    frames: list[ToolFrame]
    good: set[str]
    linger: float
    path: Path | None = None
    sent: list[ToolFrame] = field(default_factory=list)
    started: bool = False
    until: str | None = None  # the marker of the hard input sent after them: the last one's window ends there
    began: float = 0.0  # when the first of them was sent (time.monotonic)


def _run_process(
    plan: Plan, path: Path, frames: list[ToolFrame], good: set[str], linger: float
) -> list[ToolFrame]:
    """One server process: handshake, then frames until they are done or the session ends."""
    header = {"probe": {"case": "tools", "title": "hard inputs to every tool", "marker": frames[0].rid}}
    t0 = time.monotonic()
    harness = Harness(
        list(plan.command), path, shutdown_timeout=plan.shutdown, header=header, stubs=plan.stubs
    )
    with server(harness):
        d = Driver(harness, plan.timeout, plan.start_timeout, plan.reach, "tools")
        reply = d.initialize()
        if reply.result is None or d.request("tools/list", 2, {}).status is not Status.ANSWERED:
            return []
        sent = send_frames(d, plan, path, frames, good, linger)
        harness.close_stdin()
        harness.wait_exit(plan.shutdown)
    finish(sent, harness, t0)
    return sent


def finish(sent: list[ToolFrame], harness: Harness, t0: float) -> None:
    """After the process ended: its exit status for each frame sent in it."""
    status = exit_text(harness.status)
    for frame in sent:
        frame.extra.append(status or "still running")
    if sent and sent[-1].closed:
        sent[-1].seconds = time.monotonic() - t0 - sum(f.seconds for f in sent[:-1])


def send_frames(
    d: Driver, plan: Plan, path: Path, frames: list[ToolFrame], good: set[str], linger: float
) -> list[ToolFrame]:
    """Send frames in an open session until they are done or the session ends; the ones sent."""
    harness = d.h
    sent: list[ToolFrame] = []
    for n, frame in enumerate(frames):
        frame.path = path
        if frame.base is not None and (frame.skipped or frame.tool in good):
            frame.skipped = True  # its base is known to work (or would hang too): not called
            sent.append(frame)
            continue
        started = time.monotonic()
        mark = d.mark()
        d.case = frame.case.id
        if d.send(frame.data) is not None:
            break  # gone (or not reading): this frame goes to the next process
        sent.append(frame)
        if frame.case.id.startswith("string-params:"):
            frame.reply = d.request("ping", f"probe-tool-ping-{n}").status
            if frame.reply is Status.ANSWERED:
                # A frame read is not a frame done with: a concurrent server may run it after the
                # ping's answer; its answer (bounded) first, so its late action stays in its window.
                d.settle([frame.rid], linger, since=mark)
        else:
            answer = d.wait_for(frame.rid)
            frame.reply = answer.status
            _learn(frame, answer, good)
        frame.seconds = time.monotonic() - started
        if frame.reply is Status.GONE:
            frame.closed = True
            break
        if frame.reply is Status.TIMEOUT:
            frame.hung = f"no answer within {plan.timeout:g}s"
            if frame.base is not None:
                frame.refused = frame.hung
            elif frame.acted_on is not None:  # its base would take as long: not worth calling
                base = next((f for f in frames[n:] if f.base is not None and f.tool == frame.tool), None)
                if base is not None:
                    base.skipped, base.refused = True, f"its unknown-arguments call: {frame.hung}"
            harness.note(f"mcptape probe: {frame.case.id}: {frame.hung}")
            break
        harness.wait_exit(SETTLE)
    return sent


def _learn(frame: ToolFrame, answer: Reply, good: set[str]) -> None:
    """What an answer says of the tool's base arguments: the base call refused (and why), or an
    `unknown-arguments` frame answered with a success (the base works: no need to call it)."""
    if frame.base is not None:
        if answer.status is Status.GONE:
            frame.refused = "the session ended before its answer"
        elif answer.status is Status.ANSWERED:
            frame.refused = refusal(answer)
    elif frame.acted_on is not None and answer.status is Status.ANSWERED and refusal(answer) is None:
        good.add(frame.tool)
