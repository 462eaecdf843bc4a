"""The viewer's headless parts: search queries, byte search, row views, the header's sentences."""

from __future__ import annotations

from array import array
from pathlib import Path

import pytest

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model.facts import collect_facts
from mcptape.tui.model.query import parse_query
from mcptape.tui.model.rowview import RowView
from mcptape.tui.model.search import find_bytes
from mcptape.tui.model.summary import landing, status_line, verdict
from tests.tui.transcripts import banner_session, exec_after_reject_session, handshake, write


@pytest.mark.parametrize(
    ("typed", "needle"),
    [
        ("plain", b"plain"),
        (r"\x1b[31m", b"\x1b[31m"),
        (r"\xff\xfe", b"\xff\xfe"),
        (r"a\nb\r\t\\", b"a\nb\r\t\\"),
        (r"caf\u00e9", "café".encode()),
        ("café", "café".encode()),
        (r"\q stays", b"\\q stays"),
    ],
)
def test_a_search_query_stands_for_raw_bytes(typed: str, needle: bytes) -> None:
    """Backslash escapes in the search box give the exact bytes, even non-UTF-8 ones."""
    assert parse_query(typed) == needle


def test_byte_search_looks_at_event_bytes_not_their_json(tmp_path: Path) -> None:
    """A quote or a newline is found as the byte it is, not as its JSON escape; search wraps."""
    path = write(
        tmp_path / "t.jsonl",
        [
            Event(0.0, "out", text='say "hi"\n'),
            Event(0.1, "err", raw=b"\xff\x00 boom\n"),
            Event(0.2, "out", text="no match here\n"),
        ],
    )
    index = TranscriptIndex(path)
    index.scan()
    assert find_bytes(index, b'"hi"\n', 2) == 0
    assert find_bytes(index, b"\\", 0) is None
    assert find_bytes(index, b"\xff\x00", 0) == 1
    assert find_bytes(index, b"boom", 1) == 1  # the only match, reached after wrapping
    assert find_bytes(index, b"say", 1, direction=-1) == 0


def test_a_row_view_maps_positions_to_rows() -> None:
    """A filtered view finds the nearest shown row for a hidden one."""
    view = RowView(lambda: 10, array("i", [2, 5, 7]))
    assert [view.row(i) for i in range(len(view))] == [2, 5, 7]
    assert view.position(5) == 1 and view.position(6) == 2 and view.position(9) == 2
    assert view.contains(7) and not view.contains(6)
    assert len(RowView(lambda: 10)) == 10


def test_header_sentences_of_a_banner_session(tmp_path: Path) -> None:
    """Status, verdict and landing row come from the index and the check core's results."""
    index = TranscriptIndex(banner_session(tmp_path / "t.jsonl"))
    index.scan()
    facts = collect_facts(index)
    assert facts is not None
    assert status_line(index, facts) == "11 rows · duration 0.041s · exit 0 · protocol 2025-06-18"
    assert verdict(facts) == ("verdict: 1 finding (1 error) — non-protocol-output ×1", "bold red")
    row, reason = landing(facts)
    assert row == 4 and reason.startswith("cursor: first non-protocol line on stdout (line 2, byte 143)")


def test_landing_falls_back_to_the_first_finding_then_to_nothing(tmp_path: Path) -> None:
    """Without a non-protocol line the first finding is the landing row; a clean session has none."""
    events = [*handshake(), Event(0.1, "exit", fields={"code": 0, "signal": None})]
    clean = TranscriptIndex(write(tmp_path / "clean.jsonl", events))
    clean.scan()
    facts = collect_facts(clean)
    assert facts is not None and verdict(facts) == ("verdict: clean (no findings)", "bold green")
    assert landing(facts) == (
        None,
        "every line is protocol and no rule found anything; cursor on the first row",
    )
    path = exec_after_reject_session(tmp_path / "deploy.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(line for line in lines if b"plugins loaded" not in line))
    deploy = TranscriptIndex(path)
    deploy.scan()
    facts = collect_facts(deploy)
    assert facts is not None
    row, reason = landing(facts)
    assert row == 7 and reason.startswith("cursor: first finding (exec-after-reject)")
