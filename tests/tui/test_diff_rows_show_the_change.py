"""A changed pair's row shows where the two values differ, and every row says what its message says
(the tool's answer, not the `{"jsonrpc":"2.0",…` each line starts with)."""

from __future__ import annotations

from pathlib import Path

from mcptape.diff.compare import MISSING
from mcptape.replay.api import diff_files
from mcptape.tui.diff_app import DiffApp
from mcptape.tui.model.diffrows import pair_line, values_apart
from tests.tui.conftest import screen_text
from tests.tui.helpers import list_lines
from tests.tui.transcripts import forecast_session

SAME_START = "Forecast for Lyon, Auvergne-Rhône-Alpes, France, issued by the regional office: "


def test_two_long_values_are_shown_from_where_they_differ() -> None:
    """Two 90-character strings equal but for their last word show that word on both sides."""
    old, new = values_apart(SAME_START + "sunny", SAME_START + "rainy", 30)
    assert old.startswith("…") and new.startswith("…")
    assert "sunny" in old and "rainy" in new and len(old) <= 30 and len(new) <= 30


def test_short_values_are_shown_whole() -> None:
    """Values that fit are left as they are (JSON text), a missing one as (missing)."""
    assert values_apart("sunny", "rainy", 30) == ('"sunny"', '"rainy"')
    assert values_apart(MISSING, 3, 30) == ("(missing)", "3")


async def test_the_list_row_of_a_long_changed_answer_shows_the_change(tmp_path: Path) -> None:
    """The tools/call pair whose long answer changed at its end shows `sunny` and `rainy` on its row."""
    old = forecast_session(tmp_path / "old.jsonl", sky=SAME_START + "sunny")
    new = forecast_session(tmp_path / "new.jsonl", sky=SAME_START + "rainy")
    diff = diff_files(old, new)
    pair = next(p for p in diff.pairs if p.changes)
    line, kind = pair_line(pair, 150)
    assert kind == "changed" and "sunny" in line and "rainy" in line
    app = DiffApp(diff, old.name, new.name)
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        changed = next(row for row in list_lines(text, "kind") if row.startswith("≠"))
        assert "sunny" in changed and "rainy" in changed
        assert "sunny" in text.split("changed result.content[0].text")[1]  # the detail pane too


async def test_same_pairs_show_what_their_messages_say(tmp_path: Path) -> None:
    """An unchanged tools/list answer shows `1 tool: forecast` on both sides, not raw JSON."""
    old = forecast_session(tmp_path / "old.jsonl", sky="sunny")
    new = forecast_session(tmp_path / "new.jsonl", sky="sunny")
    app = DiffApp(diff_files(old, new), old.name, new.name)
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        rows = list_lines(screen_text(app), "kind")
        listed = next(row for row in rows if "tools/list" in row)
        assert listed.count("1 tool: forecast") == 2 and '"jsonrpc"' not in listed
