"""A stand-in for the SDK's `MCPServer` over stdio, for test servers whose subject is not the SDK.

Importing the official SDK costs a process about 0.7 s of CPU (its pydantic models), and the suite
starts hundreds of test servers. A server here writes what mcp 2.3.0's `MCPServer` writes, field
for field and in its key order, for what these servers use: the initialize handshake (versions
2024-11-05 to 2025-11-25, `ping`) and the 2026-07-28 revision (`server/discover`, the `_meta`
envelope on every request, -32602 without it, -32022 for another version, `resultType` and
`serverInfo` in every result); `tools/list` with the schemas pydantic makes from `str`, `int`,
`float` and `bool` parameters (`X | None` and defaults too); `tools/call` (the `result` wrapped as
structuredContent, a `ToolError` as an error result, an `MCPError` as a JSON-RPC error, an unknown
tool; pydantic's validation detail is left out); empty `resources/list` and `prompts/list`; and the
SDK's silence for a line that is not a JSON-RPC request. It serves one request at a time and exits
at the end of its stdin.

A server that is about the SDK (its handshake, its errors, its concurrency) imports the SDK.
"""

from __future__ import annotations

import inspect
import json
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
ENVELOPE = (
    "params._meta must be an object carrying the required 'io.modelcontextprotocol/protocolVersion' "
    "and 'io.modelcontextprotocol/clientCapabilities' envelope keys"
)
HANDSHAKE_ERA = (
    "this connection serves the handshake protocol era; requests carrying the 2026-07-28 envelope "
    "are not accepted on it"
)
JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


class MCPError(Exception):
    """A JSON-RPC error answer (as `mcp.shared.exceptions.MCPError`)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class ToolError(Exception):
    """A tool's failure, answered as an error result (as `mcp.server.mcpserver.exceptions.ToolError`)."""


@dataclass(frozen=True)
class RequestContext:
    request_id: Any


@dataclass(frozen=True)
class Context:
    """What a tool taking a `Context` parameter gets: `ctx.request_context.request_id`."""

    request_context: RequestContext


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    function: Callable[..., Any]
    params: dict[str, tuple[type, bool]]  # name -> (type, None allowed), in order
    properties: dict[str, dict[str, Any]]  # name -> its schema, as pydantic writes it
    required: tuple[str, ...]
    context: str | None  # the parameter that takes the Context
    returns: type


def _fits(value: Any, kind: type, optional: bool) -> bool:
    """Whether pydantic's lax mode takes `value` for a parameter of type `kind` (as far as tests go)."""
    if value is None:
        return optional
    if kind is float:
        return type(value) in (int, float)
    return type(value) is kind


def _parameter(
    function: Callable[..., Any], p: inspect.Parameter, hint: Any
) -> tuple[type, bool, dict[str, Any]]:
    """A parameter's type, whether it takes None (`X | None`), and its schema as pydantic writes it."""
    args = typing.get_args(hint)
    optional = type(None) in args
    kind = next(a for a in args if a is not type(None)) if optional else hint
    assert kind in JSON_TYPES and len(args) <= 2, (
        f"lite: {function.__name__}({p.name}: {hint}) is not supported"
    )
    schema: dict[str, Any] = {"anyOf": [{"type": JSON_TYPES[kind]}, {"type": "null"}]} if optional else {}
    if p.default is not inspect.Parameter.empty:
        schema["default"] = p.default
    schema["title"] = _title(p.name)
    if not optional:
        schema["type"] = JSON_TYPES[kind]
    return kind, optional, schema


def _title(name: str) -> str:
    return " ".join(part.capitalize() for part in name.split("_"))


