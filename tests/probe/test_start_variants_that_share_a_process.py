"""Start cases whose variation is not the process share one with other cases: the clean start and
the idle start each lead a hard-input process, and the MRTR cases follow start-discover in its
stateless session. Each is judged in its own window; the process's exit belongs to the cases after
it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcptape.probe.cases import BY_ID
from mcptape.probe.inputs import share_processes
from mcptape.probe.judge import WENT_ON
from mcptape.probe.observed import Verdict
from tests.conftest import PYTHON
from tests.probe.support import PB_SERVER, by_id, probe

MRTR = [PYTHON, str(Path(__file__).resolve().parents[1] / "verdicts" / "servers" / "mrtr_server.py")]
RELEASE: dict[str, Any] = {"tool": "release", "arguments": {"version": "1.0"}, "allow_mutating": True}


def test_the_clean_start_and_the_idle_start_lead_the_hard_input_processes() -> None:
    """The clean start leads the process that does not close stdin (the per-tool inputs ride at its
    end), the idle start the one that truncated-eof closes; the other variants get their own."""
    ids = ("start-idle", "start-warnings", "debug-line", "batch", "truncated-eof")
    groups, own = share_processes([BY_ID[c] for c in ids], BY_ID["start"])
    assert [[c.id for c in g] for g in groups] == [
        ["start", "batch"],
        ["start-idle", "debug-line", "truncated-eof"],
    ]
    assert [c.id for c in own] == ["start-warnings"]


def test_the_clean_start_alone_keeps_its_process_and_its_exit() -> None:
    """No hard input to go on with: the clean start is a process of its own, and the idle start too."""
    groups, own = share_processes([BY_ID["start-idle"]], BY_ID["start"])
    assert [[c.id for c in g] for g in groups] == [["start"]]
    assert [c.id for c in own] == ["start-idle"]


def test_each_start_is_judged_in_its_window_of_the_shared_process(tmp_path: Path) -> None:
    """Each start's valid call made one executor call (the hard inputs after it made theirs, in
    their windows); their exit is the last case's of each process."""
    cases = ["start-idle", "debug-line", "batch", "truncated-eof"]
    result, _ = probe(tmp_path, PB_SERVER, cases=cases)
    rows = by_id(result)
    for case, transcript in (("start", "start.jsonl"), ("start-idle", "start-idle.jsonl")):
        start = rows[case]
        assert start.verdict is Verdict.PASS, start.reasons
        assert start.transcript == tmp_path / transcript
        assert start.did.endswith(f"deploy made 1 executor/HTTP calls; {WENT_ON}") and start.exit is None
    assert rows["batch"].transcript == tmp_path / "start.jsonl"
    assert rows["debug-line"].transcript == tmp_path / "start-idle.jsonl"
    assert rows["debug-line"].did == "rejected it (error -32700); next request ran alone (1 calls)"
    assert rows["truncated-eof"].did.endswith("closed the session (exit 0)")
    assert result.baseline == 1


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
