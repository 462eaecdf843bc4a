"""Must show: a session recorded one day still replays `same` another day once learned. Real
servers, recorded with the official SDK client through `mcptape record`: server-filesystem's
`get_file_info` after the file was touched again (as a fresh checkout does: a JavaScript date string
changes), and mcp-server-time recorded on the day before (its `day_of_week` changes)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests import inprocess
from tests.clients import sdk_session
from tests.conftest import NODE_DIR, PYTHON, console_script, server_everything

pytestmark = pytest.mark.slow

TIME_SERVER = [str(Path(PYTHON).parent / "mcp-server-time")]


def filesystem_server(root: Path) -> list[str]:
    node = server_everything()[0]
    script = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
    return [node, str(script), str(root)]


def mcptape(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`mcptape ARGS` in `project`, in the test's process (tests/inprocess.py: as the process gives it)."""
    return inprocess.run(*args, cwd=project, text=True)


# mcp-server-time exits with code 0 once stdin closes, as recorded, but on a busy machine it takes
# longer than replay's default 2 s to end, and a replay that SIGTERMs it is `different`: its
# replays wait for that exit up to 30 s (a deadline: the replay goes on when it exits).
EXIT_WAIT = ("--shutdown-timeout", "30")


def learn_then_replay(project: Path, tape: Path, *options: str) -> str:
    """`replay --learn 3 --save` (must make its 3 replays same), then one plain replay; the saved rules."""
    learned = mcptape(project, "replay", str(tape), *options, "--learn", "3", "--save")
    assert learned.returncode == 0, learned.stdout + learned.stderr
    assert "with these rules: 3 of 3 replays same" in learned.stdout, learned.stdout
    plain = mcptape(project, "replay", str(tape), *options)
    assert plain.returncode == 0 and plain.stdout.endswith("same\n"), plain.stdout
    return (project / "mcptape.toml").read_text()


def test_file_dates_that_changed_since_the_recording_are_learned_as_times(tmp_path: Path) -> None:
    """get_file_info's `modified: Tue Dec 01 2026 07:07:07 GMT+0000 (...)` after a touch: a |time rule."""
    root = tmp_path / "root"
    root.mkdir()
    notes = root / "notes.txt"
    notes.write_text("one\ntwo\n")
    os.utime(notes, (1_700_000_000, 1_700_000_000))

    async def info(client: Client) -> dict[str, Any]:
        result = await client.call_tool("get_file_info", {"path": str(notes)})
        return {"text": result.content[0].text}  # type: ignore[union-attr]

    tape = tmp_path / "fs.jsonl"
    argv = [console_script(), "record", "-q", "-o", str(tape), "--", *filesystem_server(root)]
    seen = sdk_session(argv, script=info)
    assert "modified: Tue Nov 14 2023" in seen.results["text"]
    os.utime(notes, (1_800_000_000, 1_800_000_000))  # the checkout of another day
    project = tmp_path / "project"
    project.mkdir()
    rules = learn_then_replay(project, tape)
    assert "tools/call[get_file_info]:" in rules and "|time" in rules


def test_a_day_name_recorded_the_day_before_is_learned_as_a_weekday(tmp_path: Path) -> None:
    """mcp-server-time recorded "yesterday" (its dates and day name moved back a day): |weekday."""

    async def utc(client: Client) -> dict[str, Any]:
        result = await client.call_tool("get_current_time", {"timezone": "UTC"})
        return {"now": result.structured_content}

    tape = tmp_path / "time.jsonl"
    argv = [console_script(), "record", "-q", "-o", str(tape), "--", *TIME_SERVER]
    now = sdk_session(argv, script=utc).results["now"]
    today = dt.date.fromisoformat(now["datetime"][:10])
    yesterday = today - dt.timedelta(days=1)
    raw = tape.read_bytes()
    raw = raw.replace(today.isoformat().encode(), yesterday.isoformat().encode())
    raw = raw.replace(f'"{now["day_of_week"]}'.encode(), f'"{yesterday.strftime("%A")}'.encode())
    raw = raw.replace(f'\\"{now["day_of_week"]}'.encode(), f'\\"{yesterday.strftime("%A")}'.encode())
    tape.write_bytes(raw)
    assert yesterday.strftime("%A").encode() in raw and now["day_of_week"].encode() not in raw
    project = tmp_path / "project"
    project.mkdir()
    rules = learn_then_replay(project, tape, *EXIT_WAIT)
    assert "day_of_week|weekday" in rules
