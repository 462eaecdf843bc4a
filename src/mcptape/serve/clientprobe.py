"""`mcptape probe --client`: every hard output against a client command, one served session each.

The convention: the client command takes the server command as its last arguments (`CLIENT...
SERVER...`), as most MCP clients and SDK examples do (`python client.py python -m server`). For
each case the probe runs `CLIENT... mcptape serve TRANSCRIPT --inject CASE ...`, with no stdin, its
stdout and stderr captured, and a time limit; `start` runs it with no case first (the clean run
every case is compared with). What the client did comes from three places: its exit status, its
stdout and stderr compared with the clean run's, and what serve saw it send (the report). A client
still running at the time limit hung; one that exits 0 with another output went on with a wrong
answer: both fail, whatever the case.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mcptape.serve.injectcases import BY_ID, CASES, Case, played_as
from mcptape.serve.judge import (
    ERROR,
    FAIL,
    HUNG,
    INCONCLUSIVE,
    NA,
    OUTCOME_TEXT,
    PASS,
    TOLERANT,
    WRONG,
    verdict,
)
from mcptape.serve.session import Options
from mcptape.textsafe import escape

START = Case("start", "the recorded session, served as it is (the clean run)", "none", legal=True)
KILL_WAIT = 2.0  # seconds between SIGTERM and SIGKILL for a client past its time limit
HELD = Options.hold + Options.pause  # what serve may add to a case's run (a pair's hold, a split's pause)


@dataclass
class ClientPlan:
    """What to probe: the client command, the session to serve, where the results go."""

    client: list[str]
    transcript: Path
    out_dir: Path
    timeout: float = 10.0  # seconds a case may take beyond the clean run's time
    jobs: int = 2
    cases: list[str] = field(default_factory=lambda: [c.id for c in CASES])
    serve: list[str] = field(default_factory=lambda: [sys.executable, "-m", "mcptape", "serve"])


@dataclass
class ClientRun:
    """One run of the client against one served session."""

    case: Case
    exit: int | None = None
    hung: bool = False
    stdout: bytes = b""
    stderr: bytes = b""
    seconds: float = 0.0
    report: dict[str, Any] | None = None
    transcript: Path | None = None
    error: str | None = None  # the client could not be started


@dataclass
class ClientResult:
    """A case's verdict and the sentence saying what the client did."""

    run: ClientRun
    verdict: str
    did: str
    reasons: list[str] = field(default_factory=list)
    ran: bool = True
    played: Case | None = None  # the form serve played (a pair case's one-in-flight form)

    @property
    def case(self) -> Case:
        return self.played or self.run.case


@dataclass
class ClientProbe:
    plan: ClientPlan
    results: list[ClientResult]
    seconds: float

    @property
    def failed(self) -> bool:
        return any(r.verdict in (FAIL, INCONCLUSIVE) for r in self.results)


def run_client_probe(plan: ClientPlan) -> ClientProbe:
    """The clean run, then every case (in parallel, `jobs` at a time)."""
    began = time.monotonic()
    base = _run(plan, START, plan.timeout + 20.0)
    start = judge_start(base)
    results = [start]
    cases = [BY_ID[c] for c in plan.cases]
    if start.verdict != PASS:
        results += [
            ClientResult(ClientRun(c), FAIL, "not run: the clean run failed", ran=False) for c in cases
        ]
        return ClientProbe(plan, results, time.monotonic() - began)
    limit = base.seconds + plan.timeout + HELD  # the clean run's time, the step, what serve holds back
    with ThreadPoolExecutor(max_workers=max(1, plan.jobs)) as pool:
        runs = list(pool.map(lambda case: _run(plan, case, limit), cases))
    results += [judge_case(run, base) for run in runs]
    return ClientProbe(plan, results, time.monotonic() - began)


def serve_argv(plan: ClientPlan, case: Case) -> tuple[list[str], Path, Path]:
    """The server command given to the client for one case, its report and its transcript."""
    report = plan.out_dir / f"client-{case.id}.report.json"
    transcript = plan.out_dir / f"client-{case.id}.jsonl"
    argv = [
        *plan.serve,
        str(plan.transcript),
        "-q",
        "--report",
        str(report),
        "-o",
        str(transcript),
        "--overwrite",
    ]
    if case is not START:
        argv += ["--inject", case.id]
    return argv, report, transcript


