"""What the tests of a server's lifetime ask of /proc: is a process running, who is in a group, and
waiting until a condition holds."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path


def running(pid: int) -> bool:
    """`pid` exists and has not exited (a zombie waiting for init to reap it has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return not stat.rpartition(") ")[2].startswith("Z")


def group(pgid: int) -> list[int]:
    """The running processes of process group `pgid`."""
    members = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.getpgid(int(name)) == pgid and running(int(name)):
                    members.append(int(name))
            except OSError:
                pass
    return members


def eventually(condition: Callable[[], bool], timeout: float = 10.0) -> float:
    """Seconds until `condition()` held; fails after `timeout`."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "not within the deadline"
        time.sleep(0.02)
    return time.monotonic() - start
