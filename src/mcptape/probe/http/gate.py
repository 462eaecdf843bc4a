"""One HTTP probe, start to report: the clean start, every hard input, the verdicts, the lock.

The result is the stdio probe's `ProbeResult`, so the table, `probe.json`, JUnit, SARIF, the
baseline and the reach table are the same code. Every case shares one server process and one
transcript (`DIR/http.jsonl`): HTTP requests do not share a stream, so one bad request cannot
garble the next as a bad line can on stdio.
"""

from __future__ import annotations

import time

import orjson

from mcptape.probe.cases import INPUT
from mcptape.probe.http.cases import HTTP_CASES, HttpCase
from mcptape.probe.http.judge import Evidence, judge_case, judge_start, probe_ids
from mcptape.probe.http.run import check_url, hard_input, serving, start
from mcptape.probe.judge import CaseResult, inconclusive, not_run
from mcptape.probe.plan import Plan
from mcptape.probe.runner import ProbeResult, stderr_progress
from mcptape.probe.safety import callable_tools
from mcptape.probe.sessions import Progress
from mcptape.probe.surfacelock import LOCK_NAME, SurfaceLock, write_surface_lock
from mcptape.textsafe import escape_text


def chosen_cases(only: tuple[str, ...] | list[str]) -> list[HttpCase]:
    """The hard inputs to send: all, or those `--case` names."""
    return [c for c in HTTP_CASES if not only or c.case.id in only]


def run_http_probe(
    plan: Plan, url: str, cases: list[HttpCase], progress: Progress = stderr_progress
) -> ProbeResult:
    """Probe the Streamable HTTP server at `url` (started from `plan.command` when it names one)."""
    t0 = time.monotonic()
    check_url(url)  # a URL that cannot be probed is one line, before the progress line and the folder
    plan.out_dir.mkdir(parents=True, exist_ok=True)
    seen = "" if plan.command else " (not started by the probe: its actions are not observable)"
    progress(f"mcptape probe: {len(cases) + 1} cases over Streamable HTTP at {escape_text(url)}{seen}")
    with serving(plan, url) as (probed, path):
        first = start(probed)
        runs = []
        if first.wire is not None and first.refused is None:
            call = first.call
            assert call is not None
            for n, hc in enumerate(cases, start=1):
                runs.append(hard_input(probed, hc, call, n))
    evidence = Evidence.read(path, probe_ids(first, runs))
    start_result = judge_start(first, evidence, path)
    start_result.seconds = first.t_end - first.t0 if first.t_end else 0.0
    results = [start_result]
    baseline = start_result.baseline
    evidence.owe(first, runs, start_result.baseline_unnamed)  # the valid calls' late nameless lines
    if start_result.blocking:
        results += [not_run(hc.case, f"not run: the clean start failed ({start_result.did})") for hc in cases]
    for run in runs:
        results.append(judge_case(run, evidence, path, first.call, baseline))
    refused = None
    if first.call_error is not None and first.call is not None:
        refused = (
            f"the valid call {escape_text(first.call.tool or 'tools/list')} "
            f"{escape_text(orjson.dumps(first.call.arguments).decode())[:120]} was refused too "
            f"({first.call_error}); give arguments it accepts with --tool NAME --args JSON, or "
            "--from TRANSCRIPT"
        )
        for result in results:
            if result.case.group == INPUT and result.case.uses_call:
                inconclusive(result, refused)
    for n, result in enumerate(results, start=1):
        _progress(progress, n, len(results), result)
    _, skipped = callable_tools(first.tools or [], plan.allow_mutating)
    lock = write_surface_lock(path, plan.file(LOCK_NAME)) if first.tools is not None else None
    order = {r.case.id: i for i, r in enumerate(results)}
    return ProbeResult(
        plan,
        first.call,
        baseline,
        results,
        time.monotonic() - t0,
        skipped_tools=skipped,
        refused=refused,
        reach=plan.reach.table(order),
        surface_lock=lock if lock is not None else SurfaceLock(None, why="the server listed no tools"),
    )


def _progress(progress: Progress, n: int, total: int, result: CaseResult) -> None:
    progress(
        f"[{n:>2}/{total}] {result.case.id:<26} {result.verdict.value:<7} "
        f"{result.seconds:5.2f}s  {escape_text(result.did)}"
    )
