"""A recording session: spawn the server, pump its three streams and its tap, reap it.

Used by `mcptape record` (client = this process's stdio) and by replay and probe (client = pipes
they drive). Shutdown follows the MCP stdio order: when the client closes stdin, close the
server's stdin, wait for it to exit, then SIGTERM, then SIGKILL.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable

from mcptape.recorder.pumps import Pump, TapPump
from mcptape.recorder.spawn import Child, spawn

TYPE_CHECKING = False  # typing stays unimported on the record path
if TYPE_CHECKING:
    from mcptape.recorder.lifeline import Lifeline
    from mcptape.recorder.sinks import Target

DRAIN_AFTER_EXIT = 2.0  # seconds to wait for grandchildren still holding stdout/stderr


class ExitStatus:
    """How the server ended: `code` when it exited, `signal` when a signal killed it.

    A plain value class (no dataclasses: that import costs ~10 ms before the pumps start)."""

    __slots__ = ("code", "signal")

    def __init__(self, code: int | None, signal: int | None) -> None:
        self.code = code
        self.signal = signal

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExitStatus):
            return NotImplemented
        return (self.code, self.signal) == (other.code, other.signal)

    def __hash__(self) -> int:
        return hash((self.code, self.signal))

    def __repr__(self) -> str:
        return f"ExitStatus(code={self.code!r}, signal={self.signal!r})"

    @property
    def shell_code(self) -> int:
        """The exit code a shell would report: the code, or 128+N for signal N."""
        if self.signal is not None:
            return 128 + self.signal
        return self.code if self.code is not None else 1

    @classmethod
    def from_wait(cls, status: int) -> ExitStatus:
        if os.WIFSIGNALED(status):
            return cls(code=None, signal=os.WTERMSIG(status))
        return cls(code=os.waitstatus_to_exitcode(status), signal=None)


class Recording:
    """One server process under recording; `start()` then `wait()`."""

    def __init__(
        self,
        command: list[str],
        writer: Target,
        *,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        client_in: int | None = 0,
        client_out: int | None = 1,
        client_err: int | None = 2,
        shutdown_timeout: float = 5.0,
        child: Child | None = None,
        lifeline: Lifeline | None = None,
    ) -> None:
        self.command = command
        self.writer = writer
        self.env = dict(os.environ if env is None else env)
        self.cwd = cwd
        self.client_in = client_in
        self.client_out = client_out
        self.client_err = client_err
        self.shutdown_timeout = shutdown_timeout
        self.child = child
        self.lifeline = lifeline  # its watchdog is disarmed once the server is reaped
        self.exited = threading.Event()
        self.stdin_closed = threading.Event()
        self.status: ExitStatus | None = None
        self._pumps: list[Pump] = []
        self._stop_draining = threading.Event()  # a signal was sent: no waiting past the deadline
        self._notes_lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the server (unless already spawned) and start one pump per channel."""
        if self.child is None:
            self.child = spawn(self.command, self.env, self.cwd)
        child = self.child
        w = self.writer
        # Pipes handed over by a harness are closed when their pump ends (never our own stdio).
        own = self.client_in not in (0, None) or self.client_out not in (1, None)
        tap = TapPump(
            "exec", child.tap, w, on_eof=self._eof("exec"), on_read_error=self._read_failed, close_src=True
        )
        outs = [
            Pump(
                "out",
                child.stdout,
                self.client_out,
                w,
                on_eof=self._out_eof,
                on_dst_closed=self._lost,
                on_read_error=self._read_failed,
                close_src=True,
                close_dst=own and self.client_out is not None,
                first=tap.drain,  # a tool's tap lines are recorded before its answer
            ),
            Pump(
                "err",
                child.stderr,
                self.client_err,
                w,
                on_eof=self._eof("err"),
                on_dst_closed=self._lost,
                on_read_error=self._read_failed,
                close_src=True,
            ),
            tap,
        ]
        # Each pump closes the server-side fd it reads once it is done with it: `wait` must not
        # (a pump still blocked on a grandchild's pipe would read whatever reuses the number).
        self._pumps = outs
        for pump in outs:
            pump.start()
        if self.client_in is not None:
            pin = Pump(
                "in",
                self.client_in,
                child.stdin,
                w,
                on_eof=self._client_eof,
                on_dst_closed=self._lost,
                on_read_error=self._read_failed,
                close_src=own,
            )
            pin.start()
        else:
            self.close_stdin()

    def wait(self) -> ExitStatus:
        """Reap the server, drain what it wrote, record `exit`, and return its status."""
        assert self.child is not None
        while True:
            try:
                _, status = os.waitpid(self.child.pid, 0)
                break
            except ChildProcessError:
                status = 0
                break
        self.status = ExitStatus.from_wait(status)
        self.exited.set()
        if self.lifeline is not None:
            self.lifeline.disarm()
        deadline = time.monotonic() + DRAIN_AFTER_EXIT  # one deadline, not one per channel
        for pump in self._pumps:
            pump.join(max(0.0, deadline - time.monotonic()))
            # Past the deadline, a pump still handing the server's bytes to a slow client is waited
            # for (a direct pipe would keep them); one idle in a read (a grandchild holds the pipe)
            # is not. Once a signal was sent (to end the session), the deadline holds.
            while _forwarding(pump) and not self._stop_draining.wait(0.05):
                pass
        self.writer.fields(self.writer.now(), "exit", code=self.status.code, signal=self.status.signal)
        return self.status

    def send_signal(self, signum: int) -> None:
        """Deliver `signum` to the server's process group (its own children included)."""
        if self.child is None:
            return
        self._stop_draining.set()  # the session is being ended: the drain keeps its deadline
        if self.exited.is_set():
            return
        pid = self.child.pid
        try:
            os.killpg(pid, signum)
        except OSError:
            pass
        else:
            try:
                if os.getpgid(pid) == pid:
                    return  # the server still leads its group: the group's signal reached it
            except OSError:
                return  # reaped meanwhile
        # It left its group (which may live on, the lifeline's watchdog in it): signal it directly.
        try:
            os.kill(pid, signum)
        except OSError:
            pass

    def close_stdin(self) -> None:
        """Close the server's stdin (once) and start the shutdown clock."""
        if self.stdin_closed.is_set() or self.child is None:
            return
        self.stdin_closed.set()
        _close(self.child.stdin)
        threading.Thread(target=self._shutdown_clock, name="mcptape-shutdown", daemon=True).start()

    def note(self, message: str) -> None:
        """Record something mcptape itself observed (never printed on stdout)."""
        with self._notes_lock:
            self.writer.fields(self.writer.now(), "note", msg=message)

    # -- callbacks -------------------------------------------------------------------------
    def _eof(self, ch: str) -> Callable[[float], None]:
        def on_eof(t: float) -> None:
            self.writer.fields(t, "eof", of=ch)

        return on_eof

    def _out_eof(self, t: float) -> None:
        self.writer.fields(t, "eof", of="out")
        if self.client_out == 1:  # mcptape's own stdout: the client sees the server's EOF now
            _release_stdout()

    def _client_eof(self, t: float) -> None:
        self.writer.fields(t, "eof", of="in")
        self.close_stdin()

    def _lost(self, ch: str, exc: OSError) -> None:
        who = "the server stopped reading its stdin" if ch == "in" else f"the client stopped reading {ch}"
        self.note(f"{who} ({exc.strerror or exc}); still recording")

    def _read_failed(self, ch: str, exc: OSError) -> None:
        self.note(f"reading {ch} failed ({exc.strerror or exc}): taken as the end of that stream")

    def _shutdown_clock(self) -> None:
        # `--shutdown-timeout inf` or `nan` (click accepts both): wait for ever, never signal
        timeout = self.shutdown_timeout if self.shutdown_timeout < float("inf") else None
        if self.exited.wait(timeout):
            return
        self.note(f"server still running {self.shutdown_timeout:g}s after stdin closed: SIGTERM")
        self.send_signal(signal.SIGTERM)
        if self.exited.wait(timeout):
            return
        self.note("server ignored SIGTERM: SIGKILL")
        self.send_signal(signal.SIGKILL)


def _forwarding(pump: Pump) -> bool:
    """True while `pump` is alive and busy with bytes it read (checked twice: between two reads of
    a full pipe it is idle for a moment)."""
    for _ in range(2):
        if not pump.is_alive():
            return False
        if pump.busy:
            return True
        time.sleep(0.01)
    return False


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _release_stdout() -> None:
    """Drop this process's stdout (fd 1 becomes /dev/null, so the number is never reused)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(null, 1)
    except OSError:
        pass
    finally:
        os.close(null)
