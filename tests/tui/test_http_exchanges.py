"""The viewer's headless model on HTTP transcripts (`record --http-upstream`): every message row names
the exchange that carried it, the detail pane shows the exchange's heads as recorded and the events of
an SSE stream under their request, the raw records are rows of their own, and the cursor opens on the
first HTTP transport finding."""

from __future__ import annotations

from pathlib import Path

from mcptape.check.model import Finding
from mcptape.transcript import Event, Header
from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.writer import write_transcript
from mcptape.tui.model.facts import FactsCollector
from mcptape.tui.model.landing import Landing
from mcptape.tui.model.summary import landing
from mcptape.tui.model.viewer import Filters, ViewerModel
from tests.recorder.http.helpers import exchanges, records
from tests.tui.conftest import planted_http_transcript
from tests.tui.helpers import expected_cell, open_model
from tests.tui.transcripts import HEADER


def rows_of(model: ViewerModel, channel: str) -> list[int]:
    return [r for r in range(len(model.index)) if _event(model, r).ch == channel]


def _event(model: ViewerModel, row: int) -> Event:
    event = model.index.event(row)
    assert isinstance(event, Event)
    return event


def _x(model: ViewerModel, row: int) -> int:
    fields = _event(model, row).fields
    assert fields is not None
    x: int = fields["x"]
    return x


def test_every_message_row_names_the_exchange_that_carried_it(sdk_http_transcript: Path) -> None:
    """Each `in`/`out` row of the SDK's recording says `xN METHOD /mcp STATUS json|sse`, as its
    exchange's raw bytes have it: JSON answers in the 2026-07-28 session, SSE in the handshake one."""
    path = sdk_http_transcript
    model = open_model(path)
    tagged = {r: _event(model, r).fields["x"] for r in rows_of(model, "in") + rows_of(model, "out")}  # type: ignore[index]
    assert len(tagged) == sum(1 for r in records(path) if r["ch"] in ("in", "out"))
    cells = {model.describe(r).exchange for r in tagged}
    assert cells == {expected_cell(path, x) for x in tagged.values()}
    assert any(cell.endswith(" 200 json") for cell in cells) and any(
        cell.endswith(" 200 sse") for cell in cells
    )
    for row, x in tagged.items():
        info = model.describe(row)
        assert info.exchange == expected_cell(path, x)
        assert info.exchange_short == info.exchange.replace(" /mcp", "")
        assert f" {info.exchange} " in model.line(row, 200)[0]  # the row as the list draws it


def test_the_detail_of_a_progress_event_lists_the_stream_under_its_request(sdk_http_transcript: Path) -> None:
    """A progress notification's detail: its exchange's request line and every header as recorded,
    the status line and the response headers, then the tool call, and under it the stream's events in
    order (three progress notifications, then the answer), the selected one marked."""
    path = sdk_http_transcript
    model = open_model(path)
    progress = [r for r in rows_of(model, "out") if model.describe(r).label == "notifications/progress"]
    assert len(progress) == 3
    row = progress[1]
    x = _event(model, row).fields["x"]  # type: ignore[index]
    notes = [text for _, text in model.detail(row).notes]
    head = exchanges(path, "http-in")[x].split(b"\r\n\r\n")[0].decode().split("\r\n")
    start = notes.index(next(n for n in notes if n.startswith(f"exchange {x} request (row ")))
    assert notes[start].endswith(": POST /mcp HTTP/1.1")
    assert notes[start + 1 : start + len(head)] == [f"  > {line}" for line in head[1:]]
    assert any(n.startswith(f"exchange {x} response (row ") and n.endswith("HTTP/1.1 200 OK") for n in notes)
    assert "  < content-type: text/event-stream" in notes
    listed = notes[
        notes.index(next(n for n in notes if n.startswith(f"exchange {x} carried 5 messages"))) + 1 :
    ]
    assert listed[0].startswith("  → row ") and "tools/call #" in listed[0] and "count(n=3)" in listed[0]
    assert [line.split(" · ")[0] for line in listed[1:5]] == [f"    ← row {r + 1}" for r in progress] + [
        listed[4].split(" · ")[0]
    ]
    assert all("event message" in line for line in listed[1:5])
    assert [line.endswith("◂ this row") for line in listed[:5]] == [False, False, True, False, False]
    assert "tools/call #" in listed[4] and "counted to 3" in listed[4]


