"""c02d8ae refuses a --junit path in a missing directory before any case runs; a --junit path
that is a directory still fails only after every case ran, and without printing the table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import SERVERS, console_script

MCPTAPE = console_script()
ECHO = str(SERVERS / "echo_tool.py")


def test_a_junit_path_that_is_a_directory_is_refused_before_the_probe(tmp_path: Path) -> None:
    """`--junit DIR`: exit 2, one Error line, no case started (no transcript written)."""
    out = tmp_path / "out"
    result = subprocess.run(
        [
            MCPTAPE,
            "probe",
            "-o",
            str(out),
            "--junit",
            str(tmp_path),
            "--case",
            "debug-line",
            "--",
            sys.executable,
            ECHO,
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.startswith(f"Error: cannot write {tmp_path}: it is a directory")
    assert not (out / "start.jsonl").exists()
