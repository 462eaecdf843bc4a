"""`tools lock` on real servers: listed live twice, and from the recording of a listing, the lock is
the same bytes; `tools diff` of the server against itself finds no change."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.surface.support import real_server, tools

pytestmark = pytest.mark.slow

SERVERS = ["mcp-server-time", "server-everything", "server-memory", "server-filesystem"]


@pytest.mark.parametrize("name", SERVERS)
def test_locking_a_real_server_twice_and_from_its_recording_gives_the_same_bytes(
    name: str, tmp_path: Path
) -> None:
    """Live, live again and from the transcript of the first listing: one lock, byte for byte."""
    command = real_server(name, tmp_path / "scratch")
    first = tools(
        "lock", "-o", str(tmp_path / "a.json"), "--record", str(tmp_path / "a.jsonl"), "--", *command
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout == ""  # the lock went to the file; stdout stays empty
    again = tools("lock", "-o", str(tmp_path / "b.json"), "--", *command)
    assert again.returncode == 0, again.stderr
    recorded = tools("lock", str(tmp_path / "a.jsonl"), "-o", str(tmp_path / "c.json"))
    assert recorded.returncode == 0, recorded.stderr
    a, b, c = ((tmp_path / f"{x}.json").read_bytes() for x in "abc")
    assert a == b == c
    lock = orjson.loads(a)
    assert lock["mcptapeToolsLock"] == 1 and lock["tools"]
    assert set(lock["sha256"]["tools"]) == {tool["name"] for tool in lock["tools"]}
    same = tools("diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert same.returncode == 0, same.stdout + same.stderr
    assert "no change" in same.stdout


def test_server_everything_lists_prompts_resources_and_templates(tmp_path: Path) -> None:
    """A server that has prompts, resources and resource templates gets each listed in its lock,
    and no tool is called while it is listed."""
    result = tools(
        "lock", "--record", str(tmp_path / "s.jsonl"), "--", *real_server("server-everything", tmp_path)
    )
    assert result.returncode == 0, result.stderr
    lock = orjson.loads(result.stdout)
    assert lock["prompts"] and lock["resources"] and lock["resourceTemplates"]
    assert lock["serverInfo"]["name"]
    assert "echo" in {tool["name"] for tool in lock["tools"]}
    sent = (tmp_path / "s.jsonl").read_text()
    assert "tools/call" not in sent and "prompts/get" not in sent and "resources/read" not in sent
