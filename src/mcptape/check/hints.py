"""What a `tools/list` entry says of a tool's effects: may calling it change data?

One definition for every command that must not change a user's data unless told to by name
(`probe`, `replay`: `--allow-mutating`): a tool changes nothing only when its entry says
`readOnlyHint: true` ("readOnlyHint: If true, the tool does not modify its environment. Default:
false", schema/2026-07-28 `ToolAnnotations`). A missing hint is the default, false.
"""

from __future__ import annotations

from typing import Any


def mutation_risk(entry: Any) -> str | None:
    """Why the tool of this `tools/list` entry may change data, or None when it says it does not."""
    hints = entry.get("annotations") if isinstance(entry, dict) else None
    hints = hints if isinstance(hints, dict) else {}
    if hints.get("readOnlyHint") is True:
        return None
    if hints.get("destructiveHint") is True:
        return "destructiveHint: true"
    if hints.get("readOnlyHint") is False:
        return "readOnlyHint: false"
    return "no readOnlyHint"


class ToolHints:
    """What the `tools/list` answers seen so far say of each tool (a later listing's entry replaces
    an earlier one of the same name; pages add up)."""

    __slots__ = ("listed", "risks")

    def __init__(self) -> None:
        self.listed = False  # a tools/list answer with a list of tools was seen
        self.risks: dict[str, str | None] = {}  # tool name -> why it may change data (None: read-only)

    def learn(self, result: Any) -> None:
        """A `tools/list` result."""
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            return
        self.listed = True
        seen: dict[str, str | None] = {}
        for entry in tools:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                name = entry["name"]
                risk = mutation_risk(entry)
                if name not in seen or seen[name] is None:  # twice in one listing: the riskier
                    seen[name] = risk
        self.risks.update(seen)
