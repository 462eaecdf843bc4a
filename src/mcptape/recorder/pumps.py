"""Byte pumps: read a fd, forward the bytes first, then record them. One thread per channel.

Reads go into one reused 1 MiB buffer with `os.readv` (an `os.read` of 128 KiB or more
allocates and frees its buffer on every call); the timestamp is taken right after the read.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

TYPE_CHECKING = False  # typing stays unimported on the record path
if TYPE_CHECKING:
    from mcptape.recorder.sinks import Sink

READ_SIZE = 1 << 20


def write_all(fd: int, data: memoryview) -> None:
    """Write every byte of `data` to `fd` (a pipe may take a large write in several parts).

    A non-blocking `fd` (a client may hand mcptape an O_NONBLOCK stdout) is waited on when full.
    """
    while data:
        try:
            written = os.write(fd, data)
        except BlockingIOError:
            wait_ready(fd, write=True)
            continue
        data = data[written:]


def wait_ready(fd: int, *, write: bool) -> None:
    """Block until a non-blocking `fd` can be read (or written): EAGAIN is neither EOF nor an error."""
    import select

    poller = select.poll()
    poller.register(fd, select.POLLOUT if write else select.POLLIN)
    poller.poll()


class Pump(threading.Thread):
    """Copies `src` to `dst` (if any) and records every read on channel `ch`.

    When `dst` stops accepting bytes (the reader went away), the pump keeps draining and
    recording `src`, so the writer never blocks, and calls `on_dst_closed` once.
    """

    def __init__(
        self,
        ch: str,
        src: int,
        dst: int | None,
        sink: Sink,
        *,
        on_eof: Callable[[float], None] | None = None,
        on_dst_closed: Callable[[str, OSError], None] | None = None,
        on_read_error: Callable[[str, OSError], None] | None = None,
        close_src: bool = False,
        close_dst: bool = False,
        first: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(name=f"mcptape-pump-{ch}", daemon=True)
        self.ch = ch
        self.src = src
        self.dst = dst
        self.sink = sink
        self.on_eof = on_eof
        self.on_dst_closed = on_dst_closed
        self.on_read_error = on_read_error  # a failed read ends the stream, and is said, not hidden
        self.bytes = 0
        self.busy = False  # holds bytes it read and has not finished forwarding and recording
        self.close_src = close_src  # close src / dst when done (pipes a harness handed over)
        self.close_dst = close_dst
        self.first = first  # called right after each read, before its time is taken (`TapPump.drain`)

    def run(self) -> None:
        buf = bytearray(READ_SIZE)
        view = memoryview(buf)
        bufs = [buf]
        src, ch, sink = self.src, self.ch, self.sink
        readv, now = os.readv, sink.now
        dst_fd = self.dst
        first = self.first
        while True:
            try:
                n = readv(src, bufs)
            except BlockingIOError:  # an O_NONBLOCK stdin with nothing to read yet
                wait_ready(src, write=False)
                continue
            except OSError as exc:
                if self.on_read_error is not None:
                    self.on_read_error(ch, exc)
                n = 0
            if first is not None:
                first()
            t = now()
            if n == 0:
                break
            self.bytes += n
            self.busy = True
            if self.dst is not None:
                try:
                    write_all(self.dst, view[:n])
                except OSError as exc:
                    dst, self.dst = self.dst, None
                    if self.on_dst_closed is not None:
                        self.on_dst_closed(self.ch, exc)
                    del dst
            sink.chunk(t, ch, buf[:n])
            self.busy = False
        for fd, close in ((self.src, self.close_src), (dst_fd, self.close_dst)):
            if close and fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if self.on_eof is not None:
            self.on_eof(now())


class TapPump(Pump):
    """The executor tap's pump. A server writes a tool's tap lines before the answer, but on another
    pipe, read by another thread: the stdout pump calls `drain` right after each read and before it
    takes that read's time, so every tap byte written before the answer is recorded before it, with
    an earlier time, whichever thread the scheduler runs first. Reads are non-blocking and made
    under one lock, so the two threads never read the pipe at once, nor after it is closed."""

    def __init__(
        self,
        ch: str,
        src: int,
        sink: Sink,
        *,
        on_eof: Callable[[float], None] | None = None,
        on_read_error: Callable[[str, OSError], None] | None = None,
        close_src: bool = False,
    ) -> None:
        super().__init__(ch, src, None, sink, on_eof=on_eof, on_read_error=on_read_error, close_src=close_src)
        os.set_blocking(src, False)  # the read end only: the server's end keeps its own mode
        self._lock = threading.Lock()
        self._buf = bytearray(READ_SIZE)
        self._done = False  # the pipe reached its end (and may be closed): nobody reads it again

    def _read(self) -> int:
        """One read recorded: the bytes read (0 at the end of the pipe, -1 when nothing is waiting)."""
        try:
            n = os.readv(self.src, [self._buf])
        except BlockingIOError:
            return -1
        except OSError as exc:
            self._done = True  # said once: nobody reads it again
            if self.on_read_error is not None:
                self.on_read_error(self.ch, exc)
            return 0
        if n:
            self.bytes += n
            self.sink.chunk(self.sink.now(), self.ch, self._buf[:n])
        return n

    def drain(self) -> None:
        """Record what the server already wrote to the tap (from another pump's thread): one read,
        which takes all that waits (the pipe holds less than the read's buffer), so a server that
        never stops tapping cannot hold the other pump here; it runs before that pump forwards
        its read, because that read's time must come after the tap's and is taken first."""
        with self._lock:
            if not self._done:
                self._read()

    def run(self) -> None:
        while True:
            wait_ready(self.src, write=False)
            with self._lock:
                n = self._read()
                if n == 0:
                    self._done = True
                    if self.close_src:
                        try:
                            os.close(self.src)
                        except OSError:
                            pass
                    break
        if self.on_eof is not None:
            self.on_eof(self.sink.now())
