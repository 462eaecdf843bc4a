"""A server under recording, driven by code instead of a client process (replay and probe).

    with Harness(command, path, http_sink=True) as h:
        h.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\\n')
        frame = h.next_frame(timeout=5)       # the server's next stdout line, or None
    h.status                                  # how the server ended

Everything goes through the same `Recording` as `mcptape record` (same pumps, same transcript),
with the side-effect listeners on: the executor tap always, the loopback HTTP sink by default
(it never opens an outbound connection), command stubs on request. Stdout lines are framed by
the check core's framer, so replay and probe see exactly the frames `check` would.

Memory stays bounded whatever the server writes: at most `QUEUED_FRAMES` frames wait for the
driver (beyond that the reader stops reading, and a flooding server blocks on its stdout as it
would with a slow client); once `stop()` begins nobody reads frames any more, so the reader only
drains the pipe (every byte is still recorded by the session's own pump).
"""

from __future__ import annotations

import os
import queue
import signal
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

from mcptape.check.framing import ChannelFramer
from mcptape.check.model import Frame
from mcptape.recorder.lifeline import watch
from mcptape.recorder.outbound.sideeffects import HttpFactory, SideEffects, side_effects
from mcptape.recorder.session import ExitStatus, Recording
from mcptape.recorder.spawn import enlarge_pipe
from mcptape.transcript.files import open_output
from mcptape.transcript.writer import TranscriptWriter, new_header

_EOF = object()
QUEUED_FRAMES = 4096  # stdout frames the driver has not read yet, at most
ABORT_TIMEOUT = 0.2  # seconds per step of the shutdown order once the user gave up (Ctrl-C)


class ServerGone(Exception):
    """The server stopped reading its stdin (it exited or closed it)."""


