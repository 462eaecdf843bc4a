"""A session recorded with `record --stub NAME` replays with the same stubs: the command the server
ran was a stub when recorded, so it is a stub again on replay (never the real command), without
the user having to repeat `--stub`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client

from mcptape.replay.api import replay
from tests import inprocess
from tests.clients import python_server, sdk_session
from tests.conftest import SERVERS, console_script

pytestmark = pytest.mark.slow

STUB_SERVER = SERVERS / "stub_server.py"
STUB = "mcptape-qa-deploy"


async def deploy_main(client: Client) -> dict[str, Any]:
    result = await client.call_tool("deploy", {"branch": "main"})
    return {"text": result.content[0].text}  # type: ignore[union-attr]


def record_with_stub(path: Path) -> Path:
    """A real SDK session through `mcptape record --stub mcptape-qa-deploy`."""
    argv = [
        console_script(),
        "record",
        "-q",
        "-o",
        str(path),
        "--stub",
        STUB,
        "--",
        *python_server(STUB_SERVER),
    ]
    seen = sdk_session(argv, script=deploy_main)
    assert seen.results["text"] == "exit 255"  # the stub ran (a stub exits 255)
    header = orjson.loads(path.read_bytes().split(b"\n", 1)[0])
    assert header["side_effects"]["stubs"] == [STUB]
    return path


def test_replay_without_stub_options_uses_the_recorded_stubs(tmp_path: Path) -> None:
    """`mcptape replay FILE` (no --stub): the recorded stub runs again, its exec line matches: same."""
    tape = record_with_stub(tmp_path / "stubbed.jsonl")
    proc = inprocess.run("replay", str(tape), "--no-config", cwd=tmp_path)
    out = proc.stdout.decode()
    assert proc.returncode == 0, out + proc.stderr.decode()
    assert out.endswith("same\n")


def test_a_given_command_gets_the_recorded_stubs_too(tmp_path: Path) -> None:
    """The API with a command of its own: the recorded stubs are still installed, once each even
    when also given."""
    tape = record_with_stub(tmp_path / "stubbed.jsonl")
    for stubs in ((), (STUB,)):
        result = replay(tape, python_server(STUB_SERVER), config=False, stubs=stubs)
        assert result.same, result.render()


def test_a_header_stub_that_is_not_a_command_name_is_a_usage_error(tmp_path: Path) -> None:
    """A header naming a path as a stub (not written by `record`): exit 2, one Error line, nothing run."""
    tape = record_with_stub(tmp_path / "stubbed.jsonl")
    first, rest = tape.read_bytes().split(b"\n", 1)
    header = orjson.loads(first)
    header["side_effects"]["stubs"] = ["../../bin/sh"]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(orjson.dumps(header) + b"\n" + rest)
    proc = inprocess.run("replay", str(bad), "--no-config", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().startswith(
        "Error: the transcript's header names a stub that is not a command name"
    )


def test_a_stubbed_command_is_not_reported_as_an_action_the_replay_ran(tmp_path: Path) -> None:
    """The replay's only executor line is a stub's (nothing ran): no executed-actions warning."""
    tape = record_with_stub(tmp_path / "stubbed.jsonl")
    result = replay(tape, config=False)
    assert result.same, result.render()
    assert [i.kind for i in result.issues] == []
    assert "executed actions" not in result.render()
