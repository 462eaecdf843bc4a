"""A server that takes a global lock, as one on a fixed port or with a pid file does:
`locked_server.py LOCK CMD...` takes an exclusive lock on the file LOCK or, when another instance
holds it, says `locked` on stderr and exits 3; else it becomes CMD, which holds the lock until it
ends (however it ends)."""

from __future__ import annotations

import fcntl
import os
import sys

if __name__ == "__main__":
    lock, command = sys.argv[1], sys.argv[2:]
    fd = os.open(lock, os.O_CREAT | os.O_WRONLY, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.stderr.write("locked\n")
        sys.exit(3)
    os.set_inheritable(fd, True)  # the server keeps the lock
    os.execv(command[0], command)
