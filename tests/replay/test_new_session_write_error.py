"""replay's own output: a new session that cannot be written is named as such, not mistaken for an
unreadable transcript."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import PYTHON, SERVERS, console_script

pytestmark = pytest.mark.slow

GOOD = str(Path(__file__).resolve().parents[2] / "transcripts" / "sdk-echo-tool-handshake.jsonl")


def test_a_new_session_that_cannot_be_written_is_an_output_error() -> None:
    """-o /dev/full --overwrite: `Error: cannot write /dev/full: No space left on device`, exit 2."""
    result = subprocess.run(
        [
            console_script(),
            "replay",
            GOOD,
            "--no-config",
            "-o",
            "/dev/full",
            "--overwrite",
            "--",
            PYTHON,
            str(SERVERS / "fast" / "echo_tool.py"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr == "Error: cannot write /dev/full: No space left on device\n"
