"""Side effects seen from outside the server: the HTTP sink and the command stubs, started together.

Used by `mcptape record --http-sink --stub NAME` and by replay and probe (sink always on):

    with side_effects(writer, http_sink=True, stubs=["ssh"]) as fx:
        session = Recording(cmd, writer, env=fx.child_env(os.environ))
        session.start()
        session.wait()

`writer` is anything with `now()` and `chunk(t, ch, data)` (a `TranscriptWriter`); `http` and
`exec` events are recorded on it from the listeners' threads, timed on its clock. Leaving the
block stops the listeners after recording what was already sent, and removes the stubs.

`http=` starts another HTTP listener in the sink's place: a function of the writer returning the
started listener (the HTTP cassette: `recorder.outbound.cassette.Upstream(...).listener` records, a replay's
`replay.cassette.Player(...).listener` plays back).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

from mcptape.errors import MCPTapeError
from mcptape.recorder.sinks import Sink

if TYPE_CHECKING:
    from mcptape.recorder.outbound.httpsink import HttpSink
    from mcptape.recorder.outbound.stubs import Stubs


class SideEffectError(MCPTapeError):
    """The HTTP sink or the stubs could not be started."""


class HttpListener(Protocol):
    """A started loopback HTTP proxy the child is pointed at (the sink, or the cassette)."""

    @property
    def url(self) -> str: ...

    requests: int

    def env(self) -> dict[str, str]: ...

    def stop(self) -> None: ...


HttpFactory = Callable[[Sink], HttpListener]


class SideEffects:
    """The running listeners, and the environment that routes a child's side effects to them."""

    def __init__(
        self,
        sink: Sink,
        *,
        http_sink: bool = False,
        stubs: Sequence[str] = (),
        http: HttpFactory | None = None,
    ) -> None:
        self.sink = sink
        self.want_http = http_sink
        self.http_factory = http
        self.stub_names = list(stubs)
        self.http: HttpSink | HttpListener | None = None
        self.stubs: Stubs | None = None

    def start(self) -> SideEffects:
        """Start what was asked for; on a failure, stop what had started and re-raise."""
        try:
            if self.stub_names:
                from mcptape.recorder.outbound.stubs import Stubs

                self.stubs = Stubs(self.sink, self.stub_names).start()
            if self.http_factory is not None:
                self.http = self.http_factory(self.sink)
            elif self.want_http:
                from mcptape.recorder.outbound.httpsink import HttpSink

                self.http = HttpSink(self.sink).start()
        except OSError as exc:
            self.stop()
            raise SideEffectError(
                f"cannot start the side-effect listeners: {exc.strerror or exc}",
                hint="they need a loopback interface and a writable temporary directory ($TMPDIR)",
            ) from None
        except BaseException:
            self.stop()
            raise
        return self

    @property
    def removed(self) -> tuple[str, ...]:
        """Variables to delete from the child's environment (`NO_PROXY` in both cases)."""
        from mcptape.recorder.outbound.httpsink import NO_PROXY_VARS

        return NO_PROXY_VARS if self.http is not None else ()

    def env_updates(self, base: Mapping[str, str]) -> dict[str, str]:
        """Variables to set in the child's environment (proxy variables, `PATH`)."""
        updates: dict[str, str] = {}
        if self.http is not None:
            updates.update(self.http.env())
        if self.stubs is not None:
            updates.update(self.stubs.env(base))
        return updates

    def child_env(self, base: Mapping[str, str]) -> dict[str, str]:
        """`base` with the updates applied and `NO_PROXY` removed: pass it to `spawn`/`Recording`."""
        env = dict(base)
        env.update(self.env_updates(base))
        for name in self.removed:
            env.pop(name, None)
        return env

    def stop(self) -> None:
        """Stop the listeners (recording what was already sent) and remove the stubs."""
        if self.http is not None:
            self.http.stop()
        if self.stubs is not None:
            self.stubs.stop()

    def __enter__(self) -> SideEffects:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def side_effects(
    sink: Sink, *, http_sink: bool = False, stubs: Sequence[str] = (), http: HttpFactory | None = None
) -> SideEffects:
    """Start the HTTP sink (or the `http` listener) and/or command stubs recording on `sink`; use it
    as a context manager."""
    return SideEffects(sink, http_sink=http_sink, stubs=stubs, http=http).start()


class DeferredSink:
    """A `Sink` on the recorder's clock whose writer is attached later.

    `mcptape record` must start the listeners before spawning the server (the child's
    environment names them) but creates its transcript writer only after the spawn. Events that
    arrive in between wait (the server waits a few milliseconds for its 502) until `attach`.
    """

    def __init__(self, clock_start: float) -> None:
        self.t0 = clock_start
        self._target: Sink | None = None
        self._ready = threading.Event()

    def now(self) -> float:
        return time.monotonic() - self.t0

    def attach(self, target: Sink) -> None:
        """Start recording on `target` (after its header is written)."""
        self._target = target
        self._ready.set()

    def release(self) -> None:
        """Let waiting events go without a target (the server never started)."""
        self._ready.set()

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        self._ready.wait()
        if self._target is not None:
            self._target.chunk(t, ch, data)
