"""On a server that works concurrently, an action that comes after the ping barrier is still the
bad frame's: the valid request after it is sent only once the bad frame is answered (bounded). And
a valid call's action that comes late, after the next frame, is the valid call's: the clean start
counts what one valid call makes to its process's exit, and in a shared process each valid call
answered owes that many lines that name no request (`probe/ledger.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.probe.observed import Verdict
from tests.conftest import PYTHON
from tests.probe.support import PB_SERVER, by_id, probe

pytestmark = pytest.mark.slow

SLOW = [*PB_SERVER, "--action", "http", "--delay", "0.4"]  # HTTP names no request id
# pb_server whose tap line names no request and comes 0.3 s after the answer (after the next frame)
LATE = [PYTHON, str(Path(__file__).with_name("late_tap.py")), "0.3", "--anonymous", *PB_SERVER[1:]]


def test_an_accepted_oversized_call_that_acts_late_is_not_blamed_on_the_next_request(tmp_path: Path) -> None:
    """The padded call's GET comes 0.4 s later, after the ping's answer: it is its own."""
    result, _ = probe(tmp_path, SLOW, cases=["oversized-line"], oversize=4096)
    row = by_id(result)["oversized-line"]
    assert row.verdict is Verdict.WARN, row.reasons
    assert row.http == 1
    assert not [r for r in row.reasons if "the valid request after the reject" in r], row.reasons


def test_a_tolerant_servers_late_action_is_the_bad_frames(tmp_path: Path) -> None:
    """The banner line is run late: FAIL for the bad frame's action, not for the next request."""
    result, _ = probe(tmp_path, [*SLOW, "--defect", "tolerant"], cases=["banner-after-request"])
    row = by_id(result)["banner-after-request"]
    assert row.verdict is Verdict.FAIL and row.http == 1, row.reasons
    assert row.reasons[0].startswith("the bad frame caused 0 executor call(s) and 1 HTTP attempt(s)")
    assert not [r for r in row.reasons if "the valid request after the reject" in r], row.reasons


def test_a_late_action_of_a_per_tool_frame_is_not_the_next_frames(tmp_path: Path) -> None:
    """String params decoded and run late: the GET belongs to string-params, not to the frame after it."""
    result, _ = probe(tmp_path, [*SLOW, "--defect", "string-params"], cases=["tools"])
    rows = by_id(result)
    assert rows["string-params:deploy"].verdict is Verdict.FAIL and rows["string-params:deploy"].http == 1
    for case in ("wrong-types:deploy", "unknown-arguments:deploy"):
        assert rows[case].verdict is Verdict.PASS, (case, rows[case].reasons)


def test_a_correct_server_whose_actions_come_late_passes_every_case(tmp_path: Path) -> None:
    """Each valid call's tap line lands in the next frame's window (the idle start's in the first
    hard input's, each valid request's after a reject in the next case's, the last one's among the
    per-tool inputs): they are the valid calls', so the strict server passes every case, and one
    valid call makes 1 line, counted in the clean start's process to its exit."""
    result, _ = probe(tmp_path, LATE)
    rows = by_id(result)
    assert result.baseline == 1 and rows["start"].did.endswith("deploy made 1 executor/HTTP calls; exit 0")
    assert [(r.case.id, r.reasons) for r in result.results if r.verdict is not Verdict.PASS] == []
    assert all(r.executed == 0 and r.http == 0 for r in result.results)
    assert len(rows) == 18


def test_a_frame_that_acts_late_still_fails_with_the_exact_count(tmp_path: Path) -> None:
    """The tolerant server runs the request inside the banner line, and says so 0.3 s later: the one
    line more than the valid calls owe makes the case fail, whichever of its requests it is put on."""
    result, _ = probe(tmp_path, [*LATE, "--defect", "tolerant"], cases=["banner-after-request"])
    row = by_id(result)["banner-after-request"]
    assert row.verdict is Verdict.FAIL, row.reasons
    assert row.executed + row.http == 1 or any(
        "the valid request after the reject made 2 executor/HTTP calls (a valid call alone makes 1)" in r
        for r in row.reasons
    ), row.reasons


def test_an_accepted_padded_call_that_acts_late_owes_a_valid_calls_line(tmp_path: Path) -> None:
    """The same server takes a 4 KiB line: the padded call is the valid call, answered with a
    result, and its nameless line comes late like the others. It owes one line as a valid call does
    (the ledger), so it takes no valid call's line and no other case is blamed: only its own warning
    (no line limit)."""
    result, _ = probe(tmp_path, LATE, oversize=4096)
    rows = by_id(result)
    assert rows["oversized-line"].verdict is Verdict.WARN, rows["oversized-line"].reasons
    others = [(r.case.id, r.reasons) for r in result.results if r.verdict is not Verdict.PASS]
    assert others == [("oversized-line", rows["oversized-line"].reasons)]
