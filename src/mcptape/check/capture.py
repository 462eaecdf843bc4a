"""Whether the recording is whole: `incomplete-capture`, the one finding about the transcript itself.

A transcript without its `exit` record (the recorder never saw the server end: it was killed, the
file was cut or copied while the server ran) or whose last line is torn shows less than the session
was. The finding's party is `capture` (nobody broke a protocol rule; the evidence is short), its
channel `transcript`: its line is the file's line (the torn line, else the last event's), its event
that line's index.
"""

from __future__ import annotations

from mcptape.check import rules
from mcptape.check.findings import finding
from mcptape.check.model import TRANSCRIPT, Finding
from mcptape.transcript.reader import FIRST_LINE, Problem, line_of


def capture_finding(exited: bool, torn: Problem | None, last: tuple[float, int] | None) -> Finding | None:
    """The finding for a capture without an exit record (`exited` false) or with a torn last line
    (`torn`, the reader's problem), placed after the last record fed (`last`: its time and event
    index); None for a whole capture."""
    if exited and torn is None:
        return None
    t, index = last if last is not None else (None, -1)
    why = []
    if torn is not None:
        why.append(f"its last line (transcript line {torn.line}) is torn: {torn.reason}")
        index = torn.line - FIRST_LINE  # the torn line's own event index (its row in the viewer)
    if not exited:
        why.append("it has no exit record (the recorder never saw the server end)")
    return finding(
        rules.INCOMPLETE_CAPTURE,
        channel=TRANSCRIPT,
        line=line_of(index) if index >= 0 else FIRST_LINE,
        offset=torn.offset if torn is not None else -1,
        raw=b"",
        message="the recording is incomplete: "
        + " and ".join(why)
        + "; what happened after it is not in the transcript",
        t=t,
        event=index,
    )
