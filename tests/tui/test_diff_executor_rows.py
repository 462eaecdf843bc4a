"""Executor pairs in the diff viewer say which request they belong to."""

from __future__ import annotations

from pathlib import Path

from mcptape.replay.api import diff_files
from mcptape.tui.diff_app import DiffApp
from mcptape.tui.model.diffrows import pair_line
from tests.tui.conftest import screen_text
from tests.tui.transcripts import exec_after_reject_session


async def test_executor_rows_name_their_request(tmp_path: Path) -> None:
    """The old build deployed for requests 1 and 2, the new one for 1 only: the removed row says #2."""
    old = exec_after_reject_session(tmp_path / "old.jsonl")
    new = tmp_path / "new.jsonl"
    new.write_bytes(
        b"".join(line for line in old.read_bytes().splitlines(keepends=True) if b"deploy-prod" not in line)
    )
    diff = diff_files(old, new, config=False)
    rows = {
        pair_line(pair)[0].split()[0]: pair_line(pair)[0] for pair in diff.pairs if pair.kind == "executor"
    }
    assert rows["="].split()[3] == "#1" and rows["−"].split()[3] == "#2"
    app = DiffApp(diff, old.name, new.name)
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        assert "executor · exec · #2 · removed" in screen_text(app)
