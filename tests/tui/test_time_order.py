"""Rows in time order: the recorder's per-channel threads append a few records late, so the file can
hold a response above its request; the list shows them by time and keeps each row's number."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.model.facts import collect_facts
from mcptape.tui.model.order import IDENTITY, WINDOW, OrderBuilder, RowOrder
from mcptape.tui.model.viewer import Filters, ViewerModel
from tests.tui.conftest import screen_text, settle
from tests.tui.transcripts import INIT_PARAMS, INIT_RESULT, handshake, ok, req, write

Row = tuple[float | None, str]  # (time, channel); None: an unreadable line


def time_sorted(rows: list[Row]) -> list[int]:
    """The plain definition: a row's time, never before its channel's previous row's, an unreadable
    row with the row above it; ties in file order."""
    last: dict[str, float] = {}
    keys: list[float] = []
    key = 0.0
    for t, ch in rows:
        if t is not None:
            key = max(t, last.get(ch, t))
            last[ch] = key
        keys.append(key)
    return sorted(range(len(rows)), key=lambda i: (keys[i], i))


def built(rows: list[Row]) -> RowOrder:
    builder = OrderBuilder()
    for row, (t, ch) in enumerate(rows):
        if t is None:
            builder.add_unreadable(row)
        else:
            builder.add(row, t, ch)
    return builder.freeze()


def test_rows_already_in_time_order_cost_nothing() -> None:
    """A file in time order keeps no permutation at all."""
    assert built([(0.1 * i, "in" if i % 2 else "out") for i in range(5000)]) is IDENTITY


def test_a_response_written_above_its_request_is_shown_below_it() -> None:
    """Rows 0 (out, t=0.0205) and 1 (in, t=0.0202): shown 1 then 0; each row keeps its number."""
    order = built([(0.0205, "out"), (0.0202, "in"), (0.03, "in")])
    assert list(order.rows(3)) == [1, 0, 2]
    assert [order.position_of(r) for r in range(3)] == [1, 0, 2]
    assert [order.row_at(p) for p in range(4)] == [1, 0, 2, 3]  # rows not fed yet: in file order


def test_a_clock_glitch_never_reorders_a_channel() -> None:
    """A channel's record stamped earlier than its previous one stays after it (the check core's rule):
    the `in` row at 0.7 goes above both `out` rows, which keep their order."""
    assert list(built([(1.0, "out"), (0.5, "out"), (0.7, "in")]).rows(3)) == [2, 0, 1]


def test_an_unreadable_line_stays_with_the_row_above_it() -> None:
    """A line that is not an event sorts with the row above it, wherever that row goes."""
    assert list(built([(1.0, "in"), (2.0, "in"), (0.5, "out"), (None, "")]).rows(4)) == [2, 3, 0, 1]


def test_a_late_row_moves_at_most_a_window_back() -> None:
    """A row older than every row of the last WINDOW rows goes up WINDOW - 1 rows, no further."""
    rows: list[Row] = [(1.0 + i, "out") for i in range(WINDOW + 10)]
    rows.append((0.0, "in"))
    order = built(rows)
    assert order.position_of(len(rows) - 1) == len(rows) - WINDOW


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.floats(0, 50, allow_nan=False), st.sampled_from(["in", "out", "err", "eof"])),
            st.just((None, "")),
        ),
        max_size=80,
    )
)
def test_the_order_is_the_time_sort_of_the_rows(rows: list[Row]) -> None:
    """Any rows (fewer than a window): shown exactly as the plain sort shows them, both ways round."""
    order = built(rows)
    expected = time_sorted(rows)
    assert list(order.rows(len(rows))) == expected
    for position, row in enumerate(expected):
        assert order.row_at(position) == row and order.position_of(row) == position


def late_records_session(path: Path) -> Path:
    """The recorder's threads wrote two answers above their requests and an executor line late."""
    events = [
        Event(0.0205, "out", text=f'{{"jsonrpc":"2.0","id":0,"result":{INIT_RESULT}}}\n'),
        req(0.0202, 0, "initialize", INIT_PARAMS),
        Event(0.021, "in", text='{"jsonrpc":"2.0","method":"notifications/initialized"}\n'),
        ok(0.0305, 1, '{"content":[{"type":"text","text":"sunny"}]}'),
        Event(0.0302, "exec", text='{"action":"lookup","request_id":1}\n'),
        req(0.0301, 1, "tools/call", '{"name":"forecast","arguments":{"city":"Lyon"}}'),
        Event(0.040, "out", text="done, bye\n"),
        Event(0.050, "exit", fields={"code": 0, "signal": None}),
    ]
    return write(path, events)


def test_the_list_shows_time_order_and_each_rows_own_number(tmp_path: Path) -> None:
    """Requests above their responses; the `#` column still says which line of the file each is."""
    index = TranscriptIndex(late_records_session(tmp_path / "late.jsonl"))
    index.scan()
    model = ViewerModel(index)
    facts = collect_facts(index)
    assert facts is not None
    model.set_facts(facts)
    view = model.build_view(Filters())
    shown = [view.row(p) for p in range(len(view))]
    assert shown == [1, 0, 2, 5, 4, 3, 6, 7]
    for request, response in ((1, 0), (5, 3)):
        assert facts.pair_of(request) == response and shown.index(request) < shown.index(response)
    assert [model.line(r, 150)[0].split()[0] for r in shown] == ["2", "1", "3", "6", "5", "4", "7", "8"]
    methods = model.build_view(Filters(method="tools/call"))
    assert [methods.row(p) for p in range(len(methods))] == [5, 3]  # a filter keeps the time order


def test_findings_keep_the_event_number_check_reports(tmp_path: Path) -> None:
    """The stray stdout line is event 6 for `mcptape check --json` and row 7 (= event 6 + 1) on screen,
    wherever the time order shows it."""
    path = late_records_session(tmp_path / "late.jsonl")
    result = subprocess.run(
        [sys.executable, "-m", "mcptape", "check", "--json", str(path)], capture_output=True, text=True
    )
    report = json.loads(result.stdout)
    events = {f["rule"]: f["event"] for f in report["findings"]}
    index = TranscriptIndex(path)
    index.scan()
    facts = collect_facts(index)
    assert facts is not None
    assert {f.rule: f.event for found in facts.findings.values() for f in found} == events
    assert events["non-protocol-output"] == 6 and facts.findings[6][0].rule == "non-protocol-output"


async def test_the_screen_lists_a_request_above_its_response(tmp_path: Path) -> None:
    """On screen, the initialize request (line 2 of the events) is listed above its answer (line 1)."""
    app = ViewerApp(TranscriptIndex(late_records_session(tmp_path / "late.jsonl")))
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        lines = [line.strip() for line in screen_text(app).splitlines()]
        numbers = [line.split()[0] for line in lines if line.split()[:1] and line.split()[0].isdigit()]
        assert numbers.index("2") < numbers.index("1")
        assert numbers.index("6") < numbers.index("4")


def test_a_clean_session_in_order_is_shown_in_file_order(tmp_path: Path) -> None:
    """The usual file (records in time order) is shown in file order, with no permutation kept."""
    path = write(tmp_path / "s.jsonl", [*handshake(), req(0.01, 1, "ping"), ok(0.02, 1)])
    index = TranscriptIndex(path)
    index.scan()
    facts = collect_facts(index)
    assert facts is not None and facts.order is IDENTITY
