"""The server processes of a probe's cases, and what is sent in them.

Each clean start gets a process of its own (`run_case`): its variation (environment, working
directory, idle wait, revision) is the process. The request-level hard inputs share a few
(`run_inputs`): they are sent one after another, and each is judged in its own window of the
shared transcript (`judge`: from the handshake or its own frame to the next case's frame). A case
that closes stdin ends a shared process; a session that ends early (closed on a reject, hung)
sends the cases not yet sent to a new one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mcptape.harness import Harness
from mcptape.probe import live
from mcptape.probe.candidates import candidate_calls
from mcptape.probe.cases import INPUT, START, Call, Case, title_for
from mcptape.probe.driver import Driver, Reply, Status, refusal
from mcptape.probe.judge import CaseResult, judge
from mcptape.probe.observed import AFTER_ID, AFTER_STEP, CALL_ID, PING_ID, PING_STEP, Observed
from mcptape.probe.plan import Plan
from mcptape.probe.safety import mutation_risk
from mcptape.probe.tools import Shared, finish, run_tool_frames, send_frames
from mcptape.textsafe import escape_text

SETTLE = 0.15  # seconds after the ping answer before the valid request: late actions land first
AFTER_SETTLE = 0.02  # seconds after a shared case's last answer, before the next case's frame
INPUT_PROCESSES = 2  # the request-level hard inputs share this many server processes (run_inputs)

Progress = Callable[[str], None]


def run_and_judge(
    case: Case, plan: Plan, call: Call | None, baseline: int | None, linger: float
) -> list[CaseResult]:
    return [judge(run_case(case, plan, call, linger), baseline)]


def share_processes(cases: Sequence[Case]) -> tuple[list[list[Case]], list[Case]]:
    """The hard inputs grouped to share `INPUT_PROCESSES` server processes, and the cases that need
    one of their own. Request-level inputs (a server refuses them and goes on) are dealt in turn; a
    case that closes stdin (`truncated-eof`) ends a group, one per group; the start variants and
    further EOF cases get their own process."""
    shared = [case for case in cases if case.group == INPUT and not case.eof]
    groups = [shared[i::INPUT_PROCESSES] for i in range(INPUT_PROCESSES)]
    own = [case for case in cases if case.group != INPUT]
    for case in (c for c in cases if c.group == INPUT and c.eof):
        last = next((g for g in groups if not (g and g[-1].eof)), None)
        if last is None:
            own.append(case)
        else:
            last.append(case)
    return [g for g in groups if g], own


def run_inputs(
    cases: Sequence[Case],
    plan: Plan,
    call: Call | None,
    baseline: int | None,
    linger: float,
    tools: Shared | None = None,
) -> list[CaseResult]:
    """Send request-level hard inputs one after another in a shared server process, each judged in
    its own window of the transcript (`<first case>.jsonl`); when the session ends (the server
    closed on a reject, or hung and was stopped), the cases not yet sent go to a new process.
    `tools`: the per-tool hard inputs, sent after the last case in the same process when it is
    still open (the rest in processes of their own, `tools.run_tool_frames`)."""
    results: list[CaseResult] = []
    waiting = list(cases)
    while waiting:
        observed = _inputs_process(waiting, plan, call, linger, tools)
        results.extend(judge(o, baseline) for o in observed)
        waiting = waiting[len(observed) :]
    if tools is not None:
        results.extend(run_tool_frames(plan, tools.frames, tools.good, tools.linger, first=tools))
    return results


def _inputs_process(
    cases: list[Case], plan: Plan, call: Call | None, linger: float, tools: Shared | None
) -> list[Observed]:
    """One server process: the handshake, then hard inputs until they are done or the session ends;
    then, when every case was sent and the session is open, the per-tool hard inputs (`tools`)."""
    t0 = time.monotonic()
    path = plan.out_dir / f"{cases[0].id}.jsonl"
    title = "hard inputs one after another, each judged in its own window"
    harness = Harness(
        list(plan.command),
        path,
        shutdown_timeout=plan.shutdown,
        header={"probe": {"case": cases[0].id, "title": title, "marker": plan.token}},
        stubs=plan.stubs,
    )
    done: list[Observed] = []
    with harness, live.running(harness):
        d = Driver(harness, plan.timeout, plan.start_timeout, plan.reach, cases[0].id)
        for n, case in enumerate(cases):
            marker = f"mcptape-probe-{case.id}-{plan.token}"
            observed = Observed(case, path, marker, list(plan.command), call=call, from_start=n == 0)
            if n:
                observed.ping_id, observed.after_id = f"{PING_ID}-{n}", f"{AFTER_ID}-{n}"
                done[-1].until = marker
            done.append(observed)
            d.case = case.id
            started = t0 if n == 0 else time.monotonic()
            if n == 0 and not _handshake(case, d, observed, plan, None):
                break
            _hard_input(case, d, observed, plan, linger)
            observed.seconds = time.monotonic() - started
            if observed.hung or observed.gone or case.eof:
                break
            harness.wait_exit(AFTER_SETTLE)  # a tap line written just before an answer lands first
        last = done[-1]
        last.seconds = time.monotonic() - t0 - sum(o.seconds for o in done[:-1])
        if tools is not None and len(done) == len(cases) and not (last.hung or last.gone or last.case.eof):
            tools.started, tools.path = True, path
            tools.sent = send_frames(d, plan, path, tools.frames, tools.good, tools.linger)
            if tools.sent:
                last.until = tools.sent[0].rid  # its window ends where the per-tool inputs begin
        harness.close_stdin()
        waited = time.monotonic()
        if not harness.wait_exit(plan.shutdown):
            done[-1].lingered = time.monotonic() - waited
    done[-1].status = harness.status
    if tools is not None and tools.started:
        finish(tools.sent, harness, t0)
    for observed in done:
        observed.version, observed.stateless = d.version, d.stateless
    return done


def run_case(
    case: Case,
    plan: Plan,
    call: Call | None,
    linger: float | None = None,
    announce: Progress | None = None,
) -> Observed:
    """Run one case in a fresh server process; the transcript goes to OUT_DIR/<case>.jsonl.

    `linger`: how long a bad frame that carries ids may take to be answered after the ping barrier
    (default: --timeout); `announce`: told, once the tools are listed and before any is called,
    which tools that may change data will be called for real (--allow-mutating)."""
    t0 = time.monotonic()
    marker = f"mcptape-probe-{case.id}-{plan.token}"
    env = dict(os.environ)
    env.update(case.env)
    command = list(plan.command)
    observed = Observed(case, plan.out_dir / f"{case.id}.jsonl", marker, command, call=call)
    with contextlib.ExitStack() as stack:
        cwd: str | None = None
        if case.empty_cwd:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mcptape-probe-")))
            (tmp / "cwd").mkdir()
            (tmp / "config").mkdir()
            cwd = str(tmp / "cwd")
            env["XDG_CONFIG_HOME"] = str(tmp / "config")
            observed.command = command = absolute_paths(command)
        header = {"probe": {"case": case.id, "title": title_for(case, call), "marker": marker}}
        harness = Harness(
            command,
            observed.path,
            env=env,
            cwd=cwd,
            shutdown_timeout=plan.shutdown,
            header=header,
            stubs=plan.stubs,
        )
        with harness, live.running(harness):
            driver = Driver(harness, plan.timeout, plan.start_timeout, plan.reach, case.id)
            _drive(case, driver, observed, plan, plan.timeout if linger is None else linger, announce)
            observed.version, observed.stateless = driver.version, driver.stateless
            harness.close_stdin()
            waited = time.monotonic()
            if not harness.wait_exit(plan.shutdown):
                observed.lingered = time.monotonic() - waited
        observed.status = harness.status
    observed.seconds = time.monotonic() - t0
    return observed


def absolute_paths(command: Sequence[str]) -> list[str]:
    """`command` with each relative path made absolute (for the empty working directory).

    A relative path is an argument that exists from here and contains a `/` (`./server`,
    `dist/index.js`), or, after the program name, names an existing file (`server.py`).
    """
    out = []
    for i, arg in enumerate(command):
        path = Path(arg)
        looks = "/" in arg or (i > 0 and path.is_file())
        relative = arg and not arg.startswith("-") and not path.is_absolute() and looks and path.exists()
        out.append(str(path.absolute()) if relative else arg)  # not resolve(): a venv's python is a symlink
    return out


def _ok(reply: Reply, what: str, observed: Observed, driver: Driver) -> bool:
    """True when `reply` answered; else record (in `observed` and the transcript) what happened."""
    if reply.status is Status.TIMEOUT:
        observed.hung = f"no answer to {what} within {reply.waited:.1f}s"
        driver.h.note(f"mcptape probe: {observed.hung}")
        return False
    if reply.status is Status.GONE:
        observed.gone = what
        return False
    return True


def _drive(
    case: Case, d: Driver, observed: Observed, plan: Plan, linger: float, announce: Progress | None = None
) -> None:
    if not _handshake(case, d, observed, plan, announce):
        return
    if case.group == START:
        _valid_calls(case, d, observed, plan)
    else:
        _hard_input(case, d, observed, plan, linger)


def _handshake(case: Case, d: Driver, observed: Observed, plan: Plan, announce: Progress | None) -> bool:
    """initialize (or server/discover) and tools/list; False when the session cannot go on."""
    if case.idle:
        d.h.wait_exit(plan.idle)
    if case.discover:
        reply = d.discover()
        if reply.status is Status.TIMEOUT:
            observed.discover = f"no answer to server/discover within {reply.waited:.1f}s"
            d.h.note(f"mcptape probe: {observed.discover}")
            return False
        if not _ok(reply, "server/discover", observed, d):
            return False
        if reply.error is not None:
            observed.discover = f"answered error {reply.error.get('code')}: {reply.error.get('message')}"
            return False
    else:
        reply = d.initialize()
        if not _ok(reply, "initialize", observed, d):
            return False
        if reply.result is None:
            observed.refused = f"initialize answered with an error: {reply.error}"
            return False
    reply = d.request("tools/list", 2, {})
    if not _ok(reply, "tools/list", observed, d):
        return False
    if reply.result is None:
        observed.refused = f"tools/list answered with an error: {reply.error}"
        return False
    tools = reply.result.get("tools")
    observed.tools = [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    if announce is not None:
        real = [
            (t["name"], why)
            for t in observed.tools
            if (why := mutation_risk(t)) and isinstance(t.get("name"), str)
        ]
        named = ", ".join(f"{escape_text(name)} ({why})" for name, why in real) or "none"
        announce(
            "mcptape probe: --allow-mutating: these tools may change data and will be called for "
            f"real: {named}"
        )
    return True


def _valid_calls(case: Case, d: Driver, observed: Observed, plan: Plan) -> None:
    """A start case's valid call (the clean start tries the candidates in turn)."""
    candidates = (
        candidate_calls(
            plan.tool, plan.arguments, plan.recorded, observed.tools or [], plan.allow_mutating, plan.reach
        )
        if case.id == "start"
        else [observed.call or Call(None)]
    )
    for n, candidate in enumerate(candidates):
        observed.call = candidate
        observed.call_id = CALL_ID if n == 0 else f"probe-call-{n + 1}"
        reply = d.call(candidate.request(observed.call_id))
        if not _ok(reply, "the valid call", observed, d):
            return
        observed.call_seconds = reply.waited
        observed.call_error = refusal(reply)
        if observed.call_error is None:
            return
        if n + 1 < len(candidates):
            observed.tried.append(f"{candidate.tool} ({observed.call_error})")


