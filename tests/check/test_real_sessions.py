"""Real sessions recorded through the installed `mcptape record` produce zero findings.

No false positives matters as much as detection: the official SDK client against a server built
with the SDK, against mcp-server-time, and against @modelcontextprotocol/server-everything (which
sends sampling, elicitation and roots requests to its client) must all check clean.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types
from mcp.client.session import ClientRequestContext
from pydantic import FileUrl

from mcptape.check.analyze import analyze_file
from mcptape.check.model import Analysis, Message
from tests.clients import sdk_session
from tests.conftest import SERVERS, server_everything

pytestmark = pytest.mark.slow


def _check_clean(path: Path) -> Analysis:
    _, analysis = analyze_file(str(path))
    assert [(f.rule, f.message) for f in analysis.findings] == []
    assert analysis.first_non_protocol == {"out": None, "in": None}
    return analysis


async def _sampling(context: ClientRequestContext, params: types.CreateMessageRequestParams) -> Any:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="sampled"), model="test-model"
    )


async def _elicitation(context: ClientRequestContext, params: types.ElicitRequestParams) -> Any:
    return types.ElicitResult(action="accept", content={"name": "Ada Lovelace"})


async def _roots(context: ClientRequestContext) -> Any:
    return types.ListRootsResult(roots=[types.Root(uri=FileUrl("file:///tmp/project"), name="project")])


async def _call_echo_tools(client: Client) -> dict[str, Any]:
    added = await client.call_tool("add", {"a": 2, "b": 3})
    echoed = await client.call_tool("echo", {"text": "héllo\nworld"})
    return {"add": added.structured_content, "echo": echoed.structured_content}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_sdk_client_against_sdk_server_is_clean(tmp_path: Path, mode: str) -> None:
    """The SDK client against an MCPServer, stateless (auto) and handshake (legacy), checks clean."""
    path = tmp_path / "echo.jsonl"
    result = sdk_session(
        [sys.executable, str(SERVERS / "echo_tool.py")], record_to=path, script=_call_echo_tools, mode=mode
    )
    assert result.results["add"] == {"result": 5}
    analysis = _check_clean(path)
    assert analysis.requests >= 3
    assert analysis.latency.count >= 3
    assert analysis.stderr.lines >= 1
    if mode == "auto":
        assert (analysis.protocol_version, analysis.stateless) == ("2026-07-28", True)
    else:
        assert analysis.protocol_version is not None and analysis.protocol_version < "2026-07-28"


async def _ask_time(client: Client) -> dict[str, Any]:
    now = await client.call_tool("get_current_time", {"timezone": "UTC"})
    converted = await client.call_tool(
        "convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Europe/Paris"}
    )
    return {"now": now.is_error, "converted": converted.is_error}


def test_sdk_client_against_mcp_server_time_is_clean(tmp_path: Path) -> None:
    """mcp-server-time, a real third-party server, checks clean."""
    server = shutil.which("mcp-server-time", path=str(Path(sys.executable).parent))
    assert server is not None
    path = tmp_path / "time.jsonl"
    result = sdk_session([server], record_to=path, script=_ask_time)
    assert "get_current_time" in result.tools
    assert result.results == {"now": False, "converted": False}
    analysis = _check_clean(path)
    assert analysis.requests >= 3


async def _everything(client: Client) -> dict[str, Any]:
    names = {t.name for t in (await client.list_tools()).tools}
    out: dict[str, Any] = {"names": sorted(names)}
    out["echo"] = (await client.call_tool("echo", {"message": "hi"})).is_error
    out["sum"] = (await client.call_tool("get-sum", {"a": 1, "b": 2})).is_error
    out["sampling"] = (await client.call_tool("trigger-sampling-request", {"prompt": "hello"})).is_error
    out["elicitation"] = (await client.call_tool("trigger-elicitation-request", {})).is_error
    out["roots"] = (await client.call_tool("get-roots-list", {})).is_error
    return out


@pytest.mark.node
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_sdk_client_against_server_everything_with_server_requests_is_clean(
    tmp_path: Path, mode: str
) -> None:
    """server-everything sends sampling, elicitation and roots requests to the client: still clean.

    In `auto` mode the client first tries the stateless revision (`server/discover`, answered with
    an error by this server), then falls back to the handshake: the version switch is followed.
    """
    path = tmp_path / "everything.jsonl"
    result = sdk_session(
        server_everything(),
        record_to=path,
        script=_everything,
        mode=mode,
        sampling_callback=_sampling,
        elicitation_callback=_elicitation,
        list_roots_callback=_roots,
    )
    assert result.results["sampling"] is False
    assert result.results["elicitation"] is False
    assert result.results["roots"] is False
    analysis = _check_clean(path)
    # The server really sent requests to the client, and they were paired with the client's answers.
    seen: list[Message] = []
    _, with_messages = analyze_file(str(path), on_message=seen.append)
    server_requests = {m.method for m in seen if m.channel == "out" and m.kind == "request"}
    assert {"sampling/createMessage", "elicitation/create", "roots/list"} <= server_requests
    assert with_messages.findings == analysis.findings


async def _forty_at_once(client: Client) -> dict[str, Any]:
    import anyio

    sums: list[Any] = []

    async def one(i: int) -> None:
        sums.append((await client.call_tool("add", {"a": i, "b": 1})).structured_content)

    async with anyio.create_task_group() as tg:
        for i in range(40):
            tg.start_soon(one, i)
    return {"calls": len(sums)}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_forty_concurrent_calls_pair_up_cleanly(tmp_path: Path, mode: str) -> None:
    """Many requests in flight at once, answered out of order, recorded by separate threads: clean."""
    path = tmp_path / "concurrent.jsonl"
    result = sdk_session(
        [sys.executable, str(SERVERS / "echo_tool.py")], record_to=path, script=_forty_at_once, mode=mode
    )
    assert result.results == {"calls": 40}
    analysis = _check_clean(path)
    assert analysis.latency.count == analysis.requests >= 41
