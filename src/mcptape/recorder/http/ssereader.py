"""The messages an SSE stream carries, read by the recording tap (`reply.Reply` feeds it each piece of
the body): `SseMessages`, on the decoded text of a piece's whole lines, an event at a time where it
can (`_messages`), a line at a time elsewhere (`_lines`); `SseDecoder` (the WHATWG reading, in
`transcript.wire`) reads what it leaves, and stays the reference
(tests/recorder/http/test_sse_messages.py)."""

from __future__ import annotations

from mcptape.transcript.wire import SseDecoder

MAX_REST = 1 << 20  # an SSE event not dispatched past this is read by SseDecoder (see SseMessages)


class SseMessages:
    """The messages an SSE stream carries, fed in pieces: `feed(data)` gives the data of each event an
    SSE client dispatches, in the piece `SseDecoder.feed` gives it in: as the decoder gives it, or,
    read here, as text: its `carried_line` (the event's `data` lines joined by a space, then a
    newline; `as_line` gives both as that line). The recorder's own reading: it needs neither
    event types, ids, offsets nor the lines a client ignores, only the messages, and takes them
    from the decoded text of a piece's whole lines, a few calls a line.

    A stream of UTF-8 lines ended by LF or CRLF is read here, whatever its fields (a line that is not
    `data` carries nothing: a comment, `event`, `id`, `retry` or a field SSE does not define); a
    BOM first is dropped, as SSE clients drop it. At a line that is not UTF-8 or a CR ending a line
    by itself, `SseDecoder` reads the rest of the stream, from the start of the event in progress
    (told first, in bytes never recorded, that the stream has begun: a comment line); so does an
    event longer than `MAX_REST` (read again with each piece otherwise).
    tests/recorder/http/test_sse_messages.py checks both give the same messages in the same pieces."""

    def __init__(self) -> None:
        self.rest = bytearray()  # the stream's bytes since the end of the last event dispatched
        self.started = False  # bytes of the stream before `rest` were taken (a BOM is no longer first)
        self.decoder: SseDecoder | None = None

    def feed(self, data: bytes, text: str | None = None) -> list[bytes | str]:
        """The messages of the events `data` ends; `text`: `data` decoded, if it was (the tap's
        raw record shares it: an ASCII piece without a CR is then read on it, not decoded again)."""
        if self.decoder is not None:
            return [e.data for e in self.decoder.feed(data)]
        if text is not None and text.isascii() and "\r" not in text:
            messages = self._ascii(data, text)
            if messages is not None:
                return messages
        end_cr = data.endswith(b"\r")
        cut = len(data) if end_cr else data.rfind(b"\n") + 1  # the piece's bytes in whole lines
        if data.find(b"\r", cut) >= 0:  # a CR ends the piece's last line, not ended yet: by itself
            return self._switch(bytes(self.rest) + data, self.started)
        if not cut:  # no line ended in this piece
            self.rest += data
            if len(self.rest) > MAX_REST:  # an event this long: read on incrementally, not again
                return self._switch(bytes(self.rest), self.started)
            return []
        rest = self.rest
        if (
            rest
            and data.find(b"\r", 0, cut) < 0
            and data.find(b"\n\n", 0, cut) < 0
            and not (rest[-1] == 0x0A and data[0] == 0x0A)
        ):  # the event in progress goes on (no blank line ends it here): read at its end, not again
            rest += data
            if len(rest) > MAX_REST:
                return self._switch(bytes(rest), self.started)
            return []
        if rest:
            rest += memoryview(data)[:cut]
            block: bytearray | memoryview = rest
        else:
            block = memoryview(data)[:cut]
        try:
            text = str(block, "utf-8")
        except UnicodeDecodeError:
            return self._switch(bytes(block) + data[cut:], self.started)
        bom = not self.started and text.startswith("\ufeff")
        messages, taken, unsure = _messages(text, 1 if bom else 0)
        if taken == len(text):  # (after a CR ending the piece, an LF next is a blank line: no event)
            self.rest = bytearray(memoryview(data)[cut:])
        else:
            left = bytes(block[taken:]) if text.isascii() else text[taken:].encode()
            if unsure:
                return [*messages, *self._switch(left + data[cut:], self.started or taken > 0)]
            self.rest = bytearray(left)
            self.rest += memoryview(data)[cut:]
        if taken:
            self.started = True
        if len(self.rest) > MAX_REST:
            return [*messages, *self._switch(bytes(self.rest), self.started)]
        return messages

    def _ascii(self, data: bytes, text: str) -> list[bytes | str] | None:
        """`feed` of an ASCII piece without a CR, on its text: the event in progress (`rest`) is read
        with the piece's bytes up to the blank line that ends it (a small copy), the rest of the
        piece on `text` itself (no copy of the piece, no decode). None: `feed` reads it as any
        piece (no line ends in it, the event in progress goes on, `rest` has a CR or is not UTF-8)."""
        cut = text.rfind("\n") + 1
        if not cut:
            return None
        rest = self.rest
        start = 0
        messages: list[bytes | str] = []
        if rest:
            if rest[-1] == 0x0A and text[0] == "\n":
                start = 1
            else:
                start = text.find("\n\n", 0, cut) + 2
                if start < 2:
                    return None
            if rest.find(b"\r") >= 0:
                return None
            try:
                head = str(rest + memoryview(data)[:start], "utf-8")
            except UnicodeDecodeError:
                return None
            bom = not self.started and head.startswith("\ufeff")
            messages, taken, unsure = _messages(head, 1 if bom else 0)
            if unsure or taken != len(head):
                return None
            self.started = True
        more, taken, _ = _messages(text, start, cut)
        if more:
            messages += more
        taken = max(taken, start)
        self.rest = bytearray(memoryview(data)[taken:])
        if taken:
            self.started = True
        if len(self.rest) > MAX_REST:
            return [*messages, *self._switch(bytes(self.rest), self.started)]
        return messages

    def _switch(self, pending: bytes, started: bool) -> list[bytes | str]:
        """`SseDecoder` reads the rest of the stream, `pending` its bytes from the start of the event
        not dispatched yet; `started`: bytes of the stream came before them."""
        decoder = SseDecoder()
        if started:
            decoder.feed(b":\n")  # a comment: not the stream's first line (a BOM there is kept)
        self.decoder = decoder
        self.rest = bytearray()
        return [e.data for e in decoder.feed(pending)]


