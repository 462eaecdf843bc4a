"""The viewer shows a tool surface (issue 28, item 5): a `tools/list` answer as a table of its tools,
read by the surface package, and a `tools-drift` finding (a listing that changed mid-session) as the
old and new definitions side by side with the changed lines marked. Recorded from the official SDK's
weather server of tests/surface, whose `upgrade` tool rewrites get_forecast's description mid-session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from rich.console import Console

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.model.detail import Detail
from mcptape.tui.widgets.detail import detail_renderable
from tests import inprocess
from tests.surface.support import listed_twice
from tests.tui.conftest import screen_text, settle
from tests.tui.helpers import open_model
from tests.tui.transcripts import handshake, ok, req, write

pytestmark = pytest.mark.slow

DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@pytest.fixture(scope="module")
def drift_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real session (SDK client, SDK server through `mcptape record`): list, upgrade, list again
    (tests/surface/support.py's, made once per run: read it, never modify it)."""
    return listed_twice(tmp_path_factory, "drift")


def tools_answers(path: Path) -> list[tuple[int, list[dict[str, Any]]]]:
    """(row, tools) of every tools/list answer, read from the transcript by hand."""
    lines = path.read_bytes().splitlines()[1:]
    asked = set()
    found = []
    for row, line in enumerate(lines):
        record = orjson.loads(line)
        if record["ch"] not in ("in", "out") or not record.get("data", "").startswith("{"):
            continue
        message = orjson.loads(record["data"])
        if record["ch"] == "in" and message.get("method") == "tools/list":
            asked.add(message["id"])
        elif record["ch"] == "out" and message.get("id") in asked and "result" in message:
            found.append((row, message["result"]["tools"]))
    return found


def drawn(detail: Detail, width: int = 200) -> str:
    """The detail pane's content as the pane draws it, as plain text."""
    console = Console(width=width, record=True, color_system=None, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(detail_renderable(detail, hex_mode=False))
    return console.export_text()


def test_a_tools_list_answer_is_a_table_of_its_tools(drift_session: Path) -> None:
    """Each tools/list answer's detail has one table row per tool, in the order listed: its name, each
    hint as the server gave it (absent: the schema's default, in parentheses), its required arguments
    and its description's first line, as the recorded JSON says."""
    model = open_model(drift_session)
    answers = tools_answers(drift_session)
    assert len(answers) == 2
    for row, tools in answers:
        table = model.detail(row).tools
        assert table is not None and table.title == f"{len(tools)} tools listed in this answer"
        expected = []
        for tool in tools:
            hints = tool.get("annotations", {})
            expected.append(
                (
                    tool["name"],
                    tuple(
                        ("yes" if hints[h] else "no") if h in hints else ("(yes)" if DEFAULTS[h] else "(no)")
                        for h in HINTS
                    ),
                    ", ".join(tool["inputSchema"].get("required", [])),
                    tool["description"].strip().split("\n")[0],
                )
            )
        assert [(r.name, r.hints, r.required, r.summary) for r in table.rows] == expected
    first = {r.name: r for r in model.detail(answers[0][0]).tools.rows}  # type: ignore[union-attr]
    assert first["get_forecast"].hints == ("yes", "(yes)", "(no)", "no")
    assert first["delete_history"].hints[1] == "yes" and first["delete_history"].required == "city"
    other = next(r for r in range(len(model.index)) if r not in {row for row, _ in answers})
    assert model.detail(other).tools is None


def test_a_drift_finding_shows_both_definitions_side_by_side(drift_session: Path) -> None:
    """The viewer's check pass makes the `tools-drift` warning `mcptape check` makes, at the second
    answer; its detail names the changed tool, the change (suspicious, /description, the words it
    gained) and both definitions line by line, only the description's line marked as changed."""
    model = open_model(drift_session)
    facts = model.facts
    assert facts is not None
    (earlier, _), (later, _) = tools_answers(drift_session)
    report = inprocess.run("check", "--json", str(drift_session))
    checked = [f for f in orjson.loads(report.stdout)["findings"] if f["rule"] == "tools-drift"]
    assert [(f["event"], f["severity"]) for f in checked] == [(later, "warning")]
    assert [(f.rule, f.severity.value) for f in facts.findings[later]] == [("tools-drift", "warning")]
    (view,) = model.detail(later).drift
    assert view.title == f"tools of row {later + 1} against row {earlier + 1}"
    (tool,) = view.definitions
    assert tool.title == "tool get_forecast"
    assert tool.changes[0][0] == "suspicious" and tool.changes[0][1].startswith("/description  ")
    assert tool.changes[1][0] == "words" and "{+<IMPORTANT>Before using this tool" in tool.changes[1][1]
    changed = [line for line in tool.lines if line.mark != " "]
    assert [line.mark for line in changed] == ["≠"]
    assert changed[0].old == '  "description": "Get the weather forecast for a city.",'
    assert changed[0].new.startswith('  "description": "Get the weather forecast for a city. <IMPORTANT>')
    assert all(line.old == line.new for line in tool.lines if line.mark == " ") and len(tool.lines) > 20
    text = drawn(model.detail(later))
    assert "drift: tools of row" in text and "≠" in text and "~/.ssh/id_rsa" in text


async def test_the_viewer_opens_on_the_drift_with_its_table_in_the_pane(drift_session: Path) -> None:
    """Driven headless: the viewer lands on the drift warning (the session's only finding) and its
    detail pane draws the tool table's header; the first listing's answer shows the table too."""
    app = ViewerApp(TranscriptIndex(drift_session))
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        (earlier, _), (later, _) = tools_answers(drift_session)
        assert app.messages.current_row == later
        assert "tools-drift" in screen_text(app)
        app.messages.select_row(earlier)
        await pilot.pause()
        text = screen_text(app)
        assert "3 tools listed in this answer" in text
        header = next(line for line in text.splitlines() if "read-only" in line)
        columns = ["name", "title", "read-only", "destructive", "idempotent", "open-world", "required"]
        places = [header.index(c) for c in [*columns, "description"]]
        assert places == sorted(places)
        assert any(
            "get_forecast" in line and "Get the weather forecast" in line for line in text.splitlines()
        )


def test_hostile_tool_definitions_are_escaped(tmp_path: Path) -> None:
    """A tool name with an OSC sequence, a title written as console markup and a description with a
    bidi override: the table shows them escaped, the markup as plain text, never acted on."""
    tools = [
        {
            "name": "\x1b]0;pwned\x07",
            "title": "[bold red]x[/]",
            "description": "\u202eevil\nsecond line",
            "inputSchema": {"type": "object", "required": ["\x1b[2J"]},
            "annotations": {"readOnlyHint": "yes"},
        }
    ]
    events: list[Event] = [
        *handshake(),
        req(0.2, 2, "tools/list"),
        ok(0.3, 2, orjson.dumps({"tools": tools}).decode()),
    ]
    model = open_model(write(tmp_path / "hostile.jsonl", events))
    detail = model.detail(len(model.index) - 1)
    assert detail.tools is not None
    (row,) = detail.tools.rows
    assert (row.name, row.title, row.summary) == ("\\x1b]0;pwned\\x07", "[bold red]x[/]", "\\u202eevil")
    assert row.hints[0] == "?" and row.required == "\\x1b[2J"
    text = drawn(detail)
    assert "[bold red]x[/]" in text and "\\x1b]0;pwned\\x07" in text
    assert not any(c in text for c in "\x1b\x07\u202e")
