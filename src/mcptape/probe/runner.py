"""Run the cases, every wait bounded (their server processes: `sessions`).

The `start` case goes first through the start-up gate (`live`: at most `jobs` servers starting at
once): it finds the tool the other cases call (unless `--tool` names it; only a tool it may call,
`safety.callable_tools`), how many executor calls one valid call makes (the baseline) and the
tools. The other cases' servers start beside it, in a thread each, and do their own handshake,
then wait for those facts (`ready`) before they send anything built on them; when the clean start
fails they end and are reported not run. Each case is judged by `judge` from its own transcript (or
window of a shared one) as soon as its process ends. Progress goes to stderr, one line per case:
`[ 1/?]` until the server has listed its tools, then a line says how many cases there are in all
(and another when the MRTR cases are found).
"""

from __future__ import annotations

import itertools
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor, as_completed, wait
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from mcptape.errors import MCPTapeError
from mcptape.probe import live
from mcptape.probe.baseline import Entry
from mcptape.probe.cases import INPUT, TOOL, Call, Case
from mcptape.probe.inputs import CLEAN_START, hosts_tools, run_clean_start, run_inputs, share_processes
from mcptape.probe.judge import CaseResult, inconclusive, not_run
from mcptape.probe.mrtr import discover_then_mrtr, run_mrtr
from mcptape.probe.observed import Verdict
from mcptape.probe.plan import Plan
from mcptape.probe.ready import Ready
from mcptape.probe.safety import NOT_TESTED, callable_tools
from mcptape.probe.sessions import Progress, run_and_judge
from mcptape.probe.surfacelock import LOCK_NAME, SurfaceLock, write_surface_lock
from mcptape.probe.tools import Shared, run_tool_frames, tool_frames
from mcptape.probe.variations import run_variations, varies_the_process
from mcptape.probe.windows import ToolFrame
from mcptape.textsafe import escape, escape_text

# How long a bad frame that carries ids may take to be answered after the ping barrier, at most:
# LINGER plus LINGER_CALLS times the valid call's own time in `start`, within --timeout.
LINGER, LINGER_CALLS = 0.1, 4
POOL = 16  # cases in flight at most (their servers start through live's gate: -j at once)


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
    surface_lock: SurfaceLock | None = None  # the tool surface it listed, as tools.lock.json

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


