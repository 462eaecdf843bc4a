"""A server that takes a global lock, as one on a fixed port or with a pid file does:
`locked_server.py LOCK CMD...` creates LOCK or, when it exists (another instance runs), says
`locked` on stderr and exits 3; else runs CMD on the same stdio (executor tap included) and removes
LOCK when it ends."""

from __future__ import annotations

import os
import subprocess
import sys

if __name__ == "__main__":
    lock, command = sys.argv[1], sys.argv[2:]
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    except FileExistsError:
        sys.stderr.write("locked\n")
        sys.exit(3)
    try:
        code = subprocess.run(command, close_fds=False).returncode
    finally:
        os.unlink(lock)
    sys.exit(code)
