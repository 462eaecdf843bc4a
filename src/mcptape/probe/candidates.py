"""Which valid call the probe tries first: the tool named with `--tool`, a call recorded with
`--from`, or arguments derived from a tool's schema, read-only tools first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcptape.errors import UsageError
from mcptape.probe.args import minimal_arguments
from mcptape.probe.cases import Call
from mcptape.probe.safety import Reach, callable_tools, refuse_named_tool
from mcptape.textsafe import escape_text

TRIES = 3  # tools tried with derived arguments before the valid call counts as refused


def preference(entry: dict[str, Any]) -> int:
    """The order tools are tried in: read-only first, then non-destructive, then the rest."""
    hints = entry.get("annotations")
    hints = hints if isinstance(hints, dict) else {}
    if hints.get("readOnlyHint") is True:
        return 0
    if hints.get("destructiveHint") is False:
        return 1
    return 2


def candidate_calls(
    tool: str | None,
    arguments: dict[str, Any] | None,
    recorded: Sequence[Call],
    tools: list[dict[str, Any]],
    allow_mutating: bool = False,
    reach: Reach | None = None,
) -> list[Call]:
    """The valid calls to try, best first: the named tool, a recorded real call, or derived ones.

    `--tool` (with `--args`, a recorded call of it, or derived arguments) is tried alone; so is a
    call recorded with `--from`, and `--args` alone goes to the preferred tool. Otherwise up to
    `TRIES` tools get derived arguments, in the server's order: the first one accepted is the valid
    call. Only tools the probe may call are candidates (`safety.callable_tools`: read-only ones;
    every tool with `allow_mutating`, the read-only ones first, then those marked non-destructive),
    and only calls that name no tool it may not call (`reach`: a recorded argument can be another
    tool's name); without one, the valid request is `tools/list`. `--tool` of a tool that may
    change data needs `allow_mutating` (a usage error otherwise).
    """
    calls = _candidates(tool, arguments, recorded, tools, allow_mutating)
    if reach is None:
        return calls
    return [c for c in calls if c.tool is None or not reach.forbidden_in(c.line(0))] or [Call(None)]


def _candidates(
    tool: str | None,
    arguments: dict[str, Any] | None,
    recorded: Sequence[Call],
    tools: list[dict[str, Any]],
    allow_mutating: bool,
) -> list[Call]:
    named = [t for t in tools if isinstance(t.get("name"), str)]
    names = [t["name"] for t in named]
    if tool is not None:
        if tool not in names:
            listed = ", ".join(escape_text(str(n)) for n in names[:10]) or "none"
            raise UsageError(f"--tool {tool}: the server lists no such tool", hint=f"it lists: {listed}")
        refuse_named_tool(tool, named, allow_mutating)
        if arguments is not None:
            return [Call(tool, dict(arguments))]
        mine = [c for c in recorded if c.tool == tool]
        schema = named[names.index(tool)].get("inputSchema")
        return mine[:1] or [Call(tool, minimal_arguments(schema))]
    ranked = sorted(callable_tools(named, allow_mutating)[0], key=preference)
    if arguments is not None:
        if not ranked:
            raise UsageError(
                "--args without --tool: the server lists no read-only tool to give them to",
                hint="name the tool with --tool NAME (and --allow-mutating if it may change data)",
            )
        return [Call(ranked[0]["name"], dict(arguments))]
    rank = {t["name"]: preference(t) for t in ranked}
    real = [c for c in recorded if c.tool in rank]
    if real:
        return [min(real, key=lambda c: rank[c.tool])]
    calls = [Call(t["name"], minimal_arguments(t.get("inputSchema"))) for t in ranked[:TRIES]]
    return calls or [Call(None)]
