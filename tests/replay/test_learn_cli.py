"""`replay --learn N`: its refusals, and a real change that is reported, not learned."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client

from tests import inprocess
from tests.clients import sdk_session
from tests.conftest import PYTHON, SERVERS

pytestmark = pytest.mark.slow

ECHO_SERVER = [PYTHON, str(SERVERS / "fast" / "echo_tool.py")]
CHANGED = [PYTHON, str(SERVERS / "retext.py"), "hi there", "ho there", "--", *ECHO_SERVER]


async def echo(client: Client) -> dict[str, Any]:
    await client.call_tool("echo", {"text": "hi there"})
    return {}


def mcptape(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`mcptape ARGS` in `cwd`, in the test's process (tests/inprocess.py: as the process gives it)."""
    return inprocess.run(*args, cwd=cwd, text=True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--save"], "--save keeps what --learn N learned"),
        (["--learn", "3", "-o", "new.jsonl"], "--learn runs its own replays"),
        (["--learn", "3", "--update"], "--learn runs its own replays"),
        (["--learn", "1"], "--learn"),
    ],
)
def test_learn_refuses_what_it_cannot_do(tmp_path: Path, args: list[str], message: str) -> None:
    """--save alone, --learn with -o/--update, fewer than 2 replays: usage errors (exit 2), nothing run."""
    tape = tmp_path / "t.jsonl"
    tape.write_text('{"mcptape":1,"started":"2026-01-01T00:00:00Z","command":["x"]}\n')
    done = mcptape(tmp_path, "replay", str(tape), *args, "--", "no-such-server")
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_a_change_every_replay_agrees_on_is_reported_not_learned_nor_saved(tmp_path: Path) -> None:
    """A build that answers 'ho' where the recording said 'hi': listed as steady, exit 1, no file written."""
    tape = tmp_path / "echo.jsonl"
    sdk_session(ECHO_SERVER, record_to=tape, script=echo)
    done = mcptape(tmp_path, "replay", str(tape), "--learn", "2", "--save", "--json", "--", *CHANGED)
    assert done.returncode == 1, done.stdout + done.stderr
    report = orjson.loads(done.stdout)
    assert report["proposed"] == [] and report["saved"] is None
    steady = {(place["message"], place["path"]) for place in report["steady"]}
    assert steady == {
        ("response to tools/call[echo]", "result.content[*].text"),
        ("response to tools/call[echo]", "result.structuredContent.result"),
    }
    assert all(place["values"] == ["hi there", "ho there"] for place in report["steady"])
    assert not (tmp_path / "mcptape.toml").exists()
