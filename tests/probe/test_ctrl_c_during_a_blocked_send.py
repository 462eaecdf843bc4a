"""Ctrl-C while a probe case is blocked writing a hard input the server no longer reads: the probe
should end within seconds, not after --timeout."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SERVERS, console_script
from tests.interrupts import interrupt

pytestmark = pytest.mark.slow

MCPTAPE = console_script()


def test_ctrl_c_during_a_blocked_send_ends_the_probe_at_once(tmp_path: Path) -> None:
    """The oversized-line case stalls the server's stdin; SIGINT must give exit 130 in < 5 s."""
    proc = subprocess.Popen(
        [
            MCPTAPE,
            "probe",
            "-o",
            str(tmp_path / "out"),
            "--timeout",
            "30",
            "--case",
            "oversized-line",
            "--oversize",
            str(8 << 20),
            "--",
            sys.executable,
            str(SERVERS / "stall_server.py"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert proc.stderr is not None
        while b"start" not in (line := proc.stderr.readline()):
            assert line, "the probe ended before its start case"
        time.sleep(2.0)  # the oversized-line case is now blocked in send()
        interrupt(proc)
    finally:
        proc.kill()
        proc.wait()
