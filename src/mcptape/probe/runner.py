"""Run the cases: each in a fresh server process under a `Harness`, every wait bounded.

The `start` case runs first, alone: it finds the tool the other cases call (unless `--tool` names
it) and how many executor calls one valid call makes (the baseline). The others then run in a
small thread pool (`jobs`), each judged by `judge` from its own transcript as soon as it ends.
Progress goes to stderr, one line per case.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.errors import UsageError
from mcptape.harness import Harness
from mcptape.probe.args import minimal_arguments
from mcptape.probe.cases import CASES, DEFAULT_OVERSIZE, START, Call, Case
from mcptape.probe.driver import Driver, Reply, Status
from mcptape.probe.judge import CaseResult, judge, not_run
from mcptape.probe.observed import AFTER_ID, AFTER_STEP, CALL_ID, PING_ID, PING_STEP, Observed
from mcptape.textsafe import escape_text

SETTLE = 0.15  # seconds after the ping answer before the valid request: late actions land first


@dataclass
class Plan:
    """Everything a probe run needs to know."""

    command: list[str]
    out_dir: Path
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    timeout: float = 10.0
    start_timeout: float = 30.0
    idle: float = 1.0
    oversize: int = DEFAULT_OVERSIZE
    jobs: int = 4
    cases: Sequence[Case] = CASES
    token: str = field(default_factory=lambda: secrets.token_hex(4))

    @property
    def shutdown(self) -> float:
        """How long a server gets to exit after stdin closes (then SIGTERM, then SIGKILL)."""
        return min(5.0, self.timeout)


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
    _STOPPING.clear()
    plan.out_dir.mkdir(parents=True, exist_ok=True)
    cases = list(plan.cases)
    total = len(cases)
    progress(f"mcptape probe: {total} cases, transcripts in {plan.out_dir}")
    first = next((c for c in cases if c.id == "start"), None)
    results: list[CaseResult] = []
    call: Call | None = _given_call(plan)
    baseline: int | None = None
    done = 0

    def report(result: CaseResult) -> None:
        nonlocal done
        done += 1
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
        cases.remove(first)
        if start_result.blocking:
            for case in cases:
                report(not_run(case, f"not run: the clean start failed ({start_result.did})"))
            cases = []
    if cases and call is None:
        call = Call(None)
    pool = ThreadPoolExecutor(max_workers=max(1, plan.jobs), thread_name_prefix="mcptape-probe")
    try:
        futures = [pool.submit(_run_and_judge, case, plan, call, baseline) for case in cases]
        for future in as_completed(futures):
            report(future.result())
    except KeyboardInterrupt:
        with _RUNNING_LOCK:
            _STOPPING.set()  # a case still starting aborts itself as it registers
            running = list(_RUNNING)
        for harness in running:  # the cases in other threads end now, not at their timeouts
            harness.abort()
        raise
    finally:
        # On Ctrl-C (or an error) no new case starts; the running ones end within their timeouts.
        pool.shutdown(wait=True, cancel_futures=True)
    order = {case.id: i for i, case in enumerate(plan.cases)}
    results.sort(key=lambda r: order.get(r.case.id, len(order)))
    return ProbeResult(plan, call, baseline, results, time.monotonic() - t0)


def _given_call(plan: Plan) -> Call | None:
    if plan.tool is None:
        return None
    return Call(plan.tool, dict(plan.arguments) if plan.arguments is not None else {})


def _run_and_judge(case: Case, plan: Plan, call: Call | None, baseline: int | None) -> CaseResult:
    return judge(run_case(case, plan, call), baseline)


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
        with harness, _running(harness):
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


_RUNNING: set[Harness] = set()  # the cases' harnesses, for Ctrl-C to abort from the main thread
_RUNNING_LOCK = threading.Lock()
_STOPPING = threading.Event()  # Ctrl-C was pressed: set under _RUNNING_LOCK


@contextlib.contextmanager
def _running(harness: Harness) -> Iterator[None]:
    with _RUNNING_LOCK:
        _RUNNING.add(harness)
        stopping = _STOPPING.is_set()
    if stopping:  # Ctrl-C came while this case was starting: the main thread did not see it
        harness.abort()
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(harness)


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
        if case.id == "start":
            observed.call = choose_call(plan.tool, plan.arguments, observed.tools)
        observed.call = observed.call or Call(None)
        reply = d.call(observed.call.request(CALL_ID))
        if _ok(reply, "the valid call", observed, d):
            result = reply.result
            if result is None:
                observed.call_error = f"error {reply.error}"
            elif result.get("isError") is True:
                observed.call_error = "a result with isError: true"
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


def choose_call(tool: str | None, arguments: dict[str, Any] | None, tools: list[dict[str, Any]]) -> Call:
    """The valid call: the named tool (arguments derived when not given), else the first tool."""
    names = [t.get("name") for t in tools]
    if tool is not None:
        if tool not in names:
            listed = ", ".join(str(n) for n in names[:10]) or "none"
            raise UsageError(f"--tool {tool}: the server lists no such tool", hint=f"it lists: {listed}")
        schema = tools[names.index(tool)].get("inputSchema")
        return Call(tool, dict(arguments) if arguments is not None else minimal_arguments(schema))
    for entry in tools:
        if isinstance(entry.get("name"), str):
            derived = minimal_arguments(entry.get("inputSchema"))
            return Call(entry["name"], dict(arguments) if arguments is not None else derived)
    return Call(None)
