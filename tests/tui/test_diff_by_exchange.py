"""The diff viewer by exchange (issue 25, item 4): two HTTP transcripts are listed one row per aligned
exchange (method, target, status old→new, session ids, the headers that differ named), which opens
into the message pairs it carried; two stdio transcripts are listed by pair as ever. Recorded from
the official SDK client against two builds of an official SDK server over streamable-http
(tests/servers/build_http.py: the new build's session-opening answer has another `x-build`, its
DELETE is refused 405 with a header of hostile bytes, its `add` is off by one)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from mcptape.commands.view import view_command
from mcptape.replay.api import diff_files
from mcptape.tui.diff_app import DiffApp
from mcptape.tui.model.exchangediff import (
    VOLATILE,
    ExchangeDiff,
    ExchangePair,
    ExchangeSide,
    HeadChange,
    align,
    exchange_diff,
)
from mcptape.tui.model.exchangediffrows import exchange_kind, exchange_line, session_text
from tests.recorder.http.helpers import data_of, exchanges, records
from tests.tui.conftest import screen_text
from tests.tui.helpers import session_ids
from tests.tui.transcripts import forecast_session

pytestmark = pytest.mark.slow


def heads(path: Path) -> dict[int, tuple[str, str, str, int]]:
    """Each exchange's HTTP method, target, JSON-RPC method and status, read from the raw bytes and
    the `in` records by hand (not by the viewer's readers)."""
    rpc: dict[int, str] = {}
    for record in records(path):
        if record["ch"] == "in" and record["x"] not in rpc:
            rpc[record["x"]] = orjson.loads(data_of(record)).get("method", "")
    answers = exchanges(path, "http-out")
    found = {}
    for x, data in exchanges(path, "http-in").items():
        method, target, _ = data.split(b"\r\n")[0].decode().split(" ")
        status = int(answers[x].split(b"\r\n")[0].split(b" ")[1])
        found[x] = (method, target, rpc.get(x, ""), status)
    return found


def by_request(exd: ExchangeDiff, method: str, rpc: str = "") -> list[ExchangePair]:
    return [e for e in exd.exchanges if (e.side.method, e.side.rpc) == (method, rpc)]


def open_diff(paths: tuple[Path, Path]) -> ExchangeDiff:
    old, new = paths
    return exchange_diff(diff_files(old, new), old, new)


def test_each_exchange_is_one_row_aligned_with_its_twin(build_http_transcripts: tuple[Path, Path]) -> None:
    """Every exchange of either session is on exactly one row, with the exchange of the other session
    that is the same request (HTTP and JSON-RPC method, as the raw bytes say); each row names the
    request, the status of both sides and the session ids their headers carry."""
    old, new = build_http_transcripts
    exd = open_diff(build_http_transcripts)
    old_heads, new_heads = heads(old), heads(new)
    assert sorted(e.old.x for e in exd.exchanges if e.old) == sorted(old_heads)
    assert sorted(e.new.x for e in exd.exchanges if e.new) == sorted(new_heads)
    old_ids, new_ids = session_ids(old), session_ids(new)
    for k, exchange in enumerate(exd.exchanges):
        assert exchange.old is not None and exchange.new is not None  # the same session, twice
        a, b = old_heads[exchange.old.x], new_heads[exchange.new.x]
        assert a[:3] == b[:3]
        text, _ = exchange_line(exd, k, opened=False, width=200)
        request = " ".join(p for p in a[:3] if p)
        assert f" {request} " in text
        status = str(a[3]) if a[3] == b[3] else f"{a[3]}→{b[3]}"
        assert f" {status} " in text
        ids = (old_ids[exchange.old.x][:8], new_ids[exchange.new.x][:8])
        assert ids[0] != ids[1] and f" {ids[0]}→{ids[1]} " in text
    kinds = sorted((e.side.method, e.side.rpc, exchange_kind(exd, e)) for e in exd.exchanges)
    assert kinds == [
        ("DELETE", "", "changed"),  # 200 -> 405
        ("GET", "", "same"),
        ("POST", "initialize", "changed"),  # x-build 1 -> 2
        ("POST", "notifications/initialized", "same"),
        ("POST", "tools/call", "changed"),  # add: 42 -> 43
        ("POST", "tools/call", "same"),  # count
        ("POST", "tools/list", "same"),
    ]
    add, count = by_request(exd, "POST", "tools/call")
    assert exchange_kind(exd, add) == "changed" and exchange_kind(exd, count) == "same"


def test_status_headers_and_messages_that_differ_are_named(build_http_transcripts: tuple[Path, Path]) -> None:
    """The DELETE's status (200→405) and its new headers, the session-opening answer's `x-build`, and
    the tool call whose answer changed are what the rows name; a session id, a date or a port, which
    every run mints anew, are not differences."""
    exd = open_diff(build_http_transcripts)
    (delete,) = by_request(exd, "DELETE")
    assert HeadChange("status", "200", "405") in delete.changes
    assert HeadChange("< allow", "(absent)", "GET, POST") in delete.changes
    assert HeadChange("< mcp-session-id", "present", "(absent)") in delete.changes  # presence only
    row = exd.exchanges.index(delete)
    text, kind = exchange_line(exd, row, opened=False, width=400)
    assert kind == "changed" and text.startswith("≠") and " 200→405 " in text
    assert "status, content type, < allow, < transfer-encoding, < x-note, < content-length, " in text
    (opening,) = by_request(exd, "POST", "initialize")
    assert opening.changes == [HeadChange("< x-build", "1", "2")]
    text, _ = exchange_line(exd, exd.exchanges.index(opening), opened=False)
    assert "< x-build · 1 message pair" in text
    add, count = by_request(exd, "POST", "tools/call")
    assert add.changes == [] and count.changes == []
    pairs = [exd.diff.pairs[p] for p in add.pairs]
    assert [(p.kind, p.scope, p.differs) for p in pairs] == [("response", "tools/call", True)]
    assert (pairs[0].changes[0].old, pairs[0].changes[0].new) == ("42", "43")
    text, _ = exchange_line(exd, exd.exchanges.index(add), opened=False)
    assert text.startswith("≠▸") and "1 of 1 message pair differ" in text
    carried = [(exd.diff.pairs[p].kind, exd.diff.pairs[p].scope) for p in count.pairs]
    assert sorted(carried) == [("notification", "notifications/progress")] * 2 + [("response", "tools/call")]
    assert exd.loose == []  # every message pair came in an exchange
    for exchange in exd.exchanges:
        for change in exchange.changes:
            if change.header in VOLATILE:
                assert {change.old, change.new} == {"present", "(absent)"}


async def test_the_diff_viewer_opens_exchanges_into_their_message_pairs(
    build_http_transcripts: tuple[Path, Path],
) -> None:
    """It opens on the first differing exchange; `]` goes to the next, enter opens it into its
    message pairs (the changed answer side by side), `]` goes through that pair to the DELETE, whose
    detail shows every difference, its hostile header escaped; enter on a pair closes its exchange."""
    old, new = build_http_transcripts
    app = DiffApp(diff_files(old, new), old.name, new.name, paths=(old, new))
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        exd = app.exchanges
        assert exd is not None
        text = screen_text(app)
        count = len(heads(old))  # the GET stream is an exchange too
        assert f"DIFFERENT: {count} exchanges, 3 differ (status 1) · 6 pairs, 1 differ" in text
        assert "exchange  request" in text and "what differs" in text
        assert "cursor: first differing exchange (x1 POST /mcp initialize: < x-build" in text
        assert "  < x-build: 1 → 2" in text
        await pilot.press("right_square_bracket", "enter")
        await pilot.pause()
        text = screen_text(app)
        lines = text.splitlines()
        add = next(i for i, line in enumerate(lines) if line.startswith("≠▾"))
        assert "POST /mcp tools/call" in lines[add] and "1 of 1 message pair differ" in lines[add]
        pair = lines[add + 1]
        assert pair.startswith("    ≠  resp  tools/call") and '"42"' in pair and '"43"' in pair
        await pilot.press("right_square_bracket")
        row = app.pairs_list.current_row
        assert row is not None and row >= len(exd.exchanges)  # the pair's row
        await pilot.press("right_square_bracket")
        await pilot.pause()
        text = screen_text(app)
        assert " · DELETE /mcp · changed" in text
        assert "  status: 200 → 405" in text and "  < allow: (absent) → GET, POST" in text
        assert "  < x-note: (absent) → \\x9b2J\\u202e kept" in text
        assert "\x9b" not in text and "\u202e" not in text
        await pilot.press("left_square_bracket", "enter")  # back on the pair; enter closes its exchange
        await pilot.pause()
        row = app.pairs_list.current_row
        assert row is not None and exd.exchanges[row] is by_request(exd, "POST", "tools/call")[0]
        assert not any(line.startswith("    ≠") for line in screen_text(app).splitlines())


async def test_differences_only_and_the_list_by_pair(build_http_transcripts: tuple[Path, Path]) -> None:
    """`f` keeps the three differing exchanges; `z` lists the message pairs alone (as for stdio),
    the cursor on the pair of the exchange it was on, and back."""
    old, new = build_http_transcripts
    app = DiffApp(diff_files(old, new), old.name, new.name, paths=(old, new))
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        exd = app.exchanges
        assert exd is not None
        await pilot.press("f")
        view = app.pairs_list.view
        shown = [exd.exchanges[view.row(i)] for i in range(len(view))]
        assert [(e.side.method, e.side.rpc) for e in shown] == [
            ("POST", "initialize"),
            ("POST", "tools/call"),
            ("DELETE", ""),
        ]
        await pilot.press("f", "right_square_bracket", "z")
        await pilot.pause()
        assert "kind  method" in screen_text(app)
        view = app.pairs_list.view
        assert len(view) == len(app.diff.pairs) == 6
        row = app.pairs_list.current_row
        assert row is not None and app.diff.pairs[row].scope == "tools/call" and app.diff.pairs[row].differs
        await pilot.press("z")
        await pilot.pause()
        row = app.pairs_list.current_row
        assert row is not None and exd.exchanges[row] is by_request(exd, "POST", "tools/call")[0]
        assert "exchange  request" in screen_text(app)


async def test_two_stdio_transcripts_are_listed_by_pair(tmp_path: Path) -> None:
    """Given the paths of two stdio transcripts, the diff viewer lists the pairs as it always did."""
    old = forecast_session(tmp_path / "old.jsonl", sky="sunny")
    new = forecast_session(tmp_path / "new.jsonl", sky="rainy")
    app = DiffApp(diff_files(old, new), old.name, new.name, paths=(old, new))
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        assert app.exchanges is None
        assert len(app.pairs_list.view) == len(app.diff.pairs)
        text = screen_text(app)
        assert "kind  method" in text and "cursor: first differing pair" in text


def test_session_cell_says_which_side_names_none(build_http_transcripts: tuple[Path, Path]) -> None:
    """An exchange whose sides name the same session id shows it once; one side without: `–`."""
    exd = open_diff(build_http_transcripts)
    exchange = exd.exchanges[0]
    assert exchange.old is not None and exchange.new is not None
    exchange.new.response_headers.pop("mcp-session-id")
    assert session_text(exchange).endswith("→–")
    exchange.new.response_headers["mcp-session-id"] = exchange.old.session
    assert session_text(exchange) == exchange.old.session[:8]


def test_the_nth_exchange_of_a_kind_aligns_with_the_nth() -> None:
    """Exchanges align by kind (HTTP and JSON-RPC method) and rank, not by position: a GET stream
    opened before the notification in one session and after it in the other still pairs with its
    twin, and an exchange only the new session has comes after the new exchange before it."""

    def side(x: int, method: str, rpc: str = "") -> ExchangeSide:
        return ExchangeSide(x, method, "/mcp", 200, rpc=rpc)

    old = [side(1, "POST", "initialize"), side(2, "POST", "notifications/initialized"), side(3, "GET")]
    old += [side(4, "POST", "tools/call"), side(5, "DELETE")]
    new = [side(1, "POST", "initialize"), side(2, "GET"), side(3, "POST", "notifications/initialized")]
    new += [side(4, "POST", "tools/call"), side(5, "POST", "tools/call"), side(6, "DELETE")]
    rows = [(p.old.x if p.old else None, p.new.x if p.new else None) for p in align(old, new)]
    assert rows == [(1, 1), (2, 3), (3, 2), (4, 4), (None, 5), (5, 6)]
    assert all(p.changes == [] for p in align(old, new))


async def test_a_narrow_list_keeps_the_status_and_what_differs(
    build_http_transcripts: tuple[Path, Path],
) -> None:
    """On 80 columns the session column goes (the detail pane names the sessions); the request, the
    status and what differs stay on each row."""
    old, new = build_http_transcripts
    app = DiffApp(diff_files(old, new), old.name, new.name, paths=(old, new))
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert any(line.startswith("   exchange  request") and "session" not in line for line in lines)
        row = next(line for line in lines if " DELETE /mcp " in line)
        assert row.startswith("≠") and " 200→405 " in row and "status, content type" in row
        assert any(line.startswith("  session: old ") for line in lines)  # x1's, in the detail pane
        assert any(" POST /mcp initialize " in line and "< x-build" in line for line in lines)


def test_view_old_new_lists_two_http_transcripts_by_exchange(
    build_http_transcripts: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mcptape view OLD NEW` hands the diff viewer both transcripts, so two HTTP ones open by exchange
    (the app's run is replaced: it needs a terminal)."""
    opened: list[DiffApp] = []
    monkeypatch.setattr("mcptape.commands.view.on_terminal", lambda: True)
    monkeypatch.setattr(DiffApp, "run", lambda self, *args, **kwargs: opened.append(self))
    old, new = build_http_transcripts
    result = CliRunner().invoke(view_command, [str(old), str(new), "--no-config"])
    assert result.exit_code == 0, result.output
    (app,) = opened
    assert app.exchanges is not None and app.by_exchange
    assert [e.side.method for e in app.exchanges.exchanges].count("DELETE") == 1
