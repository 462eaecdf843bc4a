"""Which tools the probe may call: a release gate must not change the user's data.

A request that a correct server may run goes only to a tool that declares `readOnlyHint: true`,
to the tool named with `--tool`, or, with `--allow-mutating`, to any tool: the valid call (and
every hard input built from it, and the valid request after each reject), `unknown-arguments`
where the schema allows extras, the call that checks a tool's base arguments, and the MRTR first
rounds. A tool that may change data gets none of these by default; the report names it and says
why (its annotations), and `--allow-mutating` (on a scratch copy of the data) includes it.

The inputs a correct server refuses whatever the arguments are (`wrong-types`, `string-params`,
`unknown-arguments` where the schema forbids extras) go to every tool, these included
(`probe/tools.py`): a correct server acts on none of them, so no data changes; only a tolerant one
acts, which is the failure the gate exists to catch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def mutation_risk(entry: dict[str, Any]) -> str | None:
    """Why the tool of this `tools/list` entry may change data, or None when it says it does not."""
    hints = entry.get("annotations")
    hints = hints if isinstance(hints, dict) else {}
    if hints.get("readOnlyHint") is True:
        return None
    if hints.get("destructiveHint") is True:
        return "destructiveHint: true"
    if hints.get("readOnlyHint") is False:
        return "readOnlyHint: false"
    return "no readOnlyHint"


def callable_tools(
    tools: Iterable[dict[str, Any]], tool: str | None, allow_mutating: bool
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The listed tools the probe may call (read-only ones, `tool`, or all with `allow_mutating`),
    in the server's order, and those it leaves alone, each with the reason."""
    allowed: list[dict[str, Any]] = []
    skipped: list[tuple[str, str]] = []
    for entry in tools:
        name = entry.get("name")
        if not isinstance(name, str):
            continue
        risk = mutation_risk(entry)
        if risk is None or allow_mutating or name == tool:
            allowed.append(entry)
        else:
            skipped.append((name, risk))
    return allowed, skipped
