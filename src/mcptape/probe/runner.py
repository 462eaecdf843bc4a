"""Run the cases: each in a fresh server process under a `Harness`, every wait bounded.

The `start` case runs first, alone: it finds the tool the other cases call (unless `--tool` names
it; only a tool it may call, `safety.callable_tools`) and how many executor calls one valid call
makes (the baseline). The others then run in a small thread pool (`jobs`), each judged by `judge`
from its own transcript as soon as it ends. Progress goes to stderr, one line per case: `[ 1/?]`
until the server has listed its tools, then a line says how many cases there are in all (and
another when the MRTR cases are found).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mcptape.errors import MCPTapeError
from mcptape.harness import Harness
from mcptape.probe import live
from mcptape.probe.baseline import Entry
from mcptape.probe.candidates import candidate_calls
from mcptape.probe.cases import INPUT, START, Call, Case, title_for
from mcptape.probe.driver import Driver, Reply, Status, refusal
from mcptape.probe.judge import CaseResult, inconclusive, judge, not_run
from mcptape.probe.mrtr import run_mrtr
from mcptape.probe.observed import AFTER_ID, AFTER_STEP, CALL_ID, PING_ID, PING_STEP, Observed, Verdict
from mcptape.probe.plan import Plan
from mcptape.probe.safety import NOT_TESTED, callable_tools, mutation_risk
from mcptape.probe.tools import run_tool_frames, tool_frames
from mcptape.textsafe import escape, escape_text

SETTLE = 0.15  # seconds after the ping answer before the valid request: late actions land first
# How long a bad frame that carries ids may take to be answered after the ping barrier, at most:
# LINGER plus LINGER_CALLS times the valid call's own time in `start`, within --timeout.
LINGER, LINGER_CALLS = 0.3, 4
AFTER_SETTLE = 0.02  # seconds after a shared case's last answer, before the next case's frame
INPUT_PROCESSES = 2  # the request-level hard inputs share this many server processes (run_inputs)


@dataclass
class ProbeResult:
    plan: Plan
    call: Call | None
    baseline: int | None
    results: list[CaseResult]
    seconds: float
    skipped_tools: list[tuple[str, str]] = field(default_factory=list)  # left alone: (tool, why)
    refused: str | None = None  # why the valid call was refused (its cases are inconclusive)
    refused_tools: list[str] = field(default_factory=list)  # tools whose base arguments were refused
    reach: list[dict[str, Any]] = field(default_factory=list)  # per tool: the cases that named it
    stale: list[Entry] = field(default_factory=list)  # baseline entries that no longer happen

    @property
    def failed(self) -> bool:
        return any(r.failed for r in self.results)

    @property
    def inconclusive(self) -> bool:
        return any(r.verdict is Verdict.INCONCLUSIVE for r in self.results)

    @property
    def passed(self) -> bool:
        """No failure and nothing inconclusive: the only outcome that exits 0."""
        return not self.failed and not self.inconclusive


Progress = Callable[[str], None]


class ServerDied(MCPTapeError):
    """The server ended before answering `initialize`: nothing can be probed (exit 2)."""

    def __init__(self, start: CaseResult) -> None:
        first = start.stderr.strip().split(b"\n", 1)[0] if start.stderr else b""
        said = f": {escape(first, 160)}" if first else " (nothing on stderr)"
        super().__init__(
            f"the server ended before answering initialize ({start.exit or 'no exit status'}){said}",
            hint=f"run the command by hand to see why; the session is in {start.transcript}",
        )


def stderr_progress(line: str) -> None:
    """One progress line on stderr, best-effort: a stderr that cannot be written (a full disk)
    loses the line, never the probe."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except OSError:
        pass


