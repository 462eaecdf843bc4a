"""The live exporter's process (`python -m mcptape.export.livechild ENDPOINT TRANSCRIPT`), started by
`record --otlp` (see `live.py`): reads the transcript's records from stdin as the recorder writes
them (the header first), turns each answered call into a span and sends the spans; at the end of
its stdin, sends the last ones and the root within `FLUSH_WITHIN` seconds and says once on stderr
what was dropped. It never raises: a failure is that one line. It runs at a lower priority
(`NICENESS`): where the cores are busy, the recorder's relay and the server get them first, and a
child that falls behind fills its pipe, whose records the recorder drops and counts."""

from __future__ import annotations

import os

NICENESS = 10  # background work: on a busy machine the relay's threads come first
try:
    os.nice(NICENESS)  # before the imports below and in `run`, the child's heaviest moment
except OSError:
    pass

import select  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

DROPPED = b'{"t":0,"ch":"mcptape-live-dropped","n":'  # the recorder's count of records it dropped
GATHER = 0.01  # seconds to wait after a small read, for more records to come in one read
BURST = 1 << 16  # a read this large or larger: a flood, read on at once


def run(endpoint: str, transcript: str) -> str | None:
    """Export what comes on stdin; the line to say on stderr, if any."""
    import orjson

    from mcptape.export.live import FLUSH_WITHIN, TICK, Sender, _State
    from mcptape.transcript.events import Event
    from mcptape.transcript.reader import parse_header, read_line

    sender = Sender(endpoint)
    state: _State | None = None
    lost = 0
    index = 0
    pending = b""
    done = False
    while not done:
        ready, _, _ = select.select([0], [], [], TICK)
        if ready:
            chunk = os.read(0, 1 << 20)
            done = not chunk
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if state is None:
                    state = _State(parse_header(line + b"\n", transcript), Path(transcript))
                    sender.pending = state.pending
                    continue
                if line.startswith(DROPPED):
                    lost += int(orjson.loads(line)["n"])
                    continue
                event = read_line(line + b"\n", index)
                index += 1
                if isinstance(event, Event):
                    has_bytes = event.text is not None or event.raw is not None
                    state.feed(
                        event.index, event.t, event.ch, event.data if has_bytes else None, event.fields
                    )
        if state is not None:
            sender.tick(state.resource)
        if ready and not done and len(chunk) < BURST:
            time.sleep(GATHER)  # let records gather: one wake-up per batch, not one per record
    if state is None:
        return None
    state.finish()
    sender.tick(state.resource, deadline=time.monotonic() + FLUSH_WITHIN)
    return sender.said(lost)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the recorder's to handle: it ends our stdin
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        said = run(sys.argv[1], sys.argv[2])
    except Exception as exc:  # the recording must never see a traceback of ours
        said = f"mcptape: live export stopped: {exc!r}"
    if said:
        try:
            sys.stderr.write(said + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


if __name__ == "__main__":
    main()
