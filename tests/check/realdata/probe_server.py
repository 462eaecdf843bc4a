"""A low-level SDK server (mcp 2.3.0 `Server`) for the false-alarm probes of test_false_alarms_real.py:
tools/list in two pages (`count`, with an integer outputSchema, answered {"count": 3.0}, on page 2),
`prog` reporting progress 1..steps on its request's token, `forever` reporting until cancelled, `flip`
dropping count's outputSchema (with notifications/tools/list_changed), empty resources and prompts,
completions. Recorded: `python shared_token_client.py mcptape record -o X -- python probe_server.py`."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

COUNT = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
INPUT: dict[str, Any] = {"type": "object"}
state = {"flipped": False}


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    cursor = getattr(params, "cursor", None) if params is not None else None
    if cursor is None:
        return types.ListToolsResult(
            tools=[types.Tool(name=n, input_schema=INPUT) for n in ("plain", "flip", "prog", "forever")],
            next_cursor="page2",
        )
    if state["flipped"]:
        return types.ListToolsResult(tools=[types.Tool(name="count", input_schema=INPUT)])
    return types.ListToolsResult(tools=[types.Tool(name="count", input_schema=INPUT, output_schema=COUNT)])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    text: list[types.ContentBlock] = [types.TextContent(type="text", text="ok")]
    if params.name == "count":
        if state["flipped"]:
            return types.CallToolResult(content=text)
        return types.CallToolResult(content=text, structured_content={"count": 3.0})
    if params.name == "flip":
        state["flipped"] = True
        await ctx.session.send_tool_list_changed()
        return types.CallToolResult(content=text)
    if params.name == "prog":
        steps = int((params.arguments or {}).get("steps", 3))
        for i in range(1, steps + 1):
            await ctx.session.report_progress(i, steps)
            await anyio.sleep(0.05)
        return types.CallToolResult(content=text)
    if params.name == "forever":
        i = 0
        while True:
            i += 1
            await ctx.session.report_progress(i)
            await anyio.sleep(0.05)
    return types.CallToolResult(content=text)


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[])


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[])


async def complete(ctx: Any, params: Any) -> types.CompleteResult:
    return types.CompleteResult(completion=types.Completion(values=["a", "b"]))


server = Server(
    "rv",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_list_prompts=list_prompts,
    on_completion=complete,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(
            read, write, server.create_initialization_options(NotificationOptions(tools_changed=True))
        )


if __name__ == "__main__":
    anyio.run(main)
