"""replay and diff stream the sessions they compare: a transcript as large as a server's flood is
never held in memory whole."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from mcptape.replay.api import ReplayResult, diff_files, replay
from mcptape.replay.outcome import Run
from mcptape.replay.stdio.driver import StdioDriver
from mcptape.transcript.events import Event, Header
from mcptape.transcript.writer import write_transcript
from tests.conftest import PYTHON

pytestmark = pytest.mark.slow

GOOD = Path(__file__).resolve().parents[2] / "transcripts" / "sdk-echo-tool-handshake.jsonl"
FLOOD = 16 << 20  # bytes of stderr noise, in lines of CHUNK bytes (the check core itself buffers
CHUNK = 1 << 10  # 4096 records: lines of 1 KiB keep that buffer at 4 MiB)


def _peak(work: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_diff_does_not_hold_a_flooded_transcript_in_memory(tmp_path: Path) -> None:
    """16 MiB of stderr (not compared without --stderr): diff peaks below half the file size."""
    flooded = tmp_path / "flooded.jsonl"
    noise = "n" * (CHUNK - 1) + "\n"
    events = [Event(0.001 * i, "err", text=noise) for i in range(FLOOD // CHUNK)]
    write_transcript(flooded, Header(1, "now", ["srv"], "/"), events)
    del events, noise
    assert _peak(lambda: diff_files(GOOD, flooded)) < FLOOD // 2


def test_replay_does_not_hold_the_new_session_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new build writes 16 MiB to stderr and exits: reading its session back for the diff peaks
    below half of it (the recorder's own bounded queue is measured apart, before)."""
    run = StdioDriver.replay

    def run_then_reset_peak(self: StdioDriver) -> Run:
        result = run(self)
        tracemalloc.reset_peak()
        return result

    monkeypatch.setattr(StdioDriver, "replay", run_then_reset_peak)
    flood = f"import os\nfor _ in range({FLOOD // CHUNK}): os.write(2, b'n' * {CHUNK - 1} + b'\\n')\n"
    out = tmp_path / "new.jsonl"
    peak = _peak(lambda: replay(GOOD, [PYTHON, "-c", flood], output=out, step_timeout=5, config=False))
    assert out.stat().st_size > FLOOD  # the whole flood was recorded
    assert peak < FLOOD // 2


def test_replay_does_not_hold_the_original_session_in_memory(tmp_path: Path) -> None:
    """A recording whose server wrote 16 MiB to stderr, replayed against the same server: the plan
    and the diff read the recording as they go, peaking below half the flood."""
    from mcptape.transcript import open_transcript
    from tests.conftest import SERVERS

    recorded = open_transcript(str(GOOD))
    noise = "n" * (CHUNK - 1) + "\n"
    events = list(recorded.events())
    start = events[0].t
    flood = [Event(start, "err", text=noise) for _ in range(FLOOD // CHUNK)]
    flooded = tmp_path / "flooded.jsonl"
    write_transcript(flooded, recorded.header, [*flood, *events])
    del flood, events, noise
    new = tmp_path / "new.jsonl"
    results: list[ReplayResult] = []
    command = [PYTHON, str(SERVERS / "fast" / "echo_tool.py")]
    peak = _peak(lambda: results.append(replay(flooded, command, output=new, step_timeout=10, config=False)))
    assert results[0].same, results[0].render()
    assert flooded.stat().st_size > FLOOD
    assert peak < FLOOD // 2
