"""One SSE stream that serve --listen writes, kept whole: each event has an id, so a client resumes it.

`Stream` holds what the session sent on a POST's stream or the GET stream, in order; `event_bytes`
is the SSE event of one entry, its id naming the stream and the entry (`Last-Event-ID`).
"""

from __future__ import annotations

import threading

LATER, ENDED = "later", "ended"  # `Stream.wait`: not yet (the time ran out); never (the stream ended)


class Stream:
    """What the session sent on one SSE stream (a POST's, or the GET stream), in order, each entry
    (line, last): kept, so that a client that lost the stream resumes it (`Last-Event-ID`)."""

    def __init__(self, sid: int, rid: object) -> None:
        self.sid = sid
        self.rid = rid
        self.lines: list[tuple[bytes, bool]] = []
        self.ended = False  # its answer came (a POST's), or the session or its HTTP session ended
        self.cond = threading.Condition()

    def put(self, line: bytes, last: bool) -> None:
        with self.cond:
            self.lines.append((line, last))
            self.ended = self.ended or last
            self.cond.notify_all()

    def end(self) -> None:
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def wait(self, index: int, timeout: float | None) -> tuple[bytes, bool] | str:
        """Entry `index` once it came (waiting at most `timeout` seconds; None: as long as it
        takes); `LATER` when the time ran out, `ENDED` when the stream ended without it."""
        with self.cond:
            if index >= len(self.lines) and not self.ended:
                self.cond.wait(timeout)
            if index < len(self.lines):
                return self.lines[index]
            return ENDED if self.ended else LATER

    def wait_for_the_last(self, last: bool, look: float) -> None:
        """Wait until the stream's last entry came (or it ended); `last`: it came already."""
        while not last:
            entry = self.wait(len(self.lines), look)
            if entry == ENDED:
                break
            last = isinstance(entry, tuple) and entry[1]


def event_bytes(stream: Stream, index: int, line: bytes) -> bytes:
    """The SSE event of entry `index` of `stream`: its id names both (`Last-Event-ID` finds them)."""
    return b"id: %d-%d\r\nevent: message\r\ndata: %s\r\n\r\n" % (stream.sid, index, line.rstrip(b"\n"))
