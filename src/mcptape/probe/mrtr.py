"""A tampered and a foreign `requestState` for every tool that uses MRTR: both must be refused, and
nothing may run for them.

In the stateless 2026-07-28 revision a tool that needs the user's input answers `input_required`
with a `requestState`, and the client retries with it. "servers MUST treat requestState as an
attacker-controlled input ... MUST reject state that fails verification" (basic/patterns/mrtr), and
SHOULD reject "state presented on a request that does not match". One server process
(`mrtr-1.jsonl`), after `server/discover` declaring elicitation, sampling and roots:

1. **Which tools use MRTR.** The tools it is safe to call are called once: the valid call's tool,
   `--tool`, and the tools marked `readOnlyHint` (every tool with `--allow-mutating`), with their
   recorded arguments (`--from`) or derived ones. One that answers `input_required` with a
   `requestState` uses MRTR (nothing may run for an `input_required` answer). A tool that may
   change data is never called without `--allow-mutating` (`safety`: no frame names it).
2. **For each of them, two cases**, each a fresh first round (`<id>-round1`) and then a retry with
   answers to what it asked and a bad state:
   * `tampered-state:<tool>`: the state just issued, one character changed. FAIL when answered with
     a success, or when anything ran.
   * `foreign-state:<tool>`: a state this server issued for another request: another MRTR tool's,
     else this tool's for other arguments (n/a when neither can be had). A warning when answered
     with a success (a SHOULD), FAIL when anything ran.

Each is judged like the per-tool hard inputs (`tools.judge_frames`), in its window of the shared
transcript: refused (an error, `isError`, a new `input_required`) with zero actions is a pass.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson

from mcptape.check.protocol import META_VERSION_KEY, STATELESS_VERSION
from mcptape.harness import Harness
from mcptape.probe.args import minimal_arguments
from mcptape.probe.cases import TOOL, Call, Case
from mcptape.probe.driver import CLIENT_INFO, Driver, Reply, Status
from mcptape.probe.judge import CaseResult, exit_text, judge
from mcptape.probe.ledger import Later, Owing
from mcptape.probe.live import server
from mcptape.probe.observed import Observed, Verdict
from mcptape.probe.plan import Plan
from mcptape.probe.ready import Ready
from mcptape.probe.safety import callable_tools
from mcptape.probe.seen import Read, read
from mcptape.probe.sessions import run_case
from mcptape.probe.tools import SETTLE
from mcptape.probe.windows import ToolFrame, judge_frames
from mcptape.textsafe import escape_text

CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}, "sampling": {}, "roots": {}}
META = {
    META_VERSION_KEY: STATELESS_VERSION,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": CAPABILITIES,
}
MOST_TOOLS = 8  # tools called to find the ones that use MRTR
TAMPERED = (
    "accepted an altered requestState (answered with a success): servers MUST reject state that "
    "fails verification"
)
FOREIGN = (
    "warning: accepted a requestState issued for another request (answered with a success): servers "
    "SHOULD reject state presented on a request that does not match"
)


class Asked:
    """A tool that answered `input_required`: its arguments, what it asked, the state it issued."""

    def __init__(self, tool: str, arguments: dict[str, Any], requests: dict[str, Any], state: str) -> None:
        self.tool = tool
        self.arguments = arguments
        self.requests = requests
        self.state = state


def tamper(state: str) -> str:
    """`state` with its middle character changed (still of the token's alphabet where it can be)."""
    if not state:
        return "mcptape-probe"
    middle = len(state) // 2
    swap = "A" if state[middle] != "A" else "B"
    return state[:middle] + swap + state[middle + 1 :]


def answers(requests: dict[str, Any]) -> dict[str, Any]:
    """An answer for each input request, as a client that went along would give it."""
    out: dict[str, Any] = {}
    for key, request in requests.items():
        method = request.get("method") if isinstance(request, dict) else None
        params = request.get("params") if isinstance(request, dict) else None
        params = params if isinstance(params, dict) else {}
        if method == "elicitation/create":
            out[key] = {"action": "accept", "content": minimal_arguments(params.get("requestedSchema"))}
        elif method == "sampling/createMessage":
            text = {"type": "text", "text": "mcptape-probe"}
            out[key] = {
                "role": "assistant",
                "content": text,
                "model": "mcptape-probe",
                "stopReason": "endTurn",
            }
        elif method == "roots/list":
            out[key] = {"roots": []}
        else:
            out[key] = {}
    return out


def _asked(reply: Reply) -> tuple[dict[str, Any], str] | None:
    """What an `input_required` answer asks and the state it issued, or None for any other answer."""
    result = reply.result
    if result is None or result.get("resultType") != "input_required":
        return None
    state = result.get("requestState")
    if not isinstance(state, str):
        return None
    requests = result.get("inputRequests")
    return (requests if isinstance(requests, dict) else {}), state


def _call(tool: str, arguments: dict[str, Any], rid: str, **extra: Any) -> dict[str, Any]:
    request = Call(tool, arguments).request(rid, meta=META)
    request["params"].update(extra)
    return request


Candidate = tuple[str, dict[str, Any]]


def _candidates(plan: Plan, call: Call | None, tools: list[dict[str, Any]]) -> list[Candidate]:
    """The tools safe to call, with their arguments: the valid call's, `--tool`, the read-only ones
    (every tool with --allow-mutating), each with its recorded arguments or derived ones."""
    named = {t["name"]: t for t in tools if isinstance(t.get("name"), str)}
    picked: dict[str, dict[str, Any]] = {}
    if call is not None and call.tool is not None and call.tool in named:
        picked[call.tool] = dict(call.arguments)
    tool = plan.tool
    if tool is not None and tool in named and tool not in picked:
        picked[tool] = dict(plan.arguments or {}) or minimal_arguments(named[tool].get("inputSchema"))
    for entry in callable_tools(named.values(), plan.allow_mutating)[0]:
        name = entry["name"]
        if name not in picked:
            mine = [c.arguments for c in plan.recorded if c.tool == name]
            picked[name] = dict(mine[0]) if mine else minimal_arguments(entry.get("inputSchema"))
    allowed = {t["name"] for t in callable_tools(named.values(), plan.allow_mutating)[0]}
    safe = [
        (name, arguments)
        for name, arguments in picked.items()
        if name in allowed and not plan.reach.forbidden_in(Call(name, arguments).line(0))
    ]
    return safe[:MOST_TOOLS]


def _other_arguments(schema: Any, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """`arguments` with one string value changed (another request of the same tool), if it has one."""
    for key, value in arguments.items():
        if isinstance(value, str):
            return {**arguments, key: value + "-other"}
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(properties, dict):
        for key, sub in properties.items():
            if isinstance(sub, dict) and sub.get("type") == "string" and key not in arguments:
                return {**arguments, key: "mcptape-probe-other"}
    return None


def run_mrtr(plan: Plan, call: Call | None, owing: Later | None = None) -> list[CaseResult]:
    """Find the tools that use MRTR and send each a tampered and a foreign state, in a server process
    of their own; [] for a server without the stateless revision or without such a tool. `owing`:
    the valid call's count, once known (a late line of a probe of its tool is not a frame's)."""
    path = plan.file("mrtr-1.jsonl")
    header = {"probe": {"case": "mrtr", "title": "altered and foreign requestState", "marker": plan.token}}
    harness = Harness(
        list(plan.command), path, shutdown_timeout=plan.shutdown, header=header, stubs=plan.stubs
    )
    with server(harness):
        d = Driver(harness, plan.timeout, plan.start_timeout, plan.reach, "mrtr-find")
        reply = d.request("server/discover", 1, {"_meta": META}, d.start_timeout)
        if reply.result is None:
            return []  # no stateless revision: no MRTR
        d.version, d.stateless = STATELESS_VERSION, True
        sent = send_mrtr(d, plan, call, path, 2)
        harness.close_stdin()
        harness.wait_exit(plan.shutdown)
    return sent.results(harness, owing() if owing is not None else None)


class Sent:
    """The requestState cases sent in a session, judged once its process has ended (`results`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.t0 = time.monotonic()
        self.frames: list[ToolFrame] = []
        self.sent: list[ToolFrame] = []
        self.skipped: list[CaseResult] = []
        self.first: str | None = None  # the id of the first request it sent (where its part begins)

    def results(
        self, harness: Harness, owing: Owing | None = None, transcript: Read | None = None
    ) -> list[CaseResult]:
        status = exit_text(harness.status)
        for frame in self.sent:
            frame.extra.append(status or "still running")
        if not self.frames:
            return []
        results = judge_frames(self.path, self.sent, owing, transcript=transcript) if self.sent else []
        done = {r.case.id for r in results} | {r.case.id for r in self.skipped}
        for frame in self.frames:
            if frame.case.id not in done:
                why = f"not run: the server's session ended before it ({self.path.name})"
                results.append(
                    CaseResult(frame.case, Verdict.FAIL, why, [why], transcript=self.path, ran=False)
                )
        for result in results:
            result.seconds = result.seconds or (time.monotonic() - self.t0) / max(1, len(self.frames))
        return [*results, *self.skipped]


def send_mrtr(d: Driver, plan: Plan, call: Call | None, path: Path, list_id: Any) -> Sent:
    """In an open session at the stateless revision: list the tools (declaring elicitation, sampling
    and roots), find those that use MRTR, and send each its tampered and foreign state."""
    out = Sent(path)
    d.case = "mrtr-find"
    out.first = str(list_id)
    listed = d.request("tools/list", list_id, {"_meta": META})
    tools = listed.result.get("tools") if listed.result is not None else None
    tools = [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    schemas = {t.get("name"): t.get("inputSchema") for t in tools}
    found: list[Asked] = []
    for n, (tool, arguments) in enumerate(_candidates(plan, call, tools)):
        first = _asked(d.call(_call(tool, arguments, f"probe-mrtr-find-{n}")))
        if first is not None:
            found.append(Asked(tool, arguments, *first))
    owners: list[Asked] = []
    for n, mrtr in enumerate(found):
        label = escape_text(mrtr.tool)[:60]
        rid = f"mcptape-probe-m{n}-{plan.token}"
        out.frames.append(_frame(f"tampered-state:{label}", mrtr, f"{rid}-tampered", TAMPERED))
        out.frames.append(_frame(f"foreign-state:{label}", mrtr, f"{rid}-foreign", FOREIGN))
        owners += [mrtr, mrtr]
    for frame, owner in zip(out.frames, owners, strict=True):
        frame.path = path
        d.case = frame.case.id
        started = time.monotonic()
        data = _retry(d, frame, owner, found, schemas.get(owner.tool))
        if data is None:
            why = "n/a: no requestState issued for another request could be had"
            out.skipped.append(CaseResult(frame.case, Verdict.NA, why, transcript=path))
            continue
        if d.send(data) is not None:
            break
        out.sent.append(frame)
        frame.reply = d.wait_for(frame.rid).status
        frame.seconds = time.monotonic() - started
        if frame.reply is not Status.ANSWERED:
            frame.closed = frame.reply is Status.GONE
            frame.hung = f"no answer within {plan.timeout:g}s" if frame.reply is Status.TIMEOUT else None
            break
        d.h.wait_exit(SETTLE)
    return out


def _frame(case_id: str, asked: Asked, rid: str, accepted: str) -> ToolFrame:
    what = "an altered" if case_id.startswith("tampered-state:") else "another request's"
    title = f"{escape_text(asked.tool)[:60]}: a retry with {what} requestState"
    return ToolFrame(Case(case_id, TOOL, title), asked.tool, rid, b"", forbidden=True, accepted=accepted)


def _retry(d: Driver, frame: ToolFrame, asked: Asked, found: list[Asked], schema: Any) -> bytes | None:
    """A fresh first round (inside the frame's window: nothing may run for it), then the retry's
    bytes with the bad state; None when no foreign state can be had."""
    first = _asked(d.call(_call(asked.tool, asked.arguments, f"{frame.rid}-round1")))
    if first is None:
        return None
    requests, state = first
    if frame.case.id.startswith("tampered-state:"):
        bad = tamper(state)
    else:
        others = [a.state for a in found if a.tool != asked.tool]
        if others:
            bad = others[0]
        else:
            other = _other_arguments(schema, asked.arguments)
            if other is None:
                return None
            issued = _asked(d.call(_call(asked.tool, other, f"{frame.rid}-other")))
            if issued is None:
                return None
            bad = issued[1]
    retry = _call(asked.tool, asked.arguments, frame.rid, requestState=bad, inputResponses=answers(requests))
    return orjson.dumps(retry) + b"\n"


MRTR_LIST = "probe-mrtr-list"  # the id of the MRTR part's tools/list after start-discover


def discover_then_mrtr(case: Case, plan: Plan, ready: Ready, rank: int) -> list[CaseResult]:
    """start-discover, then, in the same process, the requestState cases when the server answered
    server/discover and the clean start listed a tool the probe may call: the stateless revision
    keeps no session, each request carries its own `_meta` (its own client capabilities)."""
    found: list[tuple[Sent, Harness]] = []

    def then(d: Driver, observed: Observed) -> None:
        if ready.mrtr and d.stateless and not (observed.hung or observed.gone or observed.discover):
            observed.until = MRTR_LIST  # start-discover's window ends where the MRTR part begins
            found.append((send_mrtr(d, plan, ready.call, observed.path, MRTR_LIST), d.h))

    observed = run_case(case, plan, ready=ready, rank=rank, then=then)
    if observed is None:
        return []
    transcript = read(observed.path)  # once, for start-discover and the MRTR cases after it
    results = [judge(observed, None, transcript)]
    for sent, harness in found:
        results += sent.results(harness, ready.owing(plan.token), transcript)
    return results
