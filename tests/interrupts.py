"""Helpers for the Ctrl-C tests: interrupt a command and check that it and its servers end at once."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path


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


def interrupt(proc: subprocess.Popen[bytes], server: Path | None = None, *, within: float = 5.0) -> None:
    """SIGINT `proc`: it exits 130 within `within` seconds, and no process running `server` is left."""
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    code = proc.wait(timeout=40)
    took = time.monotonic() - t0
    assert (code, took < within) == (130, True), (code, took)
    if server is not None:
        deadline = time.monotonic() + within
        while running_with(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running_with(server) == []


def end(proc: subprocess.Popen[bytes], server: Path | None = None) -> None:
    """Clean up after a test, whatever it asserted."""
    proc.kill()
    proc.wait()
    for pid in running_with(server) if server is not None else ():
        os.kill(pid, signal.SIGKILL)
