"""`view --follow`: the analysis of a growing transcript feeds each new row once and says what a
fresh analysis of the same rows would say."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from mcptape.check.model import Finding
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model.facts import FactsCollector
from mcptape.tui.model.rowfacts import RowFacts
from tests.tui.transcripts import banner_session, exec_after_reject_session, hostile_session

REPO = Path(__file__).resolve().parents[2]


def bench_session(path: Path) -> Path:
    """3,000 generated messages with `in` records written late, as the recorder's threads do."""
    from bench.bench_check import generate

    generate(path, 3000)
    return path


def summary(facts: RowFacts) -> tuple[object, ...]:
    """Everything the viewer shows from the facts, in comparable form."""
    analysis = facts.analysis
    assert analysis is not None
    rows = range(facts.rows)
    return (
        facts.rows,
        bytes(facts.kind),
        bytes(facts.channel),
        list(facts.pair),
        [facts.method_of(r) for r in rows],
        [facts.tool_of(r) for r in rows],
        list(facts.order.rows(facts.rows)),
        {row: [f.rule for f in found] for row, found in facts.findings.items()},
        facts.finding_rows,
        facts.frame_start,
        facts.frame_rows,
        [(f.rule, f.channel, f.line, f.offset, f.event, f.message) for f in analysis.findings],
        dict(analysis.messages),
        (analysis.exited, analysis.exit_code, analysis.protocol_version, analysis.rejects),
        analysis.exec_calls,
    )


def fresh(lines: list[bytes], path: Path) -> RowFacts:
    """A fresh analysis of `lines` as follow mode makes it: a snapshot (the recording goes on, so
    a missing exit record is no incomplete capture yet)."""
    path.write_bytes(b"".join(lines))
    index = TranscriptIndex(path)
    index.scan()
    facts = FactsCollector().collect(index)
    assert facts is not None
    return facts


@pytest.mark.parametrize(
    ("make", "step"),
    [
        (banner_session, 1),
        (exec_after_reject_session, 1),
        (hostile_session, 1),
        (lambda p: shutil.copy(REPO / "transcripts" / "sdk-echo-tool-handshake.jsonl", p) and p, 1),
        (bench_session, 613),
    ],
    ids=["banner", "exec-after-reject", "hostile", "real-sdk-session", "late-records"],
)
def test_following_a_growing_transcript_matches_a_fresh_analysis(
    tmp_path: Path, make: Callable[[Path], Path], step: int
) -> None:
    """After each growth (whole lines: a line still being written stays pending in follow mode, see
    test_follow_line_being_written), the facts equal those of analysing the same rows afresh."""
    source = make(tmp_path / "source.jsonl")
    lines = Path(source).read_bytes().splitlines(keepends=True)
    growing = tmp_path / "growing.jsonl"
    growing.write_bytes(lines[0])
    index = TranscriptIndex(growing)
    collector = FactsCollector()
    cuts = [*range(2, len(lines), step), len(lines)]
    with open(growing, "ab") as out:
        written = 1
        for cut in cuts:
            out.write(b"".join(lines[written:cut]))
            out.flush()
            written = cut
            index.scan(final=False)
            snapshot = collector.collect(index)
            assert snapshot is not None
            assert collector.fed == len(index) == cut - 1
            assert summary(snapshot) == summary(fresh(lines[:cut], tmp_path / "prefix.jsonl"))


def test_a_pass_feeds_only_the_rows_added_since_the_last(tmp_path: Path) -> None:
    """The second pass reads only the new rows from the index."""
    lines = banner_session(tmp_path / "s.jsonl").read_bytes().splitlines(keepends=True)
    growing = tmp_path / "g.jsonl"
    growing.write_bytes(b"".join(lines[:6]))
    index = TranscriptIndex(growing)
    index.scan(final=False)
    read: list[tuple[int, int]] = []
    real_read = index.read_rows

    def spy(start: int, stop: int) -> list[bytes]:
        read.append((start, stop))
        return real_read(start, stop)

    index.read_rows = spy  # type: ignore[method-assign]
    collector = FactsCollector()
    assert collector.collect(index) is not None
    with open(growing, "ab") as out:
        out.write(b"".join(lines[6:]))
    index.scan(final=False)
    assert collector.collect(index) is not None
    assert read == [(0, 5), (5, len(lines) - 1)]


def test_a_finished_analysis_takes_no_more_rows(tmp_path: Path) -> None:
    """`final=True` finishes the live analysis; feeding it again is a programming error."""
    index = TranscriptIndex(banner_session(tmp_path / "s.jsonl"))
    index.scan()
    collector = FactsCollector()
    assert collector.collect(index, final=True) is not None
    with pytest.raises(RuntimeError):
        collector.collect(index)


def test_the_first_line_callback_is_shared_not_copied(tmp_path: Path) -> None:
    """The caller's `first_line` (a method of an object holding a lock, like the app) survives
    the snapshots uncopied and hears of the first bad line."""
    import threading

    class Listener:
        def __init__(self) -> None:
            self.lock = threading.Lock()  # cannot be deep-copied
            self.heard: list[int] = []

        def first_line(self, finding: Finding) -> None:
            with self.lock:
                self.heard.append(finding.event)

    lines = banner_session(tmp_path / "s.jsonl").read_bytes().splitlines(keepends=True)
    growing = tmp_path / "g.jsonl"
    growing.write_bytes(b"".join(lines[:3]))
    index = TranscriptIndex(growing)
    listener = Listener()
    collector = FactsCollector(first_line=listener.first_line)
    index.scan(final=False)
    assert collector.collect(index) is not None and listener.heard == []
    with open(growing, "ab") as out:
        out.write(b"".join(lines[3:-1]))
    index.scan(final=False)
    assert collector.collect(index) is not None
    with open(growing, "ab") as out:
        out.write(lines[-1])  # more rows: the live pass now reaches the banner row too
    index.scan(final=False)
    assert collector.collect(index) is not None
    assert listener.heard == [4]  # the banner row, where a fresh analysis lands too; told once


def stray_answer(i: int) -> bytes:
    """An answer to a request never sent: one finding per row."""
    msg = {"jsonrpc": "2.0", "id": i, "result": {}}
    return orjson.dumps({"t": i * 1e-4, "ch": "out", "data": orjson.dumps(msg).decode() + "\n"}) + b"\n"


def test_a_follow_pass_shares_the_findings_already_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Findings are frozen: a snapshot shares them, so a growth's cost does not grow with their number."""
    copied: list[Finding] = []

    def counting_deepcopy(self: Finding, memo: dict[int, object]) -> Finding:
        copied.append(self)
        return self

    monkeypatch.setattr(Finding, "__deepcopy__", counting_deepcopy, raising=False)
    header = {"mcptape": 1, "started": "2026-01-01T00:00:00Z", "command": ["x"], "cwd": "/", "recorder": {}}
    live = tmp_path / "live.jsonl"
    live.write_bytes(orjson.dumps(header) + b"\n" + b"".join(stray_answer(i) for i in range(5000)))
    index = TranscriptIndex(live)
    index.scan(final=False)
    collector = FactsCollector()
    assert collector.collect(index) is not None
    with open(live, "ab") as out:
        out.write(stray_answer(5000))
    index.scan(final=False)
    copied.clear()
    snapshot = collector.collect(index)
    assert snapshot is not None and len(snapshot.findings) == 5001
    assert copied == [], f"{len(copied):,} findings deep-copied for a growth of one row"
