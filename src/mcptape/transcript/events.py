"""The values a transcript holds: the header and the events.

Channels that carry bytes (`in`, `out`, `err`, `exec`, `http`) hold one line or one fragment of a
line per event: joining a channel's events gives back its bytes exactly. Other channels
(`eof`, `exit`, `note`) carry fields instead of bytes. Events of one channel are in file order;
events of different channels can be a few records apart from time order, because each channel is
recorded by its own thread after its bytes were forwarded: order by `t` across channels.
"""

from __future__ import annotations

import base64

TYPE_CHECKING = False  # typing stays unimported on the record path
if TYPE_CHECKING:
    from typing import Any

FORMAT_VERSION = 1

IN, OUT, ERR, EXEC, HTTP = "in", "out", "err", "exec", "http"
EOF_, EXIT, NOTE = "eof", "exit", "note"
BYTE_CHANNELS: frozenset[str] = frozenset({IN, OUT, ERR, EXEC, HTTP})


class Event:
    """One transcript record. `data` gives the raw bytes of a byte channel (b"" otherwise)."""

    __slots__ = ("ch", "fields", "index", "raw", "t", "text")

    def __init__(
        self,
        t: float,
        ch: str,
        *,
        text: str | None = None,
        raw: bytes | None = None,
        fields: dict[str, Any] | None = None,
        index: int = -1,
    ) -> None:
        self.t = t
        self.ch = ch
        self.text = text
        self.raw = raw
        self.fields = fields
        self.index = index

    @property
    def data(self) -> bytes:
        """The exact bytes of this event (decoded from `data` or `b64`)."""
        if self.raw is not None:
            return self.raw
        if self.text is not None:
            return self.text.encode("utf-8")
        return b""

    @property
    def size(self) -> int:
        """Number of bytes this event carries (cheap for ASCII text)."""
        if self.raw is not None:
            return len(self.raw)
        if self.text is None:
            return 0
        return len(self.text) if self.text.isascii() else len(self.text.encode("utf-8"))

    def get(self, key: str, default: Any = None) -> Any:
        """A field of a non-byte event (`of` on eof, `code`/`signal` on exit, ...)."""
        return default if self.fields is None else self.fields.get(key, default)

    @classmethod
    def from_record(cls, record: dict[str, Any], index: int = -1) -> Event:
        """Build an event from one decoded transcript line (raises KeyError/TypeError/ValueError)."""
        t = float(record["t"])
        ch = record["ch"]
        if not isinstance(ch, str):
            raise TypeError("ch must be a string")
        text = record.get("data")
        if text is not None:
            if not isinstance(text, str):
                raise TypeError("data must be a string")
            return cls(t, ch, text=text, index=index)
        b64 = record.get("b64")
        if b64 is not None:
            return cls(t, ch, raw=base64.b64decode(b64, validate=True), index=index)
        rest = {k: v for k, v in record.items() if k not in ("t", "ch")}
        return cls(t, ch, fields=rest, index=index)

    def to_record(self) -> dict[str, Any]:
        """The JSON object this event is written as."""
        out: dict[str, Any] = {"t": self.t, "ch": self.ch}
        if self.text is not None:
            out["data"] = self.text
        elif self.raw is not None:
            out.update(encode_bytes(self.raw))
        if self.fields:
            out.update(self.fields)
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.t, self.ch, self.data, self.fields or None) == (
            other.t,
            other.ch,
            other.data,
            other.fields or None,
        )

    def __repr__(self) -> str:
        body = repr(self.data) if self.ch in BYTE_CHANNELS else repr(self.fields)
        return f"Event(t={self.t!r}, ch={self.ch!r}, {body})"


def encode_bytes(chunk: bytes | bytearray) -> dict[str, str]:
    """`{"data": text}` for valid UTF-8, else `{"b64": ...}`: the two byte encodings of the format."""
    try:
        return {"data": chunk.decode("utf-8")}
    except UnicodeDecodeError:
        return {"b64": base64.b64encode(chunk).decode("ascii")}


class Header:
    """Line 1 of a transcript: who was recorded, where and when.

    A plain value class: `mcptape record` builds one before its pumps start, and importing
    dataclasses there costs ~10 ms.
    """

    __slots__ = ("command", "cwd", "extra", "recorder", "started", "version")

    def __init__(
        self,
        version: int,
        started: str,
        command: list[str],
        cwd: str,
        recorder: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.version = version
        self.started = started
        self.command = command
        self.cwd = cwd
        self.recorder = {} if recorder is None else recorder
        self.extra = {} if extra is None else extra

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Header):
            return NotImplemented
        return self.to_record() == other.to_record()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Header({self.to_record()!r})"

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Header:
        known = {"mcptape", "started", "command", "cwd", "recorder"}
        command = record.get("command") or []
        return cls(
            version=int(record["mcptape"]),
            started=str(record.get("started", "")),
            command=[str(a) for a in command] if isinstance(command, list) else [str(command)],
            cwd=str(record.get("cwd", "")),
            recorder=dict(record.get("recorder") or {}),
            extra={k: v for k, v in record.items() if k not in known},
        )

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mcptape": self.version,
            "started": self.started,
            "command": list(self.command),
            "cwd": self.cwd,
            "recorder": dict(self.recorder),
        }
        out.update(self.extra)
        return out
