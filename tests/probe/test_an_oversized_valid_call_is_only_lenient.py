"""A padded but well-formed call that the server runs is lenient (a warning), not a failure."""

from __future__ import annotations

from pathlib import Path

from mcptape.probe.observed import Verdict
from tests.probe.support import PB_SERVER, by_id, probe


def test_an_oversized_valid_call_that_runs_is_a_warning(tmp_path: Path) -> None:
    """pb_server takes a 4 KiB line and deploys: it did what a valid call does, with no line limit."""
    result, _ = probe(tmp_path, PB_SERVER, cases=["oversized-line"], oversize=4096)
    row = by_id(result)["oversized-line"]
    assert row.verdict is Verdict.WARN, row.reasons
    assert row.executed == 1
    assert any("ran it as the valid call it is" in r for r in row.reasons), row.reasons
    assert not result.failed