def run_probe(plan: Plan, progress: Progress = stderr_progress) -> ProbeResult:
    """Run every case of `plan`; never waits on the server longer than its timeouts allow."""
    t0 = time.monotonic()
    live.reset()
    plan.out_dir.mkdir(parents=True, exist_ok=True)
    cases = list(plan.cases)
    total: int | None = None  # unknown until the server has listed its tools
    more = " and hard inputs to each tool" if plan.every_tool else ""
    progress(f"mcptape probe: {len(cases)} cases{more}, transcripts in {plan.out_dir}")
    if plan.allow_mutating:
        progress(
            "mcptape probe: --allow-mutating: tools that may change data will be called for real "
            "(named once the server lists them)"
        )
    first = next((c for c in cases if c.id == "start"), None)
    results: list[CaseResult] = []
    call: Call | None = _given_call(plan)
    baseline: int | None = None
    tools: list[dict[str, Any]] = []
    refused: str | None = None
    blocked = False
    linger = plan.timeout
    done = 0

    def report(result: CaseResult) -> None:
        nonlocal done
        done += 1
        results.append(result)
        shown = "?" if total is None else str(total)
        progress(
            f"[{done:>2}/{shown}] {result.case.id:<22} {result.verdict.value:<7} "
            f"{result.seconds:5.1f}s  {escape_text(result.did)}"
        )

    if first is not None:
        observed = run_case(first, plan, call, announce=progress if plan.allow_mutating else None)
        start_result = judge(observed, None)
        report(start_result)
        call = observed.call or call
        baseline = start_result.baseline
        tools = observed.tools or []
        linger = min(plan.timeout, LINGER + LINGER_CALLS * observed.call_seconds)
        if observed.call_error and call is not None:
            refused = (
                f"the valid call {escape_text(call.tool or 'tools/list')} "
                f"{escape_text(orjson.dumps(call.arguments).decode())[:120]} was refused too "
                f"({observed.call_error}); give arguments it accepts with --tool NAME --args JSON, or "
                "--from TRANSCRIPT (a recorded session that called it)"
            )
        cases.remove(first)
        if observed.gone == "initialize":
            raise ServerDied(start_result)
        if start_result.blocking:
            blocked = True
            total = done + len(cases)
            for case in cases:
                report(not_run(case, f"not run: the clean start failed ({start_result.did})"))
            cases = []
    if cases and call is None:
        call = Call(None)
    _, skipped = callable_tools(tools, plan.allow_mutating)
    every = plan.every_tool and bool(tools) and not blocked
    frames = tool_frames(tools, call, plan.token, plan.recorded, plan.reach) if every else []
    cases, unsent = _screen(cases, plan)
    for result in unsent:
        report(result)
    good = {call.tool} if call is not None and call.tool is not None and refused is None else set()
    if total is None:
        total = done + len(cases) + sum(1 for f in frames if f.base is None)
        listed = f"{len(tools)} tools listed; " if every else ""
        alone = f" ({len(skipped)} that may change data get none: not tested)" if every and skipped else ""
        tried = len({f.tool for f in frames})
        hard = f"hard inputs to {tried} of them{alone}; " if every else ""
        later = ", plus the requestState cases of tools that use MRTR" if every else ""
        progress(f"mcptape probe: {listed}{hard}{total} cases in all{later}")
    pool = ThreadPoolExecutor(max_workers=max(1, plan.jobs), thread_name_prefix="mcptape-probe")
    try:
        # The per-tool hard inputs first (the longest job: one process shared while it stays open).
        futures = [pool.submit(run_tool_frames, plan, frames, good, linger)] if frames else []
        mrtr = pool.submit(run_mrtr, plan, call) if every else None  # altered and foreign requestState
        futures += [mrtr] if mrtr is not None else []
        groups, own = share_processes(cases)
        futures += [pool.submit(run_inputs, group, plan, call, baseline, linger) for group in groups]
        futures += [pool.submit(_run_and_judge, case, plan, call, baseline, linger) for case in own]
        for future in as_completed(futures):
            outcome = future.result()
            if future is mrtr and outcome:
                total += len(outcome)
                found = len({r.case.id.split(":", 1)[-1] for r in outcome})
                progress(f"mcptape probe: {found} tools use MRTR: {len(outcome)} more cases, {total} in all")
            for result in outcome:
                if refused is not None and result.case.uses_call and result.case.group == INPUT:
                    inconclusive(result, refused)
                report(result)
    except KeyboardInterrupt:
        live.stop_all()  # the cases in other threads end now, not at their timeouts
        raise
    finally:
        # On Ctrl-C (or an error) no new case starts; the running ones end within their timeouts.
        pool.shutdown(wait=True, cancel_futures=True)
    frame_of = {id(f.case): f for f in frames}
    unsure = [frame_of.get(id(r.case)) for r in results if r.verdict is Verdict.INCONCLUSIVE]
    refused_tools = list(dict.fromkeys(f.tool for f in unsure if f is not None))  # their base refused
    order = {case.id: i for i, case in enumerate([*plan.cases, *(f.case for f in frames)])}
    results.sort(key=lambda r: order.get(r.case.id, len(order)))
    return ProbeResult(
        plan,
        call,
        baseline,
        results,
        time.monotonic() - t0,
        skipped_tools=skipped,
        refused=refused,
        refused_tools=refused_tools,
        reach=plan.reach.table(),
    )


def _screen(cases: list[Case], plan: Plan) -> tuple[list[Case], list[CaseResult]]:
    """The cases safe to send, and an n/a result for each corpus frame that names a tool the
    probe may not call (`safety`: a tolerant server would run it)."""
    kept: list[Case] = []
    unsent: list[CaseResult] = []
    for case in cases:
        named = (
            plan.reach.forbidden_in(case.build(Call(None), "", plan.oversize).data)
            if case.corpus and case.build is not None
            else []
        )
        if not named:
            kept.append(case)
            continue
        tools = ", ".join(f"{escape_text(n)} ({plan.reach.forbidden[n]})" for n in named)
        why = f"not sent: it names {tools}; {NOT_TESTED}"
        unsent.append(CaseResult(case, Verdict.NA, why, [why]))
    return kept, unsent


def _given_call(plan: Plan) -> Call | None:
    if plan.tool is None:
        return None
    return Call(plan.tool, dict(plan.arguments) if plan.arguments is not None else {})


def _run_and_judge(
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
    cases: Sequence[Case], plan: Plan, call: Call | None, baseline: int | None, linger: float
) -> list[CaseResult]:
    """Send request-level hard inputs one after another in a shared server process, each judged in
    its own window of the transcript (`<first case>.jsonl`); when the session ends (the server
    closed on a reject, or hung and was stopped), the cases not yet sent go to a new process."""
    results: list[CaseResult] = []
    waiting = list(cases)
    while waiting:
        observed = _inputs_process(waiting, plan, call, linger)
        results.extend(judge(o, baseline) for o in observed)
        waiting = waiting[len(observed) :]
    return results


def _inputs_process(cases: list[Case], plan: Plan, call: Call | None, linger: float) -> list[Observed]:
    """One server process: the handshake, then hard inputs until they are done or the session ends."""
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
        harness.close_stdin()
        waited = time.monotonic()
        if not harness.wait_exit(plan.shutdown):
            done[-1].lingered = time.monotonic() - waited
    done[-1].status = harness.status
    done[-1].seconds = time.monotonic() - t0 - sum(o.seconds for o in done[:-1])
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
