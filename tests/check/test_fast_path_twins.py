"""Every hand-inlined fast path has a twin, and they agree on valid and on damaged input.

* `ChannelFramer.whole` (a line counted without a Frame) against `ChannelFramer.feed`;
* the file path of the analysis (`analyze_file`: the reader's batches, `Analyzer.feed_records`),
  against the event path (`analyze(transcript.events())`), the viewer's path (its index's rows
  decoded one by one, fed with `Analyzer.feed`) and the general path (every line framed and
  classified, none taking the hot loop's shortcut): the same findings at the same event indexes,
  on files with unreadable lines, a torn last line, records out of time order and clock glitches.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.check.analyze import Analyzer, analyze, analyze_file, reading_notes
from mcptape.check.framing import ChannelFramer
from mcptape.check.model import Analysis, Finding
from mcptape.transcript import Event, open_transcript
from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.writer import new_header, write_transcript
from tests.check.helpers import error, request, result

texts = st.lists(
    st.sampled_from(["a\n", "é\n", "part", "ial\n", "two\nlines\n", "\n", "tail", '{"x":1}\n']),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(texts)
def test_a_whole_line_counted_fast_is_the_frame_feed_gives(pieces: list[str]) -> None:
    """`whole` takes a piece only when it is exactly one line with nothing pending; then its line
    number and offset are the ones `feed` gives the same piece."""
    fast, slow = ChannelFramer("out"), ChannelFramer("out")
    seen_fast: list[tuple[int, int, bytes]] = []
    for i, piece in enumerate(pieces):
        offset = fast.whole(piece)
        if offset >= 0:
            seen_fast.append((fast.line, offset, piece.encode()))
        else:
            seen_fast.extend((f.line, f.offset, f.raw) for f in fast.feed(piece.encode(), 0.0, i))
    seen_slow = [
        (f.line, f.offset, f.raw) for i, p in enumerate(pieces) for f in slow.feed(p.encode(), 0.0, i)
    ]
    assert seen_fast == seen_slow
    assert (fast.line, fast.offset, fast.parts) == (slow.line, slow.offset, slow.parts)


def _record(t: float, ch: str, data: bytes) -> bytes:
    try:
        body: dict[str, Any] = {"data": data.decode()}
    except UnicodeDecodeError:
        body = {"b64": base64.b64encode(data).decode()}
    return orjson.dumps({"t": t, "ch": ch, **body}) + b"\n"


MESSAGES = [
    ("in", request(1, "ping")),
    ("out", result(1)),
    ("in", request(2, "tools/call", {"name": "a", "arguments": {"x": "é\\n"}})),
    ("out", error(2)),
    ("exec", b'{"action":"deploy","request_id":2}\n'),
    ("exec", b"not json\n"),
    ("http", b'{"method":"GET","url":"http://x/"}\n'),
    ("in", request(3, "ping")),
    ("out", b"debug: hi\n"),
    ("in", b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n'),
    ("out", b"\xff\xfe\n"),
    ("out", b"{}\r\n"),
    ("out", b'{"jsonrpc":"2.0","id":3,'),
    ("err", b"log line\n"),
]
DAMAGE = [
    b"garbage\n",
    b"\n",
    b'{"t":"0.1","ch":"in","data":"x\\n"}\n',
    b'{"t":0.1,"ch":"out"}\n',
    b'{"t":0.1,"ch":"zzz","what":1}\n',
    b'{"t":0.1,"ch":"eof","of":"out"}\n',
]
TORN = [b"", b'{"t":9.0,"ch":"out","da', b"{", _record(9.0, "in", request(9, "ping"))[:-1]]

lines = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(MESSAGES), st.integers(min_value=-3, max_value=3)),
        st.sampled_from(DAMAGE),
    ),
    max_size=24,
)


def _damaged_file(path: Path, items: list[Any], torn: bytes) -> Path:
    """Records whose times step 1 ms, each moved by a few ms either way (records out of time
    order across channels, and clock glitches within one), with damage lines between them."""
    write_transcript(path, new_header(["srv"], "/"), [])
    out = []
    for i, item in enumerate(items):
        if isinstance(item, bytes):
            out.append(item)
        else:
            (ch, data), jitter = item
            out.append(_record(round(0.001 * (i + 1) + 0.002 * jitter, 6), ch, data))
    with open(path, "ab") as fh:
        fh.write(b"".join(out) + torn)
    return path


def _by_rows(path: Path) -> Analysis:
    """The viewer's way: every row of its index decoded with the reader's `read_line`, fed."""
    index = TranscriptIndex(path)
    index.scan(final=True)
    analyzer = Analyzer()
    for row in range(len(index)):
        event = index.event(row)
        if isinstance(event, Event):
            analyzer.feed(event)
    return analyzer.finish()


def _general_path(events: list[Event]) -> Analysis:
    """The plain way: every byte event given as bytes, so no line takes the hot loop's shortcut
    (whole-line count, one parse, `shape`): each goes through the framer and `classify`."""
    plain = [Event(e.t, e.ch, raw=e.data, index=e.index) if e.fields is None else e for e in events]
    return analyze(plain)


def _lines(analysis: Analysis) -> list[Finding]:
    """The findings about lines (the recording's own, incomplete-capture, left out)."""
    return [f for f in analysis.findings if f.rule != "incomplete-capture"]


def _where(findings: list[Finding]) -> list[Any]:
    return [(f.rule, f.channel, f.line, f.event, [r.event for r in f.related]) for f in findings]


@settings(max_examples=80, deadline=None)
@given(lines, st.sampled_from(TORN))
def test_the_file_reader_the_event_api_and_the_viewer_rows_agree_on_damaged_files(
    tmp_path_factory: pytest.TempPathFactory, items: list[Any], torn: bytes
) -> None:
    """Three ways in, one analysis: the same findings (rule, line, event index, related events),
    first non-protocol lines, counts and notes, whatever the file's damage."""
    path = _damaged_file(tmp_path_factory.mktemp("twin") / "t.jsonl", items, torn)
    _, from_file = analyze_file(str(path))
    transcript = open_transcript(path)
    from_events = analyze(transcript.events())
    from_rows = _by_rows(path)
    from_plain = _general_path(list(transcript.events()))
    # The recording's own finding (incomplete-capture: these files have no exit record) is about
    # the file, not a line: every way gives it, and only the file reader also names a torn last line.
    [capture] = [f for f in from_file.findings if f.rule == "incomplete-capture"]
    assert ("is torn" in capture.message) == transcript.truncated
    for other in (from_events, from_rows, from_plain):
        assert [f.rule for f in other.findings].count("incomplete-capture") == 1
        assert _lines(from_file) == _lines(other)
        assert _where(_lines(from_file)) == _where(_lines(other))
        assert from_file.first_non_protocol == other.first_non_protocol
        assert from_file.messages == other.messages
        assert (from_file.rejects, from_file.exec_calls, from_file.latency.count) == (
            other.rejects,
            other.exec_calls,
            other.latency.count,
        )
    assert from_file.notes == reading_notes(transcript)
