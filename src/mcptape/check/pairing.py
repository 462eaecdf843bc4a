"""Pairing: requests and their responses, by id, for one sender.

State is per id in flight (plus a small bounded memory of recently closed ids), so memory does not
grow with the transcript's length. Requests sent by the client (`in`) are answered on `out`;
requests sent by the server (`out`) are answered on `in`.
"""

from __future__ import annotations

import math
from typing import Any

RequestId = int | str
# A request in flight: (t, line, offset, raw, event index, method, valid).
# `valid` is False for a request-shaped line that was itself rejected (kept only to pair its answer).
Pending = tuple[float, int, int, "str | bytes", int, str, bool]

RECENT = 4096  # closed ids remembered, to tell "answered twice" and "cancelled" from "never sent"
BUCKETS = 64


def bucket(seconds: float) -> int:
    """Histogram bucket of a latency: powers of two from 1 µs."""
    if seconds <= 1e-6:
        return 0
    return min(BUCKETS - 1, math.frexp(seconds * 1e6)[1])


def bucket_upper(index: int) -> float:
    """Upper bound, in seconds, of bucket `index`."""
    return float(2**index) * 1e-6


class Pairing:
    """The requests one side has sent and not yet seen answered."""

    __slots__ = ("closed", "extra", "older", "pending")

    def __init__(self) -> None:
        self.pending: dict[RequestId, Pending] = {}
        # recently closed id -> "answered" | "cancelled", in two generations of at most RECENT ids
        self.closed: dict[RequestId, str] = {}
        self.older: dict[RequestId, str] = {}
        self.extra: dict[RequestId, int] = {}  # duplicate requests still expecting an answer

    def __deepcopy__(self, memo: dict[int, Any]) -> Pairing:
        """Its ids and requests are immutable values: copying the dicts copies the state (a
        `view --follow` snapshot of a session with many requests in flight stays cheap)."""
        twin = Pairing()
        twin.pending, twin.closed = dict(self.pending), dict(self.closed)
        twin.older, twin.extra = dict(self.older), dict(self.extra)
        return twin

    def open(self, rid: RequestId, pending: Pending) -> Pending | None:
        """Register a request; return the request already in flight with that id, if any."""
        previous = self.pending.get(rid)
        if previous is not None:
            self.extra[rid] = self.extra.get(rid, 0) + 1
            return previous
        self.pending[rid] = pending
        return None

    def close(self, rid: RequestId) -> tuple[Pending | None, str | None]:
        """The request `rid` answers, or (None, why the answer is unexpected)."""
        pending = self.pending.get(rid)
        if pending is not None:
            if self.extra and rid in self.extra:
                n = self.extra[rid] - 1
                if n:
                    self.extra[rid] = n
                else:
                    del self.extra[rid]
            else:
                del self.pending[rid]
                self.remember(rid, "answered")
            return pending, None
        state = self.closed.get(rid) or self.older.get(rid)
        if state == "cancelled":
            return None, None
        if state == "answered":
            return None, "it answers a request that was already answered"
        return None, "no request with this id is in flight"

    def cancel(self, rid: Any) -> None:
        """`notifications/cancelled`: the request may stay unanswered, a late answer is fine."""
        if (type(rid) is int or type(rid) is str) and self.pending.pop(rid, None) is not None:
            self.remember(rid, "cancelled")

    def remember(self, rid: RequestId, state: str = "answered") -> None:
        closed = self.closed
        closed[rid] = state
        if len(closed) > RECENT:
            self.older = closed
            self.closed = {}
