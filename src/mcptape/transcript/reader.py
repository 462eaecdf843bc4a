"""Read a transcript lazily, tolerating a truncated last line (a recorder killed mid-write).

`open_transcript(path)` checks the header at once (so a non-transcript, an empty file or a future
version fails with one clear error before any work) and then yields events on demand.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from mcptape.errors import TranscriptError
from mcptape.transcript.events import FORMAT_VERSION, Event, Header
from mcptape.version import __version__

_BUFFER = 1 << 20
# A header line is a few hundred bytes (its longest part is the command line): reading at most this
# much keeps a large file without newlines (a binary, /dev/zero) from being read whole.
MAX_HEADER = 16 << 20
_HEADER_START = b'{"mcptape":'  # how the writer begins every header
_GZIP = b"\x1f\x8b"


@dataclass
class Problem:
    """Something in the file that is not a well-formed event (reported, never fatal)."""

    line: int
    offset: int
    reason: str


def parse_header(line: bytes, name: str) -> Header:
    """Decode line 1, or explain in one sentence why this is not a transcript mcptape can read."""
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        record = None
    if not isinstance(record, dict) or "mcptape" not in record:
        raise TranscriptError(
            f"{name} is not an mcptape transcript (line 1 is not a transcript header)",
            hint="record one with: mcptape record -o FILE -- CMD",
        )
    version = record["mcptape"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise TranscriptError(f"{name} has an invalid transcript version {version!r}")
    if version > FORMAT_VERSION:
        raise TranscriptError(
            f"{name} is a version {version} transcript; mcptape {__version__} reads version {FORMAT_VERSION}",
            hint="upgrade mcptape: pip install -U mcptape",
        )
    if version < 1:
        raise TranscriptError(f"{name} has an invalid transcript version {version!r}")
    return Header.from_record(record)


def parse_event(line: bytes | str, index: int = -1) -> Event:
    """Decode one event line (raises ValueError with a reason when it is not an event)."""
    try:
        record: Any = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    try:
        return Event.from_record(record, index)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not an event ({type(exc).__name__}: {exc})") from None


@dataclass
class Transcript:
    """An open transcript: its header now, its events on demand (iterate `events()`)."""

    path: Path
    header: Header
    header_size: int
    problems: list[Problem] = field(default_factory=list)

    @property
    def truncated(self) -> bool:
        """True when the last line was cut short (known once `events()` has been read to the end)."""
        return any(p.reason.startswith("truncated") for p in self.problems)

    def events(self) -> Iterator[Event]:
        """Yield every well-formed event in file order; malformed lines become `problems` (raises
        TranscriptError when the file cannot be read on, e.g. EIO after the header)."""
        try:
            yield from self._events()
        except OSError as exc:
            raise unreadable(self.path, exc) from None

    def _events(self) -> Iterator[Event]:
        self.problems = []
        with open_file(self.path) as fh:
            fh.seek(self.header_size)
            offset = self.header_size
            index = 0
            lineno = 1
            for line in fh:
                lineno += 1
                start = offset
                offset += len(line)
                if not line.strip():
                    continue
                try:
                    event = parse_event(line, index)
                except ValueError as exc:
                    if not line.endswith(b"\n"):
                        self.problems.append(
                            Problem(lineno, start, f"truncated last line ({len(line)} bytes)")
                        )
                    else:
                        self.problems.append(Problem(lineno, start, str(exc)))
                    continue
                index += 1
                yield event


def open_file(path: Path) -> IO[bytes]:
    """Open for reading with a large buffer, turning OS errors into one clear sentence."""
    try:
        if path.is_dir():
            raise TranscriptError(f"{path} is a directory, not a transcript file")
        if not stat.S_ISREG(os.stat(path).st_mode):  # before open(): a FIFO with no writer blocks it
            raise TranscriptError(
                f"{path} is not a regular file (a pipe, socket or device)",
                hint="mcptape reads transcripts from files: save it to one first",
            )
        return open(path, "rb", buffering=_BUFFER)
    except FileNotFoundError:
        raise TranscriptError(f"{path} does not exist", hint="check the path") from None
    except PermissionError:
        raise TranscriptError(f"{path} cannot be read: permission denied") from None
    except OSError as exc:
        raise unreadable(path, exc) from None


def unreadable(path: Path, exc: OSError) -> TranscriptError:
    """The error for a file that opened but could not be read (EIO, a vanished mount...)."""
    return TranscriptError(f"{path} cannot be read: {exc.strerror or exc}")


def open_transcript(path: str | os.PathLike[str]) -> Transcript:
    """Open `path`, validate its header, and return a lazily readable `Transcript`."""
    p = Path(path)
    with open_file(p) as fh:
        try:
            first = fh.readline(MAX_HEADER)
        except OSError as exc:
            raise unreadable(p, exc) from None
    if not first:
        raise TranscriptError(f"{p} is empty: not an mcptape transcript", hint="was the recording started?")
    if first.startswith(_GZIP):
        raise TranscriptError(f"{p} is gzip-compressed", hint=f"decompress it first: gunzip -k {p}")
    try:
        header = parse_header(first, str(p))
    except TranscriptError:
        if first.startswith(_HEADER_START) and not first.endswith(b"\n") and len(first) < MAX_HEADER:
            raise TranscriptError(
                f"{p} is not an mcptape transcript: its header (line 1) is cut short "
                f"({len(first)} bytes, no newline)",
                hint="the recording stopped as it started: record it again",
            ) from None
        raise
    return Transcript(path=p, header=header, header_size=len(first))
