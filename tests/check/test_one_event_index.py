"""One event index per finding, whoever shows it: `check --json`, the viewer (its rows and the
`row N` its detail pane names) and the diff (`diff --json` and the pure diff's analysis) give every
finding, and every line a finding names, the same event index — on transcripts with unreadable
lines, a torn last line and records out of time order (issue 12's must-show).

The index is the line's place after the header, every line counted (docs/format.md): with one
unreadable line between two events, the second is event 2 everywhere (`check` said 1 before).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.check.analyze import analyze_file
from mcptape.cli import main
from mcptape.diff.sessions import diff_events
from mcptape.transcript import Event, open_transcript
from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.writer import new_header, write_transcript
from mcptape.tui.model.facts import collect_facts
from mcptape.tui.model.viewer import ViewerModel
from tests.check.helpers import error, initialize, notification, request, result

GARBAGE = b"garbage: not a record\n"
MISTYPED = b'{"t":"0.0065","ch":"out","data":"x\\n"}\n'
TORN = b'{"t":0.02,"ch":"out","data":"{\\"jsonrpc\\":'


def _record(t: float, ch: str, data: bytes) -> bytes:
    return orjson.dumps({"t": t, "ch": ch, "data": data.decode()}) + b"\n"


def session(*, damaged: bool, out_of_order: bool) -> list[bytes]:
    """A session with four kinds of findings (exec-after-reject, non-protocol-output,
    unknown-response-id, unanswered-request); `damaged` adds unreadable and blank lines and a
    torn last line, `out_of_order` writes an answer before its request (the recorder's threads)."""
    handshake = initialize("2025-06-18")[:2]
    lines = [_record(0.001 * (i + 1), item[0], item[1]) for i, item in enumerate(handshake)]
    lines.append(_record(0.003, "in", notification("notifications/initialized")))
    if damaged:
        lines.append(GARBAGE)
    call = request(1, "tools/call", {"name": "deploy", "arguments": {}})
    answer = _record(0.006, "out", result(1, {"content": []}))
    if out_of_order:
        lines += [answer, _record(0.005, "in", call)]
    else:
        lines += [_record(0.005, "in", call), answer]
    lines.append(_record(0.0075, "exec", b'{"action":"deploy","request_id":2}\n'))
    lines.append(_record(0.007, "in", request(2, "tools/call", {"name": "deploy", "arguments": {}})))
    if damaged:
        lines.append(b"\n")
    lines.append(_record(0.008, "out", error(2)))
    lines.append(_record(0.009, "out", b"debug: banner\n"))
    if damaged:
        lines.append(MISTYPED)
    lines.append(_record(0.010, "out", result(99)))
    lines.append(_record(0.011, "in", request(3, "ping")))
    lines.append(b'{"t":0.012,"ch":"exit","code":0}\n')
    if damaged:
        lines.append(TORN)
    return lines


CASES = {
    "clean-file": {"damaged": False, "out_of_order": False},
    "unreadable-blank-and-torn-lines": {"damaged": True, "out_of_order": False},
    "records-out-of-time-order": {"damaged": False, "out_of_order": True},
    "all-of-them": {"damaged": True, "out_of_order": True},
}


def _write(path: Path, lines: list[bytes]) -> Path:
    write_transcript(path, new_header(["srv"], "/"), [])
    with open(path, "ab") as fh:
        fh.write(b"".join(lines))
    return path


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    try:
        main(args)
    except SystemExit as exc:
        assert exc.code in (0, 1), capsys.readouterr().err
    return orjson.loads(capsys.readouterr().out)


def _where(found: dict[str, Any]) -> tuple[Any, ...]:
    """A JSON finding as (rule, event, the events of the lines it names)."""
    return (found["rule"], found["event"], tuple(ref["event"] for ref in found["related"]))


@pytest.mark.parametrize("shape", CASES.values(), ids=CASES.keys())
def test_check_the_viewer_and_the_diff_give_each_finding_the_same_event_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: dict[str, bool]
) -> None:
    """Every finding's event (and its related lines' events) agree in the three; each is the index
    of the line it names in the file: row `event + 1` in the viewer, file line `event + 2`."""
    lines = session(**shape)
    path = _write(tmp_path / "session.jsonl", lines)
    clean = _write(tmp_path / "empty.jsonl", [])

    checked = _json(["check", "--json", str(path)], capsys)
    # A torn last line makes the capture incomplete: a finding about the file, given by the file
    # reader only (the viewer's rows and the diff read events), at the torn line's own index.
    capture = [_where(f) for f in checked["findings"] if f["rule"] == "incomplete-capture"]
    assert capture == ([("incomplete-capture", len(lines) - 1, ())] if shape["damaged"] else [])
    from_check = sorted(_where(f) for f in checked["findings"] if f["rule"] != "incomplete-capture")
    assert [w[0] for w in from_check] == sorted(
        ["exec-after-reject", "non-protocol-output", "unknown-response-id", "unanswered-request"]
    )
    for rule, event, _ in from_check:  # the index names the line: file line event + 2
        assert lines[event].startswith(b'{"t":'), (rule, event)

    index = TranscriptIndex(path)
    index.scan(final=True)
    facts = collect_facts(index)
    assert facts is not None
    from_viewer = sorted(
        (f.rule, row, tuple(ref.event for ref in f.related))
        for row, found in facts.findings.items()
        for f in found
    )
    assert from_viewer == from_check
    model = ViewerModel(index)
    model.set_facts(facts)
    for rule, event, related in from_check:
        detail = model.detail(event)
        assert detail.title.startswith(f"row {event + 1} · ")
        shown = "\n".join(text for _, text in detail.notes)
        assert rule in shown
        for ref in related:
            assert f"row {ref + 1}, " in shown

    diffed = _json(["diff", "--no-config", "--json", str(clean), str(path)], capsys)
    from_diff_json = sorted(_where(f) for f in diffed["findings"]["added"])
    counted = [w for w in from_check if w[0] in ("exec-after-reject", "unknown-response-id")]
    assert from_diff_json == counted  # the diff compares these (stdout and unanswered apart)
    pure = diff_events(open_transcript(clean).events(), open_transcript(path).events())
    assert pure.new_analysis is not None
    from_diff = sorted(
        (f.rule, f.event, tuple(r.event for r in f.related)) for f in pure.new_analysis.findings
    )
    assert from_diff == from_check
    first = checked["first_non_protocol"]["out"]
    _, analysis = analyze_file(str(path))
    assert first["event"] == analysis.first_non_protocol["out"].frame.event  # type: ignore[union-attr]


def test_one_unreadable_line_between_two_events_makes_the_second_event_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's example: `check --json` says `event: 2` for a finding on the line after an
    unreadable one, as the viewer does (it said 1)."""
    path = _write(
        tmp_path / "t.jsonl",
        [
            _record(0.1, "in", request(1, "ping")),
            GARBAGE,
            _record(0.2, "out", b"noise\n"),
            b'{"t":0.3,"ch":"exit","code":0}\n',
        ],
    )
    checked = _json(["check", "--json", str(path)], capsys)
    assert [(f["rule"], f["event"]) for f in checked["findings"]] == [
        ("unanswered-request", 0),
        ("non-protocol-output", 2),
    ]
    index = TranscriptIndex(path)
    index.scan(final=True)
    facts = collect_facts(index)
    assert facts is not None and sorted(facts.findings) == [0, 2]
    row = index.event(2)
    assert isinstance(row, Event) and row.data == b"noise\n"
