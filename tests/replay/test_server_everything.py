"""A session with @modelcontextprotocol/server-everything, including its own requests to the client
(roots/list, sampling/createMessage, elicitation/create), replays against the same server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.client.context import ClientRequestContext
from pydantic import FileUrl

from mcptape.replay.api import replay
from tests.clients import sdk_session
from tests.conftest import server_everything

pytestmark = pytest.mark.node


async def sampling(
    context: ClientRequestContext, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="a recorded completion"),
        model="stub-model",
    )


async def elicitation(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada Lovelace"})


async def roots(context: ClientRequestContext) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri=FileUrl("file:///work/project"), name="project")])


async def three_server_requests(client: Client) -> dict[str, Any]:
    await anyio.sleep(0.6)  # the server asks for the roots 350 ms after the handshake
    listed = await client.call_tool("get-roots-list", {})
    sampled = await client.call_tool("trigger-sampling-request", {"prompt": "hello", "maxTokens": 5})
    elicited = await client.call_tool("trigger-elicitation-request", {})
    return {"texts": [c.content[0].text for c in (listed, sampled, elicited)]}  # type: ignore[union-attr]


def test_server_everything_session_with_server_requests_replays_successfully(tmp_path: Path) -> None:
    """Each server request of the replay gets the recorded client's answer, and nothing differs."""
    tape = tmp_path / "everything.jsonl"
    seen = sdk_session(
        server_everything(),
        record_to=tape,
        script=three_server_requests,
        mode="legacy",
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
    )
    texts = seen.results["texts"]
    assert (
        "file:///work/project" in texts[0] and "a recorded completion" in texts[1] and "provided" in texts[2]
    )
    result = replay(tape, server_everything(), output=tmp_path / "new.jsonl", config=False)
    assert result.same, result.render()
    assert result.run.answered >= 3  # roots/list, sampling/createMessage, elicitation/create
    methods = {p.scope for p in result.diff.pairs if p.kind == "server-request"}
    assert {"roots/list", "sampling/createMessage", "elicitation/create"} <= methods
