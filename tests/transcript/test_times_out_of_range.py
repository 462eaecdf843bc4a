"""A record's `t` beyond any recording's length (`1e308`, `-1e300`, `2**70`) is an unreadable line,
in the general reader and in check's fast path alike: every command goes on without it (export
overflowed turning it into nanoseconds: a traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.jsonsafe import dumps
from mcptape.transcript import open_transcript
from mcptape.transcript.reader import BadLine
from tests.inprocess import run

HEADER = {
    "mcptape": 1,
    "started": "2026-11-29T19:38:30.593206Z",
    "command": ["srv"],
    "cwd": "/",
    "recorder": {"name": "mcptape", "version": "0.1.0"},
}
PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
PONG = '{"jsonrpc":"2.0","id":1,"result":{}}\n'


def _session(path: Path, t: float | int) -> Path:
    records = [
        {"t": 0.1, "ch": "in", "data": PING},
        {"t": 0.2, "ch": "out", "data": PONG},
        {"t": t, "ch": "out", "data": PONG},  # after a record of its channel: check's fast path
        {"t": t, "ch": "err", "data": "late\n"},  # the first of its channel: the general path
        {"t": 0.3, "ch": "exit", "code": 0},
    ]
    path.write_text("\n".join(dumps(r) for r in [HEADER, *records]) + "\n")
    return path


@pytest.mark.parametrize("t", [1e308, -1e300, 2**70, 1.0e10], ids=["1e308", "-1e300", "2**70", "1e10"])
def test_a_time_beyond_any_recording_is_an_unreadable_line(tmp_path: Path, t: float | int) -> None:
    """Both records timed `t` are unreadable lines (reported with their number); check, the exports
    and the viewer's reader read the rest."""
    path = _session(tmp_path / "s.jsonl", t)
    transcript = open_transcript(path)
    bad = [item for item in transcript.records() if type(item) is BadLine]
    assert [b.index for b in bad] == [2, 3] and "beyond 1e+09 seconds" in bad[0].reason
    assert [r[3] for batch in transcript.batches() for r in batch.records] == [0, 1, 4]
    checked = run("check", "--json", path, text=True)
    assert checked.returncode == 0 and "Traceback" not in checked.stderr, checked.stderr
    assert "beyond 1e+09 seconds" in checked.stdout
    for name in ("otlp", "har", "html"):
        exported = run("export", path, "--format", name, "-o", tmp_path / f"s.{name}", text=True)
        assert exported.returncode == 0, exported.stderr
        assert "transcript line 4 (" in exported.stderr and "Traceback" not in exported.stderr


def test_a_time_within_range_is_read(tmp_path: Path) -> None:
    """A session 30 years long, or a clock that went back, is still read."""
    path = _session(tmp_path / "s.jsonl", 9.9e8)
    assert not [item for item in open_transcript(path).records() if type(item) is BadLine]
