"""Must show: a replay whose stderr differs from the recording only by a log line's time column
(Rich's `[12/02/26 00:26:17] ` in one run, the same width of spaces in the other: the official
Python SDK's server logging) counts it among the lines that differ only in numbers, and does not
list it as one new line and one gone line."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from mcp import Client

from tests.conftest import console_script
from tests.e2e.realtraffic.support import FEATURES, record


def test_a_log_line_that_lost_its_time_column_is_not_listed_as_changed(tmp_path: Path) -> None:
    """Recorded with the time column, replayed without it: stderr lists no new or gone line."""

    async def script(client: Client) -> None:
        await client.list_tools()
        assert not (await client.call_tool("shout", {"text": "disk almost full"})).is_error

    path = tmp_path / "s.jsonl"
    os.environ["FEATURES_LOG_TIME"] = "1"
    try:
        record(FEATURES, path, script)
    finally:
        del os.environ["FEATURES_LOG_TIME"]
    # The server exits with code 0 once its stdin closes, as recorded; on a loaded machine later than
    # replay's default 2 s, and a SIGTERMed exit is `different`: wait for it up to 30 s (a deadline).
    done = subprocess.run(
        [console_script(), "replay", str(path), "--json", "--shutdown-timeout", "30", "--", *FEATURES],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    stderr = json.loads(done.stdout)["diff"]["stderr"]
    assert (stderr["added"], stderr["removed"], stderr["numbers_only"]) == ([], [], 1), stderr
