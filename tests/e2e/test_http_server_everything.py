"""Must show: @modelcontextprotocol/server-everything in its Streamable HTTP mode (a session id, the GET
stream, requests from the server to the client, progress streamed on SSE) recorded through
`mcptape record --http-upstream -- node index.js streamableHttp`, checked clean and viewed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.client.session import ClientRequestContext
from pydantic import FileUrl

from mcptape.check.analyze import analyze_file
from mcptape.check.model import Message
from mcptape.transcript.events import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model.facts import collect_facts
from mcptape.tui.model.viewer import ViewerModel
from tests.conftest import server_everything
from tests.recorder.http.helpers import exchanges, free_port, recording, records


async def _sampling(context: ClientRequestContext, params: types.CreateMessageRequestParams) -> Any:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="sampled"), model="test-model"
    )


async def _elicitation(context: ClientRequestContext, params: types.ElicitRequestParams) -> Any:
    return types.ElicitResult(action="accept", content={"name": "Ada Lovelace"})


async def _roots(context: ClientRequestContext) -> Any:
    return types.ListRootsResult(roots=[types.Root(uri=FileUrl("file:///tmp/project"), name="project")])


async def _session(url: str) -> dict[str, Any]:
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with Client(
        url,
        mode="legacy",
        sampling_callback=_sampling,
        elicitation_callback=_elicitation,
        list_roots_callback=_roots,
    ) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        out: dict[str, Any] = {"names": names}
        out["echo"] = (await client.call_tool("echo", {"message": "hi"})).content[0].model_dump()
        out["long"] = (
            await client.call_tool(
                "trigger-long-running-operation", {"duration": 0.3, "steps": 3}, progress_callback=on_progress
            )
        ).is_error
        out["sampling"] = (await client.call_tool("trigger-sampling-request", {"prompt": "hello"})).is_error
        out["elicitation"] = (await client.call_tool("trigger-elicitation-request", {})).is_error
        out["roots"] = (await client.call_tool("get-roots-list", {})).is_error
        out["progress"] = seen
        return out


@pytest.mark.node
def test_server_everything_over_streamable_http_is_recorded_and_checks_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Progress comes on the tool call's SSE stream, sampling/elicitation/roots requests reach the
    client and its answers reach the server, the server's stdout banner is on `stdout`, and the
    transcript checks clean (no finding, the stray stdout named harmless)."""
    port = free_port()
    monkeypatch.setenv("PORT", str(port))
    out = tmp_path / "everything.jsonl"
    command = [*server_everything()[:-1], "streamableHttp"]
    with recording(f"http://127.0.0.1:{port}/mcp", out, command) as rec:
        result = anyio.run(_session, rec.url)
        rec.stop()
    assert {"echo", "trigger-long-running-operation"} <= result["names"]
    assert result["echo"]["text"] == "Echo: hi"
    assert result["progress"] == [1, 2, 3]
    assert [result[k] for k in ("long", "sampling", "elicitation", "roots")] == [False] * 4
    lines = records(out)
    assert any(r["ch"] == "stdout" and "Streamable HTTP" in r["data"] for r in lines)
    methods = {raw.split(b" ", 1)[0] for raw in exchanges(out, "http-in").values()}
    assert {b"POST", b"GET"} <= methods

    seen: list[Message] = []
    _, analysis = analyze_file(str(out), on_message=seen.append)
    assert [(f.rule, f.message) for f in analysis.findings] == []
    assert analysis.first_non_protocol == {"out": None, "in": None}
    assert any("stdout" in note and "harmless" in note for note in analysis.notes)
    server_requests = {m.method for m in seen if m.channel == "out" and m.kind == "request"}
    assert {"sampling/createMessage", "elicitation/create", "roots/list"} <= server_requests
    assert sum(1 for m in seen if m.method == "notifications/progress") == 3
    _viewed(out)


def _viewed(path: Path) -> None:
    """The viewer's headless model: every row is described, and the detail of a progress message
    names its exchange (the tool call's POST) with the response's status line and SSE headers."""
    index = TranscriptIndex(path)
    index.scan(final=True)
    model = ViewerModel(index)
    facts = collect_facts(index)
    assert facts is not None
    model.set_facts(facts)
    assert all(model.describe(row) for row in range(len(index)))
    row = next(
        r
        for r in range(len(index))
        if b"notifications/progress" in _data(index, r) and _ch(index, r) == "out"
    )
    notes = [text for _, text in model.detail(row).notes]
    assert any(
        text.startswith("exchange ") and "request" in text and "POST /mcp HTTP/1.1" in text for text in notes
    )
    assert any("response" in text and "HTTP/1.1 200 OK" in text for text in notes)
    assert "  < content-type: text/event-stream" in notes


def _data(index: TranscriptIndex, row: int) -> bytes:
    event = index.event(row)
    return event.data if isinstance(event, Event) else b""


def _ch(index: TranscriptIndex, row: int) -> str:
    event = index.event(row)
    return event.ch if isinstance(event, Event) else ""
