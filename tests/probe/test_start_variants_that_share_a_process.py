"""Two start variants whose variation is not the process share one with other cases: the idle
start leads a hard-input process, and the MRTR cases follow start-discover in its stateless
session. Each is judged in its own window; the process's exit belongs to the cases after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcptape.probe.cases import BY_ID
from mcptape.probe.judge import WENT_ON
from mcptape.probe.observed import Verdict
from mcptape.probe.sessions import share_processes
from tests.conftest import PYTHON
from tests.probe.support import PB_SERVER, by_id, probe

MRTR = [PYTHON, str(Path(__file__).resolve().parents[1] / "verdicts" / "servers" / "mrtr_server.py")]
RELEASE: dict[str, Any] = {"tool": "release", "arguments": {"version": "1.0"}, "allow_mutating": True}


def test_the_idle_start_leads_the_hard_inputs_that_end_with_eof() -> None:
    """The idle start is no process of its own: it opens the group that truncated-eof closes."""
    cases = [BY_ID[c] for c in ("start-idle", "start-warnings", "debug-line", "batch", "truncated-eof")]
    groups, own = share_processes(cases)
    assert [[c.id for c in g] for g in groups] == [["start-idle", "debug-line", "truncated-eof"], ["batch"]]
    assert [c.id for c in own] == ["start-warnings"]


def test_the_idle_start_is_judged_in_its_window_of_the_shared_process(tmp_path: Path) -> None:
    """start-idle's valid call made one executor call (the hard inputs after it made theirs); its
    exit is the session's last case's."""
    result, _ = probe(tmp_path, PB_SERVER, cases=["start-idle", "debug-line", "truncated-eof"])
    rows = by_id(result)
    idle = rows["start-idle"]
    assert idle.verdict is Verdict.PASS, idle.reasons
    assert idle.transcript == rows["debug-line"].transcript == tmp_path / "start-idle.jsonl"
    assert idle.did.endswith(f"deploy made 1 executor/HTTP calls; {WENT_ON}") and idle.exit is None
    assert rows["debug-line"].did == "rejected it (error -32700); next request ran alone (1 calls)"
    assert rows["truncated-eof"].did.endswith("closed the session (exit 0)")


def test_the_mrtr_cases_follow_start_discover_in_its_process(tmp_path: Path) -> None:
    """No process of their own: the tampered and foreign states go to start-discover's session,
    whose own window ends where the MRTR part begins (its first calls are not counted as its)."""
    result, _ = probe(tmp_path, MRTR, cases=["start-discover", "tools"], **RELEASE)
    rows = by_id(result)
    discover = rows["start-discover"]
    assert discover.verdict is Verdict.PASS, discover.reasons
    assert discover.did.endswith(f"release made 0 executor/HTTP calls; {WENT_ON}")
    for case in ("tampered-state:release", "foreign-state:release"):
        assert rows[case].verdict is Verdict.PASS and rows[case].did == "refused it (error -32602)"
        assert rows[case].transcript == tmp_path / "start-discover.jsonl"
    assert not (tmp_path / "mrtr-1.jsonl").exists()