def _run(plan: ClientPlan, case: Case, limit: float) -> ClientRun:
    argv, report, transcript = serve_argv(plan, case)
    report.unlink(missing_ok=True)
    run = ClientRun(case, transcript=transcript)
    began = time.monotonic()
    try:
        proc = subprocess.Popen(
            [*plan.client, *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # the client and the serve it starts: one group to stop
        )
    except OSError as exc:
        run.error = f"cannot start {plan.client[0]}: {exc.strerror or exc}"
        return run
    try:
        run.stdout, run.stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        run.hung = True
        _stop(proc)
        run.stdout, run.stderr = proc.communicate()
    run.exit = proc.returncode
    run.seconds = time.monotonic() - began
    try:
        run.report = orjson.loads(report.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        run.report = None
    return run


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the client's group (serve writes its report then), SIGKILL if it lingers."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(KILL_WAIT)
            return
        except subprocess.TimeoutExpired:
            continue


def judge_start(run: ClientRun) -> ClientResult:
    """The clean run passes when the client ended by itself with 0 and every request was served."""
    if run.error is not None:
        return ClientResult(run, FAIL, run.error, [run.error])
    counts = (run.report or {}).get("counts", {})
    reasons = []
    if run.hung:
        reasons.append(f"the client was still running after {run.seconds:.1f}s")
    elif run.exit != 0:
        reasons.append(f"the client exited with code {run.exit}")
    if run.report is None:
        reasons.append("serve wrote no report (was the server command passed on as the client's arguments?)")
    elif counts.get("unmatched") or counts.get("garbage"):
        reasons.append(f"{counts.get('unmatched', 0)} request(s) without a recorded answer")
    if reasons:
        return ClientResult(run, FAIL, reasons[0], reasons)
    return ClientResult(
        run, PASS, f"completed: exit 0, {counts.get('served', 0)} request(s) served from the recording"
    )


def judge_case(run: ClientRun, base: ClientRun) -> ClientResult:
    """A case's verdict: the client's exit, output and words against the clean run's, and what
    serve saw it send after the hard output."""
    inject = _inject(run.report)
    case = played_as(run.case.id, inject.get("form")) if inject is not None else run.case
    if run.error is not None:
        return ClientResult(run, FAIL, run.error, [run.error])
    na = inject.get("na") if inject is not None else None
    played = inject is not None and inject.get("played")
    if run.hung and not played and (not na or str(na).startswith("not reached")):
        # Killed at the time limit before its case came: slower than the clean run, not hung by it.
        text = (
            f"killed at the time limit ({run.seconds:.1f}s) before the hard output was played; "
            f"the clean run took {base.seconds:.1f}s"
        )
        return ClientResult(run, INCONCLUSIVE, text, [text, "raise --step-timeout"], played=case)
    if na:
        return ClientResult(run, NA, f"n/a: {na}")
    if inject is None or not played:
        return ClientResult(
            run, INCONCLUSIVE, "the hard output was not played", ["serve did not reach the case"]
        )
    said = _new_stderr(run.stderr, base.stderr)
    if run.hung:
        after = _requests_after(run.report, inject)
        outcome, text = HUNG, f"hung: no exit, still running {run.seconds:.1f}s later (killed)"
        text += (
            f", {after} request(s) after the hard output" if after else ", no request after the hard output"
        )
    elif run.exit != 0:
        outcome, text = ERROR, f"reported an error: exit {run.exit}"
    elif run.stdout != base.stdout:
        changed = _first_change(run.stdout, base.stdout)
        outcome, text = (
            WRONG,
            (
                "went on with a wrong answer: exit 0, its output differs from the clean run: "
                + escape(changed, 80)
            ),
        )
    elif inject.get("client_did") == OUTCOME_TEXT[ERROR]:
        outcome, text = ERROR, f"reported an error to the server ({inject.get('next')}); same output, exit 0"
    else:
        outcome, text = TOLERANT, "went on as if nothing happened: same output, exit 0"
    if said:
        text += f"; logged: {escape(said, 80)}"
    return _result(run, case, outcome, text, inject)


def _result(
    run: ClientRun, case: Case, outcome: str, text: str, inject: dict[str, Any] | None = None
) -> ClientResult:
    judged = verdict(case, outcome)
    reasons: list[str] = []
    if outcome == HUNG:
        reasons.append("hung: neither exited nor reported an error before the time limit")
    elif outcome == WRONG:
        reasons.append(
            "its output differs from the clean run and it exited 0: a wrong result, said to no one"
        )
    elif judged == FAIL and case.legal:
        reasons.append(f"refused valid traffic: {case.title}")
    elif outcome == TOLERANT:
        reasons.append(f"tolerant: {case.tolerated}")
    if inject is not None and inject.get("next") and outcome != HUNG:  # a hung client's close was the kill
        reasons.append(f"serve saw: {inject['next']}")
    return ClientResult(run, judged, text, reasons, played=case)


def _inject(report: dict[str, Any] | None) -> dict[str, Any] | None:
    cases = (report or {}).get("inject") or []
    return cases[0] if cases and isinstance(cases[0], dict) else None


def _requests_after(report: dict[str, Any] | None, inject: dict[str, Any]) -> int:
    """How many requests serve saw the client send after the hard output was played."""
    at = inject.get("at")
    t = at.get("t") if isinstance(at, dict) else None
    if not isinstance(t, (int, float)):
        return 0
    requests = (report or {}).get("requests") or []
    return sum(
        1 for r in requests if isinstance(r, dict) and isinstance(r.get("t"), (int, float)) and r["t"] >= t
    )


def _first_change(stdout: bytes, base: bytes) -> bytes:
    """The first stdout line that is not the clean run's at the same place (or what is missing)."""
    lines, clean = stdout.splitlines(), base.splitlines()
    for mine, theirs in zip(lines, clean, strict=False):
        if mine != theirs:
            return mine
    if len(lines) > len(clean):
        return lines[len(clean)]
    return b"(" + str(len(clean) - len(lines)).encode() + b" line(s) of the clean run missing)"


def _new_stderr(stderr: bytes, base: bytes) -> bytes:
    """The first line of the client's stderr that the clean run did not write."""
    seen = set(base.splitlines())
    for line in stderr.splitlines():
        if line.strip() and line not in seen and not line.startswith((b" ", b"\t")):
            return line
    return b""


def summary_counts(results: Sequence[ClientResult]) -> dict[str, int]:
    tally = {v: 0 for v in (PASS, "warning", FAIL, INCONCLUSIVE, NA)}
    for result in results:
        tally[result.verdict] = tally.get(result.verdict, 0) + 1
    return tally