class _Reports:
    """The results so far, each told as a progress line: `[ n/?]` until the total is known."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.results: list[CaseResult] = []
        self.total: int | None = None

    def __call__(self, result: CaseResult) -> None:
        self.results.append(result)
        shown = "?" if self.total is None else str(self.total)
        self.progress(
            f"[{len(self.results):>2}/{shown}] {result.case.id:<22} {result.verdict.value:<7} "
            f"{result.seconds:5.1f}s  {escape_text(result.did)}"
        )


def run_probe(plan: Plan, progress: Progress = stderr_progress) -> ProbeResult:
    """Run every case of `plan`; never waits on the server longer than its timeouts allow."""
    return _Run(plan, progress).run()


class _Run:
    """One probe run, in its phases: every server started (`_start_all`), the clean start's facts
    (`_clean_start`), the cases that wait for them sent on (`_go_on`), the results as they come
    (`_collect`)."""

    def __init__(self, plan: Plan, progress: Progress) -> None:
        self.t0 = time.monotonic()
        self.plan, self.progress = plan, progress
        self.report = _Reports(progress)
        self.first = next((c for c in plan.cases if c.id == CLEAN_START), None)
        self.call: Call | None = _given_call(plan)
        self.baseline: int | None = None
        self.tools: list[dict[str, Any]] = []
        self.refused: str | None = None  # why the valid call was refused
        self.surface_lock: SurfaceLock | None = None
        self.listed: Path | None = None  # the clean start's transcript, when it listed tools
        self.blocked = False
        self.linger = plan.timeout
        self.frames: list[ToolFrame] = []
        self.skipped: list[tuple[str, str]] = []
        self.good: set[str] = set()  # the tools whose base arguments are known to work
        self.ready = (
            Ready(self.call) if self.first is not None else Ready.now(self.call or Call(None), plan.timeout)
        )
        self.futures: list[Future[list[CaseResult]]] = []
        self.mrtr: Future[list[CaseResult]] | None = None  # the future whose results add MRTR cases

    def run(self) -> ProbeResult:
        plan = self.plan
        live.reset(plan.jobs)
        plan.out_dir.mkdir(parents=True, exist_ok=True)
        more = " and hard inputs to each tool" if plan.every_tool else ""
        self.progress(f"mcptape probe: {len(plan.cases)} cases{more}, transcripts in {plan.out_dir}")
        if plan.allow_mutating:
            self.progress(
                "mcptape probe: --allow-mutating: tools that may change data will be called for real "
                "(named once the server lists them)"
            )
        # -j 1: one server process at a time (a server that takes a global lock: a fixed port, a pid
        # file); the clean start's process is submitted first, so it runs first and never waits.
        pool = ThreadPoolExecutor(
            max_workers=POOL if plan.jobs > 1 else 1, thread_name_prefix="mcptape-probe"
        )
        try:
            host, discover = self._start_all(pool)
            corpus = [c for c in plan.cases if c.corpus]
            if self.first is not None:
                corpus = self._clean_start(corpus)
            self._go_on(pool, corpus, host, discover)
            self._lock()  # once the others went on: it is no case's wait
            self._collect()
        except KeyboardInterrupt:
            live.stop_all()  # the cases in other threads end now, not at their timeouts
            raise
        finally:
            # On Ctrl-C (or an error) no new case starts; the running ones end within their timeouts.
            self.ready.block()  # (no-op once it went on) the cases waiting for the clean start end now
            pool.shutdown(wait=True, cancel_futures=True)
        return self._result()

    def _start_all(self, pool: ThreadPoolExecutor) -> tuple[list[Case] | None, Case | None]:
        """Every case's server starts now, through the start-up gate (the clean start's first); the
        others do their own handshake and wait for the clean start (`ready`). The corpus frames wait
        for the tool list (a frame naming a tool the probe may not call is not sent): they are
        grouped once it is known (`_go_on`). Returns the group that hosts the per-tool inputs and
        start-discover (the MRTR cases follow it)."""
        plan, first = self.plan, self.first
        cases = [c for c in plan.cases if not c.corpus and c is not first]
        groups, own, deal = share_processes(cases, first)
        host = next((g for g in groups if hosts_tools(g)), None) if plan.every_tool else None
        discover = next((c for c in own if c.discover), None)
        rank = itertools.count(1)
        place = live.claim(0) if first is not None else None  # the clean start goes first
        for group in groups:
            if group[0] is first:
                announce = self.progress if plan.allow_mutating else None
                job = pool.submit(run_clean_start, first, plan, self.ready, place, announce)
            else:
                job = pool.submit(run_inputs, group, plan, self.ready, group is host, next(rank), None, deal)
            self.futures.append(job)
        # The variations before start-discover at the gate: their server starts slower (PYTHONDEVMODE
        # and the others) and has nothing to wait for after its start, so it is the one to start early.
        varied = [c for c in own if varies_the_process(c)]
        if len(varied) > 1:  # in one process, each again alone when they do not pass together
            own = [c for c in own if c not in varied]
            self.futures.append(pool.submit(run_variations, varied, plan, self.ready, next(rank)))
        if discover is not None:
            own.remove(discover)
            self.mrtr = pool.submit(discover_then_mrtr, discover, plan, self.ready, next(rank))
            self.futures.append(self.mrtr)
        self.futures += [pool.submit(run_and_judge, case, plan, self.ready, next(rank)) for case in own]
        return host, discover

    def _clean_start(self, corpus: list[Case]) -> list[Case]:
        """What the clean start found (the valid call, its baseline, the tools, how long a bad frame
        may linger); when it failed, the others end and are reported not run (ServerDied when the
        server ended before answering initialize). The corpus cases left to send."""
        _warm_up()  # while the servers start: what the others need once the clean start is known
        seen = self.ready.wait_seen()
        if seen is None:  # the clean start's process raised (its server could not start, say)
            self.futures[0].result()
            raise AssertionError("the clean start ended without a word")
        observed, start = seen
        call = self.call = observed.call or self.call
        self.tools = observed.tools or []
        self.linger = min(self.plan.timeout, LINGER + LINGER_CALLS * observed.call_seconds)
        if observed.call_error and call is not None:
            self.refused = (
                f"the valid call {escape_text(call.tool or 'tools/list')} "
                f"{escape_text(orjson.dumps(call.arguments).decode())[:120]} was refused too "
                f"({observed.call_error}); give arguments it accepts with --tool NAME --args JSON, or "
                "--from TRANSCRIPT (a recorded session that called it)"
            )
        self.listed = observed.path if observed.tools is not None else None
        if not start.blocking:
            return corpus
        self._lock()
        self.blocked = True
        self.ready.block()
        wait(self.futures)  # their servers end at once, their transcripts are removed
        ended = self.futures[0].result()  # the clean start's verdict, with its exit
        start = ended[0] if ended else start
        self.baseline = start.baseline
        self.report(start)
        self.futures, self.mrtr = [], None
        if observed.gone == "initialize":
            raise ServerDied(start)
        rest = [c for c in self.plan.cases if c is not self.first]
        self.report.total = len(self.report.results) + len(rest)
        for case in rest:
            self.report(not_run(case, f"not run: the clean start failed ({start.did})"))
        return []

    def _lock(self) -> None:
        """DIR/tools.lock.json: the surface the clean start listed (once)."""
        if self.listed is not None and self.surface_lock is None:
            self.surface_lock = write_surface_lock(self.listed, self.plan.file(LOCK_NAME))

    def _go_on(
        self, pool: ThreadPoolExecutor, corpus: list[Case], host: list[Case] | None, discover: Case | None
    ) -> None:
        """The facts the waiting cases go on with; the processes that needed them to start (the
        corpus frames, the per-tool inputs without a host, MRTR without start-discover)."""
        plan, tools = self.plan, self.tools
        call = self.call = self.call or Call(None)
        _, self.skipped = callable_tools(tools, plan.allow_mutating)
        every = plan.every_tool and bool(tools) and not self.blocked
        frames = self.frames = (
            tool_frames(tools, call, plan.token, plan.recorded, plan.reach) if every else []
        )
        corpus, unsent = _screen(corpus, plan)
        for result in unsent:
            self.report(result)
        self.good = {call.tool} if call.tool is not None and self.refused is None else set()
        if self.report.total is None:
            reported = {id(r.case) for r in self.report.results}  # the clean start's comes later
            sent = [c for c in plan.cases if id(c) not in reported and (not c.corpus or c in corpus)]
            self.report.total = (
                len(self.report.results) + len(sent) + sum(1 for f in frames if f.base is None)
            )
            self.progress(_totals(tools, frames, self.skipped, self.report.total, every))
        # Altered and foreign requestState: after start-discover, and only when the server spoke the
        # stateless revision there (no process of its own for a server without it).
        # No tool the probe may name: no MRTR tool can be found, no process for it.
        asks = every and bool(callable_tools(tools, plan.allow_mutating)[0])
        riding = Shared(frames, self.good, self.linger) if frames and host is not None else None
        if self.first is not None and not self.blocked:
            self.ready.go(call, self.linger, riding, mrtr=asks)
        corpus_groups, corpus_own, dealt = share_processes(corpus)
        self.futures += [
            pool.submit(run_inputs, g, plan, self.ready, False, None, None, dealt) for g in corpus_groups
        ]
        self.futures += [pool.submit(run_and_judge, case, plan, self.ready) for case in corpus_own]
        owing = partial(self.ready.owing, plan.token)
        if frames and host is None:
            rest = pool.submit(run_tool_frames, plan, frames, self.good, self.linger, None, owing)
            self.futures.append(rest)
        if asks and discover is None:
            self.mrtr = pool.submit(run_mrtr, plan, call, owing)
            self.futures.append(self.mrtr)

    def _collect(self) -> None:
        """Each process's results as it ends (the MRTR cases found add to the total)."""
        report = self.report
        for future in as_completed(self.futures):
            outcome = future.result()
            found_cases = [r for r in outcome if r.case.group == TOOL] if future is self.mrtr else []
            if found_cases and report.total is not None:
                report.total += len(found_cases)
                found = len({r.case.id.split(":", 1)[-1] for r in found_cases})
                self.progress(
                    f"mcptape probe: {found} tools use MRTR: {len(found_cases)} more cases, "
                    f"{report.total} in all"
                )
            for result in outcome:
                if self.refused is not None and result.case.uses_call and result.case.group == INPUT:
                    inconclusive(result, self.refused)
                if result.case is self.first:
                    self.baseline = result.baseline  # counted to its process's exit
                report(result)

    def _result(self) -> ProbeResult:
        results, frames = self.report.results, self.frames
        frame_of = {id(f.case): f for f in frames}
        unsure = [frame_of.get(id(r.case)) for r in results if r.verdict is Verdict.INCONCLUSIVE]
        refused_tools = list(dict.fromkeys(f.tool for f in unsure if f is not None))  # their base refused
        order = {case.id: i for i, case in enumerate([*self.plan.cases, *(f.case for f in frames)])}
        results.sort(key=lambda r: order.get(r.case.id, len(order)))
        return ProbeResult(
            self.plan,
            self.call,
            self.baseline,
            results,
            time.monotonic() - self.t0,
            skipped_tools=self.skipped,
            refused=self.refused,
            refused_tools=refused_tools,
            reach=self.plan.reach.table(order),
            surface_lock=self.surface_lock,
        )


def _totals(
    tools: list[dict[str, Any]],
    frames: list[ToolFrame],
    skipped: list[tuple[str, str]],
    total: int,
    every: bool,
) -> str:
    """The line that says how many cases there are in all, once the tools are listed."""
    if not every:
        return f"mcptape probe: {total} cases in all"
    alone = f" ({len(skipped)} that may change data get none: not tested)" if skipped else ""
    tried = len({f.tool for f in frames})
    return (
        f"mcptape probe: {len(tools)} tools listed; hard inputs to {tried} of them{alone}; {total} cases "
        "in all, plus the requestState cases of tools that use MRTR"
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


def _warm_up() -> None:
    """Import what the cases need once the clean start is known (the schemas of the per-tool inputs,
    the tool surface's lock), so that the others go on without waiting for it."""
    import mcptape.check.schema
    import mcptape.surface.extract
    import mcptape.surface.lockfile

    mcptape.check.schema.compile_schema({"type": "object"})


def _given_call(plan: Plan) -> Call | None:
    if plan.tool is None:
        return None
    return Call(plan.tool, dict(plan.arguments) if plan.arguments is not None else {})
