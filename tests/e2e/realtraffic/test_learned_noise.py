"""Must show: `replay --learn` explains how each message varied between runs, not how two messages
differ: two calls of one tool whose answers differ by their item and vary by the time of day learn
`|clock`, which still compares the item (it learnt `|number`, which hid every digit, before)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from mcp import Client

from tests.conftest import console_script
from tests.e2e.realtraffic.support import FEATURES, record

# Each replay compares the server's exit (code 0 once stdin closes, as recorded): wait for it up to
# 30 s, not replay's default 2 s, which a busy machine exceeds (a deadline: it goes on at the exit).
EXIT_WAIT = ("--shutdown-timeout", "30")


def test_learning_masks_what_varied_in_each_answer_not_what_differs_between_answers(tmp_path: Path) -> None:
    """stamp(2) and stamp(999) answer 'item N stamped at HH:MM:SS.ffffff': the learned rule is |clock."""

    async def script(client: Client) -> None:
        await client.list_tools()
        for item in (2, 999):
            assert not (await client.call_tool("stamp", {"item": item})).is_error

    path = tmp_path / "s.jsonl"
    record(FEATURES, path, script)
    done = subprocess.run(
        [console_script(), "replay", str(path), "--learn", "2", "--json", *EXIT_WAIT, "--", *FEATURES],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    text = json.dumps(json.loads(done.stdout))
    assert "tools/call[stamp]:result.content[*].text|clock" in text
    assert "|number" not in text
