"""The tools a server declared in `tools/list`, and `tools/call` arguments judged against them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple

from mcptape.check import rules
from mcptape.check.coercion import read_numbers
from mcptape.check.findings import finding, finding_at
from mcptape.check.model import CLIENT, IN, SERVER, At, Finding, RequestId, Severity
from mcptape.check.pairing import Pending
from mcptape.check.schema import DRAFT_2020_12, compile_schema, describe

EARLY_KEPT = 256  # tools/call requests kept for judgement until the first tools/list answer
EXPECTING_KEPT = 4096  # calls of tools with an outputSchema in flight, whose results are judged


LAX_ACCEPTED = (
    "; the server accepted it, reading each quoted number as the number it spells (lax validation,"
    " as the official Python SDK's pydantic does): the arguments then fit the schema"
)


class Early(NamedTuple):
    """A `tools/call` sent before any `tools/list` answer: judged once the schema is known."""

    params: Any
    request: Pending
    dialect: str
    refused: bool | None = None  # how it was answered, if it was (None: not yet)


class ToolSchemas:
    """The inputSchema of each tool of the session, and the requests judged outside theirs."""

    __slots__ = ("early", "expecting", "judging", "listed", "outputs", "outside", "schemas")

    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}  # tool name -> the outputSchema it declared
        # client request (its Pending: over HTTP, sessions share ids) -> the tool and outputSchema
        # its result is judged against, the dialect
        self.expecting: dict[Pending, tuple[str, Any, str]] = {}
        # client request id -> why its arguments are outside the schema (the answer's reject reason),
        # and the finding, whose severity and party its answer decides
        # and whether they fit once their quoted numbers are read as numbers (`lax`)
        self.outside: dict[RequestId, tuple[str, bool, Finding]] = {}
        self.early: dict[RequestId, Early] = {}
        self.listed = False  # a tools/list answer was seen
        # A tools/call has something to be judged against: a schema, or room in `early` before the
        # first list (the session asks this once per tools/call: one attribute, not three).
        self.judging = True

    def learn(self, result: dict[str, Any]) -> list[Finding]:
        """A `tools/list` result: the schemas it declares replace the ones known by those names.
        The calls sent before the first one are judged now: the findings of those already answered
        are returned (the others wait for their answer in `outside`)."""
        tools = result.get("tools")
        if type(tools) is not list:
            return []
        for tool in tools:
            if type(tool) is dict and type(tool.get("name")) is str:
                schema = tool.get("inputSchema")
                if type(schema) is dict:
                    self.schemas[tool["name"]] = schema
                else:
                    self.schemas.pop(tool["name"], None)
                output = tool.get("outputSchema")
                if type(output) is dict:
                    self.outputs[tool["name"]] = output
                else:
                    self.outputs.pop(tool["name"], None)
        self.listed = True
        self.judging = bool(self.schemas)
        found: list[Finding] = []
        early, self.early = self.early, {}
        for rid, call in early.items():
            self.check(rid, call.params, call.request, call.dialect)
            if call.refused is not None:
                _, judged = self.answered(rid, call.refused)
                if judged is not None:
                    found.append(judged)
        return found

    def changed(self) -> None:
        """`notifications/tools/list_changed`: the outputSchemas listed so far may be stale (a tool
        may no longer declare one), so the calls made until the next listing, and those in flight,
        are not judged against them: the server answers with the tool as it is now."""
        self.outputs = {}
        self.expecting = {}

    def answered_early(self, rid: RequestId, refused: bool) -> None:
        """The answer to a call kept in `early` (its schema still unknown): remembered for `learn`."""
        call = self.early.get(rid)
        if call is not None:
            self.early[rid] = call._replace(refused=refused)

    def check(self, rid: RequestId, params: Any, pending: Pending, dialect: str = DRAFT_2020_12) -> None:
        """A `tools/call` request: its arguments judged; a violation is kept for `answered`.

        Tool arguments are content the model wrote: outside the schema, they are the client's
        mistake (`info`) when the server refuses them, and the server's fault (`error`) when it
        answers them as a success (an action attributed to them is `exec-after-reject`), unless
        they fit once their quoted numbers are read as numbers (`"5"` for an integer): a server
        whose validation reads them so ran the call the model meant (`info`, no reject). A call
        sent before any `tools/list` answer is kept (the first EARLY_KEPT) and judged by `learn`."""
        schema = self.schemas.get(params.get("name"))
        if schema is None:
            if not self.listed and len(self.early) < EARLY_KEPT:
                self.early[rid] = Early(params, pending, dialect)
                self.judging = bool(self.schemas) or len(self.early) < EARLY_KEPT
            return
        compiled = compile_schema(schema, dialect)
        arguments = params.get("arguments", {})
        errors = compiled.errors(arguments)
        if not errors:
            return
        problem = "; ".join(describe(error) for error in errors)
        numbers = read_numbers(arguments, errors)
        lax = numbers is not None and not compiled.errors(numbers, 1)
        name = params["name"]
        ref = pending.ref()
        self.outside[rid] = (
            f"arguments outside the inputSchema of {name}: {problem}",
            lax,
            finding(
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
                severity=Severity.INFO,
                party=CLIENT,
            ),
        )

    def settle(
        self, rid: RequestId, reason: str | None, soft: bool
    ) -> tuple[str | None, bool, Finding | None]:
        """The answer to a call sent before the tools were listed, or with arguments outside the
        declared schema: a refusal is expected (without one, the schema's finding is the reason).
        The answer's reject reason and softness, and the schema's finding, if any."""
        if rid in self.early:  # a call sent before the tools were listed
            self.answered_early(rid, refused=reason is not None)
        found = None
        if self.outside:
            why_outside, found = self.answered(rid, refused=reason is not None)
            if found is not None:
                if reason is None:
                    reason = why_outside
                soft = False
        return reason, soft, found

    def answered(self, rid: RequestId, refused: bool | None) -> tuple[str | None, Finding | None]:
        """The reject reason and the finding of request `rid`'s arguments, now that its answer
        says whether the server refused them (`None`: never answered)."""
        kept = self.outside.pop(rid, None)
        if kept is None:
            return None, None
        reason, lax, found = kept
        if refused is False and lax:
            # the server's validator read the quoted numbers as the numbers they spell and ran the
            # call the model meant: the client's mistake still, handled, and no reject
            return None, replace(found, message=found.message + LAX_ACCEPTED)
        if refused is False:
            found = replace(
                found,
                severity=Severity.ERROR,
                party=SERVER,
                message=found.message + "; the server answered it as a success",
            )
        return reason, found

    def expect(self, request: Pending, params: Any, dialect: str, first: Pending) -> None:
        """A `tools/call` of a tool whose listing declared an `outputSchema`: its result is judged
        by `returned` (a task-augmented call answers with a task, not the tool's result)."""
        if first is not request:  # its id is another's in flight too (HTTP clients of no session):
            self.expecting.pop(first, None)  # which answer is whose is unknown, neither is judged
            return
        output = self.outputs.get(params.get("name"))
        if output is not None and "task" not in params:
            expecting = self.expecting
            if len(expecting) >= EXPECTING_KEPT:  # the oldest, likely never answered, is let go
                del expecting[next(iter(expecting))]
            expecting[request] = (params["name"], output, dialect)

    def returned(
        self, rid: RequestId, request: Pending, result: dict[str, Any] | None, at: At
    ) -> Finding | None:
        """The answer to a call `expect` kept: a success (`result`, None for a refusal or an
        `isError` result, which need not be structured) must carry `structuredContent` that fits the
        tool's `outputSchema`: "If an output schema is provided: Servers **MUST** provide structured
        results that conform to this schema." (server/tools, Output Schema, 2025-06-18 onward)."""
        name, output, dialect = self.expecting.pop(request)
        if result is None or result.get("resultType", "complete") != "complete" or "task" in result:
            return None
        structured = result.get("structuredContent")
        if structured is None:
            problem = f"tools/call {name} (request {rid!r}) succeeded without structuredContent"
        else:
            compiled = compile_schema(output, dialect)
            if compiled.problem is not None:
                return None  # a schema that cannot judge judges nothing
            errors = compiled.errors(structured)
            if not errors:
                return None
            outside = "; ".join(describe(error, "structuredContent") for error in errors)
            problem = f"tools/call {name} (request {rid!r}) succeeded with {outside}"
        return finding_at(
            rules.OUTPUT_SCHEMA,
            at,
            f"{problem}, against the outputSchema the server declared in tools/list (servers MUST"
            " provide structured results that conform to it)",
            rid,
        )
