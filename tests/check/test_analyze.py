"""The streaming analysis API: time order across channels, callbacks per line, bounded memory."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.check.analyze import Analyzer, analyze, analyze_file, messages, ordered
from mcptape.check.model import Kind, Message
from mcptape.check.report import render_text
from mcptape.transcript import Event, open_transcript
from mcptape.transcript.writer import new_header, write_transcript
from tests.check.helpers import error, events, request, result, run


def test_a_response_recorded_before_its_request_is_paired_by_time() -> None:
    """Channels are recorded by separate threads: file order across channels is not time order."""
    analysis = run(
        ("out", result(1), 0.0020),
        ("in", request(1, "ping"), 0.0010),
        ("in", request(2, "ping"), 0.003),
        ("out", result(2), 0.0040),
    )
    assert analysis.findings == []
    assert analysis.latency.count == 2
    assert abs(analysis.latency.max - 0.001) < 1e-9


def test_an_exec_line_recorded_before_the_request_it_follows_is_still_attributed() -> None:
    """exec-after-reject holds even when the exec record lands in the file before the request record."""
    analysis = run(
        ("exec", b'{"action":"deploy"}\n', 0.0015),
        ("in", request(5, "tools/call", {"name": "deploy"}), 0.0010),
        ("out", error(5), 0.0020),
    )
    assert [f.rule for f in analysis.findings] == ["exec-after-reject"]
    assert analysis.findings[0].request_id == 5


def test_ordered_sorts_by_time_across_channels_but_keeps_each_channel_in_file_order() -> None:
    """A channel's own order is exact even if its recorded times go backwards."""
    evs = [
        Event(0.2, "out", raw=b"a\n", index=0),
        Event(0.1, "in", raw=b"b\n", index=1),
        Event(0.05, "out", raw=b"c\n", index=2),
    ]
    assert [e.index for e in ordered(evs)] == [1, 0, 2]


def test_on_message_reports_every_line_with_its_event_index() -> None:
    """The TUI gets each in/out line's classification, pointing back at the transcript events."""
    seen: list[Message] = []
    analyze(
        events(("in", request(1, "ping")), ("err", b"log\n"), ("out", b"noise\n"), ("out", result(1))),
        on_message=seen.append,
    )
    assert [(m.channel, m.frame.events, m.kind) for m in seen] == [
        ("in", (0,), Kind.REQUEST),
        ("out", (2,), Kind.NON_PROTOCOL),
        ("out", (3,), Kind.RESPONSE),
    ]
    assert seen[0].method == "ping" and seen[2].id == 1 and seen[1].rule == "non-protocol-output"


def test_messages_yields_classified_lines_in_time_order() -> None:
    """What replay's diff compares: each message with its parsed value."""
    got = list(messages(events(("out", result(1), 0.002), ("in", request(1, "ping"), 0.001))))
    assert [(m.channel, m.kind, m.value["id"]) for m in got] == [
        ("in", Kind.REQUEST, 1),
        ("out", Kind.RESPONSE, 1),
    ]


def test_the_analyzer_can_be_fed_incrementally_and_knows_the_version() -> None:
    """`Analyzer.feed` then `finish`; `version` follows the handshake as it is processed."""
    analyzer = Analyzer()
    for event in events(
        ("in", request(0, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {}})),
        ("out", result(0, {"protocolVersion": "2025-03-26"})),
    ):
        analyzer.feed(event)
    analysis = analyzer.finish()
    assert analyzer.version == "2025-03-26" == analysis.protocol_version
    assert analysis.stateless is False


def test_findings_kept_are_bounded_and_the_rest_counted() -> None:
    """A transcript of a million bad lines does not keep a million findings in memory."""
    analyzer = Analyzer(max_findings=5)
    for i in range(20):
        analyzer.push(i * 0.001, "out", "noise\n", i)
    analyzer.push(0.02, "exit", {"code": 0}, 20)
    analysis = analyzer.finish()
    assert len(analysis.findings) == 5
    assert analysis.findings_truncated == 15
    assert not analysis.clean


def test_the_verdict_counts_the_errors_among_findings_not_kept() -> None:
    """Twenty bad stdout lines with five kept are still twenty errors in the verdict."""
    analyzer = Analyzer(max_findings=5)
    for i in range(20):
        analyzer.push(i * 0.001, "out", "noise\n", i)
    analyzer.push(0.02, "exit", {"code": 0}, 20)
    analysis = analyzer.finish()
    assert analysis.errors == 20
    assert "Verdict: 20 findings (20 errors)" in render_text(analysis)


