"""Run a test server whose tool reports its action on the executor tap late, after its answer:

    python late_tap.py SECONDS [--anonymous] [--on-time N] SERVER.py [ARGS...]

Every `mcptape.tap.executed(...)` of SERVER.py (pb_server.py, pb_http_server.py) is written SECONDS
later from a thread of its own, so the answer goes out first and the tap line follows it, as a
server that acts in the background does (a late side effect). With `--anonymous` the line names no
request id (as an HTTP attempt or a command never does). With `--on-time N` the first N lines are
written at once (a tap line recorded late now and then, as a thread reading the tap may be). The
threads are not daemons, and SIGTERM
(how an HTTP server is ended) waits for them: each line is written before the server exits, so a
transcript holds every action of the session.
"""

from __future__ import annotations

import os
import runpy
import signal
import sys
import threading
import time
from typing import Any

from mcptape import tap


def main() -> None:
    delay = float(sys.argv[1])
    rest = sys.argv[2:]
    anonymous = bool(rest) and rest[0] == "--anonymous"
    if anonymous:
        rest = rest[1:]
    on_time = 0
    if rest[:1] == ["--on-time"]:
        on_time, rest = int(rest[1]), rest[2:]
    now = tap.executed
    pending: list[threading.Thread] = []
    written = [0]

    def late(action: str, /, request_id: Any = None, kind: str | None = None, **details: Any) -> None:
        named = None if anonymous else request_id
        written[0] += 1
        if written[0] <= on_time:
            now(action, request_id=named, kind=kind, **details)
            return

        def write() -> None:
            time.sleep(delay)
            now(action, request_id=named, kind=kind, **details)

        thread = threading.Thread(target=write, name="late-tap")
        pending.append(thread)
        thread.start()

    def written_then_gone(signum: int, frame: object) -> None:
        for thread in list(pending):
            thread.join()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, written_then_gone)
    tap.executed = late
    sys.argv = rest
    runpy.run_path(rest[0], run_name="__main__")


if __name__ == "__main__":
    main()
