"""Exit 141 means "stdout was closed early" (b1ff3e7). A stderr pipe whose reader is gone, with
stdout fine, must not give 141: `report` wrote its bundle and says so on stderr."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import SERVERS, console_script

REPO = SERVERS.parents[1]

MCPTAPE = console_script()
GOOD = str(REPO / "transcripts" / "sdk-echo-tool-handshake.jsonl")


def test_report_with_a_closed_stderr_pipe_exits_2_as_with_a_full_disk(tmp_path: Path) -> None:
    """The bundle is written, its line cannot be: exit 2 as with 2>/dev/full, not 141."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [MCPTAPE, "report", GOOD, "-o", str(tmp_path / "bundle")],
            stdout=subprocess.PIPE,
            stderr=write_end,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert (tmp_path / "bundle" / "report.md").exists()
    assert result.returncode == 2