def test_pending_state_does_not_grow_with_answered_requests() -> None:
    """Only requests in flight (and a bounded memory of closed ids) are kept."""
    analyzer = Analyzer()
    for i in range(20000):
        analyzer.push(i * 0.001, "in", request(i, "ping").decode(), 2 * i)
        analyzer.push(i * 0.001 + 0.0005, "out", result(i).decode(), 2 * i + 1)
    analyzer.push(20.0, "exit", {"code": 0}, 40000)
    analysis = analyzer.finish()
    assert analysis.findings == []
    assert analyzer.session.client.pending == {}
    assert len(analyzer.session.client.closed) + len(analyzer.session.client.older) <= 2 * 4096 + 2


line_items = st.one_of(
    st.sampled_from(
        [
            request(1, "ping"),
            result(1),
            request(2, "tools/call", {"name": "a", "arguments": {"x": "é\\n"}}),
            error(2),
            b"debug: hi\n",
            b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n',
            b"\xff\xfe\n",
            b"{}\r\n",
            b'{"jsonrpc":"2.0","id":3,',
        ]
    ),
    st.binary(max_size=30),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["in", "out", "exec", "err"]), line_items), max_size=20))
def test_the_file_reader_and_the_event_api_give_the_same_analysis(
    tmp_path_factory: pytest.TempPathFactory, items: list[tuple[str, bytes]]
) -> None:
    """analyze_file (fast record reader) and analyze(events) agree on every finding."""
    path = tmp_path_factory.mktemp("eq") / "t.jsonl"
    evs = [Event(round(0.001 * (i + 1), 6), ch, raw=data, index=i) for i, (ch, data) in enumerate(items)]
    write_transcript(path, new_header(["srv"], "/"), evs)
    _, from_file = analyze_file(str(path))
    from_events = analyze(open_transcript(path).events())
    assert from_file.findings == from_events.findings
    assert from_file.first_non_protocol == from_events.first_non_protocol
    assert from_file.messages == from_events.messages


def test_analyze_file_notes_each_unreadable_record_with_its_line_and_byte_offset(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A garbage record mid-file and a cut last record are noted where they are, the rest is checked."""
    path = tmp_path_factory.mktemp("notes") / "t.jsonl"
    write_transcript(
        path,
        new_header(["srv"], "/"),
        [Event(0.001, "in", raw=request(1, "ping"), index=0), Event(0.002, "out", raw=result(1), index=1)],
    )
    good = path.read_bytes().splitlines(keepends=True)
    header, first, second = good
    path.write_bytes(header + first + b"garbage\n" + second + b'{"t":0.3,"ch":"out","da')
    _, analysis = analyze_file(str(path))
    garbage_at = len(header) + len(first)
    cut_at = garbage_at + len(b"garbage\n") + len(second)
    # the cut last record: the capture is incomplete (a warning), and the rest is checked
    assert [f.rule for f in analysis.findings] == ["incomplete-capture"] and analysis.latency.count == 1
    assert "transcript line 5" in analysis.findings[0].message
    assert [n.split(":")[0] for n in analysis.notes] == [
        f"transcript line 3 (byte {garbage_at})",
        f"transcript line 5 (byte {cut_at})",
    ]
    assert analysis.notes[1].endswith("truncated last line (23 bytes)")


@pytest.mark.parametrize(
    ("pieces", "events_of_previous"),
    [([result(1)], (1,)), ([result(1)[:10], result(1)[10:]], (1, 2))],
    ids=["whole-line", "line-in-two-fragments"],
)
def test_the_line_before_the_first_non_protocol_line_keeps_its_event_indexes(
    pieces: list[bytes], events_of_previous: tuple[int, ...]
) -> None:
    """Whether the good line took the fast path or was joined from fragments, `previous` points back."""
    evs = [Event(0.001, "in", raw=request(1, "ping"), index=0)]
    evs += [Event(0.002 + i * 0.0001, "out", raw=p, index=1 + i) for i, p in enumerate(pieces)]
    evs.append(Event(0.003, "out", raw=b"oops\n", index=len(evs)))
    first = analyze(evs).first_non_protocol["out"]
    assert first is not None and first.previous is not None
    assert first.previous.raw == result(1) and first.previous.events == events_of_previous
    assert (first.previous.line, first.previous.offset, first.previous.t) == (
        1,
        0,
        0.002 + 0.0001 * (len(pieces) - 1),
    )
