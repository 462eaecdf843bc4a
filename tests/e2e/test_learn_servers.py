"""Must show: real servers, recorded with the official SDK client, replay `same` after
`replay --learn 3 --save`, five times in a row; a build whose tool answers a different text is still
`different`."""

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

TIME_SERVER = [str(Path(PYTHON).parent / "mcp-server-time")]
RETEXT = SERVERS / "retext.py"


def mcptape(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`mcptape ARGS` in `project` (where --save writes and replay reads), in the test's process
    (tests/inprocess.py: as the process gives it; the servers stay real processes)."""
    return inprocess.run(*args, cwd=project, text=True)


# Each replay compares the server's exit with the recorded one: mcp-server-time exits with code 0
# once stdin closes, but on a busy machine it takes longer than replay's default 2 s to end, and a
# replay that SIGTERMs it is `different`: wait for that exit up to 30 s (a deadline: the replay goes
# on when it exits). Not for server-everything, which does not exit on its own (both SIGTERMed).
EXIT_WAIT = ("--shutdown-timeout", "30")


def learn_then_replay(
    project: Path, tape: Path, server: list[str], changed: list[str], *options: str
) -> list[str]:
    """--learn 3 --save, then five plain replays; then one against the changed build. Their verdicts."""
    learned = mcptape(project, "replay", str(tape), *options, "--learn", "3", "--save", "--", *server)
    assert learned.returncode == 0, learned.stdout + learned.stderr
    assert "with these rules: 3 of 3 replays same" in learned.stdout
    assert (project / "mcptape.toml").is_file()
    verdicts = []
    for _ in range(5):
        plain = mcptape(project, "replay", str(tape), *options, "--", *server)
        verdicts.append(plain.stdout.splitlines()[-1])
        assert plain.returncode == 0, plain.stdout
    different = mcptape(
        project, "replay", str(tape), *options, "--", PYTHON, str(RETEXT), *changed, "--", *server
    )
    assert different.returncode == 1, different.stdout + different.stderr
    verdicts.append(different.stdout.splitlines()[-1])
    return verdicts


async def times(client: Client) -> dict[str, Any]:
    await client.call_tool("get_current_time", {"timezone": "UTC"})
    await client.call_tool("get_current_time", {"timezone": "Europe/Paris"})
    await client.call_tool(
        "convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    )
    return {}


def test_time_server_is_same_five_times_after_learning_and_a_changed_answer_still_differs(
    tmp_path: Path,
) -> None:
    """mcp-server-time: the learned rules cover the current time only, so a changed conversion shows."""
    tape = tmp_path / "time.jsonl"
    sdk_session(TIME_SERVER, record_to=tape, script=times)
    project = tmp_path / "project"
    project.mkdir()
    verdicts = learn_then_replay(project, tape, TIME_SERVER, ["Asia/Tokyo", "Asia/Seoul"], *EXIT_WAIT)
    assert verdicts == ["same"] * 5 + ["different"]
    saved = (project / "mcptape.toml").read_text()
    assert "tools/call[get_current_time]:result.content[*].text|json.datetime|time" in saved
    assert "convert_time" not in saved


async def sampling(
    context: ClientRequestContext, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="a completion"), model="stub"
    )


async def elicitation(context: ClientRequestContext, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


async def roots(context: ClientRequestContext) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri=FileUrl("file:///work/project"), name="project")])


async def noisy_tools(client: Client) -> dict[str, Any]:
    """Random log levels, a local time inside a text, a time inside base64, a UUID inside tool text."""
    await anyio.sleep(0.6)  # the server asks for the roots 350 ms after the handshake
    await client.call_tool("echo", {"message": "hi"})
    await client.call_tool("toggle-simulated-logging", {})
    await client.read_resource("demo://resource/dynamic/text/1")
    await client.read_resource("demo://resource/dynamic/blob/1")
    await client.call_tool("get-roots-list", {})
    await client.call_tool("trigger-sampling-request", {"prompt": "hello", "maxTokens": 5})
    await client.call_tool("trigger-url-elicitation", {"url": "https://example.com/login"})
    await client.call_tool("get-structured-content", {"location": "Chicago"})
    return {}


@pytest.mark.node
def test_server_everything_is_same_five_times_after_learning_and_a_changed_echo_still_differs(
    tmp_path: Path,
) -> None:
    """server-everything's noise is learned as precise rules; a changed echo text is still different."""
    tape = tmp_path / "everything.jsonl"
    sdk_session(
        server_everything(),
        record_to=tape,
        script=noisy_tools,
        mode="legacy",
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
    )
    project = tmp_path / "project"
    project.mkdir()
    # It never exits when its stdin closes (the recording ends with SIGTERM too): no need to wait 2 s.
    verdicts = learn_then_replay(
        project, tape, server_everything(), ["Echo: hi", "Echo: ho"], "--shutdown-timeout", "0.3"
    )
    assert verdicts == ["same"] * 5 + ["different"]
    saved = (project / "mcptape.toml").read_text()
    assert "tools/call[trigger-url-elicitation]:result.content[*].text|uuid" in saved
    assert "resources/read[demo://resource/dynamic/text/1]:result.contents[*].text|clock" in saved
    assert "echo" not in saved
