"""`mcptape redact`: write a redacted copy of a transcript (the original is never touched).

The copy has one event per line of each byte channel: fragments are joined first (by the check
core's framing), so a secret split across two reads is still found. A line's event carries the
time of the fragment that completed it (of its last fragment when no newline ends it), and sits
where that fragment was. Two passes: the first learns every secret in the
file, the second writes, so a value echoed *before* it was recognised as a secret is caught too.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from mcptape.errors import OutputError
from mcptape.share.outputs import Output, refuse_input
from mcptape.share.placeholder import choose_key
from mcptape.share.redact import Redactor
from mcptape.share.rules import Rules
from mcptape.share.values import redact_fields, redact_header
from mcptape.transcript import BYTE_CHANNELS, Event, Header, open_transcript
from mcptape.transcript.events import HTTP_IN, WIRE_CHANNELS
from mcptape.transcript.wire import EXCHANGE
from mcptape.transcript.writer import TranscriptWriter


@dataclass(frozen=True)
class Summary:
    """What a redaction did: how many secrets it replaced, how many distinct, lines it dropped."""

    output: Path
    replaced: int
    distinct: int
    dropped_lines: int


def redact_events(events: Iterable[Event], redactor: Redactor) -> Iterator[Event]:
    """The events with each byte channel re-cut into whole lines (the check core's framing) and
    every line redacted; `eof`/`exit` first write the unterminated line their channel still holds.
    An HTTP transcript's exchanges keep their number, and their raw bytes stay HTTP (`httpcopy`).
    A record kind this version does not know keeps none of its strings (see `Redactor.fields`)."""
    from mcptape.check.framing import Framer
    from mcptape.share.httpcopy import WireCopy, exchange_of

    framer = Framer()
    wire = WireCopy(redactor)
    for ev in events:
        x = exchange_of(ev)
        if x is not None:  # an HTTP exchange's bytes, or a message it carried (one whole line)
            if ev.ch in WIRE_CHANNELS:
                yield from wire.feed(ev)
            else:
                yield Event(ev.t, ev.ch, raw=redactor.line(ev.data, ev.ch), fields={EXCHANGE: x})
            continue
        if ev.ch == "eof" and ev.get("of") == HTTP_IN:  # the proxy closed: the exchanges end here
            yield from wire.finish()
        if ev.ch in BYTE_CHANNELS or ev.ch == "eof":
            for frame in framer.feed(ev):
                yield Event(frame.t, frame.channel, raw=redactor.line(frame.raw, frame.channel))
            if ev.ch != "eof":
                continue
        elif ev.ch == "exit":
            for frame in framer.close():
                yield Event(frame.t, frame.channel, raw=redactor.line(frame.raw, frame.channel))
        if ev.text is not None or ev.raw is not None:  # bytes on an unknown channel (`x` dropped too)
            shown = ev.data.decode("utf-8", "surrogateescape")
            yield Event(ev.t, ev.ch, text=redactor.placeholder(shown, "unknown-record") if shown else "")
            continue
        yield Event(ev.t, ev.ch, fields=redact_fields(redactor, ev.ch, ev.fields or {}))
    for frame in framer.close():
        yield Event(frame.t, frame.channel, raw=redactor.line(frame.raw, frame.channel))
    yield from wire.finish()


def redact_file(
    src: Path,
    dst: Path,
    rules: Rules,
    *,
    overwrite: bool = False,
    environ: Mapping[str, str] | None = None,
) -> Summary:
    """Write the redacted copy of `src` to `dst` (mode 0600); raise an MCPTapeError on bad input.

    `dst` is written under a temporary name and renamed into place once complete: the input is
    never truncated, even when `dst` is the same file under another name (that is refused)."""
    env = dict(os.environ if environ is None else environ)
    transcript = open_transcript(src)
    refuse_input([src], dst, hint="write the redacted copy elsewhere")
    previous = transcript.header.extra.get("redacted")
    key = choose_key(env, previous if isinstance(previous, dict) else None)
    redactor = Redactor(rules, key)
    if rules.use_env:
        redactor.learn_environment(env)
    out = Output(dst, overwrite=overwrite, exists_hint="pass --overwrite, or choose another -o")
    try:
        # Pass 1: learn every secret of the file.
        redact_header(redactor, transcript.header)
        for _ in redact_events(transcript.events(), redactor):
            pass
        redactor.reset()
        # Pass 2: the events to a scratch file (the header's `found` is known at the end), then
        # header + events to the output.
        header = redact_header(redactor, transcript.header)
        with tempfile.TemporaryFile(dir=out.final.parent if out.temporary else None) as scratch:
            body = TranscriptWriter(scratch.fileno(), clock_start=0.0)
            for event in redact_events(transcript.events(), redactor):
                body.event(event)
            if body.failed is not None:
                raise OutputError(f"cannot write {dst}: {body.failed.strerror or body.failed}")
            info = redactor.header_info()
            if isinstance(previous, dict):
                info["previous"] = {k: v for k, v in previous.items() if k != "found"}
            head = Header(
                header.version,
                header.started,
                header.command,
                header.cwd,
                header.recorder,
                {**header.extra, "redacted": info},
            )
            writer = TranscriptWriter(out.fd, clock_start=0.0)
            writer.header(head)
            if writer.failed is not None:
                raise OutputError(f"cannot write {dst}: {writer.failed.strerror or writer.failed}")
            scratch.seek(0)
            while chunk := scratch.read(1 << 20):
                out.write(chunk)
    except BaseException:
        out.abort()
        raise
    out.commit()
    return Summary(dst, redactor.replaced, len(redactor.found), len(transcript.problems))
