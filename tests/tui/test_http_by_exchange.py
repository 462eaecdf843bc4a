"""An HTTP transcript is listed by exchange (issue 25, item 4): one row per HTTP exchange (its method,
status, session id and time) that opens into the messages it carried (the request, then the JSON
answer or each SSE event's message); `z` lists it by record again, and any filter lists rows one by
one. Recorded from the official SDK client and server over streamable-http (tests/tui/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.model.foldview import FoldedView
from mcptape.tui.model.viewer import Filters, ViewerModel
from tests.recorder.http.helpers import records
from tests.tui.conftest import screen_text, settle
from tests.tui.helpers import expected_cell, open_model, session_ids

pytestmark = pytest.mark.slow


def listed(model: ViewerModel, filters: Filters | None = None) -> list[int]:
    view = model.build_view(filters or Filters())
    return [view.row(p) for p in range(len(view))]


def carried(path: Path) -> dict[int, tuple[int, int]]:
    """How many messages each exchange carried each way (its `in` and `out` records)."""
    counts: dict[int, tuple[int, int]] = {}
    for record in records(path):
        if record["ch"] in ("in", "out"):
            sent, answered = counts.get(record["x"], (0, 0))
            counts[record["x"]] = (sent + 1, answered) if record["ch"] == "in" else (sent, answered + 1)
    return counts


def test_an_http_transcript_is_listed_one_row_per_exchange(sdk_http_transcript: Path) -> None:
    """By default every exchange is one row (its request's head), naming the exchange as its raw bytes
    have it, the session id its headers carry, how many messages went each way; no message or raw
    record is listed apart, and the rows of no exchange are listed as ever."""
    path = sdk_http_transcript
    model = open_model(path)
    rows = listed(model)
    assert isinstance(model.folding.folded, FoldedView)
    wire = ("http-in", "http-out", "in", "out")  # a `note` about an exchange is a row of its own
    tagged = {r: rec["x"] for r, rec in enumerate(records(path)) if "x" in rec and rec["ch"] in wire}
    heads = {x: r for r, x in tagged.items() if model.folding.head_of(r) == x}
    assert sorted(heads) == sorted(set(tagged.values()))
    assert sorted(rows) == sorted([*heads.values(), *(r for r in range(len(model.index)) if r not in tagged)])
    ids, counts = session_ids(path), carried(path)
    assert len(set(ids.values())) >= 1 and set(ids) < set(heads)  # the stateless exchanges name none
    for x, row in heads.items():
        event = model.index.event(row)
        assert isinstance(event, Event) and event.ch == "http-in"  # the request's head stands for it
        text, kind = model.line(row, 220)
        assert " ▸ exchange " in text and f" {expected_cell(path, x)} " in text
        sent, answered = counts.get(x, (0, 0))
        assert f"{sent}→ {answered}←" in text
        assert ("session " in text) == (x in ids) and (x not in ids or f"session {ids[x]} " in text)
        assert kind == "protocol"  # a clean session: no finding on any of its rows


def test_opening_an_exchange_lists_its_messages_under_it(sdk_http_transcript: Path) -> None:
    """Opening the tool call that streamed its progress lists, under its row and in time order, the
    request and the four SSE events' messages (three progress notifications, the answer); closing it
    from one of them folds it back and keeps the cursor on the exchange's row."""
    model = open_model(sdk_http_transcript)
    listed(model)
    progress = [r for r in range(len(model.index)) if model.describe(r).label == "notifications/progress"]
    x = model.folding.folded.of_row[progress[0]]  # type: ignore[union-attr]
    head = model.folding.folded.heads[x]  # type: ignore[union-attr]
    assert model.folding.toggle(head) == head
    rows = listed(model)
    at = rows.index(head)
    under = rows[at + 1 : at + 6]
    labels = [model.describe(r).label.split(" #")[0] for r in under]
    assert labels == ["tools/call", *["notifications/progress"] * 3, "tools/call"]
    assert [model.index.event(r).ch for r in under] == ["in", "out", "out", "out", "out"]  # type: ignore[union-attr]
    assert under[1:4] == progress
    assert " ▾ exchange " in model.line(head, 220)[0]
    assert model.folding.toggle(under[2]) == head
    assert listed(model).index(head) == at and progress[0] not in listed(model)


def test_by_record_and_filters_list_every_row(sdk_http_transcript: Path) -> None:
    """Listed by record (`z`), or with any filter on, the rows are listed one by one as before: every
    row by record, only `out` rows with that channel filter."""
    model = open_model(sdk_http_transcript)
    outs = [r for r in range(len(model.index)) if model.index.event(r).ch == "out"]  # type: ignore[union-attr]
    assert sorted(listed(model, Filters(channels=frozenset({"out"})))) == outs
    assert model.folding.folded is None
    model.folding.by_exchange = False
    assert sorted(listed(model)) == list(range(len(model.index)))
    assert model.folding.folded is None


async def test_enter_opens_an_exchange_and_z_lists_by_record(sdk_http_transcript: Path) -> None:
    """Driven headless: the list says it is by exchange; enter on the tool call's exchange opens it
    (its progress notifications appear, the marker turns to ▾), enter again folds it; `z` lists the
    raw records again."""
    app = ViewerApp(TranscriptIndex(sdk_http_transcript))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "[by exchange: enter opens, z by record]" in text
        row_label = "notifications/progr…"  # the method column of a progress row, cut to its width
        assert row_label not in text and "▸ exchange" in text
        model = app.model
        progress = next(
            r for r in range(len(model.index)) if model.describe(r).label == "notifications/progress"
        )
        head = model.folding.folded.heads[model.folding.folded.of_row[progress]]  # type: ignore[union-attr]
        app.messages.select_row(head)
        await pilot.press("enter")
        text = screen_text(app)
        assert text.count(row_label) == 3 and "▾ exchange" in text
        await pilot.press("enter")
        assert row_label not in screen_text(app) and app.messages.current_row == head
        await pilot.press("z")
        text = screen_text(app)
        assert "http request        POST /mcp HTTP/1.1" in text and "▸ exchange" not in text