class MCPServer:
    """`MCPServer(name)`, `@app.tool()`, `app.run("stdio")`: the part of the SDK's API the lite
    test servers use."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.tools: dict[str, Tool] = {}
        self.era: str | None = None  # "handshake" or "modern", set by the first request

    def tool(self, description: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(function: Callable[..., Any]) -> Callable[..., Any]:
            hints = typing.get_type_hints(function)
            params: dict[str, tuple[type, bool]] = {}
            properties: dict[str, dict[str, Any]] = {}
            required: list[str] = []
            context = None
            for p in inspect.signature(function).parameters.values():
                if hints[p.name] is Context:
                    context = p.name
                    continue
                kind, optional, properties[p.name] = _parameter(function, p, hints[p.name])
                params[p.name] = (kind, optional)
                if p.default is inspect.Parameter.empty:
                    required.append(p.name)
            returns = hints["return"]
            assert returns in JSON_TYPES, f"lite: {function.__name__} returns {returns}, not supported"
            text = description if description is not None else inspect.getdoc(function) or ""
            name = function.__name__
            self.tools[name] = Tool(
                name, text, function, params, properties, tuple(required), context, returns
            )
            return function

        return register

    def run(self, transport: str = "stdio") -> None:
        assert transport == "stdio"
        for line in sys.stdin.buffer:
            try:
                message = json.loads(line)
            except ValueError:
                continue  # not JSON: the SDK drops it too
            if not isinstance(message, dict) or not isinstance(message.get("method"), str):
                continue  # a batch, a response, anything else: nothing to answer
            if "id" not in message:
                continue  # a notification
            try:
                answer = self.answer(message["id"], message["method"], message.get("params"))
            except MCPError as exc:  # raised by a tool
                answer = {"error": {"code": exc.code, "message": exc.message}}
            self.send({"jsonrpc": "2.0", "id": message["id"], **answer})

    def send(self, message: dict[str, Any]) -> None:
        sys.stdout.buffer.write(
            json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        )
        sys.stdout.buffer.flush()

    def answer(self, rid: Any, method: str, params: Any) -> dict[str, Any]:
        """The `result` or `error` member of the answer to one request."""
        params = params if isinstance(params, dict) else {}
        meta = params.get("_meta")
        enveloped = isinstance(meta, dict) and VERSION_KEY in meta
        if self.era is None:
            if method == "initialize":
                self.era = "handshake"
            elif enveloped or method == "server/discover":
                self.era = "modern"
            else:
                return {"error": {"code": -32602, "message": "Invalid request parameters", "data": ""}}
        if self.era == "handshake":
            if enveloped:
                return {"error": {"code": -32600, "message": HANDSHAKE_ERA}}
            return self.handshake(rid, method, params)
        if not (enveloped and isinstance(meta, dict) and CAPABILITIES_KEY in meta):
            return {"error": {"code": -32602, "message": ENVELOPE}}
        if meta[VERSION_KEY] != MODERN:
            data = {"supported": [MODERN], "requested": meta[VERSION_KEY]}
            return {"error": {"code": -32022, "message": "Unsupported protocol version", "data": data}}
        return self.modern(rid, method, params)

    def handshake(self, rid: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            asked = params.get("protocolVersion")
            version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
            capabilities = {
                "prompts": {"listChanged": False},
                "resources": {"listChanged": False, "subscribe": False},
                "tools": {"listChanged": False},
            }
            info = {"name": self.name, "version": ""}
            return {"result": {"capabilities": capabilities, "protocolVersion": version, "serverInfo": info}}
        if method == "ping":
            return {"result": {}}
        return self.common(rid, method, params, modern=False)

    def modern(self, rid: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "server/discover":
            capabilities = {
                "prompts": {"listChanged": True},
                "resources": {"listChanged": True, "subscribe": True},
                "tools": {"listChanged": True},
            }
            result: dict[str, Any] = {"cacheScope": "private", "capabilities": capabilities}
            result |= {"resultType": "complete", "supportedVersions": [MODERN], "ttlMs": 0}
            return {"result": self.stamped(result)}
        answer = self.common(rid, method, params, modern=True)
        if "result" in answer:
            result = answer["result"]
            if method.endswith("/list"):
                result["cacheScope"], result["ttlMs"] = "private", 0
            result["resultType"] = "complete"
            answer["result"] = self.stamped(result)
        return answer

    def stamped(self, result: dict[str, Any]) -> dict[str, Any]:
        """A 2026-07-28 result: its members in the SDK's order, then the server's name in `_meta`."""
        ordered = {key: result[key] for key in sorted(result)}
        ordered["_meta"] = {SERVER_INFO_KEY: {"name": self.name, "version": ""}}
        return ordered

    def common(self, rid: Any, method: str, params: dict[str, Any], *, modern: bool) -> dict[str, Any]:
        if method == "tools/list":
            return {"result": {"tools": [self.listed(tool, modern) for tool in self.tools.values()]}}
        if method == "tools/call":
            return {"result": self.call(rid, params)}
        if method in ("resources/list", "prompts/list", "resources/templates/list"):
            key = {"resources/list": "resources", "prompts/list": "prompts"}.get(method, "resourceTemplates")
            return {"result": {key: []}}
        return {"error": {"code": -32601, "message": "Method not found", "data": method}}

    def listed(self, tool: Tool, modern: bool) -> dict[str, Any]:
        """A tools/list entry, its schemas as pydantic writes them in each revision."""
        properties = tool.properties
        arguments = f"{tool.name}Arguments"
        output_property = {"result": {"title": "Result", "type": JSON_TYPES[tool.returns]}}
        if modern:
            given = {"type": "object", "properties": properties, "required": list(tool.required)}
            out = {"properties": output_property, "required": ["result"], "title": f"{tool.name}Output"}
            input_schema, output_schema = {**given, "title": arguments}, {**out, "type": "object"}
        else:
            given = {"properties": properties, "required": list(tool.required), "type": "object"}
            input_schema = {**given, "title": arguments}
            output_schema = {"properties": output_property, "required": ["result"], "type": "object"}
            output_schema["title"] = f"{tool.name}Output"
        if not tool.required:
            del input_schema["required"]
        entry = {"description": tool.description, "inputSchema": input_schema, "name": tool.name}
        return {**entry, "outputSchema": output_schema}

    def call(self, rid: Any, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return self.error_result(f"Unknown tool: {name}")
        arguments = params.get("arguments") or {}
        problems = [n for n in tool.required if n not in arguments] + [
            n
            for n, (kind, optional) in tool.params.items()
            if n in arguments and not _fits(arguments[n], kind, optional)
        ]
        if problems:
            count = len(problems)
            errors = "error" if count == 1 else "errors"
            text = f"Error executing tool {tool.name}: {count} validation {errors} for {tool.name}Arguments"
            return self.error_result(text)
        kwargs = {n: arguments[n] for n in tool.params if n in arguments}
        if tool.context is not None:
            kwargs[tool.context] = Context(RequestContext(rid))
        try:
            value = tool.function(**kwargs)
        except ToolError as exc:
            return self.error_result(f"Error executing tool {tool.name}: {exc}")
        content = [{"text": value if isinstance(value, str) else json.dumps(value), "type": "text"}]
        return {"content": content, "isError": False, "structuredContent": {"result": value}}

    def error_result(self, text: str) -> dict[str, Any]:
        return {"content": [{"text": text, "type": "text"}], "isError": True}
