"""The one transcript reader: the header checked at once, then every line after it, numbered.

`open_transcript(path)` checks the header at once (so a non-transcript, an empty file, a future
version or a header with fields of the wrong type fails with one clear error before any work) and
then reads the lines on demand, three ways over the same decoding:

* `records()`: every line after the header, as an `Event` or a `BadLine` saying why it is not one;
* `events()`: the events alone;
* `batches()`: the analysis' fast form, `(t, ch, text | bytes | fields, index)` tuples, with no
  object per line (`mcptape check` reads a million lines in a few seconds through it).

**One numbering.** A line's *event index* is its position after the header: the line after the
header is event 0, and every line counts, whatever it holds (an unreadable line, a blank line, a
last line cut short), so an index is the file's line number minus 2 (`line_of`). The viewer's rows,
`check --json`'s `event`, replay's diff and the reading notes all use it.

`read_line(line, index)` is the one decoder of a line; anything it cannot read becomes a `BadLine`
(and a `Problem` in `Transcript.problems`: its line number, byte offset and reason), never an error.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

import orjson

from mcptape.errors import TranscriptError
from mcptape.transcript.events import (
    EXCHANGES_KEPT,
    FORMAT_VERSION,
    MAX_T,
    Event,
    Header,
    forget_exchanges,
)
from mcptape.version import __version__

_BUFFER = 1 << 20
# A header line is a few hundred bytes (its longest part is the command line): reading at most this
# much keeps a large file without newlines (a binary, /dev/zero) from being read whole.
MAX_HEADER = 16 << 20
_HEADER_START = b'{"mcptape":'  # how the writer begins every header
_GZIP = b"\x1f\x8b"

FIRST_LINE = 2
"""The file line number of event 0 (line 1 is the header)."""
BLANK = "blank line"

Payload = str | bytes | dict[str, Any]
Record = tuple[float, str, Payload, int]
"""One event as the analysis takes it: `(t, channel, text | bytes | fields, event index)`."""


def line_of(index: int) -> int:
    """The file line number (1-based) of the event at `index`."""
    return index + FIRST_LINE


def truncated_last_line(size: int) -> str:
    """The reason given for a last line cut short (a recorder killed mid-write)."""
    return f"truncated last line ({size} bytes)"


class BadLine:
    """A line that is not a readable event (kept as it is: noise is data). `index` is its event
    index, like an event's: unreadable lines are counted too."""

    __slots__ = ("index", "raw", "reason")

    def __init__(self, index: int, raw: bytes, reason: str) -> None:
        self.index = index
        self.raw = raw
        self.reason = reason

    @property
    def line(self) -> int:
        return line_of(self.index)

    def __repr__(self) -> str:
        return f"BadLine({self.index}, {self.reason!r})"


@dataclass
class Problem:
    """Something in the file that is not a well-formed event (reported, never fatal)."""

    line: int
    offset: int
    reason: str


class Batch(NamedTuple):
    """Records read in one go by `Transcript.batches`."""

    records: list[Record]
    size: int  # bytes the byte records carry
    offset: int  # the file offset reached


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
    try:
        return Header.from_record(record)
    except ValueError as exc:
        raise TranscriptError(
            f"{name}: line 1 is not a readable header ({exc})",
            hint="the file was edited or damaged: record it again",
        ) from None


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
    except ValueError as exc:
        raise ValueError(f"not an event ({exc})") from None


def read_line(line: bytes, index: int) -> Event | BadLine:
    """The one decoder of a transcript line: its event, or a `BadLine` saying why it is not one
    (a line without its newline can only be the last one, cut short)."""
    if not line.strip():
        return BadLine(index, line, BLANK)
    try:
        return parse_event(line, index)
    except ValueError as exc:
        reason = str(exc) if line.endswith(b"\n") else truncated_last_line(len(line))
        return BadLine(index, line, reason)


