"""`mcptape redact`: write a redacted copy of a transcript (the original is never touched).

The copy has one event per line of each byte channel: fragments are joined first (by the check
core's framing), so a secret split across two reads is still found. A line's event carries the
time of the fragment that completed it (of its last fragment when no newline ends it), and sits
where that fragment was. Two passes: the first learns every secret in the
file, the second writes, so a value echoed *before* it was recognised as a secret is caught too.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from mcptape.errors import OutputError
from mcptape.share.placeholder import choose_key
from mcptape.share.redact import Redactor
from mcptape.share.rules import Rules
from mcptape.transcript import BYTE_CHANNELS, Event, Header, open_transcript
from mcptape.transcript.files import open_output
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
    every line redacted; `eof`/`exit` first write the unterminated line their channel still holds."""
    from mcptape.check.framing import Framer

    framer = Framer()
    for ev in events:
        if ev.ch in BYTE_CHANNELS or ev.ch == "eof":
            for frame in framer.feed(ev):
                yield Event(frame.t, frame.channel, raw=redactor.line(frame.raw, frame.channel))
            if ev.ch != "eof":
                continue
        elif ev.ch == "exit":
            for frame in framer.close():
                yield Event(frame.t, frame.channel, raw=redactor.line(frame.raw, frame.channel))
        fields = ev.fields or {}
        if ev.ch == "note":
            fields = redactor.value(fields)
        yield Event(ev.t, ev.ch, fields=dict(fields))
    for frame in framer.close():
        yield Event(frame.t, frame.channel, raw=redactor.line(frame.raw, frame.channel))


def redact_header(header: Header, redactor: Redactor) -> Header:
    """The header with its argv and string fields redacted (the `redacted` field is set later)."""
    extra = {k: v for k, v in header.extra.items() if k != "redacted"}
    return Header(
        version=header.version,
        started=header.started,
        command=redactor.argv(header.command),
        cwd=header.cwd,
        recorder=dict(header.recorder),
        extra=redactor.value(extra),
    )


def redact_file(
    src: Path,
    dst: Path,
    rules: Rules,
    *,
    overwrite: bool = False,
    environ: Mapping[str, str] | None = None,
) -> Summary:
    """Write the redacted copy of `src` to `dst` (mode 0600); raise an MCPTapeError on bad input."""
    env = dict(os.environ if environ is None else environ)
    transcript = open_transcript(src)
    if dst.exists() and src.resolve() == dst.resolve():
        raise OutputError(f"{dst} is the input transcript", hint="write the redacted copy elsewhere")
    previous = transcript.header.extra.get("redacted")
    key = choose_key(env, previous if isinstance(previous, dict) else None)
    redactor = Redactor(rules, key)
    if rules.use_env:
        redactor.learn_environment(env)
    # Pass 1: learn every secret of the file.
    redact_header(transcript.header, redactor)
    for _ in redact_events(transcript.events(), redactor):
        pass
    redactor.reset()
    redactor.replaced = 0
    # Pass 2: write the events to a scratch file next to the output, then header + events.
    fd = open_output(dst, overwrite=overwrite, exists_hint="pass --overwrite, or choose another -o")
    scratch = dst.with_name(f".{dst.name}.{os.getpid()}.part")
    try:
        header = redact_header(transcript.header, redactor)
        sfd = open_output(scratch, overwrite=True)
        body = TranscriptWriter(sfd, clock_start=0.0)
        try:
            for event in redact_events(transcript.events(), redactor):
                body.event(event)
        finally:
            body.close()
        if body.failed is not None:
            raise OutputError(f"cannot write {scratch}: {body.failed.strerror or body.failed}")
        info = redactor.header_info()
        if isinstance(previous, dict):
            info["previous"] = {k: v for k, v in previous.items() if k != "found"}
        header = Header(
            header.version,
            header.started,
            header.command,
            header.cwd,
            header.recorder,
            {**header.extra, "redacted": info},
        )
        out = TranscriptWriter(fd, clock_start=0.0)
        out.header(header)
        if out.failed is not None:
            raise OutputError(f"cannot write {dst}: {out.failed.strerror or out.failed}")
        try:
            with open(scratch, "rb") as fh, os.fdopen(os.dup(fd), "wb") as sink:
                shutil.copyfileobj(fh, sink, 1 << 20)
        except OSError as exc:
            raise OutputError(f"cannot write {dst}: {exc.strerror or exc}") from None
    except BaseException:
        os.close(fd)
        if not overwrite or _is_regular_file(dst):  # never a symlink or a device (-o /dev/full)
            _unlink(dst)
        raise
    finally:
        _unlink(scratch)
    os.close(fd)
    return Summary(dst, redactor.replaced, len(redactor.found), len(transcript.problems))


def _is_regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
