"""The viewer opens on the worst finding (error before warning before info), and the header
splits the count of findings by severity."""

from __future__ import annotations

from pathlib import Path

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.model.facts import collect_facts
from mcptape.tui.model.summary import landing, verdict
from tests.tui.conftest import screen_text, settle
from tests.tui.transcripts import error, handshake, req, write


def warning_then_error(path: Path) -> Path:
    """A request never answered (a warning, row 4), then an action for a rejected call (an error, row 6)."""
    events = [
        *handshake(),
        req(0.010, 5, "tools/list"),
        req(0.020, 6, "tools/call", '{"name":"deploy","arguments":{}}'),
        Event(0.021, "exec", text='{"action":"deploy","request_id":6}\n'),
        error(0.022, 6, "unauthorised"),
        Event(0.030, "exit", fields={"code": 0, "signal": None}),
    ]
    return write(path, events)


def test_the_landing_row_is_the_first_error_even_after_an_earlier_warning(tmp_path: Path) -> None:
    """The warning comes first in the session, the error later: the cursor goes to the error."""
    index = TranscriptIndex(warning_then_error(tmp_path / "t.jsonl"))
    index.scan()
    facts = collect_facts(index)
    assert facts is not None
    assert [facts.findings[row][0].severity.value for row in facts.finding_rows] == ["warning", "error"]
    row, reason = landing(facts)
    assert row == 5
    assert reason.startswith("cursor: worst finding first (error exec-after-reject;")


def test_the_verdict_counts_findings_by_severity(tmp_path: Path) -> None:
    """The header says how many of the findings are errors, warnings and info."""
    index = TranscriptIndex(warning_then_error(tmp_path / "t.jsonl"))
    index.scan()
    facts = collect_facts(index)
    assert facts is not None
    text, style = verdict(facts)
    assert text.startswith("verdict: 2 findings (1 error, 1 warning) — ")
    assert style == "bold red"


def test_a_session_with_only_warnings_is_not_painted_as_errors(tmp_path: Path) -> None:
    """Warnings only: the verdict says so and is yellow, not red."""
    events = [
        *handshake(),
        req(0.010, 5, "tools/list"),
        Event(0.030, "exit", fields={"code": 0, "signal": None}),
    ]
    index = TranscriptIndex(write(tmp_path / "w.jsonl", events))
    index.scan()
    facts = collect_facts(index)
    assert facts is not None
    assert verdict(facts) == ("verdict: 1 finding (1 warning) — unanswered-request ×1", "bold yellow")


async def test_the_viewer_opens_with_the_cursor_on_the_error(tmp_path: Path) -> None:
    """In the app: the cursor row is the error's, and the header shows the split counts."""
    app = ViewerApp(TranscriptIndex(warning_then_error(tmp_path / "t.jsonl")))
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        assert app.messages.current_row == 5
        text = screen_text(app)
        assert "verdict: 2 findings (1 error, 1 warning)" in text
        assert "cursor: worst finding first (error exec-after-reject" in text
