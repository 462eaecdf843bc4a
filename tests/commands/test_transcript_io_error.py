"""A transcript the OS refuses to read (an I/O error, not a missing file) is one `Error:` line and
exit 2 for every command that reads one, never a traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import console_script

# Opening /proc/self/mem always works and reading its offset 0 always fails with EIO (the page
# at address 0 is never mapped): an unreadable file even for root, who ignores chmod 000.
UNREADABLE = "/proc/self/mem"
GOOD = str(Path(__file__).resolve().parents[2] / "transcripts" / "sdk-echo-tool-handshake.jsonl")


@pytest.mark.parametrize(
    "args",
    [
        ["check", UNREADABLE],
        ["check", "--json", UNREADABLE],
        ["diff", GOOD, UNREADABLE],
        ["redact", UNREADABLE, "-o", "{tmp}/r.jsonl"],
        ["report", UNREADABLE, "-o", "{tmp}/rep"],
        ["view", UNREADABLE],
        ["replay", UNREADABLE, "--", "true"],
    ],
    ids=["check", "check-json", "diff", "redact", "report", "view", "replay"],
)
def test_an_io_error_reading_the_transcript_is_one_error_line(args: list[str], tmp_path: Path) -> None:
    """EIO while reading line 1: `Error: ... cannot be read: Input/output error`, exit 2, stdout empty."""
    argv = [console_script(), *(a.replace("{tmp}", str(tmp_path)) for a in args)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr == f"Error: {UNREADABLE} cannot be read: Input/output error\n"
