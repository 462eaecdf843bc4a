"""Progress on long work: `analyze_file` reports how far it has read, for `mcptape check`'s line."""

from __future__ import annotations

from pathlib import Path

from mcptape.check.analyze import FLUSH, analyze_file
from mcptape.transcript import Event
from mcptape.transcript.writer import new_header, write_transcript


def test_progress_reports_growing_offsets_up_to_the_file_size(tmp_path: Path) -> None:
    """Reading a file of several batches calls progress with increasing byte counts within the file."""
    path = tmp_path / "long.jsonl"
    lines = [
        Event(i / 1000, "out", text='{"jsonrpc":"2.0","method":"notifications/message","params":{}}\n')
        for i in range(FLUSH * 3)
    ]
    write_transcript(path, new_header(["srv"], "/"), lines)
    seen: list[int] = []
    _, analysis = analyze_file(str(path), progress=seen.append)
    assert analysis.messages["out"] == FLUSH * 3
    assert len(seen) >= 2
    assert seen == sorted(seen)
    assert 0 < seen[-1] <= path.stat().st_size
