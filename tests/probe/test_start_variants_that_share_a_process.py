"""Start cases whose variation is not the process share one with other cases: the idle start leads
a hard-input process, and the MRTR cases follow start-discover in its stateless session. Each is
judged in its own window; the process's exit belongs to the cases after it. The clean start runs
alone to its exit: its count of what one valid call makes is exact, late lines included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcptape.probe.cases import BY_ID
from mcptape.probe.inputs import share_processes
from mcptape.probe.judge import WENT_ON
from mcptape.probe.observed import Verdict
from tests.conftest import PYTHON, SERVERS
from tests.probe.support import PB_SERVER, by_id, probe

MRTR = [PYTHON, str(SERVERS / "mrtr_server.py")]
RELEASE: dict[str, Any] = {"tool": "release", "arguments": {"version": "1.0"}, "allow_mutating": True}


def test_the_clean_start_is_alone_and_the_idle_start_leads_a_hard_input_process() -> None:
    """The clean start is a process of its own, first; each hard-input process has one input of its
    own and takes the others as it is free (the deal); the idle start leads the one that
    truncated-eof closes (the per-tool inputs ride at the end of the other); the other variants get
    their own."""
    ids = ("start-idle", "start-warnings", "debug-line", "banner-after-request", "batch", "truncated-eof")
    groups, own, deal = share_processes([BY_ID[c] for c in ids], BY_ID["start"])
    assert [[c.id for c in g] for g in groups] == [
        ["start"],
        ["start-idle", "debug-line", "truncated-eof"],
        ["banner-after-request"],
    ]
    assert [c.id for c in own] == ["start-warnings"]
    taken = [deal.take(), deal.take()]
    assert [c.id if c else None for c in taken] == ["batch", None]


def test_without_hard_inputs_the_idle_start_has_its_own_process_too() -> None:
    """No hard input to lead: the clean start and the idle start are each a process of its own."""
    groups, own, _ = share_processes([BY_ID["start-idle"]], BY_ID["start"])
    assert [[c.id for c in g] for g in groups] == [["start"]]
    assert [c.id for c in own] == ["start-idle"]


def test_the_hard_inputs_are_taken_as_the_processes_are_free(tmp_path: Path) -> None:
    """Every dealt case is sent exactly once, by whichever of the two processes took it, and judged
    in its own window of the transcript its row names; truncated-eof ends the idle-led one."""
    cases = ["debug-line", "banner-after-request", "concatenated", "string-params", "boolean-id", "batch"]
    result, _ = probe(tmp_path, PB_SERVER, cases=[*cases, "truncated-eof", "tools"])
    rows = by_id(result)
    assert [(c, rows[c].verdict) for c in cases] == [(c, Verdict.PASS) for c in cases]
    where = {c: rows[c].transcript for c in cases}
    assert set(where.values()) == {tmp_path / "debug-line.jsonl", tmp_path / "banner-after-request.jsonl"}
    for case in cases:  # sent exactly once, in the transcript its row names
        marker = rows[case].marker
        assert marker is not None
        holding = [p.name for p in tmp_path.glob("*.jsonl") if marker.encode() in p.read_bytes()]
        place = where[case]
        assert place is not None and holding == [place.name], (case, holding)
    assert rows["truncated-eof"].transcript == tmp_path / "debug-line.jsonl"


def test_each_start_is_judged_in_its_process_or_its_window_of_the_shared_one(tmp_path: Path) -> None:
    """Each start's valid call made one executor call: the clean start's counted to its exit, the
    idle start's in its window (the hard inputs after it made theirs, in their windows); the idle
    start's exit is the last case's of its process."""
    cases = ["start-idle", "debug-line", "batch", "truncated-eof"]
    result, _ = probe(tmp_path, PB_SERVER, cases=cases)
    rows = by_id(result)
    assert rows["start"].verdict is Verdict.PASS, rows["start"].reasons
    assert rows["start"].transcript == tmp_path / "start.jsonl"
    assert rows["start"].did.endswith("deploy made 1 executor/HTTP calls; exit 0")
    idle = rows["start-idle"]
    assert idle.verdict is Verdict.PASS, idle.reasons
    assert idle.transcript == tmp_path / "start-idle.jsonl"
    assert idle.did.endswith(f"deploy made 1 executor/HTTP calls; {WENT_ON}") and idle.exit is None
    assert rows["batch"].transcript == tmp_path / "batch.jsonl"
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