def test_raw_records_are_rows_with_their_bytes_escaped(sdk_http_transcript: Path) -> None:
    """`http-in`/`http-out` records are rows of their own, quiet (kind `wire`), saying which part of
    the exchange they hold, with their bytes escaped (CR LF as `\\r\\n`); the channel filters pick
    them, or the messages alone."""
    model = open_model(sdk_http_transcript)
    wire = rows_of(model, "http-in") + rows_of(model, "http-out")
    infos = {r: model.describe(r) for r in wire}
    assert {info.kind for info in infos.values()} == {"wire"}
    first: dict[tuple[str, int], int] = {}  # where each message's bytes start (its head)
    for r in sorted(wire):
        first.setdefault((_event(model, r).ch, _x(model, r)), r)
    for r, info in infos.items():
        ch, x = _event(model, r).ch, _x(model, r)
        if ch == "http-in":
            assert info.status == ("http request" if first[ch, x] == r else "request body")
        elif first[ch, x] == r:
            assert info.status == "http response"
        else:
            streamed = expected_cell(model.index.path, x).endswith(" sse")
            assert info.status == ("sse" if streamed else "response body")
    assert {"http request", "http response", "sse"} <= {info.status for info in infos.values()}
    request = next(info for info in infos.values() if info.status == "http request")
    assert request.preview.startswith("POST /mcp HTTP/1.1\\r\\nHost: 127.0.0.1:")
    assert all("\r" not in info.preview and "\n" not in info.preview for info in infos.values())
    sse = next(info for info in infos.values() if info.status == "sse" and "data: " in info.preview)
    assert "event: message\\r\\ndata: {" in sse.preview
    raw_view = model.build_view(Filters(channels=frozenset({"http-in", "http-out"})))
    assert sorted(raw_view.row(p) for p in range(len(raw_view))) == sorted(wire)
    protocol = model.build_view(Filters(channels=frozenset({"in", "out"})))
    assert sorted(protocol.row(p) for p in range(len(protocol))) == sorted(
        rows_of(model, "in") + rows_of(model, "out")
    )


def test_the_cursor_opens_on_the_first_http_finding(tmp_path: Path) -> None:
    """A server whose JSON body starts with a log line: the check core's `http-body-not-json` is on
    the response's raw row of exchange 1, which comes before the `out` line that carried the body:
    the viewer opens there and says why. The carried line is the same fault: no finding of its own."""
    model = open_model(planted_http_transcript(tmp_path, "log-before-json"))
    facts = model.facts
    assert facts is not None
    row, reason = landing(facts)
    assert row is not None
    assert _event(model, row).ch == "http-out" and _event(model, row).fields == {"x": 1}
    assert [f.rule for f in facts.findings[row]] == ["http-body-not-json"]
    assert reason.startswith(
        "cursor: first non-protocol bytes on http-out (exchange 1, byte 0): exchange 1 ("
    )
    info = model.describe(row)
    assert (info.kind, info.status, info.exchange) == (
        "finding",
        "http-body-not-json",
        "x1 POST /mcp 200 json",
    )
    carried = row + 1
    assert _event(model, carried).ch == "out" and model.describe(carried).status == "non-protocol-output"
    assert not facts.findings.get(carried) and facts.next_finding(row, 1) != carried


