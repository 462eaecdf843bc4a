"""The transcript index: rows found in the background, read on demand, a growing file followed."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.errors import TranscriptError
from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.reader import BadLine
from tests.tui.transcripts import banner_session, write


def test_rows_are_the_event_lines_in_file_order(tmp_path: Path) -> None:
    """Every event line after the header is a row, decoded with the reader's own parser."""
    index = TranscriptIndex(banner_session(tmp_path / "t.jsonl"))
    assert len(index) == 0
    index.scan()
    assert len(index) == 11
    first = index.event(0)
    assert isinstance(first, Event) and first.ch == "in" and first.index == 0
    assert index.event(4) == Event(0.011, "out", text="Weather server v2.1 listening (debug=on)\n")
    assert index.line(10).endswith(b"\n")
    assert index.read_rows(3, 5) == [index.line(3), index.line(4)]


def test_scan_reports_progress_window_by_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Progress is reported after each window, so a huge file shows rows long before the end."""
    import mcptape.transcript.index as module

    monkeypatch.setattr(module, "WINDOW", 256)
    path = write(tmp_path / "t.jsonl", [Event(i * 0.001, "out", text=f'{{"n":{i}}}\n') for i in range(200)])
    index = TranscriptIndex(path)
    seen: list[int] = []
    index.scan(progress=lambda rows, scanned, size: seen.append(rows))
    assert len(seen) > 10 and seen == sorted(seen) and seen[-1] == 200
    assert [index.event(i) for i in (0, 199)] == [
        Event(0.0, "out", text='{"n":0}\n'),
        Event(0.199, "out", text='{"n":199}\n'),
    ]


def test_a_growing_file_is_followed_and_a_partial_line_waits(tmp_path: Path) -> None:
    """New lines appended later become new rows; a line still being written is held back."""
    path = write(tmp_path / "t.jsonl", [Event(0.1, "out", text="a\n")])
    index = TranscriptIndex(path)
    assert index.scan(final=False) == 1
    with open(path, "ab") as fh:
        fh.write(b'{"t":0.2,"ch":"out","data":"b\\n"}\n{"t":0.3,"ch":"out","da')
    assert index.scan(final=False) == 1
    assert not index.truncated
    with open(path, "ab") as fh:
        fh.write(b'ta":"c\\n"}\n')
    assert index.scan(final=False) == 1
    assert [index.event(i) for i in range(3)] == [
        Event(0.1, "out", text="a\n"),
        Event(0.2, "out", text="b\n"),
        Event(0.3, "out", text="c\n"),
    ]


def test_a_truncated_last_line_becomes_a_bad_row(tmp_path: Path) -> None:
    """A recorder killed mid-write: every earlier row is intact, the last one says it is truncated."""
    path = write(tmp_path / "t.jsonl", [Event(0.1, "out", text="a\n")])
    with open(path, "ab") as fh:
        fh.write(b'{"t":0.2,"ch":"out","da')
    index = TranscriptIndex(path)
    index.scan()
    assert index.truncated and len(index) == 2
    bad = index.event(1)
    assert isinstance(bad, BadLine) and bad.reason.startswith("truncated last line")


def test_malformed_lines_are_rows_too(tmp_path: Path) -> None:
    """A line that is not an event is kept as a row with the reason (noise is data)."""
    path = write(tmp_path / "t.jsonl", [Event(0.1, "out", text="a\n")])
    with open(path, "ab") as fh:
        fh.write(b"not json\n\n")
    index = TranscriptIndex(path)
    index.scan()
    reasons = [str(getattr(index.event(i), "reason", "")) for i in range(len(index))]
    assert reasons[0] == "" and reasons[1].startswith("not JSON") and reasons[2] == "blank line"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"hello\n", "is not an mcptape transcript"),
        (b'{"mcptape": 1, "started": "x", "comm', "is not an mcptape transcript"),
        (b'{"mcptape": 99}\n', "is a version 99 transcript"),
    ],
)
def test_unreadable_files_fail_with_one_sentence(tmp_path: Path, content: bytes, message: str) -> None:
    """Empty, foreign, header-truncated and future files are refused before any scan."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(content)
    with pytest.raises(TranscriptError, match=message):
        TranscriptIndex(path)


def test_a_missing_file_fails_with_one_sentence(tmp_path: Path) -> None:
    """A path that does not exist names itself in the error."""
    with pytest.raises(TranscriptError, match="does not exist"):
        TranscriptIndex(tmp_path / "nope.jsonl")
