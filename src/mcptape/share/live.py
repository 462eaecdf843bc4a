"""`mcptape record --redact`: a transcript writer that redacts whole lines before they are written.

The pumps forward the server's bytes first and record them second, so redaction never delays or
alters what the client and the server see: it only holds each channel's bytes until the end of
the line (joined by the check core's framing), then writes the redacted line as one event, a
quarter of a second later (see `RedactingWriter`). A line that never ends (a prompt without a
newline) is written when its stream closes, when the server exits, or once it reaches 8 MiB (less
its last MiB, held back and read again with what follows, so a secret across the cut is found).
The cost: a recorder killed with SIGKILL loses the lines it was still holding.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from mcptape.check.framing import ChannelFramer
from mcptape.check.model import Frame
from mcptape.share.placeholder import KEY_ENV, Key, choose_key
from mcptape.share.redact import Redactor
from mcptape.share.rules import Rules
from mcptape.share.values import redact_fields, redact_header
from mcptape.transcript.events import Header
from mcptape.transcript.writer import TranscriptWriter, encode_chunk

MAX_PENDING = 8 << 20  # an unterminated line longer than this is written as a fragment
OVERLAP = 1 << 20  # the end of such a fragment held back and read again with what follows
CUT_ENV = "MCPTAPE_REDACT_CUT"  # another MAX_PENDING in bytes (4096 or more; OVERLAP is an eighth)
MAX_HELD = 16 << 20  # complete lines held longer than `HOLD` only while they total less than this
HOLD = 0.25  # seconds a complete line waits before it is written (see RedactingWriter)


class RedactingWriter(TranscriptWriter):
    """A `TranscriptWriter` whose byte channels are written one redacted line at a time.

    Each line is read for secrets as soon as it is complete, but written `hold` seconds later:
    the pumps record after forwarding, so a server's echo of a token can reach the writer a moment
    before the request that carried it; holding lines briefly lets the request teach the secret
    first. A background thread writes held lines when the session is idle.
    """

    def __init__(
        self,
        fd: int,
        *,
        clock_start: float | None,
        redactor: Redactor,
        hold: float = HOLD,
        cut: int = MAX_PENDING,
    ) -> None:
        super().__init__(fd, clock_start=clock_start)
        self.redactor = redactor
        self.hold = hold
        self.max_pending, self.overlap = cut, cut * OVERLAP // MAX_PENDING
        self._framers: dict[str, ChannelFramer] = {}
        self._partial: dict[str, int] = {}  # bytes of an unterminated line held per channel
        self._inside: set[str] = set()  # channels whose held bytes start inside a JSON string (a cut)
        # (arrival, t, channel, raw lines, redacted lines, redactor version they were redacted at,
        # whether they start inside a JSON string)
        self._lines: deque[tuple[float, float, str, bytes, bytes, int, bool]] = deque()
        self._held = 0
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="mcptape-redact", daemon=True)
        self._thread.start()

    def header(self, header: Header) -> None:
        with self._cond:
            info = self.redactor.header_info()
            info.pop("found")  # not known yet when the header is written
            redacted = redact_header(self.redactor, header)
            redacted.extra["redacted"] = info
            super().header(redacted)

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        with self._cond:
            try:
                self._take(t, ch, bytes(data))
            except Exception as exc:  # a pump must keep forwarding: never raise into it
                self._framers.pop(ch, None)
                self._partial.pop(ch, None)
                self._inside.discard(ch)
                reason = f"mcptape could not redact {ch} ({type(exc).__name__}): line dropped"
                super().fields(t, "note", msg=reason)
                return
            self._release(force=self._held > MAX_HELD)

    def _take(self, t: float, ch: str, data: bytes) -> None:
        framer = self._framers.get(ch)
        if framer is None:
            framer = self._framers[ch] = ChannelFramer(ch)
        frames = framer.feed(data, t, 0)
        partial = len(data) - data.rfind(b"\n") - 1 if frames else self._partial.get(ch, 0) + len(data)
        self._hold(frames)
        if partial >= self.max_pending:
            last = framer.close()
            if last is not None:
                # The head is written now; its last `overlap` bytes (more if a secret straddles the
                # cut) wait for what follows, so a secret across the cut is found whole, read
                # from inside the JSON string the cut fell in, if it fell in one.
                inside = ch in self._inside
                head, tail, after = self.redactor.cut(last.raw, self.overlap, inside=inside)
                self._hold([last], redacted=head, inside=inside)
                (self._inside.add if after else self._inside.discard)(ch)
                framer = self._framers[ch] = ChannelFramer(ch)
                framer.feed(tail, t, 0)
                partial = len(tail)
        self._partial[ch] = partial

    def _hold(self, frames: list[Frame], redacted: bytes | None = None, inside: bool | None = None) -> None:
        """Redact the lines one read completed now (that teaches their secrets) and hold them
        (`redacted`: the head of a line cut at MAX_PENDING, already redacted). The first line
        starts inside a JSON string when the channel's held bytes are a cut's tail that did."""
        if not frames:
            return
        ch = frames[-1].channel
        if inside is None:
            inside = ch in self._inside
            self._inside.discard(ch)  # the next line starts afresh
        raw = b"".join(f.raw for f in frames)
        if redacted is None:
            redacted = self.redactor.block(raw, ch, inside=inside)
        self._lines.append((time.monotonic(), frames[-1].t, ch, raw, redacted, self.redactor.version, inside))
        self._held += len(raw)
        self._cond.notify()

    def _release(self, *, force: bool = False) -> None:
        """Write the held lines that are due (all of them with `force`); called with the lock held.

        Lines are redacted again if a secret was learnt since: an echo held here is then caught."""
        if not self._lines:
            return
        due = time.monotonic() - self.hold
        out = bytearray()
        while self._lines and (force or self._lines[0][0] <= due):
            _, t, ch, raw, redacted, version, inside = self._lines.popleft()
            self._held -= len(raw)
            if version != self.redactor.version:  # again, on what was written the first time
                redacted = self.redactor.block(redacted, inside=inside)
            out += encode_chunk(t, ch, redacted)
        if out:
            self.write_raw(bytes(out))

    def _run(self) -> None:
        with self._cond:
            while not self._closed:
                if self._lines:
                    self._cond.wait(max(0.0, self._lines[0][0] + self.hold - time.monotonic()))
                else:
                    self._cond.wait()
                self._release()

    def fields(self, t: float, ch: str, **fields: Any) -> None:
        with self._cond:
            if ch == "eof":
                self._close_channel(str(fields.get("of")))
            elif ch == "exit":
                for name in list(self._framers):
                    self._close_channel(name)
                self._release(force=True)
                found = {d: sorted(labels) for d, labels in sorted(self.redactor.found.items())}
                msg = f"record --redact: {self.redactor.replaced} secret(s) replaced ({len(found)} distinct)"
                super().fields(t, "note", msg=msg, redacted={"found": found})
            elif ch != "eof":
                fields = redact_fields(self.redactor, ch, fields)
            self._release(force=True)
            super().fields(t, ch, **fields)

    def _close_channel(self, ch: str) -> None:
        """Hold the unterminated line `ch` still has (its stream closed, or the server exited)."""
        framer = self._framers.get(ch)
        last = framer.close() if framer is not None else None
        self._partial[ch] = 0
        if last is not None:
            self._hold([last])

    def close(self) -> None:
        with self._cond:
            for name in list(self._framers):
                self._close_channel(name)
            self._release(force=True)
            self._closed = True
            self._cond.notify()
        self._thread.join()
        super().close()


def redacting_writer(
    fd: int,
    *,
    clock_start: float | None,
    command: Sequence[str],
    environ: Mapping[str, str],
    rules: Rules | None = None,
    key: Key | None = None,
) -> RedactingWriter:
    """The writer `record --redact` uses: built-in rules, the environment's secrets, the argv's."""
    rules = Rules.build() if rules is None else rules
    redactor = Redactor(rules, choose_key(environ) if key is None else key)
    if rules.use_env:
        redactor.learn_environment(environ)
    user_key = environ.get(KEY_ENV)
    if user_key:
        redactor.learn(user_key, f"env:{KEY_ENV}")
    redactor.argv(command)  # learn `--token VALUE` before the server can echo it
    redactor.reset()
    return RedactingWriter(fd, clock_start=clock_start, redactor=redactor, cut=_cut(environ))


def _cut(environ: Mapping[str, str]) -> int:
    """Where a line that has not ended is cut: `$MCPTAPE_REDACT_CUT` bytes when it is a number of
    4096 or more (tests use it to cross the cut with a small answer), else MAX_PENDING."""
    value = environ.get(CUT_ENV, "")
    return int(value) if value.isascii() and value.isdigit() and int(value) >= 4096 else MAX_PENDING
