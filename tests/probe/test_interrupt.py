"""Ctrl-C during a probe ends it at once: the running case's server is ended (even one that
ignores SIGTERM), exit 130, instead of waiting for the case's --timeout."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import PYTHON, SERVERS, console_script
from tests.interrupts import end, interrupt, running_with

pytestmark = pytest.mark.slow


def test_ctrl_c_ends_a_hanging_case_at_once(tmp_path: Path) -> None:
    """A case whose server hangs and ignores SIGTERM: SIGINT to the probe, exit 130 within seconds
    (not the 30 s --timeout), and no server left running."""
    server = tmp_path / "pb_server.py"
    shutil.copy(SERVERS / "pb_server.py", server)
    proc = subprocess.Popen(
        [
            console_script(),
            "probe",
            "-o",
            str(tmp_path / "out"),
            "--timeout",
            "30",
            "--case",
            "batch",
            "--",
            PYTHON,
            str(server),
            "--defect",
            "hang",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert proc.stderr is not None
        while b"start" not in (line := proc.stderr.readline()):
            assert line, "the probe ended before its start case"
        time.sleep(1.5)  # the batch case is running: its server now hangs
        assert running_with(server)
        interrupt(proc, server)
    finally:
        end(proc, server)
