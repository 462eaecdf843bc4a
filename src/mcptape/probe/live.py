"""The server processes of a probe run that are alive right now, and the gate they start through.

Every case (and the shared process of the per-tool hard inputs) starts its harness with
`server(harness)`: it waits at the start-up gate, starts the server, and registers it, so that
`stop_all()` (Ctrl-C in the main thread) aborts every registered one at once rather than at its
timeout, and a harness that registers afterwards aborts itself (Ctrl-C came while it was starting);
`reset()` starts a new run.

The gate: a server's start-up is the costly part of a case (an interpreter and its imports, on
CPUs that every case shares), and the clean start's answers are what the other cases wait for. At
most `reset(starting=N)` servers are starting at once (`-j`); a server stops counting once it has
answered its first request (`started`, said by the driver) or ended. Waiting servers go through in
the order of their rank (the runner ranks the clean start first, then the cases in the order it
wants them), not in the order their threads happen to arrive.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import threading
from collections.abc import Iterator

from mcptape.harness import Harness

_RUNNING: set[Harness] = set()
_LOCK = threading.Lock()
_STOPPING = threading.Event()  # Ctrl-C was pressed: set under _LOCK


class Gate:
    """At most `size` servers starting at once, let through lowest rank first."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self.busy = 0
        self._waiting: list[tuple[int, int]] = []  # (rank, arrival): a heap
        self._arrival = itertools.count()
        self._cond = threading.Condition()

    def acquire(self, rank: int) -> None:
        """Wait for a free place (returns at once after Ctrl-C: the case aborts as it registers)."""
        me = (rank, next(self._arrival))
        with self._cond:
            heapq.heappush(self._waiting, me)
            while not _STOPPING.is_set() and (self.busy >= self.size or self._waiting[0] != me):
                self._cond.wait(0.1)
            self._waiting.remove(me)
            heapq.heapify(self._waiting)
            self.busy += 1
            self._cond.notify_all()

    def release(self) -> None:
        with self._cond:
            self.busy -= 1
            self._cond.notify_all()


_GATE = Gate(4)
_HOLDING: dict[Harness, Gate] = {}  # servers counted by a gate: started, first answer not seen yet
_RANKS = itertools.count(1_000)  # ranks of the servers the runner did not rank (later ones last)


def reset(starting: int = 4) -> None:
    """A new run: cases may start again, at most `starting` servers starting at once."""
    global _GATE
    _STOPPING.clear()
    _GATE = Gate(starting)


def claim(rank: int) -> Gate:
    """Wait for a place at the gate now, for a server started later with `server(..., held=...)`."""
    gate = _GATE
    gate.acquire(rank)
    return gate


@contextlib.contextmanager
def server(harness: Harness, rank: int | None = None, held: Gate | None = None) -> Iterator[Harness]:
    """Start `harness` once the gate lets it (`rank`: lower goes first; default: after every ranked
    one; `held`: the place was claimed already), register it for Ctrl-C, and stop it at the end of
    the block."""
    gate = held or claim(next(_RANKS) if rank is None else rank)
    with _LOCK:
        _HOLDING[harness] = gate
    try:
        with harness, running(harness):
            yield harness
    finally:
        started(harness)


def started(harness: Harness) -> None:
    """`harness`'s server has answered (or will not): it no longer counts as starting."""
    with _LOCK:
        gate = _HOLDING.pop(harness, None)
    if gate is not None:
        gate.release()


@contextlib.contextmanager
def running(harness: Harness) -> Iterator[None]:
    """Register a live case's harness, so that Ctrl-C in the main thread can abort it."""
    with _LOCK:
        _RUNNING.add(harness)
        stopping = _STOPPING.is_set()
    if stopping:  # Ctrl-C came while this case was starting: the main thread did not see it
        harness.abort()
    try:
        yield
    finally:
        with _LOCK:
            _RUNNING.discard(harness)


def stop_all() -> None:
    """Ctrl-C: abort every live harness now; a case still starting aborts itself as it registers."""
    with _LOCK:
        _STOPPING.set()
        live = list(_RUNNING)
    for harness in live:
        harness.abort()