def test_a_header_that_disagrees_with_the_body_is_the_first_finding(tmp_path: Path) -> None:
    """Every line is protocol, but the client's `Mcp-Method` says `tools/list` for a `tools/call`:
    the viewer opens on that request's raw head (`http-header-mismatch`), and its detail shows the
    header as it was sent."""
    path = planted_http_transcript(tmp_path, "no-validation", {"mcp-method": "tools/list"})
    model = open_model(path)
    facts = model.facts
    assert facts is not None
    row, reason = landing(facts)
    assert row is not None and _event(model, row).ch == "http-in" and _event(model, row).fields == {"x": 2}
    assert reason.startswith("cursor: first finding (http-header-mismatch); every line is protocol")
    assert model.describe(row).status.startswith("http-header-mismatch")
    notes = [text for _, text in model.detail(row).notes]
    assert "  > mcp-method: tools/list" in notes
    assert any(n.startswith("http-header-mismatch (http-in line 2, byte 0): exchange 2 (") for n in notes)


def test_hostile_heads_are_escaped_and_odd_exchange_numbers_do_not_matter(tmp_path: Path) -> None:
    """Head bytes that would drive a terminal are shown escaped in the row, the exchange column and
    the detail (a request h11 cannot read is shown as recorded, said not HTTP); records naming a huge
    or negative exchange number are shown, not indexed."""
    head = b"POST /\x1b]0;pwned\x07 HTTP/1.1\r\nHost: a\r\nX-Evil: \x1b[2J\xff\r\nContent-Length: 2\r\n\r\n{}"
    answer = b"HTTP/1.1 200 OK\r\ncontent-type: text/\x9b2J\r\nContent-Length: 0\r\n\r\n"
    events = [
        Event(0.1, "http-in", raw=head, fields={"x": 1}),
        Event(0.1, "in", text="{}\n", fields={"x": 1}),
        Event(0.2, "http-out", raw=answer, fields={"x": 1}),
        Event(0.3, "http-in", text="GET / HTTP/1.1\r\n\r\n", fields={"x": 2**31 - 1}),
        Event(0.4, "http-out", text="HTTP/1.1 200 OK\r\n\r\n", fields={"x": -5}),
        Event(0.5, "eof", fields={"of": "http-in"}),
    ]
    path = tmp_path / "hostile.jsonl"
    http = {"upstream": "http://127.0.0.1:1/mcp", "listen": "http://127.0.0.1:2/mcp"}
    write_transcript(path, Header(1, HEADER.started, [], "/", HEADER.recorder, {"http": http}), events)
    model = open_model(path)
    shown = [model.line(r, 200)[0] for r in range(len(model.index))]
    notes = [text for r in range(len(model.index)) for _, text in model.detail(r).notes]
    for text in shown + notes:
        assert not any(c in text for c in "\x1b\x07\x9b"), text
    assert model.describe(1).exchange == "x1 not-HTTP 200 text/\\x9b2j"  # a media type, lower-cased
    assert " x1 not-HTTP 200 text/\\x" in shown[1]  # cut to the column's width
    assert "exchange 1 request (row 1): POST /\\x1b]0;pwned\\x07 HTTP/1.1" in notes
    assert "  > X-Evil: \\x1b[2J\\xff" in notes
    assert "  < content-type: text/\\x9b2J" in notes
    assert f"exchange {2**31 - 1}: not indexed (no such exchange number in this transcript)" in notes
    assert "exchange -5: not indexed (no such exchange number in this transcript)" in notes
    assert (model.describe(3).exchange, model.describe(4).exchange) == (f"x{2**31 - 1}", "x-5")


