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
# An HTTP transcript's raw bytes, each record with its exchange's number `x` (transcript/wire.py).
HTTP_IN, HTTP_OUT = "http-in", "http-out"
WIRE_CHANNELS: frozenset[str] = frozenset({HTTP_IN, HTTP_OUT})
# The records of the other channels: their fields, the JSON types each may have, and whether it
# must be there. A record of any other channel without bytes is of a kind this version cannot read.
FIELD_TYPES: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    EOF_: {"of": ((str,), True)},
    EXIT: {"code": ((int, type(None)), False), "signal": ((int, type(None)), False)},
    NOTE: {"msg": ((str,), False)},
}
_ABSENT = object()
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", int: "an integer", float: "a number"}


def _json_type(value: object) -> str:
    """`a string`, `an array`, ... (`missing or null` for None): what a field was instead."""
    if value is None:
        return "missing or null"
    if type(value) is bool:
        return "a boolean"
    return _JSON_TYPES.get(type(value), type(value).__name__)


MAX_T = 1e9
"""The largest `t` (seconds from the start, either sign) a record may have: about 31 years. A `t`
beyond it (`1e308`) is no recording's time, and as nanoseconds it overflows what an export writes."""

EXCHANGES_KEPT = 4096
"""Exchanges whose last time a reader keeps before it forgets the old ones (`forget_exchanges`)."""
STALE = 1.0
"""Seconds after which an exchange's last time is forgotten: the reorder buffer (check/reorder.py,
WINDOW 0.5 s) has let every record that old go, so its order is no longer decided by that time."""


def forget_exchanges(times: dict[str | int, float], newest: float) -> int:
    """Forget the HTTP exchanges (int keys) of `times` last seen more than STALE seconds before
    `newest`, so a reader's memory does not grow with a transcript's exchanges; returns the size at
    which to call again (twice what is left, at least EXCHANGES_KEPT: amortized constant time)."""
    horizon = newest - STALE
    for key in [k for k, last in times.items() if type(k) is int and last < horizon]:
        del times[key]
    return max(EXCHANGES_KEPT, 2 * len(times))


class Event:
    """One transcript record. `data` gives the raw bytes of a byte channel (b"" otherwise); `fields`
    holds a non-byte record's fields, or the exchange number `x` of an HTTP transcript's bytes."""

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

    @property
    def stream(self) -> str | int:
        """What this record's place in the file is exact within, whatever the times say: its HTTP
        exchange `x` (one connection's thread writes an exchange's records in order, whatever their
        channel, while several connections write `in` or `http-in` at once), else its channel (one
        pump's thread writes a stdio channel). Readers that order by time keep this order."""
        fields = self.fields
        if fields is not None:
            x = fields.get("x")
            if type(x) is int:
                return x
        return self.ch

    @property
    def payload(self) -> str | bytes | dict[str, Any]:
        """What the analysis takes: the text or bytes of a byte record, else its fields (an HTTP
        exchange's bytes: `{"x": number, "data": bytes}`)."""
        if (
            self.fields is not None
            and self.ch in WIRE_CHANNELS
            and (self.text is not None or self.raw is not None)
        ):
            return {"x": self.fields.get("x"), "data": self.data}
        if self.text is not None:
            return self.text
        if self.raw is not None:
            return self.raw
        return self.fields or {}

    @classmethod
    def from_record(cls, record: dict[str, Any], index: int = -1) -> Event:
        """Build an event from one decoded transcript line; raises ValueError saying why it is not
        one (a missing or mistyped field, an unknown kind of record)."""
        t = record.get("t")
        if (type(t) is not float and type(t) is not int) or t != t:
            raise ValueError(f"t is {_json_type(t)}, not a number")
        if not -MAX_T <= t <= MAX_T:
            raise ValueError(f"t is {t:.6g}, beyond {MAX_T:.0e} seconds")
        ch = record.get("ch")
        if type(ch) is not str:
            raise ValueError(f"ch is {_json_type(ch)}, not a string")
        text = record.get("data")
        if text is not None:
            if type(text) is not str:
                raise ValueError(f"data is {_json_type(text)}, not a string")
            x = record.get("x")  # an HTTP exchange's number (transcript/wire.py)
            return cls(float(t), ch, text=text, fields=None if type(x) is not int else {"x": x}, index=index)
        b64 = record.get("b64")
        if b64 is not None:
            if type(b64) is not str:
                raise ValueError(f"b64 is {_json_type(b64)}, not a string")
            try:
                raw = base64.b64decode(b64, validate=True)
            except ValueError:  # binascii.Error
                raise ValueError("b64 is not valid base64") from None
            x = record.get("x")
            return cls(float(t), ch, raw=raw, fields=None if type(x) is not int else {"x": x}, index=index)
        if ch in BYTE_CHANNELS:
            raise ValueError(f"a record of channel {ch} without data or b64")
        expected = FIELD_TYPES.get(ch)
        if expected is None:
            raise ValueError(f"a record of an unknown kind (channel {ch!r}, no data or b64)")
        rest = {k: v for k, v in record.items() if k != "t" and k != "ch"}
        record_of = f"{'an' if ch[0] in 'aeiou' else 'a'} {ch} record"
        for key, (types, required) in expected.items():
            value = rest.get(key, _ABSENT)
            if value is _ABSENT:
                if required:
                    raise ValueError(f"{record_of} without {key}")
            elif type(value) not in types:
                raise ValueError(f"{key} of {record_of} is {_json_type(value)}")
        return cls(float(t), ch, fields=rest, index=index)

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


# The header's own fields and the JSON type each must have when present (`pid`, `side_effects`,
# `redacted`, `probe` are optional and read by the commands that write them).
_HEADER_TYPES: dict[str, tuple[type, str]] = {
    "started": (str, "a string"),
    "command": (list, "an array of strings"),
    "cwd": (str, "a string"),
    "recorder": (dict, "an object"),
}


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
        """Build the header from line 1, decoded; raises ValueError naming a field of the wrong type
        (a missing field gets its empty value: `started`, `cwd` "", `command` [], `recorder` {})."""
        version = record["mcptape"]
        for key, (kind, what) in _HEADER_TYPES.items():
            value = record.get(key)
            if value is not None and type(value) is not kind:
                raise ValueError(f'"{key}" is {_json_type(value)}, not {what}')
        command = record.get("command") or []
        for arg in command:
            if type(arg) is not str:
                raise ValueError(f'"command" holds {_json_type(arg)}, not only strings')
        return cls(
            version=version,
            started=record.get("started") or "",
            command=list(command),
            cwd=record.get("cwd") or "",
            recorder=dict(record.get("recorder") or {}),
            extra={k: v for k, v in record.items() if k not in _HEADER_TYPES and k != "mcptape"},
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
