"""The transcript reader: lazy events, a tolerated truncated tail, one clear error for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.errors import TranscriptError
from mcptape.transcript import Event, open_transcript, reader
from mcptape.transcript.writer import new_header, write_transcript


def _write(path: Path, events: list[Event]) -> None:
    write_transcript(path, new_header(["srv"], "/tmp"), events)


def test_events_round_trip_text_and_binary(tmp_path: Path) -> None:
    """Text and non-UTF-8 bytes come back exactly, fields events keep their fields."""
    path = tmp_path / "t.jsonl"
    events = [
        Event(0.1, "in", text='{"jsonrpc":"2.0"}\n'),
        Event(0.2, "out", raw=b"\xff\xfe bad\n"),
        Event(0.3, "eof", fields={"of": "in"}),
        Event(0.4, "exit", fields={"code": 3, "signal": None}),
    ]
    _write(path, events)
    got = list(open_transcript(path).events())
    assert [e.data for e in got] == [b'{"jsonrpc":"2.0"}\n', b"\xff\xfe bad\n", b"", b""]
    assert got[2].get("of") == "in"
    assert got[3].get("code") == 3
    assert (path.stat().st_mode & 0o777) == 0o600


def test_truncated_last_line_is_reported_and_the_rest_kept(tmp_path: Path) -> None:
    """A recorder killed mid-write leaves a partial last line: every earlier event stays readable."""
    path = tmp_path / "t.jsonl"
    _write(path, [Event(0.1, "out", text="a\n"), Event(0.2, "out", text="b\n")])
    with open(path, "ab") as fh:
        fh.write(b'{"t":0.3,"ch":"out","da')
    transcript = open_transcript(path)
    got = list(transcript.events())
    assert [e.data for e in got] == [b"a\n", b"b\n"]
    assert transcript.truncated
    assert transcript.problems[0].line == 4


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "is empty"),
        (b"\x00\x01\x02\xff binary", "not an mcptape transcript"),
        (b'{"jsonrpc":"2.0"}\n', "not an mcptape transcript"),
        (b'{"mcptape": 99, "started": ""}\n', "version 99 transcript"),
        (b'{"mcptape": "one"}\n', "invalid transcript version"),
    ],
)
def test_unreadable_files_give_one_clear_error(tmp_path: Path, content: bytes, expected: str) -> None:
    """Empty, binary, non-transcript and future-version files are refused before any work."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(TranscriptError) as info:
        open_transcript(path)
    assert expected in str(info.value)
    assert exc_is_one_line(info.value)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    """A missing path and a directory each get a sentence naming the path."""
    with pytest.raises(TranscriptError, match="does not exist"):
        open_transcript(tmp_path / "nope.jsonl")
    with pytest.raises(TranscriptError, match="is a directory"):
        open_transcript(tmp_path)


def exc_is_one_line(exc: Exception) -> bool:
    return "\n" not in str(exc)


def test_the_header_is_read_with_a_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At most MAX_HEADER bytes are read for line 1, so a huge file without newlines is never read whole."""
    path = tmp_path / "t.jsonl"
    write_transcript(path, new_header(["srv", "x" * 200], "/"), [])
    open_transcript(path)  # a whole header is fine
    monkeypatch.setattr(reader, "MAX_HEADER", 100)
    with pytest.raises(TranscriptError, match="is not an mcptape transcript"):
        open_transcript(path)
