"""A test child for exit codes, signals and shutdown order.

usage: lifecycle.py MODE
  exit3         exit with code 3 at once
  selfterm      kill itself with SIGTERM
  trap          on SIGINT/SIGTERM/SIGHUP: print "got <NAME>" on stderr and exit 0; waits forever
  ignore-eof    keep running after stdin closes (until SIGTERM, default action)
  ignore-term   keep running after stdin closes and ignore SIGTERM
  flood         write numbered lines to stdout forever
  echo-lines    echo each stdin line back on stdout, exit at EOF
"""

from __future__ import annotations

import os
import signal
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    if mode == "exit3":
        sys.exit(3)
    if mode == "selfterm":
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    if mode == "trap":

        def on_signal(signum: int, _frame: object) -> None:
            sys.stderr.write(f"got {signal.Signals(signum).name}\n")
            sys.stderr.flush()
            os._exit(0)

        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, on_signal)
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        while True:
            time.sleep(1)
    if mode in ("ignore-eof", "ignore-term"):
        if mode == "ignore-term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stdin.read()
        sys.stdout.write("stdin closed\n")
        sys.stdout.flush()
        while True:
            time.sleep(1)
    if mode == "flood":
        i = 0
        while True:
            os.write(1, b"line %08d %s\n" % (i, b"x" * 100))
            i += 1
    if mode == "echo-lines":
        for line in sys.stdin.buffer:
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
