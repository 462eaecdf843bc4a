"""The tools a server declared in `tools/list`, and `tools/call` arguments judged against them."""

from __future__ import annotations

from typing import Any

from mcptape.check import rules
from mcptape.check.findings import finding
from mcptape.check.model import IN, Finding, RequestId
from mcptape.check.pairing import Pending
from mcptape.check.schema import violation


class ToolSchemas:
    """The inputSchema of each tool of the session, and the requests judged outside theirs."""

    __slots__ = ("outside", "schemas")

    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {}
        # client request id -> why its arguments are outside the schema (the answer's reject reason)
        self.outside: dict[RequestId, str] = {}

    def learn(self, result: dict[str, Any]) -> None:
        """A `tools/list` result: the schemas it declares replace the ones known by those names."""
        tools = result.get("tools")
        if type(tools) is not list:
            return
        for tool in tools:
            if type(tool) is dict and type(tool.get("name")) is str:
                schema = tool.get("inputSchema")
                if type(schema) is dict:
                    self.schemas[tool["name"]] = schema
                else:
                    self.schemas.pop(tool["name"], None)

    def check(self, rid: RequestId, params: Any, pending: Pending) -> Finding | None:
        """A `tools/call` request: the `schema-violation` its arguments raise, if they do."""
        schema = self.schemas.get(params.get("name"))
        if schema is None:
            return None
        problem = violation(params.get("arguments", {}), schema)
        if problem is None:
            return None
        name = params["name"]
        self.outside[rid] = f"arguments outside the inputSchema of {name}: {problem}"
        ref = pending.ref()
        return finding(
            rules.SCHEMA_VIOLATION,
            channel=IN,
            line=ref.line,
            offset=ref.offset,
            raw=ref.raw,
            message=f"tools/call {name} (request {rid!r}): {problem}, against the inputSchema the "
            "server declared in tools/list",
            request_id=rid,
            t=pending.t,
            event=ref.event,
        )
