"""One reader, one numbering: every line after the header has an event index (its line number
minus 2), whatever it holds, and the reader's three forms and the viewer's index agree on it."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.reader import BadLine, Transcript, line_of, open_transcript, read_line
from mcptape.transcript.writer import new_header, write_transcript


def _transcript(path: Path, lines: list[bytes]) -> Path:
    write_transcript(path, new_header(["srv"], "/"), [])
    with open(path, "ab") as fh:
        fh.write(b"".join(lines))
    return path


def _record(t: float, ch: str, data: str) -> bytes:
    return orjson.dumps({"t": t, "ch": ch, "data": data}) + b"\n"


DAMAGED = [
    _record(0.1, "in", "a\n"),
    b"garbage\n",
    b"\n",
    _record(0.2, "out", "b\n"),
    b'{"t":"0.3","ch":"out","data":"c\\n"}\n',
    _record(0.4, "out", "d\n"),
    b'{"t":0.5,"ch":"out","da',
]


def test_every_line_after_the_header_is_numbered(tmp_path: Path) -> None:
    """Unreadable, blank and torn lines take an index too: an event's index is its line minus 2."""
    transcript = open_transcript(_transcript(tmp_path / "t.jsonl", DAMAGED))
    items = list(transcript.records())
    assert [item.index for item in items] == list(range(len(DAMAGED)))
    assert [type(item).__name__ for item in items] == [
        "Event",
        "BadLine",
        "BadLine",
        "Event",
        "BadLine",
        "Event",
        "BadLine",
    ]
    assert [(e.index, e.data) for e in transcript.events()] == [(0, b"a\n"), (3, b"b\n"), (5, b"d\n")]
    assert [p.line for p in transcript.problems] == [line_of(1), line_of(4), line_of(6)] == [3, 6, 8]


def test_a_torn_last_line_says_so_in_every_reader(tmp_path: Path) -> None:
    """The one reason, built once: the records, the batches and the viewer's index give it alike."""
    path = _transcript(tmp_path / "t.jsonl", DAMAGED)
    transcript = open_transcript(path)
    last = list(transcript.records())[-1]
    assert isinstance(last, BadLine) and last.reason == "truncated last line (23 bytes)"
    list(transcript.batches())
    assert transcript.truncated and transcript.problems[-1].reason == last.reason
    index = TranscriptIndex(path)
    index.scan(final=True)
    torn = index.event(len(DAMAGED) - 1)
    assert isinstance(torn, BadLine) and torn.reason == last.reason


def test_the_viewer_rows_are_the_event_indexes(tmp_path: Path) -> None:
    """Row N of the index is the reader's item N: same kind, same index, same reason."""
    path = _transcript(tmp_path / "t.jsonl", DAMAGED)
    index = TranscriptIndex(path)
    index.scan(final=True)
    rows = [index.event(row) for row in range(len(index))]
    records = list(open_transcript(path).records())
    assert [(type(r).__name__, r.index) for r in rows] == [(type(r).__name__, r.index) for r in records]
    assert [r.reason for r in rows if isinstance(r, BadLine)] == [
        r.reason for r in records if isinstance(r, BadLine)
    ]


GOOD_LINES = [
    _record(0.1, "in", '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'),
    _record(0.2, "out", '{"jsonrpc":"2.0","id":1,"result":{}}\n'),
    _record(0.15, "out", "late\n"),  # a clock glitch: before the previous record of its channel
    _record(0.3, "err", "log\n"),
    _record(0.3, "out", "frag"),
    b'{"t":0.35,"ch":"out","b64":"//4K"}\n',
    b'{"t":1,"ch":"in","data":"integer time\\n"}\n',
    b'{"t":0.4,"ch":"eof","of":"in"}\n',
    b'{"t":0.5,"ch":"exit","code":0,"signal":null}\n',
    b'{"t":0.5,"ch":"zzz","data":"a channel this version does not know\\n"}\n',
    b'{"t":0.45,"ch":"eof","data":"bytes on a field channel\\n"}\n',
]
BAD_LINES = [
    b"garbage\n",
    b"\n",
    b"[1, 2]\n",
    b'{"t":true,"ch":"out","data":"x\\n"}\n',
    b'{"t":0.2,"ch":5,"data":"x\\n"}\n',
    b'{"t":0.2,"ch":"in","data":5}\n',
    b'{"t":0.2,"ch":"in","b64":"***"}\n',
    b'{"t":0.2,"ch":"in"}\n',
    b'{"t":0.2,"ch":"eof","of":[1]}\n',
    b'{"t":0.2,"ch":"exit","code":"x"}\n',
    b'{"t":0.2,"ch":"zzz","what":{"a":1}}\n',
]


def _reference_batches(transcript: Transcript) -> list[tuple[float, str, object, int]]:
    """The records the analysis takes, built from `records()` the plain way."""
    last: dict[str, float] = {}
    out: list[tuple[float, str, object, int]] = []
    for item in transcript.records():
        if isinstance(item, Event):
            t = max(item.t, last.get(item.ch, item.t))
            last[item.ch] = t
            out.append((t, item.ch, item.payload, item.index))
    return out


@settings(max_examples=80, deadline=None)
@given(
    lines=st.lists(st.sampled_from(GOOD_LINES + BAD_LINES), max_size=25),
    torn=st.sampled_from([b"", b'{"t":0.9,"ch":"out","da', b"x", _record(0.9, "out", "ok\n")[:-1]]),
    size=st.integers(min_value=1, max_value=6),
)
def test_the_fast_batches_have_a_twin_in_records(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], torn: bytes, size: int
) -> None:
    """`batches()` (one parse a line, no object) gives what `records()` gives, on damaged files too:
    the same records with the same indexes, the same problems."""
    path = _transcript(tmp_path_factory.mktemp("twin") / "t.jsonl", [*lines, torn])
    transcript = open_transcript(path)
    fast = [record for batch in transcript.batches(size) for record in batch.records]
    fast_problems = list(transcript.problems)
    assert fast == _reference_batches(transcript)
    assert fast_problems == transcript.problems
    file_lines = path.read_bytes().splitlines(keepends=True)
    for item in transcript.records():  # event N is file line N + 2, read again on its own
        assert type(read_line(file_lines[line_of(item.index) - 1], item.index)) is type(item)
