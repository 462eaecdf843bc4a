"""On a server that works concurrently, an action that comes after the ping barrier is still the
bad frame's: the valid request after it is sent only once the bad frame is answered (bounded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.probe.observed import Verdict
from tests.probe.support import PB_SERVER, by_id, probe

pytestmark = pytest.mark.slow

SLOW = [*PB_SERVER, "--action", "http", "--delay", "0.4"]  # HTTP names no request id


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
