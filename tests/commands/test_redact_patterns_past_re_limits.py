"""A `--redact-pattern` Python's `re` refuses for its size rather than its syntax (a repetition count
past its limit raises OverflowError, not re.error) is one usage error line, exit 2, like any other
invalid pattern, in redact, report and record."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.commands.tapes import session
from tests.inprocess import run


@pytest.mark.parametrize("command", ["redact", "report", "record"])
def test_a_pattern_past_re_limits_is_one_error(tmp_path: Path, command: str) -> None:
    """Exit 2, one `Error:` line naming the pattern, nothing written."""
    recording = session(tmp_path / "s.jsonl", {"content": []})
    out = tmp_path / "out"
    pattern = ["--redact-pattern", "a{99999999999}"]
    argv: list[str | Path] = (
        ["record", "-o", out, *pattern, "--", "true"]
        if command == "record"
        else [command, recording, "-o", out, *pattern]
    )
    result = run(*argv, text=True)
    assert result.returncode == 2 and result.stderr.startswith("Error: "), result.stderr
    assert result.stderr.count("\n") == 1 and "a{99999999999}" in result.stderr
    assert "is not a valid regular expression" in result.stderr and not out.exists()
