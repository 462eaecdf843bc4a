"""Shared recordings for the replay tests: one real SDK session with rp_server v1, recorded once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.clients import python_server, sdk_session
from tests.conftest import SERVERS

RP_SERVER = SERVERS / "rp_server.py"


def rp(*flags: str) -> list[str]:
    """The command line of the replay test server with `flags` (see tests/servers/rp_server.py)."""
    return python_server(RP_SERVER, *flags)


async def greet_and_deploy(client: Client) -> dict[str, Any]:
    """greet, a deploy with a bad token (rejected), a deploy with a good one."""
    out: dict[str, Any] = {}
    greeting = await client.call_tool("greet", {"name": "Ada"})
    out["greet"] = greeting.content[0].text  # type: ignore[union-attr]
    try:
        await client.call_tool("deploy", {"branch": "main", "token": "bad"})
    except Exception as exc:  # the SDK raises on a JSON-RPC error
        out["bad"] = str(exc)
    deployed = await client.call_tool("deploy", {"branch": "main", "token": "valid"})
    out["good"] = deployed.content[0].text  # type: ignore[union-attr]
    return out


@pytest.fixture(scope="session")
def v1_tape(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real SDK session with rp_server v1, recorded through `mcptape record` (do not modify)."""
    path = tmp_path_factory.mktemp("tapes") / "v1.jsonl"
    seen = sdk_session(rp(), record_to=path, script=greet_and_deploy)
    assert seen.results["greet"] == "Hello, Ada!" and seen.results["good"] == "deployed main"
    return path
