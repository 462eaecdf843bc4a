"""Run the cases: each in a fresh server process under a `Harness`, every wait bounded.

The `start` case runs first, alone: it finds the tool the other cases call (unless `--tool` names
it) and how many executor calls one valid call makes (the baseline). The others then run in a
small thread pool (`jobs`), each judged by `judge` from its own transcript as soon as it ends.
Progress goes to stderr, one line per case.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from mcptape.errors import UsageError
from mcptape.harness import Harness
from mcptape.probe import live
from mcptape.probe.args import minimal_arguments
from mcptape.probe.cases import INPUT, START, Call, Case
from mcptape.probe.driver import Driver, Reply, Status
from mcptape.probe.judge import CaseResult, inconclusive, judge, not_run
from mcptape.probe.mrtr import run_mrtr
from mcptape.probe.observed import AFTER_ID, AFTER_STEP, CALL_ID, PING_ID, PING_STEP, Observed, Verdict
from mcptape.probe.plan import Plan
from mcptape.probe.tools import run_tool_frames, tool_frames
from mcptape.textsafe import escape_text

SETTLE = 0.15  # seconds after the ping answer before the valid request: late actions land first
TRIES = 3  # tools tried with derived arguments before the valid call counts as refused


@dataclass
class ProbeResult:
    plan: Plan
    call: Call | None
    baseline: int | None
    results: list[CaseResult]
    seconds: float

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
    total = len(cases)
    progress(f"mcptape probe: {total} cases, transcripts in {plan.out_dir}")
    first = next((c for c in cases if c.id == "start"), None)
    results: list[CaseResult] = []
    call: Call | None = _given_call(plan)
    baseline: int | None = None
    tools: list[dict[str, Any]] = []
    refused: str | None = None
    blocked = False
    done = 0

    def report(result: CaseResult) -> None:
        nonlocal done, total
        done += 1
        total = max(total, done)  # the MRTR cases are known once their process found the tools
        results.append(result)
        progress(
            f"[{done:>2}/{total}] {result.case.id:<22} {result.verdict.value:<7} "
            f"{result.seconds:5.1f}s  {escape_text(result.did)}"
        )

    if first is not None:
        observed = run_case(first, plan, call)
        start_result = judge(observed, None)
        report(start_result)
        call = observed.call or call
        baseline = start_result.baseline
        tools = observed.tools or []
        if observed.call_error and call is not None:
            refused = (
                f"the valid call {escape_text(call.tool or 'tools/list')} "
                f"{escape_text(orjson.dumps(call.arguments).decode())[:120]} was refused too "
                f"({observed.call_error}); give arguments it accepts with --tool NAME --args JSON, or "
                "--from TRANSCRIPT (a recorded session that called it)"
            )
        cases.remove(first)
        if start_result.blocking:
            blocked = True
            for case in cases:
                report(not_run(case, f"not run: the clean start failed ({start_result.did})"))
            cases = []
    if cases and call is None:
        call = Call(None)
    frames = tool_frames(tools, call, plan.token) if plan.every_tool and tools and not blocked else []
    total += len(frames)
    pool = ThreadPoolExecutor(max_workers=max(1, plan.jobs), thread_name_prefix="mcptape-probe")
    try:
        # The per-tool hard inputs first (the longest job: one process shared while it stays open).
        futures = [pool.submit(run_tool_frames, plan, frames)] if frames else []
        if plan.every_tool and tools and not blocked:  # altered and foreign requestState (MRTR tools)
            futures.append(pool.submit(run_mrtr, plan, call))
        futures += [pool.submit(_run_and_judge, case, plan, call, baseline) for case in cases]
        for future in as_completed(futures):
            outcome = future.result()
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
    order = {case.id: i for i, case in enumerate([*plan.cases, *(f.case for f in frames)])}
    results.sort(key=lambda r: order.get(r.case.id, len(order)))
    return ProbeResult(plan, call, baseline, results, time.monotonic() - t0)


def _given_call(plan: Plan) -> Call | None:
    if plan.tool is None:
        return None
    return Call(plan.tool, dict(plan.arguments) if plan.arguments is not None else {})


def _run_and_judge(case: Case, plan: Plan, call: Call | None, baseline: int | None) -> list[CaseResult]:
    return [judge(run_case(case, plan, call), baseline)]


def run_case(case: Case, plan: Plan, call: Call | None) -> Observed:
    """Run one case in a fresh server process; the transcript goes to OUT_DIR/<case>.jsonl."""
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
        header = {"probe": {"case": case.id, "title": case.title, "marker": marker}}
        harness = Harness(
            command, observed.path, env=env, cwd=cwd, shutdown_timeout=plan.shutdown, header=header
        )
        with harness, live.running(harness):
            driver = Driver(harness, plan.timeout, plan.start_timeout)
            _drive(case, driver, observed, plan)
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
        out.append(str(path.resolve()) if relative else arg)
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


def _drive(case: Case, d: Driver, observed: Observed, plan: Plan) -> None:
    if case.idle:
        d.h.wait_exit(plan.idle)
    if case.discover:
        reply = d.discover()
        if reply.status is Status.TIMEOUT:
            observed.discover = f"no answer to server/discover within {reply.waited:.1f}s"
            d.h.note(f"mcptape probe: {observed.discover}")
            return
        if not _ok(reply, "server/discover", observed, d):
            return
        if reply.error is not None:
            observed.discover = f"answered error {reply.error.get('code')}: {reply.error.get('message')}"
            return
    else:
        reply = d.initialize()
        if not _ok(reply, "initialize", observed, d):
            return
        if reply.result is None:
            observed.refused = f"initialize answered with an error: {reply.error}"
            return
    reply = d.request("tools/list", 2, {})
    if not _ok(reply, "tools/list", observed, d):
        return
    if reply.result is None:
        observed.refused = f"tools/list answered with an error: {reply.error}"
        return
    tools = reply.result.get("tools")
    observed.tools = [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    if case.group == START:
        candidates = (
            candidate_calls(plan.tool, plan.arguments, plan.recorded, observed.tools)
            if case.id == "start"
            else [observed.call or Call(None)]
        )
        for n, candidate in enumerate(candidates):
            observed.call = candidate
            observed.call_id = CALL_ID if n == 0 else f"probe-call-{n + 1}"
            reply = d.call(candidate.request(observed.call_id))
            if not _ok(reply, "the valid call", observed, d):
                return
            observed.call_error = refusal(reply)
            if observed.call_error is None:
                return
            if n + 1 < len(candidates):
                observed.tried.append(f"{candidate.tool} ({observed.call_error})")
        return
    call = observed.call or Call(None)
    bad = observed.bad = case.build(call, observed.marker, plan.oversize) if case.build else None
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
    if not _ok(d.request("ping", PING_ID), PING_STEP, observed, d):
        return
    d.h.wait_exit(SETTLE)
    _ok(d.call(call.request(AFTER_ID)), AFTER_STEP, observed, d)


def refusal(reply: Reply) -> str | None:
    """Why the valid call was not a success (an error, `isError`, `input_required`), or None."""
    result = reply.result
    if result is None:
        error = reply.error or {}
        return f"error {error.get('code')}: {escape_text(str(error.get('message')))[:80]}"
    if result.get("isError") is True:
        return "a result with isError: true"
    if result.get("resultType") == "input_required":
        return "input_required (it asks the user first)"
    return None


def preference(entry: dict[str, Any]) -> int:
    """The order tools are tried in: read-only first, then non-destructive, then the rest."""
    hints = entry.get("annotations")
    hints = hints if isinstance(hints, dict) else {}
    if hints.get("readOnlyHint") is True:
        return 0
    if hints.get("destructiveHint") is False:
        return 1
    return 2


def candidate_calls(
    tool: str | None,
    arguments: dict[str, Any] | None,
    recorded: Sequence[Call],
    tools: list[dict[str, Any]],
) -> list[Call]:
    """The valid calls to try, best first: the named tool, a recorded real call, or derived ones.

    `--tool` (with `--args`, a recorded call of it, or derived arguments) is tried alone; so is a
    call recorded with `--from`, and `--args` alone goes to the preferred tool. Otherwise up to
    `TRIES` tools get derived arguments, read-only ones (`readOnlyHint`) first, then tools marked
    non-destructive, in the server's order: the first one accepted is the valid call.
    """
    named = [t for t in tools if isinstance(t.get("name"), str)]
    names = [t["name"] for t in named]
    if tool is not None:
        if tool not in names:
            listed = ", ".join(escape_text(str(n)) for n in names[:10]) or "none"
            raise UsageError(f"--tool {tool}: the server lists no such tool", hint=f"it lists: {listed}")
        if arguments is not None:
            return [Call(tool, dict(arguments))]
        mine = [c for c in recorded if c.tool == tool]
        schema = named[names.index(tool)].get("inputSchema")
        return mine[:1] or [Call(tool, minimal_arguments(schema))]
    ranked = sorted(named, key=preference)
    if arguments is not None:
        return [Call(ranked[0]["name"] if ranked else None, dict(arguments))]
    real = [c for c in recorded if c.tool in names]
    if real:
        rank = {t["name"]: preference(t) for t in named}
        return [min(real, key=lambda c: rank[c.tool])]
    calls = [Call(t["name"], minimal_arguments(t.get("inputSchema"))) for t in ranked[:TRIES]]
    return calls or [Call(None)]
