"""A stdout that cannot be written (a full disk: /dev/full) is one `Error:` line on stderr and
exit 2, never a traceback; files the command was asked to write are still written."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import PYTHON, SERVERS, console_script

pytestmark = pytest.mark.slow

GOOD = str(Path(__file__).resolve().parents[2] / "transcripts" / "sdk-echo-tool-handshake.jsonl")
ECHO = [PYTHON, str(SERVERS / "fast" / "echo_tool.py")]


def _run_into_dev_full(args: list[str]) -> subprocess.CompletedProcess[str]:
    with open("/dev/full", "w") as full:
        return subprocess.run(
            [console_script(), *args],
            stdout=full,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=60,
        )


@pytest.mark.parametrize(
    "args",
    [
        ["check", GOOD],
        ["check", "--json", GOOD],
        ["diff", GOOD, GOOD],
        ["diff", "--json", GOOD, GOOD],
        ["replay", GOOD, "--step-timeout", "5", "--", *ECHO],
    ],
    ids=["check", "check-json", "diff", "diff-json", "replay"],
)
def test_a_report_that_cannot_be_written_to_stdout_is_one_error_line(args: list[str]) -> None:
    """The report hits ENOSPC: `Error: cannot write to stdout: No space left on device`, exit 2."""
    result = _run_into_dev_full(args)
    assert result.returncode == 2, result.stderr
    assert result.stderr == "Error: cannot write to stdout: No space left on device\n"


def test_the_probe_keeps_its_files_when_stdout_cannot_be_written(tmp_path: Path) -> None:
    """probe: probe.json, the tool surface's lock and every transcript probe.json names are written
    before the table fails to print."""
    result = _run_into_dev_full(["probe", "-o", str(tmp_path), "--case", "debug-line", "--", *ECHO])
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == "Error: cannot write to stdout: No space left on device"
    assert "Traceback" not in result.stderr
    report = json.loads((tmp_path / "probe.json").read_text())
    transcripts = {Path(case["transcript"]).name for case in report["cases"] if case["transcript"]}
    assert "start.jsonl" in transcripts and any(case["id"] == "debug-line" for case in report["cases"])
    assert {p.name for p in tmp_path.iterdir()} == {"probe.json", "tools.lock.json", *transcripts}
    assert all((tmp_path / name).stat().st_size > 0 for name in transcripts)


def test_help_that_cannot_be_written_is_one_error_line() -> None:
    """Any other output failure (here click's --help) is caught by the CLI: one line, exit 2."""
    result = _run_into_dev_full(["check", "--help"])
    assert result.returncode == 2, result.stderr
    assert result.stderr == "Error: No space left on device\n"
