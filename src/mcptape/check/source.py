"""Read a transcript's records fast, for the analysis (no Event object per line).

Same contract as `Transcript.events()` (same event indexes, same tolerated problems), but a
well-formed text record goes straight into the analyzer's buffer as `(t, ch, text, index)`;
anything else goes through the transcript reader's own `parse_event` and `Analyzer.feed`.
(Unescaping a line with `bytes.replace` to parse record and message in one call was measured:
slower than the second `orjson.loads`.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import orjson

from mcptape.transcript.reader import Problem, Transcript, open_file, parse_event

if TYPE_CHECKING:
    from mcptape.check.analyze import Analyzer


def read_into(
    transcript: Transcript,
    analyzer: Analyzer,
    flush: int,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Feed every event of `transcript` to `analyzer`, in file order; `progress(bytes read)` is
    called each time a batch of `flush` records is analysed."""
    transcript.problems = []
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    buffer = analyzer.buffer
    append = buffer.append
    # The last time of each channel seen so far. A channel not seen yet raises KeyError below and
    # its first record takes the general path (`feed`, which records it); the keys are the
    # channel names `push` was given, all str, so a `ch` that is found is a str.
    last_t = analyzer.last_t
    size = 0  # bytes appended here since the last drain (added to analyzer.buffered at a drain)
    flush_bytes = analyzer.flush_bytes
    with open_file(transcript.path) as fh:
        fh.seek(transcript.header_size)
        index = 0
        # Line numbers and byte offsets matter only for a problem line: `enumerate` and `tell`
        # cost nothing on the good ones.
        for lineno, line in enumerate(fh, 2):
            try:
                record = loads(line)
                t = record["t"]
                ch = record["ch"]
                text = record["data"]
                if type(t) is float and type(text) is str and t >= last_t[ch]:
                    last_t[ch] = t
                    append((t, ch, text, index))
                    index += 1
                    size += len(text)
                    if len(buffer) >= flush or size >= flush_bytes:
                        analyzer.buffered += size
                        size = 0
                        analyzer.drain()
                        if progress is not None:
                            progress(fh.tell())
                    continue
            except (decode_error, KeyError, TypeError):
                pass
            if not line.strip():
                continue
            try:
                event = parse_event(line, index)
            except ValueError as exc:
                reason = str(exc) if line.endswith(b"\n") else f"truncated last line ({len(line)} bytes)"
                transcript.problems.append(Problem(lineno, fh.tell() - len(line), reason))
                continue
            index += 1
            analyzer.buffered += size
            size = 0
            analyzer.feed(event)
