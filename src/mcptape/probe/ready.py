"""What the cases started beside the clean start wait for.

The clean start (`start`) finds the valid call, how long a bad frame may take to be answered (the
linger) and the tools; the other cases' servers start meanwhile (their start-up is most of their
cost) and do their own handshake, then wait here before they send anything built on those facts.
The clean start says what it saw once its valid call is answered (`seen`), the runner decides
(`go` or `block`). When the clean start fails, nothing more is sent: the others end their servers
and are reported as not run.

The clean start's process then ends on its own (stdin closed, its exit awaited): every executor
and HTTP line its valid call made is in its transcript by then, however late the server wrote it,
so its count is exact (`ended`; `one()` gives it to the judges of the shared processes, which
wait for it: the clean start's process never waits for theirs).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from mcptape.probe.cases import Call
from mcptape.probe.judge import CaseResult
from mcptape.probe.ledger import OneCall, Owing
from mcptape.probe.observed import Observed
from mcptape.probe.tools import Shared


@dataclass
class Ready:
    """The clean start's facts, once known (`wait`)."""

    call: Call | None = None
    linger: float = 0.0
    riding: Shared | None = None  # the per-tool hard inputs, for the process that hosts them
    mrtr: bool = False  # the requestState cases follow a stateless start-discover
    blocked: bool = False  # the clean start failed (or Ctrl-C): send nothing more
    start: tuple[Observed, CaseResult] | None = None  # what the clean start saw, and its verdict
    end: CaseResult | None = None  # the clean start's verdict once its process has ended
    _known: threading.Event = field(default_factory=threading.Event)
    _seen: threading.Event = field(default_factory=threading.Event)
    _ended: threading.Event = field(default_factory=threading.Event)

    @classmethod
    def now(cls, call: Call | None, linger: float) -> Ready:
        """Facts known without a clean start (`--case` left it out)."""
        ready = cls(call, linger)
        ready._known.set()
        ready._ended.set()
        return ready

    def go(self, call: Call | None, linger: float, riding: Shared | None = None, mrtr: bool = False) -> None:
        """The clean start passed: the waiting cases go on with these facts."""
        self.call, self.linger, self.riding, self.mrtr = call, linger, riding, mrtr
        self._known.set()

    def seen(self, observed: Observed, result: CaseResult) -> None:
        """The clean start's valid call is answered (or the clean start failed): the runner decides.
        Said once: a second word (its verdict after its exit) changes nothing here."""
        if self._seen.is_set():
            return
        self.start = (observed, result)
        self._seen.set()

    def ended(self, result: CaseResult | None) -> None:
        """The clean start's process has ended (`result`: its verdict; None when it never ran)."""
        if not self._ended.is_set():
            self.end = result
            self._ended.set()

    def one(self) -> OneCall | None:
        """The executor/HTTP lines one valid call makes, counted in the clean start's process to its
        exit (waits for that); None when it did not run or its valid call did not go through."""
        self._ended.wait()
        end = self.end
        if end is None or end.baseline is None:
            return None
        return OneCall(end.baseline, end.baseline_unnamed or 0, whole=True)

    def owing(self, token: str) -> Owing:
        """The valid call and what it makes, for the judge of a shared transcript (waits, as `one`)."""
        return Owing(self.call, token, self.one())

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
        self._ended.set()

    def wait(self) -> bool:
        """Wait for the clean start; True when the case may go on."""
        self._known.wait()
        return not self.blocked
