"""Read a transcript's records fast, for the analysis (no Event object per line).

Same contract as `Transcript.events()` (same event indexes, same tolerated problems), but a
well-formed text record goes straight to the analyzer as `(t, ch, text, index)`; anything else
goes through the transcript reader's own `parse_event`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from mcptape.transcript.reader import Problem, Transcript, open_file, parse_event

Push = Callable[[float, str, Any, int], None]


def read_records(transcript: Transcript, push: Push) -> None:
    """Call `push(t, ch, payload, index)` for every event of `transcript`, in file order."""
    transcript.problems = []
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    with open_file(transcript.path) as fh:
        fh.seek(transcript.header_size)
        offset = transcript.header_size
        index = 0
        lineno = 1
        for line in fh:
            lineno += 1
            start = offset
            offset += len(line)
            try:
                record = loads(line)
                t = record["t"]
                ch = record["ch"]
                text = record["data"]
                if type(t) is float and type(ch) is str and type(text) is str:
                    push(t, ch, text, index)
                    index += 1
                    continue
            except (decode_error, KeyError, TypeError):
                pass
            if not line.strip():
                continue
            try:
                event = parse_event(line, index)
            except ValueError as exc:
                reason = str(exc) if line.endswith(b"\n") else f"truncated last line ({len(line)} bytes)"
                transcript.problems.append(Problem(lineno, start, reason))
                continue
            index += 1
            if event.text is not None:
                push(event.t, event.ch, event.text, event.index)
            elif event.raw is not None:
                push(event.t, event.ch, event.raw, event.index)
            else:
                push(event.t, event.ch, event.fields or {}, event.index)
