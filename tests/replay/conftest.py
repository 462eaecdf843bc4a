"""Shared recordings for the replay tests, each recorded once per test run for every xdist worker
(`once_per_run`; read them, never modify them): a real SDK session with rp_server v1, one with
minted_server.py (an elicitation's sealed requestState and a random handle), and one with rp_env.py
(tools that show the server's environment, and a random nonce)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client, types

from mcptape.transcript import open_transcript
from tests.clients import python_server, sdk_session
from tests.conftest import SERVERS, once_per_run

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

    def make(folder: Path) -> None:
        seen = sdk_session(rp(), record_to=folder / "v1.jsonl", script=greet_and_deploy)
        assert seen.results["greet"] == "Hello, Ada!" and seen.results["good"] == "deployed main"

    return once_per_run(tmp_path_factory, "replay-v1", make) / "v1.jsonl"


MINTED_SERVER = SERVERS / "minted_server.py"


def minted(*flags: str) -> list[str]:
    """The command line of tests/servers/minted_server.py with `flags`."""
    return python_server(MINTED_SERVER, *flags)


async def accept(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"ok": True})


async def confirm_then_notes(client: Client) -> dict[str, Any]:
    """delete (the server asks the user first), open_notes, then read_notes with the handle it gave."""
    deleted = await client.call_tool("delete", {"name": "notes.txt"})
    handle = (await client.call_tool("open_notes", {"title": "groceries"})).content[0].text  # type: ignore[union-attr]
    read = await client.call_tool("read_notes", {"handle": handle})
    return {
        "deleted": deleted.content[0].text,  # type: ignore[union-attr]
        "handle": handle,
        "read": read.content[0].text,  # type: ignore[union-attr]
    }


@pytest.fixture(scope="session")
def minted_tape(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The official SDK client (2026-07-28) against minted_server.py, recorded through `mcptape record`."""

    def make(folder: Path) -> None:
        path = folder / "minted.jsonl"
        seen = sdk_session(minted(), record_to=path, script=confirm_then_notes, elicitation_callback=accept)
        assert seen.results["deleted"] == "deleted notes.txt"
        assert seen.results["read"] == f"notes {seen.results['handle']}: groceries"
        sent = [orjson.loads(e.data) for e in open_transcript(path).events() if e.ch == "in"]
        assert any("requestState" in m.get("params", {}) for m in sent)  # a sealed MRTR round trip

    return once_per_run(tmp_path_factory, "replay-minted", make) / "minted.jsonl"


ENV_SERVER = python_server(SERVERS / "rp_env.py")
RECORDED = {"GREETING": "hello-from-the-recording", "TZ": "Europe/Paris"}  # in the recorded environment
NONCE = ("tools/call[nonce]:result.content[*].text", "tools/call[nonce]:result.structuredContent.result")


async def show_environment(client: Client) -> dict[str, Any]:
    """env_names, GREETING, TZ, then a nonce."""
    out: dict[str, Any] = {}
    for key, call in (
        ("names", ("env_names", {})),
        ("greeting", ("getenv", {"name": "GREETING"})),
        ("tz", ("getenv", {"name": "TZ"})),
        ("nonce", ("nonce", {})),
    ):
        result = await client.call_tool(*call)
        out[key] = result.content[0].text  # type: ignore[union-attr]
    return out


@pytest.fixture(scope="session")
def env_tape(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SDK session with rp_env.py, recorded through `mcptape record` with RECORDED in the
    server's environment (do not modify)."""

    def make(folder: Path) -> None:
        seen = sdk_session(
            ENV_SERVER, record_to=folder / "env.jsonl", script=show_environment, env=dict(RECORDED)
        )
        assert seen.results["greeting"] == "GREETING=hello-from-the-recording"
        assert "GREETING" in seen.results["names"].split(",") and seen.results["nonce"].startswith("nonce ")

    return once_per_run(tmp_path_factory, "replay-env", make) / "env.jsonl"
