"""A small client on the official MCP SDK, for serve's tests: `sdk_client.py [OPTIONS] SERVER_CMD...`.

It takes the server command as its arguments (the convention of `mcptape probe --client`), lists
the tools, makes its calls and prints one JSON line per result on stdout, in a fixed order.

Options (before the server command):
  --call NAME=JSON   a tools/call (repeatable; default: get_current_time in UTC, then two at once)
  --together         make the calls concurrently (two requests in flight), printed in order
  --elicit NAME      answer elicitations with {"name": NAME}
  --legacy           the initialize handshake instead of the 2026-07-28 revision
  --exit-on-error    exit 1 when a call raised (as an application that stops on an error); by
                     default the error is printed as the call's result and the exit is 0
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import ElicitResult

DEFAULT_CALLS = [
    ("get_current_time", {"timezone": "UTC"}),
    ("get_current_time", {"timezone": "Europe/Paris"}),
    ("convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
]


def parse(argv: list[str]) -> tuple[dict[str, Any], list[str]]:
    options: dict[str, Any] = {
        "calls": [],
        "together": False,
        "elicit": None,
        "mode": "auto",
        "exit_on_error": False,
    }
    i = 0
    while i < len(argv) and argv[i].startswith("--"):
        flag = argv[i]
        if flag == "--call":
            name, _, args = argv[i + 1].partition("=")
            options["calls"].append((name, json.loads(args or "{}")))
            i += 2
        elif flag == "--elicit":
            options["elicit"] = argv[i + 1]
            i += 2
        elif flag == "--together":
            options["together"] = True
            i += 1
        elif flag == "--legacy":
            options["mode"] = "legacy"
            i += 1
        elif flag == "--exit-on-error":
            options["exit_on_error"] = True
            i += 1
        else:
            raise SystemExit(f"unknown option {flag}")
    return options, argv[i:]


def text_of(result: Any) -> Any:
    if result.is_error:
        return {"error": [getattr(c, "text", "") for c in result.content]}
    return [getattr(c, "text", None) for c in result.content]


async def main(options: dict[str, Any], server: list[str]) -> None:
    params = StdioServerParameters(command=server[0], args=server[1:])
    name = options["elicit"]

    async def on_elicit(context: Any, request: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": name})

    extra: dict[str, Any] = {"elicitation_callback": on_elicit} if name else {}
    calls = options["calls"] or DEFAULT_CALLS
    with anyio.fail_after(30):
        async with Client(params, mode=options["mode"], **extra) as client:
            listed = await client.list_tools()
            print(json.dumps({"tools": sorted(t.name for t in listed.tools)}), flush=True)
            results: list[Any] = [None] * len(calls)

            async def call(i: int) -> None:
                tool, arguments = calls[i]
                try:
                    results[i] = text_of(await client.call_tool(tool, arguments))
                except Exception as exc:  # an MCP error: printed as the result
                    results[i] = {"raised": str(exc)}

            if options["together"] and len(calls) > 1:
                await call(0)
                async with anyio.create_task_group() as group:
                    for i in range(1, len(calls)):
                        group.start_soon(call, i)
            else:
                for i in range(len(calls)):
                    await call(i)
            for (tool, _), result in zip(calls, results, strict=True):
                print(json.dumps({tool: result}), flush=True)
    if options["exit_on_error"] and any(type(r) is dict and "raised" in r for r in results):
        raise SystemExit(1)


if __name__ == "__main__":
    opts, command = parse(sys.argv[1:])
    anyio.run(main, opts, command)
