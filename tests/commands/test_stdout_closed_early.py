"""A reader that closes the pipe early (`mcptape check big.jsonl | head`) is not "findings": exit
141, as for a process killed by SIGPIPE, with nothing on stderr."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import console_script

GOOD = str(Path(__file__).resolve().parents[2] / "transcripts" / "sdk-echo-tool-handshake.jsonl")


@pytest.mark.parametrize(
    "args",
    [["check", GOOD], ["check", "--json", GOOD], ["diff", GOOD, GOOD], ["--help"]],
    ids=["check", "check-json", "diff", "help"],
)
def test_a_closed_stdout_exits_141_quietly(args: list[str]) -> None:
    """stdout's reader is gone before the first byte: exit 141, no traceback, no message."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [console_script(), *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert result.returncode == 141
    assert result.stderr == b""
