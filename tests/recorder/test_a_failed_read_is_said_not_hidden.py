"""A read error on a recorded stream ends that stream, and the recorder says so instead of hiding it."""

from __future__ import annotations

import os
from pathlib import Path

from mcptape.recorder.pumps import Pump


class _Chunks:
    def __init__(self) -> None:
        self.chunks: list[tuple[str, bytes]] = []

    def now(self) -> float:
        return 0.0

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        self.chunks.append((ch, bytes(data)))


def test_a_read_error_is_reported_and_ends_the_stream(tmp_path: Path) -> None:
    """readv on a directory fails (EISDIR): the pump calls on_read_error with the error, then on_eof."""
    fd = os.open(tmp_path, os.O_RDONLY)
    errors: list[tuple[str, OSError]] = []
    ends: list[float] = []
    sink = _Chunks()
    pump = Pump("err", fd, None, sink, on_eof=ends.append, on_read_error=lambda ch, e: errors.append((ch, e)))
    pump.run()
    os.close(fd)
    assert [(ch, type(e)) for ch, e in errors] == [("err", IsADirectoryError)]
    assert ends == [0.0]
    assert sink.chunks == []
