"""A changed build for the tests: run a server, and replace OLD by NEW in every line it writes on stdout.

    python retext.py OLD NEW -- CMD [ARGS...]

stdin and stderr pass through untouched; the exit code is the server's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading


def main() -> int:
    old, new, dash, *command = sys.argv[1:]
    assert dash == "--" and command, __doc__
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin is not None and child.stdout is not None

    def feed() -> None:
        assert child.stdin is not None
        while chunk := os.read(0, 65536):
            child.stdin.write(chunk)
            child.stdin.flush()
        child.stdin.close()

    threading.Thread(target=feed, daemon=True).start()
    for line in child.stdout:
        sys.stdout.buffer.write(line.replace(old.encode(), new.encode()))
        sys.stdout.buffer.flush()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
