"""Framing: rebuild each byte channel's lines from the transcript's events.

The recorder writes one event per line or per fragment of a line; a line is complete when a
newline ends it. A channel that ends (its `eof` event, or the end of the transcript) in the middle
of a line gives an incomplete last frame. Joining a channel's frames gives back its bytes exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from mcptape.check.model import Frame
from mcptape.transcript.events import BYTE_CHANNELS, EOF_, Event


class ChannelFramer:
    """The framing state of one channel: line counter, byte offset, and a pending fragment."""

    __slots__ = ("channel", "events", "line", "offset", "parts", "t")

    def __init__(self, channel: str) -> None:
        self.channel = channel
        self.line = 0  # number of frames emitted so far
        self.offset = 0  # offset of the next frame's first byte
        self.parts: list[bytes] = []  # fragments of the line in progress
        self.events: list[int] = []  # their event indexes
        self.t = 0.0

    def whole(self, text: str) -> int:
        """Count `text` as a line of its own and return its offset, when it is one: exactly one
        line, newline-terminated, with no line in progress before it. Otherwise return -1 and
        count nothing (`feed` it instead). The analysis' fast path: no Frame is built; `line` is
        then the line's number. Its twin is `feed` (a property test holds them together)."""
        if self.parts or text.find("\n") != len(text) - 1:
            return -1
        offset = self.offset
        self.line += 1
        self.offset = offset + (len(text) if text.isascii() else len(text.encode()))
        return offset

    def drop_partial(self) -> None:
        """Forget the line in progress (its stream goes on beyond what was read: it is not cut
        short, as `close` would say)."""
        self.parts = []
        self.events = []

    def feed(self, data: bytes, t: float, index: int) -> list[Frame]:
        """Add one event's bytes; return the lines it completes."""
        out: list[Frame] = []
        start = 0
        n = len(data)
        while start < n:
            nl = data.find(b"\n", start)
            if nl < 0:
                self.parts.append(data[start:])
                if not self.events or self.events[-1] != index:
                    self.events.append(index)
                self.t = t
                break
            piece = data[start : nl + 1]
            if self.parts:
                self.parts.append(piece)
                piece = b"".join(self.parts)
                self.parts = []
            if not self.events or self.events[-1] != index:
                self.events.append(index)
            out.append(self.emit(piece, t, complete=True))
            start = nl + 1
        return out

    def emit(self, raw: bytes, t: float, *, complete: bool) -> Frame:
        self.line += 1
        frame = Frame(self.channel, self.line, self.offset, raw, t, complete, tuple(self.events))
        self.offset += len(raw)
        self.events = []
        return frame

    def close(self) -> Frame | None:
        """The incomplete last frame, if the stream ended in the middle of a line."""
        if not self.parts:
            return None
        raw = b"".join(self.parts)
        self.parts = []
        return self.emit(raw, self.t, complete=False)


class Framer:
    """Frames every byte channel of a stream of events (the streaming form of `frames`)."""

    def __init__(self) -> None:
        self.channels: dict[str, ChannelFramer] = {}

    def channel(self, name: str) -> ChannelFramer:
        framer = self.channels.get(name)
        if framer is None:
            framer = self.channels[name] = ChannelFramer(name)
        return framer

    def feed(self, event: Event) -> list[Frame]:
        """The frames `event` completes (an `eof` event closes its channel's pending line)."""
        if event.ch in BYTE_CHANNELS:
            return self.channel(event.ch).feed(event.data, event.t, event.index)
        if event.ch == EOF_:
            of = event.get("of")
            if isinstance(of, str) and of in self.channels:
                last = self.channels[of].close()
                return [] if last is None else [last]
        return []

    def close(self) -> list[Frame]:
        """Incomplete last frames of the channels still open at the end of the transcript."""
        out: list[Frame] = []
        for framer in self.channels.values():
            last = framer.close()
            if last is not None:
                out.append(last)
        return out


def frames(events: Iterable[Event]) -> Iterator[Frame]:
    """Every byte channel's lines, in the order the events complete them."""
    framer = Framer()
    for event in events:
        yield from framer.feed(event)
    yield from framer.close()


def join(frames_of_one_channel: Iterable[Frame]) -> bytes:
    """The channel's bytes back from its frames (the inverse of framing)."""
    return b"".join(f.raw for f in frames_of_one_channel)


def lines_of(data: bytes, channel: str = "out") -> list[bytes]:
    """The lines of one stream's bytes as framing sees them (each with its newline; an unterminated
    tail last), for callers that hold bytes rather than events."""
    framer = ChannelFramer(channel)
    frames = framer.feed(data, 0.0, 0)
    last = framer.close()
    return [f.raw for f in frames] + ([last.raw] if last is not None else [])
