"""A session with @modelcontextprotocol/server-everything, including its own requests to the client
(roots/list, sampling/createMessage, elicitation/create), replays against the same server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from mcp import Client, types
from mcp.client.context import ClientRequestContext
from pydantic import FileUrl

from mcptape.replay.api import replay
from mcptape.transcript import open_transcript
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


@pytest.fixture(scope="module")
def everything_tape(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SDK session (legacy handshake) that triggers roots/list, sampling and elicitation."""
    tape = tmp_path_factory.mktemp("everything") / "everything.jsonl"
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
    return tape


def test_server_everything_session_with_server_requests_replays_successfully(
    everything_tape: Path, tmp_path: Path
) -> None:
    """Each server request of the replay gets the recorded client's answer, and nothing differs."""
    result = replay(everything_tape, server_everything(), output=tmp_path / "new.jsonl", config=False)
    assert result.same, result.render()
    assert result.run.answered >= 3  # roots/list, sampling/createMessage, elicitation/create
    methods = {p.scope for p in result.diff.pairs if p.kind == "server-request"}
    assert {"roots/list", "sampling/createMessage", "elicitation/create"} <= methods


def test_a_server_request_the_recording_never_answered_gets_an_error_and_a_finding(
    everything_tape: Path, tmp_path: Path
) -> None:
    """Without the recorded roots/list answer, replay answers the server with a JSON-RPC error and says so."""
    lines = everything_tape.read_bytes().splitlines(keepends=True)
    roots_ids = [
        orjson.loads(orjson.loads(line)["data"])["id"]
        for line in lines
        if b"roots/list" in line and orjson.loads(line).get("ch") == "out"
    ]
    stripped = tmp_path / "no-roots-answer.jsonl"
    stripped.write_bytes(
        b"".join(
            line for line in lines if not (b'"ch":"in"' in line and b"roots" in line and b"result" in line)
        )
    )
    new = tmp_path / "new.jsonl"
    result = replay(stripped, server_everything(), output=new, config=False)
    assert not result.same
    issues = [i for i in result.issues if i.kind == "unanswerable-request"]
    assert issues and all("roots/list" in i.message and i.error for i in issues)
    sent = [orjson.loads(e.data) for e in open_transcript(new).events() if e.ch == "in"]
    errors = [m for m in sent if m.get("id") in roots_ids and "error" in m]
    assert errors and errors[0]["error"]["code"] == -32601
