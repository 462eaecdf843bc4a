"""The server processes of a probe run that are alive right now, so that Ctrl-C in the main thread
can end them at once rather than at their timeouts.

Every case (and the shared process of the per-tool hard inputs) runs its harness inside
`running(harness)`; `stop_all()` aborts every registered one and makes a harness that registers
afterwards abort itself (Ctrl-C came while it was starting); `reset()` starts a new run.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from mcptape.harness import Harness

_RUNNING: set[Harness] = set()
_LOCK = threading.Lock()
_STOPPING = threading.Event()  # Ctrl-C was pressed: set under _LOCK


def reset() -> None:
    """A new run: cases may start again."""
    _STOPPING.clear()


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
