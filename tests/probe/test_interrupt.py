"""Ctrl-C during a probe ends it at once: the running case's server is ended (even one that
ignores SIGTERM), exit 130, instead of waiting for the case's --timeout."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from tests.conftest import PYTHON, SERVERS, console_script


def running_with(path: Path) -> list[int]:
    """Pids of the live processes whose command line names `path`."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            state = Path(f"/proc/{name}/stat").read_text().rpartition(") ")[2]
        except OSError:
            continue
        if str(path).encode() in cmdline and not state.startswith("Z"):
            pids.append(int(name))
    return pids


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
        proc.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        code = proc.wait(timeout=20)
        assert code == 130
        assert time.monotonic() - t0 < 5
        deadline = time.monotonic() + 5
        while running_with(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running_with(server) == []
    finally:
        proc.kill()
        proc.wait()
        for pid in running_with(server):
            os.kill(pid, signal.SIGKILL)
