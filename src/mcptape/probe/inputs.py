"""The clean start's process, and the server processes the hard inputs share.

The clean start (`run_clean_start`) runs alone: handshake, tools/list, the valid call; once that is
answered the others go on (`ready.seen`), and its process ends on its own, so that every line its
valid call made, however late, is counted in its transcript (`ready.ended`: the exact count the
judges of the shared processes hold the valid calls to, `ledger`).

The request-level hard inputs (a server refuses them and goes on) share `INPUT_PROCESSES` server
processes (`run_inputs`): they are sent one after another, and each is judged in its own window of
the shared transcript (`judge`: from the handshake or its own frame to the next case's frame). A
case that closes stdin ends a shared process; a session that ends early (closed on a reject,
hung) sends the cases not yet sent to a new one. The idle start leads one of them, since its
variation is not the process (a wait before its handshake, which runs while the clean start finds
the valid call). They start beside the clean start's and wait for it after their handshake
(`ready.Ready`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from mcptape.harness import Harness
from mcptape.probe import live
from mcptape.probe.cases import INPUT, START, Call, Case
from mcptape.probe.driver import Driver
from mcptape.probe.judge import CaseResult, judge, lenient_ids
from mcptape.probe.ledger import OneCall
from mcptape.probe.observed import AFTER_ID, PING_ID, Observed, Verdict
from mcptape.probe.plan import Plan
from mcptape.probe.ready import Ready
from mcptape.probe.seen import Read, read
from mcptape.probe.sessions import AFTER_SETTLE, Progress, handshake, hard_input, run_case, valid_calls
from mcptape.probe.tools import Shared, finish, run_tool_frames, send_frames
from mcptape.probe.windows import owing_ids

INPUT_PROCESSES = 2  # the request-level hard inputs share this many server processes (run_inputs)
CLEAN_START = "start"


class Deal:
    """The hard inputs the shared processes take in turn, each the next one as soon as it is free
    (a process slowed by silent drops, a longer idle start or the per-tool inputs it hosts takes
    fewer): the processes end together instead of one waiting for the other."""

    def __init__(self, cases: Sequence[Case] = ()) -> None:
        self._cases = deque(cases)
        self._lock = threading.Lock()

    def take(self) -> Case | None:
        with self._lock:
            return self._cases.popleft() if self._cases else None


def share_processes(
    cases: Sequence[Case], start: Case | None = None
) -> tuple[list[list[Case]], list[Case], Deal]:
    """The hard inputs' `INPUT_PROCESSES` shared server processes, the cases that need one of their
    own, and the hard inputs dealt as the processes are free (`Deal`). Each shared process has one
    request-level input of its own (its transcript is named after it) and takes the others from the
    deal; a case that closes stdin (`truncated-eof`) ends one of them, after the deal is empty;
    further EOF cases and the start variants get their own process. The clean start (`start`) is a
    group of its own, first; the idle start leads a hard-input group (the one that ends with EOF,
    else the first), or gets its own process when there is none."""
    shared = [case for case in cases if case.group == INPUT and not case.eof]
    groups = [[case] for case in shared[:INPUT_PROCESSES]]
    deal = Deal(shared[INPUT_PROCESSES:])
    own = [case for case in cases if case.group != INPUT]
    for case in (c for c in cases if c.group == INPUT and c.eof):
        last = next((g for g in groups if not g[-1].eof), None)
        if last is None and not groups:
            groups.append(last := [])
        if last is None:
            own.append(case)
        else:
            last.append(case)
    idle = next((c for c in own if c.idle), None)
    if idle is not None and groups:
        own.remove(idle)
        next((g for g in groups if g[-1].eof), groups[0]).insert(0, idle)
    if start is not None:
        groups.insert(0, [start])
    return groups, own, deal


def hosts_tools(group: Sequence[Case]) -> bool:
    """Whether the per-tool hard inputs may ride at the end of this group's process: it does not
    close stdin, and it is not the clean start (whose process ends, and exit is its own)."""
    return not group[-1].eof and group[0].id != CLEAN_START


def run_clean_start(
    case: Case, plan: Plan, ready: Ready, place: live.Gate | None, announce: Progress | None
) -> list[CaseResult]:
    """The clean start in a process of its own: once its valid call is answered, `ready` hears what
    it saw and the others go on; its process then ends on its own, and its verdict, with its exit
    and every line its valid call made, is `ready.ended`'s (and the one result returned)."""

    def answered(d: Driver, observed: Observed) -> None:
        if not (observed.hung or observed.gone or observed.refused):
            observed.version, observed.stateless = d.version, d.stateless
            # The others go on now (no analysis first: it is judged once its process has ended).
            ready.seen(observed, CaseResult(case, Verdict.PASS, "the valid call went through"))

    final: CaseResult | None = None
    try:
        observed = run_case(case, plan, announce=announce, rank=0, held=place, then=answered)
        if observed is None:
            return []
        final = judge(observed, None)
        ready.seen(observed, final)  # (when the valid call did not go through: the runner decides now)
        return [final]
    finally:
        ready.ended(final)
        if final is None:
            ready.block()  # it raised: nobody waits for a clean start that never came


