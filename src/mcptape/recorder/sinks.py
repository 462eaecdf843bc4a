"""What pumps and listeners record into: anything with `now()`, `chunk()` and `fields()`.

Only type checkers read this module on the record path (typing costs milliseconds there); the
side-effect listeners import it at run time.
"""

from __future__ import annotations

from typing import Any, Protocol


class Sink(Protocol):
    """Where byte events go: the transcript writer, a spool in front of it, or a test double."""

    def now(self) -> float: ...

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None: ...


class Target(Sink, Protocol):
    """A sink that also records field events (`eof`, `exit`, `note`)."""

    def fields(self, t: float, ch: str, **fields: Any) -> None: ...
