"""--follow with a one-rule findings filter: the view goes on following when that rule's findings
come and go, and the filter stays on the rule the user chose."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import screen_text, settle, wait_for
from tests.tui.helpers import append
from tests.tui.transcripts import handshake, write

pytestmark = pytest.mark.slow

REQUEST = (0.010, "in", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n')
ANSWER = (0.012, "out", b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n')


async def test_following_goes_on_when_the_filtered_rule_has_no_finding_left(tmp_path: Path) -> None:
    """Filtering on an in-flight request's unanswered-request: once answered, later rows are checked."""
    path = write(tmp_path / "live.jsonl", handshake())
    app = ViewerApp(TranscriptIndex(path), follow=True, poll=0.05)
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        append(path, REQUEST)
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 4)
        await settle(pilot)
        await pilot.press("f", "f")  # findings of one rule: unanswered-request
        await pilot.pause()
        append(path, ANSWER)
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 5)
        append(path, (0.020, "out", b"stray log line\n"))
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 6)
        await settle(pilot)
        assert "verdict: 1 finding" in screen_text(app)


async def test_a_new_rule_does_not_switch_the_rule_filter(tmp_path: Path) -> None:
    """Filtering on unanswered-request: a non-protocol line written later leaves the filter as it was."""
    path = write(tmp_path / "live.jsonl", handshake())
    app = ViewerApp(TranscriptIndex(path), follow=True, poll=0.05)
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        append(path, REQUEST)
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 4)
        await settle(pilot)
        await pilot.press("f", "f")
        await pilot.pause()
        assert "[filter: finding unanswered-request]" in screen_text(app)
        append(path, (0.011, "out", b"Loading model weights...\n"))
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 5)
        await settle(pilot)
        text = screen_text(app)
        assert "[filter: finding unanswered-request]" in text
        assert "Loading model weights" not in text.split("[filter:")[1].split("────")[0]
