"""A transcript with lines mcptape cannot read: the redacted copy in a report bundle leaves them
out (they cannot be redacted), and the report says so, as `mcptape redact` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import inprocess

pytestmark = pytest.mark.slow

GOOD = Path(__file__).resolve().parents[2] / "transcripts" / "sdk-echo-tool-handshake.jsonl"


def test_the_report_says_how_many_unreadable_lines_were_left_out(tmp_path: Path) -> None:
    """One corrupt middle line: report.md's redaction row and the stderr line both count it."""
    lines = GOOD.read_bytes().splitlines(keepends=True)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(b"".join([*lines[:4], b'{"t":0.5,"ch":"out","data":"cut\n', *lines[4:]]))
    bundle = tmp_path / "bundle"
    result = inprocess.run("report", str(damaged), "-o", str(bundle), "--no-env", text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        f"mcptape: report written to {bundle}/ (clean; 1 unreadable transcript line(s) left out)\n"
    )
    report = (bundle / "report.md").read_text()
    assert (
        "| Redaction | 0 secret(s) replaced (0 distinct); 1 unreadable transcript line(s) left out;" in report
    )