class Feed:
    """What one shared process sends: its own cases, then the dealt ones as it is free, then its
    own case that closes stdin."""

    def __init__(self, cases: Sequence[Case], deal: Deal) -> None:
        self.first = [c for c in cases if not c.eof]
        self.last = [c for c in cases if c.eof]
        self.deal = deal
        self.dealt = 0  # cases taken from the deal

    def next(self) -> Case | None:
        if self.first:
            return self.first.pop(0)
        taken = self.deal.take()
        if taken is not None:
            self.dealt += 1
            return taken
        return self.last.pop(0) if self.last else None


def run_inputs(
    cases: Sequence[Case],
    plan: Plan,
    ready: Ready,
    host: bool = False,
    rank: int | None = None,
    held: live.Gate | None = None,
    deal: Deal | None = None,
) -> list[CaseResult]:
    """Send the cases one after another in a shared server process, then those of `deal` as it
    takes them, each judged in its own window of the transcript (`<first case>.jsonl`); when the
    session ends (the server closed on a reject, or hung and was stopped), the cases not yet sent
    go to a new process. They wait for the clean start after their handshake (nothing when it
    failed), and are judged once its process has ended (`ready.one`: what one valid call makes).
    `host`: the per-tool hard inputs (`ready.riding`) are sent after the last case in the same
    process when it is still open (the rest in processes of their own, `tools.run_tool_frames`).
    `rank`, `held`: the first process's place at the start-up gate."""
    observed_all: list[Observed] = []
    feed = Feed(cases, deal or Deal())
    first = feed.next()
    while first is not None:
        observed = _inputs_process(first, feed, plan, ready, host, rank, held)
        if observed is None:
            return []  # the clean start failed: not run
        observed_all.extend(observed)
        first = feed.next()
        rank, held = None, None  # a later process starts after the ranked ones
    tools = ready.riding if host else None
    # The requests besides the valid calls that owe what one makes (the per-tool frames of its tool
    # run with its arguments, the lenient hard inputs): the ledger of every window knows them.
    lenient = lenient_ids(observed_all)
    also = [*lenient, *(owing_ids(tools.sent, ready.call) if tools is not None else [])]
    reads: dict[Path, Read] = {}
    results = judge_all(observed_all, ready.one(), reads, also)
    if tools is not None:
        owing = partial(ready.owing, plan.token)
        results.extend(
            run_tool_frames(plan, tools.frames, tools.good, tools.linger, tools, owing, reads, lenient)
        )
    return results


def _inputs_process(
    case: Case,
    feed: Feed,
    plan: Plan,
    ready: Ready,
    host: bool,
    rank: int | None,
    held: live.Gate | None,
) -> list[Observed] | None:
    """One server process: the handshake, then (once the clean start is known) `case` and the
    feed's next cases until there are none or the session ends; then, when the session is open, the
    per-tool hard inputs (`ready.riding`, when `host`). None when the clean start failed."""
    if ready.blocked:
        return None  # the clean start failed before this process started: none for it
    path = plan.file(f"{case.id}.jsonl")
    title = "hard inputs one after another, each judged in its own window"
    harness = Harness(
        list(plan.command),
        path,
        shutdown_timeout=plan.shutdown,
        header={"probe": {"case": case.id, "title": title, "marker": plan.token}},
        stubs=plan.stubs,
    )
    first = Observed(case, path, _marker(case, plan), list(plan.command), call=ready.call)
    done: list[Observed] = [first]
    tools: Shared | None = None
    with live.server(harness, rank, held):
        t0 = time.monotonic()  # the case's time starts when its server does (after the gate)
        d = Driver(harness, plan.timeout, plan.start_timeout, plan.reach, case.id)
        shaken = handshake(case, d, first, plan, None)
        waited = time.monotonic()
        go = ready.wait()
        t0 += time.monotonic() - waited  # the wait for the clean start is no case's time
        if not go:
            harness.abort()
            done = []
        else:
            tools = _cases(feed, d, done, plan, ready, t0, shaken, host)
        harness.close_stdin()
        waited = time.monotonic()
        if not harness.wait_exit(plan.shutdown) and done:
            done[-1].lingered = time.monotonic() - waited
    if not done:
        path.unlink(missing_ok=True)  # sent nothing of its own: not run
        return None
    done[-1].status = harness.status
    if tools is not None:
        finish(tools.sent, harness, tools.began or t0)
    for observed in done:
        observed.version, observed.stateless = d.version, d.stateless
    return done


