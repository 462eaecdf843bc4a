"""Write a transcript: append-only, mode 0600, one `os.write` per batch of records.

Each record reaches the kernel at once (no user-space buffer), so a recorder killed with SIGKILL
leaves every event written so far readable, and `tail -f` shows a recording in progress.
"""

from __future__ import annotations

import os
import threading
import time

from mcptape.errors import OutputError
from mcptape.transcript.events import FORMAT_VERSION, Event, Header, encode_bytes
from mcptape.transcript.files import open_output
from mcptape.version import __version__

TYPE_CHECKING = False  # typing, pathlib and datetime stay unimported on the record path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any


def new_header(command: Sequence[str], cwd: str, **extra: Any) -> Header:
    """The header of a recording started now."""
    now = time.time()
    started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1e6):06d}Z"
    return Header(
        version=FORMAT_VERSION,
        started=started,
        command=list(command),
        cwd=cwd,
        recorder={"name": "mcptape", "version": __version__},
        extra=extra,
    )


_orjson: Any = None


def _codec() -> Any:
    """orjson, imported on the first record: it pulls in dataclasses and costs ~17 ms, which
    `mcptape record` spends after its pumps started forwarding, not before."""
    global _orjson
    if _orjson is None:
        import orjson

        _orjson = orjson
    return _orjson


def encode_chunk(t: float, ch: str, chunk: bytes | bytearray) -> bytes:
    """The records for one read: the chunk split after each newline, one JSON line per piece.

    Two encoders give the same records: a chunk of many short lines (a newline in its first and in
    its last 2 KiB) is escaped in one orjson call and split afterwards (per-line calls cost ~1 µs
    a line); a chunk of long lines, or one that is not valid UTF-8 as a whole, is encoded line by
    line (the batch's replace and split cost more than they save there).
    """
    t = round(t, 6)
    short = len(chunk) >= _SHORT_LINE * 4 and 0 <= chunk.find(b"\n", 0, _SHORT_LINE) < chunk.find(
        b"\n", -_SHORT_LINE
    )
    if short:
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            many = _encode_many(t, ch, text)
            if many is not None:
                return many
    out = bytearray()
    start = 0
    n = len(chunk)
    dumps = _codec().dumps
    while start < n:
        nl = chunk.find(b"\n", start)
        end = n if nl < 0 else nl + 1
        piece = chunk[start:end]
        try:
            out += dumps({"t": t, "ch": ch, "data": piece.decode("utf-8")})
        except UnicodeDecodeError:
            out += dumps({"t": t, "ch": ch, **encode_bytes(piece)})
        out += b"\n"
        start = end
    return bytes(out)


_SHORT_LINE = 2048  # a chunk whose first and last newlines fall in its first and last 2 KiB


# Markers for the one-call encoder, tried in order: a printable one that JSON leaves as it is (the
# cheapest: orjson copies it, and the split is on one byte), else U+001F, which JSON escapes.
_PRINTABLE_MARKS = ("`", "~", "^", "|")


def _encode_many(t: float, ch: str, text: str, pre: bytes | None = None) -> bytes | None:
    """Escape all lines at once: put a marker after each newline, dump the whole text, split the
    JSON string at the markers. A marker absent from `text` can only come from the newlines, so
    the split is exact; None when every candidate marker occurs in `text` (encode line by line).

    With a printable marker, each piece keeps its escaped newline; with U+001F the split token is
    the escaped pair `\\n\\u001f` (a literal `\\u001f` in the text is itself escaped, so it
    cannot be mistaken for it), and the newline escape is put back when joining."""
    dumps = _codec().dumps
    if pre is None:
        pre = b'{"t":%b,"ch":"%b","data":"' % (repr(t).encode(), ch.encode())
    for mark in _PRINTABLE_MARKS:
        if mark not in text:
            pieces = dumps(text.replace("\n", "\n" + mark))[1:-1].split(mark.encode())
            end = b'"}\n'
            break
    else:
        if "\x1f" in text:
            return None
        pieces = dumps(text.replace("\n", "\n\x1f"))[1:-1].split(b"\\n\\u001f")
        end = b'\\n"}\n'
    last = pieces.pop()
    out = pre + (end + pre).join(pieces) + end if pieces else b""
    if last:
        out += pre + last + b'"}\n'
    return out


def encode_lines(t: float, ch: str, lines: bytes, **fields: Any) -> bytes:
    """The records of `lines` (whole lines, each ending in its one newline), one per line, each with
    `fields` before its `data` (as `encode_fields(t, ch, **fields, data=line)` writes them), escaped
    in one orjson call when they are valid UTF-8 (an HTTP read's SSE messages: one call per read)."""
    t = round(t, 6)
    try:
        text = lines.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None:
        dumps = _codec().dumps
        head = dumps({"t": t, "ch": ch, **fields})[:-1]
        many = _encode_many(t, ch, text, head + b',"data":"')
        if many is not None:
            return many
    out = bytearray()
    for line in lines[:-1].split(b"\n") if lines else ():
        out += encode_fields(t, ch, **fields, **encode_bytes(line + b"\n"))
    return bytes(out)