@dataclass
class Transcript:
    """An open transcript: its header now, its lines on demand (`records`, `events`, `batches`).

    Each pass fills `problems` afresh: the unreadable lines met (a blank line is counted, not
    reported)."""

    path: Path
    header: Header
    header_size: int
    problems: list[Problem] = field(default_factory=list)
    # when set, `batches` notes in it the exchange of each in/out line of an HTTP transcript, by its
    # index (check's analyzer takes them out as it pairs them: check/http/sessionkeys.py)
    exchanges: dict[int, int] | None = None

    @property
    def truncated(self) -> bool:
        """True when the last line was cut short (known once a pass has read to the end)."""
        return any(p.reason.startswith("truncated") for p in self.problems)

    def records(self) -> Iterator[Event | BadLine]:
        """Every line after the header in file order, numbered: an `Event`, or a `BadLine` (raises
        TranscriptError when the file cannot be read on, e.g. EIO after the header)."""
        self.problems = []
        problems = self.problems
        try:
            with self._lines() as fh:
                offset = self.header_size
                for index, line in enumerate(fh):
                    item = read_line(line, index)
                    if type(item) is BadLine and item.reason != BLANK:
                        problems.append(Problem(line_of(index), offset, item.reason))
                    offset += len(line)
                    yield item
        except OSError as exc:
            raise unreadable(self.path, exc) from None

    def events(self) -> Iterator[Event]:
        """The readable events in file order (each with its event index)."""
        for item in self.records():
            if type(item) is Event:
                yield item

    def batches(self, size: int = 2048, max_bytes: int = 64 << 20) -> Iterator[Batch]:
        """The events as analysis records, a batch every `size` lines or `max_bytes` bytes.

        The same events and indexes as `records()` (a property test holds them together), with
        one difference the analysis wants: within a stream (`Event.stream`: a channel, or an HTTP
        exchange), time never goes back (a record timed before the previous record of its stream is
        given that record's time, so no clock glitch can reorder a stream). A well-formed text
        record costs one `orjson.loads` and a tuple.

        Over 60 lines on purpose: it is `check`'s read loop (bench/bench_check.py), its fast path,
        general path and batch cut share their locals, and a helper would cost a call per record.
        """
        self.problems = []
        problems = self.problems
        loads = orjson.loads
        decode_error = orjson.JSONDecodeError
        max_t = MAX_T
        # The last time of each stream seen so far (`Event.stream`: a channel's name, an HTTP
        # exchange's number). A channel not seen yet raises KeyError below and its first record
        # takes the general path (which records it); a record with an exchange never takes the
        # fast path (its stream is its exchange, and a raw HTTP record keeps its `x` in its payload).
        last_t: dict[str | int, float] = {}
        forget_at = EXCHANGES_KEPT
        exchanges = self.exchanges
        records: list[Record] = []
        append = records.append
        carried = 0
        stop = size - 1  # the index that ends this batch (cheaper than len(records) on every line)
        try:
            with self._lines() as fh:
                # Line numbers and byte offsets matter only for a problem line: `enumerate` and
                # `tell` cost nothing on the good ones.
                for index, line in enumerate(fh):
                    try:
                        record = loads(line)
                        t = record["t"]
                        ch = record["ch"]
                        text = record["data"]
                        if (
                            type(t) is float
                            and type(text) is str
                            and last_t[ch] <= t <= max_t
                            and "x" not in record
                        ):
                            last_t[ch] = t
                            append((t, ch, text, index))
                            carried += len(text)
                            if index >= stop or carried >= max_bytes:
                                yield Batch(records, carried, fh.tell())
                                records = []
                                append = records.append
                                carried = 0
                                stop = index + size
                            continue
                    except (decode_error, KeyError, TypeError):
                        pass
                    item = read_line(line, index)
                    if type(item) is BadLine:
                        if item.reason != BLANK:
                            problems.append(Problem(line_of(index), fh.tell() - len(line), item.reason))
                        continue
                    assert type(item) is Event
                    t, ch, payload = item.t, item.ch, item.payload
                    key = item.stream  # an HTTP exchange's records keep their exchange's order
                    last = last_t.get(key)
                    if last is not None and t < last:
                        t = last
                    else:
                        last_t[key] = t
                        if type(key) is int and len(last_t) > forget_at:
                            forget_at = forget_exchanges(last_t, t)
                    append((t, ch, payload, index))
                    if type(key) is int and exchanges is not None and type(payload) is not dict:
                        exchanges[index] = key  # an in/out line of an HTTP exchange (check's pairing)
                    if type(payload) is not dict:
                        carried += len(payload)
                    elif "data" in payload:
                        carried += len(payload["data"])
                    if index >= stop or carried >= max_bytes:
                        yield Batch(records, carried, fh.tell())
                        records = []
                        append = records.append
                        carried = 0
                        stop = index + size
                if records:
                    yield Batch(records, carried, fh.tell())
        except OSError as exc:
            raise unreadable(self.path, exc) from None

    def _lines(self) -> IO[bytes]:
        """The file, positioned after the header."""
        fh = open_file(self.path)
        fh.seek(self.header_size)
        return fh


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


SNIFF = 1 << 16


def claims_header(path: str | os.PathLike[str]) -> bool:
    """True when line 1 of the regular file `path` says it is a transcript header (a JSON object
    with an `mcptape` key), readable or not: a file that claims it and then fails to open should be
    shown with its reason, not skipped (the pytest plugin collects it). Reads at most 64 KiB."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as fh:
            first = fh.readline(SNIFF)
    except OSError:
        return False
    if b'"mcptape"' not in first:
        return False
    try:
        record = orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    return isinstance(record, dict) and "mcptape" in record


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
