"""Features the server serves without declaring their capability.

"Servers that support tools **MUST** declare the `tools` capability", and the same sentence for
`resources` and `prompts` (server/tools, server/resources, server/prompts, every revision since
2024-11-05) and for `completions` (server/utilities/completion, 2025-03-26 onward). The capabilities
are the `initialize` result's, or in 2026-07-28 the `server/discover` result's; a server that
answers a method of a feature it did not declare supports that feature without saying so, and a
client that respects the declaration (the TypeScript SDK's `enforceStrictCapabilities`) never asks
for it. One finding per feature, at the first such result, the declaration in `related`. An empty
listing (`"tools": []`) is no support; an error or an `isError` result is none either.
"""

from __future__ import annotations

from typing import Any

from mcptape.check import rules
from mcptape.check.findings import finding_at
from mcptape.check.model import At, Finding, RequestId

# method -> (the capability it needs, the key of its listing, "" for no listing)
METHODS: dict[str, tuple[str, str]] = {
    "tools/list": ("tools", "tools"),
    "tools/call": ("tools", ""),
    "resources/list": ("resources", "resources"),
    "resources/templates/list": ("resources", "resourceTemplates"),
    "resources/read": ("resources", ""),
    "prompts/list": ("prompts", "prompts"),
    "prompts/get": ("prompts", ""),
    "completion/complete": ("completions", ""),
}
SINCE = {"completions": "2025-03-26"}  # a capability younger than the first revision


class Capabilities:
    """The methods of the features the server's last declaration left out (`watch`: empty when it
    declared them all, so the session pays one truth test per answer)."""

    __slots__ = ("declaration", "watch")

    def __init__(self) -> None:
        self.watch: dict[str, str] = {}
        self.declaration: At | None = None

    def declared(self, capabilities: Any, version: str | None, at: At) -> None:
        """An `initialize` or `server/discover` result at `at` declaring `capabilities`."""
        if type(capabilities) is not dict or version is None:
            self.watch = {}
            return
        self.declaration = at
        self.watch = {
            method: capability
            for method, (capability, _) in METHODS.items()
            if capability not in capabilities and version >= SINCE.get(capability, "")
        }

    def served(self, method: str, rid: RequestId, result: dict[str, Any], at: At) -> Finding | None:
        """A success result at `at` for `method`, one of `watch`: the feature is supported."""
        capability, listing = METHODS[method]
        if (listing and result.get(listing) == []) or result.get("isError") is True:
            return None
        self.watch = {m: c for m, c in self.watch.items() if c != capability}
        declaration = self.declaration
        assert declaration is not None
        return finding_at(
            rules.UNDECLARED_CAPABILITY,
            at,
            f"the server serves {method} (request {rid!r}) but its declared capabilities (out line"
            f" {declaration.line}) leave out `{capability}`: servers that support {capability} MUST declare"
            f" the `{capability}` capability",
            rid,
            related=(declaration.ref("declaration"),),
        )
