"""Issue 22 in the probe: a tool that declares readOnlyHint and writes fails the probe that called it;
one that only reads passes. The verdict comes from the check core's hint-read-only rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.check import rules
from mcptape.probe.judge import WROTE
from mcptape.probe.observed import Verdict
from tests.probe.support import PB_SERVER, by_id, probe

pytestmark = pytest.mark.slow


def test_a_read_only_tool_whose_tap_says_read_passes(tmp_path: Path) -> None:
    """deploy says readOnlyHint and its tap line says kind read: an honest read, no broken promise."""
    result, _ = probe(tmp_path, PB_SERVER, cases=["debug-line"])
    rows = by_id(result)
    assert result.baseline == 1  # the valid call did act (a read), so the test can see a write
    assert {r.verdict for r in rows.values()} == {Verdict.PASS}, [r.reasons for r in rows.values()]
    assert not any(f.rule == rules.HINT_READ_ONLY for r in rows.values() for f in r.findings)


def test_a_read_only_tool_that_writes_fails_each_case_that_called_it(tmp_path: Path) -> None:
    """deploy says readOnlyHint, but its tap line says kind update: every case that called it fails,
    the reason says 'declared read-only but wrote' and the check finding is attached."""
    result, _ = probe(tmp_path, [*PB_SERVER, "--writes"], cases=["debug-line"])
    rows = by_id(result)
    assert result.failed and not result.passed
    for case in ("start", "debug-line"):
        row = rows[case]
        assert row.verdict is Verdict.FAIL, (case, row.reasons)
        assert any(r.startswith(f"{WROTE}: ") and "deploy" in r for r in row.reasons), row.reasons
        assert WROTE in row.did
        assert [f.rule for f in row.findings if f.rule == rules.HINT_READ_ONLY] == [rules.HINT_READ_ONLY]
    assert rows["debug-line"].executed == 0  # the bad frame itself ran nothing: it is the valid call
