"""Corrupt lines in the middle of a transcript are reported where they are; the rest is read."""

from __future__ import annotations

from pathlib import Path

from mcptape.transcript import open_transcript
from mcptape.transcript.events import Event, Header
from mcptape.transcript.writer import write_transcript

BAD = [
    b"not json at all\n",
    b"[1, 2]\n",
    b'{"t": 0.15, "ch": "out", "b64": "***"}\n',
    b'{"t": 0.15, "data": "no channel\\n"}\n',
    b'{"t":0.15,"ch":"out","data":"\xff\xfe"}\n',
]


def test_corrupt_middle_lines_become_problems_and_later_events_still_count(tmp_path: Path) -> None:
    """Each bad line is one problem (line number, byte offset); the events around it are all kept."""
    path = tmp_path / "t.jsonl"
    write_transcript(path, Header(1, "now", ["srv"], "/"), [Event(0.1, "out", text="a\n")])
    good_size = path.stat().st_size
    with open(path, "ab") as fh:
        fh.write(b"".join(BAD))
        fh.write(b'{"t":0.2,"ch":"out","data":"b\\n"}\n')
    t = open_transcript(path)
    assert [e.data for e in t.events()] == [b"a\n", b"b\n"]
    assert not t.truncated
    assert [p.line for p in t.problems] == [3, 4, 5, 6, 7]
    offsets = [good_size + sum(len(b) for b in BAD[:i]) for i in range(len(BAD))]
    assert [p.offset for p in t.problems] == offsets
