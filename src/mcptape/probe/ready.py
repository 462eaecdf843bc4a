"""What the cases started beside the clean start wait for.

The clean start (`start`) finds the valid call, the calls one valid call makes (the baseline), how
long a bad frame may take to be answered (the linger) and the tools; the other cases' servers start
meanwhile (their start-up is most of their cost) and do their own handshake, then wait here before
they send anything built on those facts. The clean start says what it saw (`seen`), the runner
decides (`go` or `block`). When the clean start fails, nothing more is sent: the others end their
servers and are reported as not run.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from mcptape.probe.cases import Call
from mcptape.probe.judge import CaseResult
from mcptape.probe.observed import Observed
from mcptape.probe.tools import Shared


@dataclass
class Ready:
    """The clean start's facts, once known (`wait`)."""

    call: Call | None = None
    baseline: int | None = None
    linger: float = 0.0
    riding: Shared | None = None  # the per-tool hard inputs, for the process that hosts them
    mrtr: bool = False  # the requestState cases follow a stateless start-discover
    blocked: bool = False  # the clean start failed (or Ctrl-C): send nothing more
    start: tuple[Observed, CaseResult] | None = None  # what the clean start saw, and its verdict
    _known: threading.Event = field(default_factory=threading.Event)
    _seen: threading.Event = field(default_factory=threading.Event)

    @classmethod
    def now(cls, call: Call | None, linger: float) -> Ready:
        """Facts known without a clean start (`--case` left it out)."""
        ready = cls(call, None, linger)
        ready._known.set()
        return ready

    def go(
        self,
        call: Call | None,
        baseline: int | None,
        linger: float,
        riding: Shared | None = None,
        mrtr: bool = False,
    ) -> None:
        """The clean start passed: the waiting cases go on with these facts."""
        self.call, self.baseline, self.linger, self.riding, self.mrtr = call, baseline, linger, riding, mrtr
        self._known.set()

    def seen(self, observed: Observed, result: CaseResult) -> None:
        """The clean start is over (its process may go on with hard inputs): the runner decides."""
        self.start = (observed, result)
        self._seen.set()

    def wait_seen(self) -> tuple[Observed, CaseResult] | None:
        """What the clean start saw, once it is over; None when it never got that far (its process
        raised, or Ctrl-C)."""
        self._seen.wait()
        return self.start

    def block(self) -> None:
        """The clean start failed, or the user pressed Ctrl-C: the waiting cases stop (nothing
        changes once they went on)."""
        if self._known.is_set() and not self.blocked:
            return
        self.blocked = True
        self._known.set()
        self._seen.set()

    def wait(self) -> bool:
        """Wait for the clean start; True when the case may go on."""
        self._known.wait()
        return not self.blocked
