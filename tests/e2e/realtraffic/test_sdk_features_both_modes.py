"""Must show: the official SDK client using every feature beside tools (resources and a template,
a paginated list, prompts with arguments, completion, progress, logging at a level, a cancelled
call, subscriptions: `subscriptions/listen` in 2026-07-28, `resources/subscribe` and
`logging/setLevel` in the handshake revision) against an SDK `MCPServer`, with the mistakes a model
makes (a missing argument, a wrong type, an unknown tool, an extra argument, an enum out of range,
an object for a string, a call before the tools were listed), checks with nothing but `info`, in
both client modes, and the check saw every feature (no pass that tested nothing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import PromptReference, ResourceTemplateReference

from mcptape.check.analyze import messages
from mcptape.check.model import CLIENT, Severity
from mcptape.transcript import open_transcript
from tests.e2e.realtraffic.support import FEATURES, loud, record

WRONG: list[tuple[str, dict[str, Any]]] = [
    ("add", {"a": 2}),
    ("add", {"a": "two", "b": 3}),
    ("does_not_exist", {"x": 1}),
    ("add", {"a": 1, "b": 1, "c": 9}),
    ("pick", {"color": "purple"}),
    ("weather", {"city": {"name": "Lyon"}}),
]


async def _use_everything(client: Client, legacy: bool) -> None:
    await client.call_tool("add", {"a": 1, "b": 2})  # before listing the tools
    await client.list_tools()
    for name, arguments in WRONG:
        await client.call_tool(name, arguments)
    steps: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append(progress)

    await client.call_tool("count", {"n": 3}, progress_callback=on_progress)
    assert steps == [1, 2, 3]
    page = await client.list_resources()
    assert page.next_cursor is not None
    await client.list_resources(cursor=page.next_cursor)
    await client.list_resource_templates()
    await client.read_resource("notes://alpha")
    await client.get_prompt("review", {"code": "x=1", "language": "rust"})
    await client.complete(
        PromptReference(type="ref/prompt", name="review"), {"name": "language", "value": "p"}
    )
    template = ResourceTemplateReference(type="ref/resource", uri="notes://{name}")
    await client.complete(template, {"name": "name", "value": "b"})
    with anyio.move_on_after(0.3):
        await client.call_tool("slow", {"seconds": 5})
    if legacy:
        await client.set_logging_level("debug")
        await client.subscribe_resource("notes://alpha")
        await client.call_tool("touch", {"name": "alpha"})
        await client.unsubscribe_resource("notes://alpha")
    else:
        async with client.listen(resource_subscriptions=["notes://alpha"]) as subscription:
            await client.call_tool("touch", {"name": "alpha"})
            with anyio.fail_after(5):
                async for _ in subscription:
                    break


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
def test_the_sdk_client_using_every_feature_checks_with_info_only(mode: str, tmp_path: Path) -> None:
    """Every feature and every model mistake, in 2026-07-28 and in the handshake: info findings only."""
    path = tmp_path / f"{mode}.jsonl"

    async def script(client: Client) -> None:
        await _use_everything(client, legacy=mode == "legacy")

    async def ignore(params: Any) -> None:
        return None

    extra: dict[str, Any] = {"logging_callback": ignore}
    if mode == "auto":
        extra["log_level"] = "info"
    analysis = record(FEATURES, path, script, mode=mode, **extra)
    assert loud(analysis) == []
    assert {(f.rule, f.severity, f.party) for f in analysis.findings} == {
        ("schema-violation", Severity.INFO, CLIENT),
        ("unknown-tool", Severity.INFO, CLIENT),
    }
    # missing, wrong type, enum, object for a string (not: extra), and the unknown tool's call
    assert [f.rule for f in analysis.findings].count("schema-violation") == 4
    assert [f.rule for f in analysis.findings].count("unknown-tool") == 1
    assert analysis.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
    seen = {m.method for m in messages(open_transcript(path).events()) if m.method}
    common = {"tools/call", "resources/list", "resources/templates/list", "resources/read", "prompts/get"}
    assert common | {"completion/complete", "notifications/progress", "notifications/message"} <= seen
    assert "notifications/cancelled" in seen and "notifications/resources/updated" in seen
    modal = (
        {"subscriptions/listen"}
        if mode == "auto"
        else {"resources/subscribe", "logging/setLevel", "initialize"}
    )
    assert modal <= seen