def _hard_input(case: Case, d: Driver, observed: Observed, plan: Plan, linger: float) -> None:
    """Send the case's hard input, then a ping and the valid request after it."""
    call = observed.call or Call(None)
    bad = observed.bad = case.build(call, observed.marker, plan.oversize) if case.build else None
    mark = d.mark()
    sent = d.send(bad.data) if bad is not None else Status.GONE
    if sent is Status.TIMEOUT:
        size = len(bad.data) if bad is not None else 0
        observed.hung = f"the server stopped reading its stdin ({size} bytes not taken within {d.timeout:g}s)"
        d.h.note(f"mcptape probe: {observed.hung}")
        return
    if sent is not None:
        observed.gone = "the hard input"
        return
    if case.eof:
        d.h.close_stdin()
        return
    if not _ok(d.request("ping", observed.ping_id), PING_STEP, observed, d):
        return
    if bad is not None and bad.ids:
        # The ping's answer says the frame was read, not that its work is over: a server that works
        # concurrently may still be running it. Its answer (bounded) first, so that its late action
        # is not counted against the valid request sent after it.
        d.settle(bad.ids, linger, since=mark)
    d.h.wait_exit(SETTLE)
    _ok(d.call(call.request(observed.after_id)), AFTER_STEP, observed, d)