def encode_fields(t: float, ch: str, **fields: Any) -> bytes:
    """The record of a non-byte event (`eof`, `exit`, `note`)."""
    record = {"t": round(t, 6), "ch": ch, **fields}
    try:
        data: bytes = _codec().dumps(record)
    except TypeError:  # nested past orjson's 254 levels, or a lone surrogate (jsonsafe: any depth)
        from mcptape.jsonsafe import dumps

        data = dumps(record, not_utf8=_escape_surrogates).encode("utf-8")
    return data + b"\n"


def _escape_surrogates(value: Any) -> Any:
    """Strings with lone surrogates (undecodable argv/cwd bytes) with those bytes as `\\xNN`."""
    if isinstance(value, str):
        try:
            raw = value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raw = value.encode("utf-8", "surrogatepass")
        return raw.decode("utf-8", "backslashreplace")
    if isinstance(value, list | tuple):
        return [_escape_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_escape_surrogates(k): _escape_surrogates(v) for k, v in value.items()}
    return value


_IOV_MAX = 1024  # the parts of one os.writev (Linux and the BSDs take 1024)


class TranscriptWriter:
    """Appends records to an open fd; safe to share between threads (one write per call)."""

    def __init__(self, fd: int, *, clock_start: float | None = None) -> None:
        self.fd = fd
        self.t0 = time.monotonic() if clock_start is None else clock_start
        self.failed: OSError | None = None
        self._lock = threading.Lock()  # a write never meets a close: the fd number may be reused

    def now(self) -> float:
        return time.monotonic() - self.t0

    def write_raw(self, records: bytes) -> None:
        """Append already-encoded records; a disk failure is remembered, never raised into a pump."""
        with self._lock:
            if self.failed is not None or self.fd < 0:
                return  # failed, or closed: a pump outliving its session records nothing
            try:
                view = memoryview(records)
                while view:
                    written = os.write(self.fd, view)
                    view = view[written:]
            except OSError as exc:
                self.failed = exc

    def write_parts(self, parts: list[bytes], size: int) -> None:
        """`write_raw(b"".join(parts))` without the join (`size`: their bytes): one `os.writev`. A
        subclass that sees what is written (its own `write_raw`), or more than IOV_MAX parts, gets
        them joined."""
        if type(self).write_raw is not TranscriptWriter.write_raw or len(parts) > _IOV_MAX:
            self.write_raw(b"".join(parts))
            return
        with self._lock:
            if self.failed is not None or self.fd < 0:
                return
            try:
                written = os.writev(self.fd, parts)
                if written < size:  # a short write (rare): the rest, one write at a time
                    view = memoryview(b"".join(parts))[written:]
                    while view:
                        view = view[os.write(self.fd, view) :]
            except OSError as exc:
                self.failed = exc

    def header(self, header: Header) -> None:
        import json  # the header goes out before the pumps start: stdlib json costs ~1 ms, orjson ~17

        record = header.to_record()
        try:
            text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
        except RecursionError:  # a field nested deeper than the stdlib encoder goes (jsonsafe: any depth)
            from mcptape.jsonsafe import dumps

            text = dumps(record, default=str, not_utf8=_escape_surrogates)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # argv or cwd bytes that are not UTF-8: readers reject surrogates
            text = json.dumps(
                _escape_surrogates(record), ensure_ascii=False, separators=(",", ":"), default=str
            )
            data = text.encode("utf-8")
        self.write_raw(data + b"\n")

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        self.write_raw(encode_chunk(t, ch, data))

    def fields(self, t: float, ch: str, **fields: Any) -> None:
        self.write_raw(encode_fields(t, ch, **fields))

    def lines(self, t: float, ch: str, data: bytes, **fields: Any) -> None:
        """One record per line of `data` (whole lines), each with `fields`: one write."""
        self.write_raw(encode_lines(t, ch, data, **fields))

    def event(self, event: Event) -> None:
        if event.text is not None or event.raw is not None:
            if event.fields:  # bytes with fields of their own (an HTTP exchange's number): one record
                self.write_raw(encode_fields(event.t, event.ch, **event.fields, **encode_bytes(event.data)))
                return
            self.chunk(event.t, event.ch, event.data)
        else:
            self.fields(event.t, event.ch, **(event.fields or {}))

    def close(self) -> None:
        with self._lock:
            fd, self.fd = self.fd, -1
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass


def write_transcript(path: Path, header: Header, events: Sequence[Event], *, overwrite: bool = False) -> None:
    """Write a whole transcript at once (used by tests, replay --update and redaction)."""
    writer = TranscriptWriter(open_output(path, overwrite=overwrite), clock_start=0.0)
    try:
        writer.header(header)
        for event in events:
            writer.event(event)
    finally:
        writer.close()
    if writer.failed is not None:
        raise OutputError(f"cannot write {path}: {writer.failed.strerror or writer.failed}")
