"""The other cases' servers start while the clean start's does, through a gate: at most `-j` servers
are starting (spawned, first request not yet answered) at any moment; a failed clean start leaves
nothing of them behind."""

from __future__ import annotations

import re
import sys
import threading
import time
from pathlib import Path

import pytest

from mcptape.probe import live
from mcptape.probe.observed import Verdict
from mcptape.probe.runner import ServerDied
from tests.probe.support import PB_SERVER, by_id, probe

pytestmark = pytest.mark.slow

SLOW = [sys.executable, str(Path(__file__).with_name("slow_start.py"))]
LOCKED = [sys.executable, str(Path(__file__).with_name("locked_server.py"))]
REFUSES = (
    "import sys\n"
    "for line in sys.stdin:\n"
    '    print(\'{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}\', flush=True)\n'
)


def test_at_most_jobs_servers_start_at_once_and_they_do_start_together(tmp_path: Path) -> None:
    """With -j 2 and servers that take 0.3 s to start, another starts while the clean start's server
    does, and never are three starting at once."""
    log, out = tmp_path / "starts.log", tmp_path / "out"
    cases = ["start-warnings", "start-verbose-env", "start-empty-cwd", "debug-line", "batch", "tools"]
    result, _ = probe(out, [*SLOW, str(log), *PB_SERVER], cases=cases, jobs=2)
    rows = [(r.case.id, r.reasons) for r in result.results if r.verdict is not Verdict.PASS]
    assert not rows
    clean = re.search(rb"slow_start: pid (\d+)", (out / "start.jsonl").read_bytes())
    assert clean is not None
    starting: set[str] = set()
    beside: set[str] = set()  # servers starting while the clean start's was
    most = 0
    lines = log.read_text().splitlines()
    for line in lines:
        what, pid = line.split()
        if what == "spawned":
            starting.add(pid)
        else:
            starting.discard(pid)
        if clean.group(1).decode() in starting:
            beside |= starting
        most = max(most, len(starting))
    assert most == 2 and len(beside) == 2, lines
    assert sum(1 for line in lines if line.startswith("spawned")) == len(list(out.glob("*.jsonl")))


def test_a_failed_clean_start_leaves_only_its_own_transcript(tmp_path: Path) -> None:
    """The servers started beside a clean start that fails are ended, reported not run, and their
    transcripts removed: the folder holds what was judged."""
    out = tmp_path / "out"
    result, _ = probe(out, [sys.executable, "-c", REFUSES], cases=["batch", "start-warnings", "tools"])
    rows = by_id(result)
    assert rows["start"].verdict is Verdict.FAIL
    assert not rows["batch"].ran and not rows["start-warnings"].ran
    assert sorted(p.name for p in out.iterdir()) == ["start.jsonl"]


def test_with_one_job_one_server_runs_at_a_time(tmp_path: Path) -> None:
    """-j 1 is for a server that takes a global lock: every case passes; with -j 2 two servers run at
    once and one of them finds the lock taken: a case's server, or the clean start's own (which of
    the two takes the lock first is the scheduler's choice), and then the probe stops at once."""
    cases = ["start-warnings", "start-discover", "debug-line", "batch", "truncated-eof", "tools"]
    command = [*LOCKED, str(tmp_path / "lock"), *PB_SERVER]
    result, _ = probe(tmp_path / "one", command, cases=cases, jobs=1, timeout=10)  # (a loaded machine)
    rows = [(r.case.id, r.reasons) for r in result.results if r.verdict is not Verdict.PASS]
    assert not rows and len(result.results) == 9, rows
    try:
        result, _ = probe(tmp_path / "two", command, cases=cases, jobs=2)
    except ServerDied as died:  # the server started beside the clean start's took the lock first
        assert "(exit 3): locked" in died.message, died.message
    else:
        assert [r for r in result.results if r.stderr.startswith(b"locked")]


def test_the_gate_lets_the_lowest_rank_through_first() -> None:
    """Servers waiting at a full gate go through by rank, not by arrival."""
    gate = live.Gate(1)
    gate.acquire(0)
    order: list[int] = []

    def wait(rank: int) -> None:
        gate.acquire(rank)
        order.append(rank)
        gate.release()

    threads = [threading.Thread(target=wait, args=(rank,)) for rank in (5, 3, 4)]
    for thread in threads:
        thread.start()
        time.sleep(0.05)  # each waits before the next arrives
    gate.release()
    for thread in threads:
        thread.join(5)
    assert order == [3, 4, 5]