def _messages(text: str, pos: int, stop: int = -1) -> tuple[list[bytes | str], int, bool]:
    """The carried lines of the events `text` (whole lines, the last one's end maybe a CR; up to
    `stop`, or all of it) ends, from `pos`; where the event not dispatched yet starts; and whether
    the reading stopped there at a CR ending a line by itself (`SseDecoder` reads on from there).
    Text without a CR is read an event at a time, a few calls an event of the common shape (lines
    that are not `data`, then one `data:` line, then the blank line: a line at a time by memchr);
    any other event, and text with a CR, a line at a time (`_lines`)."""
    if "\r" in text:
        return _lines(text, pos, stop)
    messages: list[bytes | str] = []
    event = 0  # where the event not dispatched yet starts
    n = len(text) if stop < 0 else stop
    find = text.find
    startswith = text.startswith
    while pos < n:
        line = pos
        while not startswith("data", line):  # its lines before a data line (or the blank line)
            if text[line] == "\n":
                break
            line = find("\n", line, n) + 1
            if not line or line >= n:
                return messages, event, False  # an event not ended yet
        else:
            if text[line + 4] == ":":  # its data line: the common event has one, then the blank line
                at = line + 5
                if text[at] == " ":
                    at += 1
                end = find("\n", at, n)
                if end < 0 or end + 1 >= n:
                    return messages, event, False
                if text[end + 1] == "\n":
                    if end > at:  # the value and the LF that ends it: its carried line
                        messages.append(text[at : end + 1])
                    pos = event = end + 2
                    continue
            blank = find("\n\n", line, n)  # another shape: read a line at a time
            if blank < 0:
                return messages, event, False
            more, _, _ = _lines(text, pos, blank + 2)
            messages += more
            pos = event = blank + 2
            continue
        pos = event = line + 1  # a blank line: the event (if any) had no data line
    return messages, event, False


def _lines(text: str, pos: int, stop: int = -1) -> tuple[list[bytes | str], int, bool]:
    """`_messages`, a line at a time."""
    messages: list[bytes | str] = []
    values: list[str] | None = None  # the data lines of the event being read, each with a newline
    event = 0  # where that event starts
    n = len(text) if stop < 0 else stop
    find = text.find
    startswith = text.startswith
    crs = "\r" in text
    while pos < n:
        nl = find("\n", pos, n)
        if nl < 0:  # the last line, ended by a CR
            end = nxt = n
        else:
            end, nxt = nl, nl + 1
        if crs:
            if end > pos and text[end - 1] == "\r":
                end -= 1
            if find("\r", pos, end) >= 0:
                return messages, event, True
        if end == pos:  # a blank line: the event is dispatched, if its data is not empty
            if values is not None:
                if len(values) > 1:
                    messages.append(" ".join([value[:-1] for value in values]) + "\n")
                elif len(values[0]) > 1:
                    messages.append(values[0])
                values = None
            event = nxt
        elif startswith("data", pos) and (end == pos + 4 or text[pos + 4] == ":"):
            at = pos + 5
            if at < end and text[at] == " ":
                at += 1
            if end == nl:  # the value and the LF that ends it: the carried line, in one copy
                value = text[at:nxt] if at <= end else "\n"
            else:
                value = (text[at:end] if at <= end else "") + "\n"
            if values is None:
                values = [value]
            else:
                values.append(value)
        pos = nxt
    return messages, event, False
