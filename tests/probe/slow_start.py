"""A server whose start-up takes a while, logging it: `slow_start.py LOG CMD...` appends `spawned
PID` to LOG (and says its PID on stderr), sleeps 0.3 s (an interpreter importing its SDK), waits for
its first request on stdin, appends `reading PID`, and becomes CMD (which reads that request and
answers it)."""

from __future__ import annotations

import os
import select
import sys
import time


def note(log: str, what: str) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{what} {os.getpid()}\n".encode())
    finally:
        os.close(fd)


if __name__ == "__main__":
    log, command = sys.argv[1], sys.argv[2:]
    note(log, "spawned")
    sys.stderr.write(f"slow_start: pid {os.getpid()}\n")
    sys.stderr.flush()
    time.sleep(0.3)
    select.select([0], [], [])
    note(log, "reading")
    os.execv(command[0], command)
