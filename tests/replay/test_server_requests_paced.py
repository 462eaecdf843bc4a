"""Causal pacing sees the server's own requests: one the recording shows before a client chunk is
waited for (bounded) and answered before that chunk is sent; one that never comes is reported."""

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
from mcptape.replay.stdio.plan import make_plan
from mcptape.transcript import open_transcript
from tests.clients import sdk_session
from tests.conftest import server_everything
from tests.replay.conftest import rp
from tests.replay.events import INIT, INIT_OK, Session, request, result, text_result

pytestmark = pytest.mark.slow


async def roots(context: ClientRequestContext) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri=FileUrl("file:///work/project"), name="project")])


async def wait_then_echo(client: Client) -> dict[str, Any]:
    """The server asks for the roots 350 ms after the handshake; the client's last request comes later."""
    await anyio.sleep(0.8)
    echoed = await client.call_tool("echo", {"message": "hi"})
    return {"text": echoed.content[0].text}  # type: ignore[union-attr]


@pytest.mark.node
def test_a_roots_request_recorded_before_the_last_request_is_answered_and_nothing_is_missing(
    tmp_path: Path,
) -> None:
    """server-everything's roots/list comes before the client's last request in the recording: the
    replay waits for it, answers it first, and the sessions are the same (its notification too)."""
    tape = tmp_path / "roots.jsonl"
    sdk_session(
        server_everything(), record_to=tape, script=wait_then_echo, mode="legacy", list_roots_callback=roots
    )
    events = list(open_transcript(tape).events())
    asked = next(e.t for e in events if e.ch == "out" and b'"roots/list"' in e.data)
    last = max(e.t for e in events if e.ch == "in" and b'"tools/call"' in e.data)
    assert asked < last  # the recording's order: roots/list, then the last request
    new = tmp_path / "new.jsonl"
    result = replay(tape, server_everything(), output=new, config=False)
    assert result.same, result.render()
    assert result.run.answered == 1 and not result.issues
    kinds = {(p.kind, p.scope) for p in result.diff.pairs if p.old is not None and p.new is not None}
    assert ("server-request", "roots/list") in kinds and ("notification", "notifications/message") in kinds
    sent = [e.data for e in open_transcript(new).events() if e.ch == "in"]  # in the order written
    answered = next(i for i, data in enumerate(sent) if b'"roots"' in data and b'"result"' in data)
    assert answered < max(i for i, data in enumerate(sent) if b'"tools/call"' in data)


def test_the_plan_counts_the_server_requests_recorded_before_each_chunk() -> None:
    """`asked`: how many of the server's requests the recording shows before each client chunk."""
    s = Session().send(INIT).answer(INIT_OK)
    s.send(request(2, "tools/list")).answer(result(2, tools=[]))
    s.answer(request(0, "roots/list")).send(result(0, roots=[]))
    s.send(request(3, "tools/call", name="x")).answer(text_result(3, "ok")).end()
    plan = make_plan(s.events)
    assert plan.server_requests == ["roots/list"]
    assert [send.asked for send in plan.sends] == [0, 0, 1]


def test_a_server_request_that_never_comes_is_reported_and_the_replay_goes_on(
    v1_tape: Path, tmp_path: Path
) -> None:
    """A recording that shows a roots/list the new build never sends: waited for (bounded), then a
    warning, every chunk still sent, and the missing request shown in the diff."""
    lines = v1_tape.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b'"ch":"in"' in line and b"deploy" in line)
    t = orjson.loads(lines[at])["t"] - 0.0005
    ask = {"jsonrpc": "2.0", "id": 0, "method": "roots/list"}
    extra = orjson.dumps({"t": t, "ch": "out", "data": orjson.dumps(ask).decode() + "\n"}) + b"\n"
    edited = tmp_path / "asked.jsonl"
    edited.write_bytes(b"".join([*lines[:at], extra, *lines[at:]]))
    result = replay(edited, rp(), output=tmp_path / "new.jsonl", step_timeout=4, config=False)
    assert result.run.completed and result.run.sent == result.run.total
    [issue] = [i for i in result.issues if i.kind == "missing-server-request"]
    assert not issue.error and "roots/list" in issue.message
    [pair] = result.diff.differing
    assert (pair.kind, pair.scope, pair.new) == ("server-request", "roots/list", None)
    assert "missing-server-request" in result.render()
