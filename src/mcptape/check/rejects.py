"""Rejected lines: the finding a line raises by itself, and the first one of each direction.

A line of `in` or `out` that is not protocol (or not a message allowed there) raises its frame-level
rule (`classify` chose it). The first such line of each direction is kept with the good line just
before it, for the report's "first non-protocol line" (where the stream stopped being protocol).
"""

from __future__ import annotations

from typing import Any

from mcptape.check.findings import finding
from mcptape.check.model import IN, OUT, Finding, FirstNonProtocol, Frame, Message

# The last good line of a direction: the hot path keeps its own record `(t, channel, text, event
# index)`, the general path `(t, channel, bytes, event indexes)`.
GoodLine = tuple[float, str, Any, "int | tuple[int, ...]"]


def frame_finding(message: Message) -> Finding:
    """The finding a rejected line raises by itself (`message.rule` is set)."""
    frame = message.frame
    rule = message.rule
    assert rule is not None
    ch = frame.channel
    return finding(
        rule,
        channel=ch,
        line=frame.line,
        offset=frame.offset,
        raw=frame.body,
        message=f"{ch} line {frame.line}: {message.problem or rule}",
        request_id=message.id,
        t=frame.t,
        event=frame.event,
    )


class FirstLines:
    """The first rejected line of each direction, and the good line before it.

    `previous[ch]` is the last good line of `ch` (the analysis sets it for every good line: only
    its value at the first rejected line is read); `first` is the analysis' own
    `first_non_protocol`.
    """

    __slots__ = ("first", "previous")

    def __init__(self, first: dict[str, FirstNonProtocol | None]) -> None:
        self.first = first
        self.previous: dict[str, GoodLine | None] = {IN: None, OUT: None}

    def good(self, frame: Frame) -> None:
        """A good line of the general path (the hot path sets `previous` itself)."""
        self.previous[frame.channel] = (frame.t, frame.channel, frame.raw, frame.events)

    def rejected(self, frame: Frame, problem: str) -> None:
        """A rejected line: the first of its direction is kept, with the good line before it."""
        ch = frame.channel
        if self.first[ch] is not None:
            return
        prev = self.previous[ch]
        before = None
        if prev is not None:
            t, _, text, where = prev
            raw = text.encode() if isinstance(text, str) else text
            if not raw.endswith(b"\n"):
                raw += b"\n"
            events = (where,) if isinstance(where, int) else where
            before = Frame(ch, frame.line - 1, frame.offset - len(raw), raw, t, True, events)
        self.first[ch] = FirstNonProtocol(frame, problem, before)
