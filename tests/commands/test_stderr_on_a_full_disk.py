"""A stderr that cannot be written (/dev/full) never turns an exit code into 1 ("findings"): an
error keeps its exit 2, and the probe's progress lines are best-effort."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import PYTHON, SERVERS, console_script

pytestmark = pytest.mark.slow

GOOD = str(Path(__file__).resolve().parents[2] / "transcripts" / "sdk-echo-tool-handshake.jsonl")


def _run_with_stderr_full(args: list[str]) -> subprocess.CompletedProcess[str]:
    with open("/dev/full", "w") as full:
        return subprocess.run(
            [console_script(), *args],
            stdout=subprocess.PIPE,
            stderr=full,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=60,
        )


def test_a_record_that_cannot_start_and_cannot_say_so_still_exits_2(tmp_path: Path) -> None:
    """`record` (its fast path) with a missing server and stderr on a full disk: exit 2."""
    result = _run_with_stderr_full(["record", "-o", str(tmp_path / "r.jsonl"), "--", str(tmp_path / "nope")])
    assert result.returncode == 2
    assert result.stdout == ""


def test_an_error_that_cannot_be_shown_still_exits_2(tmp_path: Path) -> None:
    """A missing transcript with stderr on a full disk: exit 2, as when the line can be shown."""
    result = _run_with_stderr_full(["check", str(tmp_path / "missing.jsonl")])
    assert result.returncode == 2
    assert result.stdout == ""


def test_a_written_copy_whose_message_cannot_be_shown_exits_2_not_1(tmp_path: Path) -> None:
    """redact writes its copy, then cannot say so: an unwritable output (2), the copy is kept."""
    out = tmp_path / "copy.jsonl"
    result = _run_with_stderr_full(["redact", GOOD, "-o", str(out)])
    assert result.returncode == 2
    assert out.read_bytes().startswith(b'{"mcptape":1')


def test_the_probe_runs_and_reports_when_its_progress_cannot_be_shown(tmp_path: Path) -> None:
    """probe with stderr on a full disk: the cases run, the table is printed, exit 0."""
    result = _run_with_stderr_full(
        [
            "probe",
            "-o",
            str(tmp_path),
            "--case",
            "debug-line",
            "--",
            PYTHON,
            str(SERVERS / "fast" / "echo_tool.py"),
        ]
    )
    assert result.returncode == 0
    assert "debug-line" in result.stdout and "0 failed" in result.stdout
