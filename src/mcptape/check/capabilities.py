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
from mcptape.check.pairing import Pairing

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
CLIENT_FEATURES = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling"}


class Capabilities:
    """The methods of the features the server's last declaration left out (`watch`: empty when it
    declared them all, so the session pays one truth test per answer)."""

    __slots__ = ("declaration", "watch")

    def __init__(self) -> None:
        self.watch: dict[str, str] = {}
        self.declaration: At | None = None

    def client_declared(self, params: Any, client: Pairing) -> None:
        """The client's `initialize` request: the capabilities it declares, kept with the pairing of
        its session (`client`: over Streamable HTTP each session's client declares its own)."""
        capabilities = params.get("capabilities") if type(params) is dict else None
        client.declared = capabilities if type(capabilities) is dict else None

    def server_request(
        self, method: str, value: dict[str, Any], at: At, version: str | None, declared: dict[str, Any] | None
    ) -> Finding | None:
        """A server->client request at `at`, held to what the client declared it supports
        (2025-11-25, the revision with these sentences): "Servers **MUST NOT** send elicitation
        requests with modes that are not supported by the client." (client/elicitation: `{}` is
        `form` alone, no `elicitation` at all supports no mode), and "Servers **MUST NOT** send
        tool-enabled sampling requests to Clients that have not declared support for tool use via
        the `sampling.tools` capability." (client/sampling). `declared`: the capabilities the
        client of the request's session declared (`client_declared`)."""
        if declared is None or version != "2025-11-25" or method not in CLIENT_FEATURES:
            return None
        params = value.get("params")
        params = params if type(params) is dict else {}
        feature = declared.get(CLIENT_FEATURES[method])
        feature = feature if type(feature) is dict else None
        if method == "elicitation/create":
            mode = params.get("mode", "form")
            modes = ({"form"} if not feature else set(feature)) if feature is not None else set()
            if mode in modes:
                return None
            what = f"an elicitation in {mode!r} mode, which the client did not declare"
            said = (
                "servers MUST NOT send elicitation requests with modes that are not supported by the client"
            )
        else:
            if "tools" not in params or (feature is not None and "tools" in feature):
                return None
            what = "a tool-enabled sampling request, and the client did not declare sampling.tools"
            said = "servers MUST NOT send tool-enabled sampling requests to clients that have not declared it"
        shown = "absent" if feature is None else feature
        return finding_at(
            rules.CLIENT_CAPABILITY,
            at,
            f"the server sends {method}: {what} (the client's {CLIENT_FEATURES[method]}: {shown}); {said}",
            value.get("id"),
        )

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
