"""A low-level SDK server (mcp 2.3.0 `Server`, which does not validate results) whose tools declare an
outputSchema: `area` answers within it, `bad_area` with a string where it declares a number,
`no_area` without `structuredContent`, `fail_area` an `isError` result (needs none). Recorded into
tests/check/realdata/structured-*.tape: `mcptape record -o X -- python structured_server.py`."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"area": {"type": "number"}, "unit": {"type": "string"}},
    "required": ["area"],
}
INPUT: dict[str, Any] = {"type": "object", "properties": {"w": {"type": "number"}, "h": {"type": "number"}}}


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    names = ("area", "bad_area", "no_area", "fail_area")
    return types.ListToolsResult(
        tools=[types.Tool(name=name, input_schema=INPUT, output_schema=SCHEMA) for name in names]
    )


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    area = args.get("w", 0) * args.get("h", 0)
    text: list[types.ContentBlock] = [types.TextContent(type="text", text=f"{area}")]
    if params.name == "area":
        return types.CallToolResult(content=text, structured_content={"area": area, "unit": "m2"})
    if params.name == "bad_area":
        return types.CallToolResult(content=text, structured_content={"area": f"{area} m2"})
    if params.name == "no_area":
        return types.CallToolResult(content=text)
    return types.CallToolResult(content=[types.TextContent(type="text", text="no")], is_error=True)


server = Server("structured", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