def test_a_followed_recording_names_an_exchange_once_its_answer_is_written(
    sdk_http_transcript: Path, tmp_path: Path
) -> None:
    """`view --follow` on an HTTP recording in progress: a request whose answer is not written yet says
    `…` where the status goes; once the rest is written, the same row names the status, and the raw
    answer's rows say what they are."""
    lines = sdk_http_transcript.read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b'"ch":"http-out"' in line)  # the first answer
    path = tmp_path / "growing.jsonl"
    path.write_bytes(b"".join(lines[:cut]))
    index = TranscriptIndex(path)
    index.scan()
    model = ViewerModel(index)
    collector = FactsCollector()
    first = collector.collect(index)
    assert first is not None
    model.set_facts(first)
    request = next(r for r in range(len(index)) if _event(model, r).ch == "in")
    assert model.describe(request).exchange == "x1 POST /mcp …"
    with path.open("ab") as grown:
        grown.write(b"".join(lines[cut:]))
    index.scan()
    later = collector.collect(index)
    assert later is not None
    model.set_facts(later)
    assert model.describe(request).exchange == expected_cell(sdk_http_transcript, 1)
    answer = next(r for r in range(len(index)) if _event(model, r).ch == "http-out")
    assert model.describe(answer).status == "http response"


def test_a_long_stream_is_listed_around_the_selected_event(tmp_path: Path) -> None:
    """A GET stream of 500 events: the detail of event 300 lists the 200 events around it (with the
    `id` each came with), says how many it left out before and after, and marks the row."""
    events = [
        Event(
            0.0,
            "http-in",
            text="GET /mcp HTTP/1.1\r\nHost: a\r\naccept: text/event-stream\r\n\r\n",
            fields={"x": 1},
        ),
        Event(
            0.0,
            "http-out",
            text="HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n",
            fields={"x": 1},
        ),
    ]
    for i in range(500):
        params = f'{{"level":"info","data":"tick {i}"}}'
        note = f'{{"jsonrpc":"2.0","method":"notifications/message","params":{params}}}'
        events.append(Event(0.001 * i, "http-out", text=f"id: e{i}\ndata: {note}\n\n", fields={"x": 1}))
        events.append(Event(0.001 * i, "out", text=note + "\n", fields={"x": 1}))
    events.append(Event(1.0, "eof", fields={"of": "http-in"}))
    path = tmp_path / "stream.jsonl"
    http = {"upstream": "http://127.0.0.1:1/mcp", "listen": "http://127.0.0.1:2/mcp"}
    write_transcript(path, Header(1, HEADER.started, [], "/", HEADER.recorder, {"http": http}), events)
    model = open_model(path)
    outs = rows_of(model, "out")
    notes = [text for _, text in model.detail(outs[300]).notes]
    start = notes.index(
        "exchange 1 carried 500 messages: 0 from the client, 500 from the server (its SSE stream's events)"
    )
    assert notes[start + 1] == "    ... 200 earlier"
    listed = notes[start + 2 : start + 202]
    assert [line.split(" · ")[0] for line in listed] == [f"    ← row {r + 1}" for r in outs[200:400]]
    assert [
        f"· id e{i} ·" in line and f"info: tick {i}" in line
        for i, line in zip(range(200, 400), listed, strict=True)
    ] == [True] * 200
    assert [line.endswith("◂ this row") for line in listed].index(True) == 100
    assert notes[start + 202] == "    ... 100 more"


def test_the_first_http_finding_moves_the_cursor_before_the_check_ends(tmp_path: Path) -> None:
    """As for a stdio transcript's first bad line, the check pass reports the first HTTP message that
    is not protocol as soon as it is found, and the landing goes there at once, saying so."""
    path = planted_http_transcript(tmp_path, "log-before-json")
    index = TranscriptIndex(path)
    index.scan(final=True)
    heard: list[Finding] = []
    FactsCollector(first_line=heard.append).collect(index, final=True)
    assert [(f.rule, f.channel, f.line) for f in heard] == [("http-body-not-json", "http-out", 1)]
    move = Landing().first_line(heard[0], user_moved=False)
    assert move is not None and move.row == heard[0].event
    assert move.reason.startswith(
        "cursor: first non-protocol bytes on http-out (http-body-not-json) — exchange 1 ("
    )
