"""Must show (issue 27.11): an unchanged server-everything, whose timer sends a log message at a random
level, replays `same` after `--learn`, which learns that stream's range of counts and nothing about
its members; a changed text in another notification is still `different`."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.client.context import ClientRequestContext
from pydantic import FileUrl

from tests import inprocess
from tests.clients import sdk_session
from tests.conftest import PYTHON, SERVERS, server_everything

pytestmark = pytest.mark.slow

RETEXT = SERVERS / "retext.py"
QUICK = ("--shutdown-timeout", "0.3")  # it never exits when its stdin closes: no need to wait 2 s


async def roots(context: ClientRequestContext) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri=FileUrl("file:///work/project"), name="project")])


async def random_log(client: Client) -> dict[str, Any]:
    """One log message at a random level (sent at once, then every 5 s: never again in this session),
    and the server's "Roots updated" log after it asks for the roots (350 ms after the handshake)."""
    await client.call_tool("toggle-simulated-logging", {})
    await anyio.sleep(0.6)
    await client.call_tool("echo", {"message": "hi"})
    return {}


def mcptape(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`mcptape ARGS` in `project`, in the test's process (tests/inprocess.py: as the process gives it)."""
    return inprocess.run(*args, cwd=project, text=True)


@pytest.fixture(scope="module")
def learned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """A short recording, and `replay --learn 4 --save` run on it in a project folder."""
    tmp = tmp_path_factory.mktemp("unsolicited")
    tape = tmp / "everything.jsonl"
    sdk_session(
        server_everything(), record_to=tape, script=random_log, mode="legacy", list_roots_callback=roots
    )
    project = tmp / "project"
    project.mkdir()
    learning = mcptape(
        project, "replay", str(tape), *QUICK, "--learn", "4", "--save", "--", *server_everything()
    )
    return project, tape, learning


@pytest.mark.node
def test_the_random_log_stream_is_learned_as_a_range_of_counts_not_as_members(
    learned: tuple[Path, Path, subprocess.CompletedProcess[str]],
) -> None:
    """--learn makes every replay `same` with one count rule for the logger-less log messages."""
    project, _, learning = learned
    assert learning.returncode == 0, learning.stdout + learning.stderr
    assert "with these rules: 4 of 4 replays same" in learning.stdout
    saved = (project / "mcptape.toml").read_text()
    assert "notifications/message:count=1..1" in saved
    assert "params.level" not in saved and "params.data" not in saved


@pytest.mark.node
def test_an_unchanged_server_replays_same_after_learning_and_a_changed_notification_differs(
    learned: tuple[Path, Path, subprocess.CompletedProcess[str]],
) -> None:
    """A plain replay is `same`; a build whose "Roots updated" log says "Roots renewed" is `different`,
    and the report shows that message as gone and the new one as added."""
    project, tape, _ = learned
    plain = mcptape(project, "replay", str(tape), *QUICK, "--", *server_everything())
    assert (plain.returncode, plain.stdout.splitlines()[-1]) == (0, "same"), plain.stdout + plain.stderr
    changed = [PYTHON, str(RETEXT), "Roots updated", "Roots renewed", "--", *server_everything()]
    different = mcptape(project, "replay", str(tape), *QUICK, "--", *changed)
    assert different.returncode == 1, different.stdout + different.stderr
    assert different.stdout.splitlines()[-1] == "different"
    assert "Roots renewed" in different.stdout and "Roots updated" in different.stdout
