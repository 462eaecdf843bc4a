"""Ctrl-C during a replay ends it at once: exit 130, the new server ended, instead of waiting for
the step timeout and the whole shutdown order."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import PYTHON, SERVERS, console_script
from tests.interrupts import end, interrupt, running_with

pytestmark = pytest.mark.slow


def test_ctrl_c_ends_a_replay_waiting_on_a_hanging_server(tmp_path: Path, v1_tape: Path) -> None:
    """A new build that never answers (and never reads): SIGINT, exit 130 within seconds, no server left."""
    server = tmp_path / "rp_server.py"  # a path of its own, to find its process by
    server.symlink_to(SERVERS / "rp_server.py")  # (it imports tests.servers.lite from beside the original)
    proc = subprocess.Popen(
        [
            console_script(),
            "replay",
            str(v1_tape),
            "--no-config",
            "--step-timeout",
            "30",
            "--shutdown-timeout",
            "10",
            "--",
            PYTHON,
            str(server),
            "--hang",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while not running_with(server):
            assert time.monotonic() < deadline, "the server never started"
            time.sleep(0.05)
        time.sleep(1.0)
        interrupt(proc, server)
    finally:
        end(proc, server)