class Harness:
    """Start `command` under recording to `path`; send it bytes; read its stdout frames."""

    def __init__(
        self,
        command: Sequence[str],
        path: str | os.PathLike[str],
        *,
        http_sink: bool = True,
        stubs: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        shutdown_timeout: float = 2.0,
        overwrite: bool = True,
        header: Mapping[str, object] | None = None,
        http: HttpFactory | None = None,
    ) -> None:
        self.command = list(command)
        self.path = Path(path)
        self.http_sink = http_sink
        self.http = http  # another HTTP listener in the sink's place (a replayed cassette)
        self.stubs = list(stubs)
        self.env = dict(os.environ if env is None else env)
        self.cwd = cwd
        self.shutdown_timeout = shutdown_timeout
        self.overwrite = overwrite
        self.header_extra = dict(header or {})
        self.status: ExitStatus | None = None
        self.frames: queue.Queue[Frame | object] = queue.Queue()  # bounded by _offer
        self._room = threading.Condition()  # notified when the driver takes a frame or starts a send
        self._senders = 0  # send() calls in progress: a driver inside send() cannot read frames
        self.eof = threading.Event()
        self._at_eof = False
        self._discard = threading.Event()  # set by stop(): frames are no longer wanted
        self._writer: TranscriptWriter | None = None
        self._effects: SideEffects | None = None
        self._session: Recording | None = None
        self._stdin_w = -1
        self._reader: threading.Thread | None = None
        self._reaper: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> Harness:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is KeyboardInterrupt:
            self.abort()
        self.stop()

    def abort(self) -> None:
        """Give up at once (the user pressed Ctrl-C), from any thread: a driver waiting in
        `next_frame` gets None as at EOF, and the server gets the shutdown order with short steps
        (stdin closed, SIGTERM after ABORT_TIMEOUT, SIGKILL after as much again). `stop()` ends it."""
        session = self._session
        self.shutdown_timeout = min(self.shutdown_timeout, ABORT_TIMEOUT)
        if session is not None:
            session.shutdown_timeout = min(session.shutdown_timeout, ABORT_TIMEOUT)
        self._at_eof = True
        self._discard.set()
        self._drop_frames()
        self.frames.put(_EOF)  # wakes a driver blocked in next_frame
        self.close_stdin()
        if session is not None:
            # A server that stopped reading keeps the pump feeding it stuck in a write (and a driver
            # stuck in send()): it never sees our EOF, so nothing would end it before stop(), which
            # that driver reaches only at its own timeout. End it now, as stop() would.
            end = threading.Thread(target=self._end_aborted, args=(session,), name="mcptape-abort")
            end.daemon = True
            end.start()

    def _end_aborted(self, session: Recording) -> None:
        if not session.stdin_closed.wait(ABORT_TIMEOUT):
            self._unstick(session)

    def start(self) -> None:
        """Open the transcript, start the listeners and the server (raises SpawnError/OutputError)."""
        t0 = time.monotonic()
        self._writer = writer = TranscriptWriter(
            open_output(self.path, overwrite=self.overwrite), clock_start=t0
        )
        writer.header(new_header(self.command, self.cwd or os.getcwd(), **self.header_extra))
        try:
            self._effects = side_effects(writer, http_sink=self.http_sink, stubs=self.stubs, http=self.http)
            env = self._effects.child_env(self.env)
            in_r, self._stdin_w = os.pipe()
            out_r, out_w = os.pipe()
            enlarge_pipe(self._stdin_w)
            enlarge_pipe(out_w)
            self._session = Recording(
                self.command,
                writer,
                env=env,
                cwd=self.cwd,
                client_in=in_r,
                client_out=out_w,
                client_err=None,
                shutdown_timeout=self.shutdown_timeout,
            )
            try:
                self._session.start()  # its pumps close in_r and out_w when they end
            except BaseException:  # the server did not start (SpawnError): no pump owns the pipes
                for fd in (in_r, out_r, out_w):
                    os.close(fd)
                self.close_stdin()
                raise
            # A replay, probe or pytest run that dies (even by SIGKILL) must not leave the server
            # running: the same lifeline as `mcptape record` (the reaper below disarms it).
            child = self._session.child
            assert child is not None
            self._session.lifeline = watch(child.pid, self.shutdown_timeout)
            self._reader = threading.Thread(
                target=self._read, args=(out_r,), name="mcptape-harness", daemon=True
            )
            self._reader.start()
            self._reaper = threading.Thread(target=self._reap, name="mcptape-reaper", daemon=True)
            self._reaper.start()
        except BaseException:
            self._cleanup()
            raise

    def stop(self) -> ExitStatus | None:
        """Close the server's stdin, let it exit (wait, SIGTERM, SIGKILL), close the transcript."""
        self._discard.set()
        self._drop_frames()  # a reader blocked on a full queue goes back to draining the pipe
        if self._reaper is not None:
            self.close_stdin()
            session = self._session
            if session is not None and not session.stdin_closed.wait(self.shutdown_timeout):
                self._unstick(session)
            self._reaper.join()
        self._cleanup()
        return self.status

    def _unstick(self, session: Recording) -> None:
        """A server that stopped reading its stdin: the pump feeding it is stuck in a write, never
        sees our EOF, so the shutdown clock never starts. End the server the same way instead."""
        if session.exited.is_set():
            return
        session.note(f"server not reading its stdin {self.shutdown_timeout:g}s after it was closed: SIGTERM")
        session.send_signal(signal.SIGTERM)
        if session.exited.wait(self.shutdown_timeout):
            return
        session.note("server ignored SIGTERM: SIGKILL")
        session.send_signal(signal.SIGKILL)

    def _drop_frames(self) -> None:
        try:
            while True:
                self.frames.get_nowait()
        except queue.Empty:
            pass

    def _cleanup(self) -> None:
        if self._effects is not None:
            self._effects.stop()
            self._effects = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    # -- driving ---------------------------------------------------------------------------
    def send(self, data: bytes) -> None:
        """Write `data` to the server's stdin, recorded on `in` like a client's bytes."""
        view = memoryview(data)
        with self._room:
            self._senders += 1
            self._room.notify_all()
        try:
            while view:
                view = view[os.write(self._stdin_w, view) :]
        except (BrokenPipeError, OSError) as exc:
            raise ServerGone(str(exc)) from None
        finally:
            with self._room:
                self._senders -= 1

    def close_stdin(self) -> None:
        """Close the server's stdin (the client side), as a client ends a session."""
        fd, self._stdin_w = self._stdin_w, -1  # forget it first: a `send` in another thread gets EBADF
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass

    def next_frame(self, timeout: float) -> Frame | None:
        """The server's next stdout line (incomplete at EOF), or None after `timeout` or at EOF."""
        if self._at_eof or self._discard.is_set():
            return None
        try:
            item = self.frames.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        with self._room:
            self._room.notify_all()
        if item is _EOF:
            self._at_eof = True  # stay at EOF for later calls
            return None
        assert isinstance(item, Frame)
        return item

    @property
    def at_eof(self) -> bool:
        """True once `next_frame` has handed out the last frame of the server's stdout (unlike
        `eof`, which is set when the pipe ends, possibly before its last frames were read)."""
        return self._at_eof

    @property
    def exited(self) -> bool:
        return self._session is not None and self._session.exited.is_set()

    def wait_exit(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the server to exit on its own."""
        return self._session is not None and self._session.exited.wait(timeout)

    @property
    def session(self) -> Recording:
        assert self._session is not None
        return self._session

    def note(self, message: str) -> None:
        """Record a note in the transcript (what the driver did, e.g. a timeout)."""
        self.session.note(message)

    def _reap(self) -> None:
        assert self._session is not None
        self.status = self._session.wait()

    def _read(self, fd: int) -> None:
        framer = ChannelFramer("out")
        assert self._writer is not None
        now = self._writer.now
        index = 0
        discard = self._discard
        try:
            while chunk := os.read(fd, 1 << 16):
                if discard.is_set():
                    continue  # nobody reads frames any more: drain, frame nothing
                for frame in framer.feed(chunk, now(), index):
                    self._offer(frame)
                index += 1
            last = framer.close()
            if last is not None:
                self._offer(last)
        finally:
            os.close(fd)
            self.eof.set()
            self._offer(_EOF)

    def _offer(self, item: Frame | object) -> None:
        """Queue `item` for the driver, waiting while the queue is full, unless stop() began."""
        with self._room:
            while not self._discard.is_set():
                # Past the bound only while the driver is inside send(): it cannot read then, and a
                # server blocked on its stdout stops reading its stdin: both would wait for ever.
                if self.frames.qsize() < QUEUED_FRAMES or self._senders:
                    self.frames.put(item)
                    return
                self._room.wait(0.05)
