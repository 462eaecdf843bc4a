"""`mcptape record --redact`: a transcript writer that redacts whole lines before they are written.

The pumps forward the server's bytes first and record them second, so redaction never delays or
alters what the client and the server see: it only holds each channel's bytes until the end of
the line, then writes the redacted line as one event. A line that never ends (a prompt without a
newline) is written when its stream closes, when the server exits, or once it reaches 8 MiB.
The cost: a recorder killed with SIGKILL loses the unterminated line it was holding.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from mcptape.share.placeholder import KEY_ENV, choose_key
from mcptape.share.redact import Redactor
from mcptape.share.rules import Rules
from mcptape.transcript.events import Header
from mcptape.transcript.writer import TranscriptWriter, encode_chunk

MAX_PENDING = 8 << 20


class RedactingWriter(TranscriptWriter):
    """A `TranscriptWriter` whose byte channels are written one redacted line at a time."""

    def __init__(
        self, fd: int, *, clock_start: float | None, redactor: Redactor, env_names: list[str]
    ) -> None:
        super().__init__(fd, clock_start=clock_start)
        self.redactor = redactor
        self.env_names = env_names
        self._pending: dict[str, bytearray] = {}
        self._lock = threading.Lock()

    def header(self, header: Header) -> None:
        with self._lock:
            info = self.redactor.header_info()
            info.pop("found")  # not known yet when the header is written
            info["env"] = self.env_names
            redacted = Header(
                version=header.version,
                started=header.started,
                command=self.redactor.argv(header.command),
                cwd=header.cwd,
                recorder=dict(header.recorder),
                extra={**self.redactor.value(header.extra), "redacted": info},
            )
        super().header(redacted)

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        try:
            self._chunk(t, ch, data)
        except Exception as exc:  # a pump must keep forwarding: never raise into it
            self._pending.pop(ch, None)
            reason = f"mcptape could not redact {ch} ({type(exc).__name__}): line dropped"
            super().fields(t, "note", msg=reason)

    def _chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        with self._lock:
            buf = self._pending.setdefault(ch, bytearray())
            last = data.rfind(b"\n")
            if last < 0:
                buf += data
                if len(buf) < MAX_PENDING:
                    return
                records = encode_chunk(t, ch, self.redactor.line(bytes(buf)))
                buf.clear()
            else:
                buf += data[: last + 1]
                records = self._encode_lines(t, ch, buf)
                buf.clear()
                buf += data[last + 1 :]
        self.write_raw(records)

    def _encode_lines(self, t: float, ch: str, buf: bytearray) -> bytes:
        out = bytearray()
        start = 0
        line = self.redactor.line
        while (nl := buf.find(b"\n", start)) >= 0:
            out += encode_chunk(t, ch, line(bytes(buf[start : nl + 1])))
            start = nl + 1
        return bytes(out)

    def fields(self, t: float, ch: str, **fields: Any) -> None:
        if ch == "eof":
            self._flush(t, str(fields.get("of")))
        elif ch == "exit":
            for name in list(self._pending):
                self._flush(t, name)
        elif ch == "note":
            with self._lock:
                fields = self.redactor.value(fields)
        super().fields(t, ch, **fields)

    def _flush(self, t: float, ch: str) -> None:
        with self._lock:
            buf = self._pending.pop(ch, None)
            if not buf:
                return
            records = encode_chunk(t, ch, self.redactor.line(bytes(buf)))
        self.write_raw(records)

    def close(self) -> None:
        for name in list(self._pending):
            self._flush(self.now(), name)
        super().close()


def redacting_writer(
    fd: int,
    *,
    clock_start: float | None,
    command: Sequence[str],
    environ: Mapping[str, str],
    rules: Rules | None = None,
) -> RedactingWriter:
    """The writer `record --redact` uses: built-in rules, the environment's secrets, the argv's."""
    rules = Rules.build() if rules is None else rules
    redactor = Redactor(rules, choose_key(environ))
    names = redactor.learn_environment(environ) if rules.use_env else []
    user_key = environ.get(KEY_ENV)
    if user_key:
        redactor.learn(user_key, f"env:{KEY_ENV}")
    redactor.argv(command)  # learn `--token VALUE` before the server can echo it
    redactor.found.clear()
    redactor.replaced = 0
    return RedactingWriter(fd, clock_start=clock_start, redactor=redactor, env_names=names)