def judge_all(
    observed: list[Observed],
    baseline: OneCall | None,
    reads: dict[Path, Read] | None = None,
    also: Sequence[str] = (),
) -> list[CaseResult]:
    """The verdicts of cases that share transcripts (each transcript read once, kept in `reads`;
    `also`: the per-tool frames among them that owe what a valid call makes)."""
    reads = {} if reads is None else reads
    return [
        judge(o, baseline, reads.get(o.path) or reads.setdefault(o.path, read(o.path)), also)
        for o in observed
    ]


def _marker(case: Case, plan: Plan) -> str:
    return f"mcptape-probe-{case.id}-{plan.token}"


def _cases(
    feed: Feed,
    d: Driver,
    done: list[Observed],
    plan: Plan,
    ready: Ready,
    t0: float,
    shaken: bool,
    host: bool,
) -> Shared | None:
    """Once the clean start is known: the process's first case (`done[0]`), then, when `host`, the
    per-tool hard inputs (returned, with what was sent of them), then the feed's cases one after
    another until there are none or the session ends. The per-tool inputs come early so that the
    deal gives the other process more of the hard inputs while this one sends them: both end
    together."""
    call, linger = ready.call or Call(None), ready.linger
    observed = done[0]
    observed.call = ready.call
    tools = ready.riding if host else None
    riding = 0.0  # the seconds the per-tool inputs took (theirs, not a case's)
    n = 0
    while True:
        case = observed.case
        d.case = case.id
        started = t0 if n == 0 else time.monotonic()
        if n == 0 and not shaken:
            break
        if case.group == START:
            valid_calls(case, d, observed, plan)  # the idle start leads the group
        else:
            hard_input(case, d, observed, plan, linger)
        observed.seconds = time.monotonic() - started
        if observed.hung or observed.gone or case.eof:
            break
        d.h.wait_exit(AFTER_SETTLE)  # a tap line written just before an answer lands first
        if tools is not None and not tools.started:
            began = time.monotonic()
            if not _ride(tools, d, plan, observed):
                break  # the session ended among them: the feed's next cases go to a new process
            riding = time.monotonic() - began
        following = feed.next()
        if following is None:
            break
        n += 1
        marker = _marker(following, plan)
        if tools is not None and any(not f.skipped for f in tools.sent) and tools.until is None:
            tools.until = marker  # the last per-tool input's window ends at the next case's frame
        observed = Observed(following, d.h.path, marker, list(plan.command), call=call)
        observed.from_start = False
        observed.ping_id, observed.after_id = f"{PING_ID}-{n}", f"{AFTER_ID}-{n}"
        if done[-1].until is None:
            done[-1].until = marker
        done.append(observed)
    last = done[-1]
    if len(done) > 1:
        last.seconds = time.monotonic() - t0 - riding - sum(o.seconds for o in done[:-1])
    return tools if tools is not None and tools.started else None


def _ride(tools: Shared, d: Driver, plan: Plan, before: Observed) -> bool:
    """Send the per-tool hard inputs in this session, after the case `before` (whose window ends
    where they begin); False when the session ended among them."""
    tools.started, tools.path, tools.began = True, d.h.path, time.monotonic()
    tools.sent = send_frames(d, plan, d.h.path, tools.frames, tools.good, tools.linger)
    first = next((f for f in tools.sent if not f.skipped), None)  # (a base call not needed is not sent)
    if first is not None:
        before.until = first.rid
    ended = bool(tools.sent) and (tools.sent[-1].closed or tools.sent[-1].hung is not None)
    return len(tools.sent) == len(tools.frames) and not ended
