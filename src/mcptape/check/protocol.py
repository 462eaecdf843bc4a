"""What the MCP protocol versions allow, and how a session's version is learned.

Legacy revisions negotiate a version with the `initialize` handshake (the client proposes
`params.protocolVersion`, the server's result states the one in force). The stateless 2026-07-28
revision has no handshake: every request carries its version in
`params._meta["io.modelcontextprotocol/protocolVersion"]` (the SDK starts with `server/discover`).
"""

from __future__ import annotations

import re
from typing import Any

LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
STATELESS_VERSION = "2026-07-28"
KNOWN_VERSIONS = (*LEGACY_VERSIONS, STATELESS_VERSION)
BATCH_VERSION = "2025-03-26"
META_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
UNSUPPORTED_VERSION = -32022  # UnsupportedProtocolVersionError (2026-07-28)

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")

# Requests only a client sends, and only a server sends (any other method is not judged by name).
CLIENT_REQUESTS = frozenset(
    {
        "initialize",
        "server/discover",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "logging/setLevel",
        "subscriptions/listen",
    }
)
SERVER_REQUESTS = frozenset({"sampling/createMessage", "elicitation/create", "roots/list"})
# Requests that stay open by design until the client cancels them or closes the session.
LONG_LIVED_REQUESTS = frozenset({"subscriptions/listen"})


def batches_allowed(version: str | None) -> bool:
    """JSON-RPC batches exist only in the 2025-03-26 revision."""
    return version == BATCH_VERSION


def server_requests_allowed(version: str | None) -> bool:
    """Server->client requests exist before 2026-07-28 (unknown version: given the benefit of the doubt)."""
    if version is None or not _DATE.match(version):
        return True
    return version < STATELESS_VERSION


def is_stateless(version: str | None) -> bool:
    return version is not None and _DATE.match(version) is not None and version >= STATELESS_VERSION


def meta_version(params: Any) -> str | None:
    """The per-request protocol version of the stateless revision, if `params` carries one."""
    if type(params) is dict:
        meta = params.get("_meta")
        if type(meta) is dict:
            version = meta.get(META_VERSION_KEY)
            if type(version) is str:
                return version
    return None


class VersionTracker:
    """The protocol version in force, updated from the messages as they are seen in time order."""

    __slots__ = ("before", "init_id", "stateless", "switch_id", "switched_from", "version")

    def __init__(self) -> None:
        self.version: str | None = None
        self.stateless = False
        self.init_id: int | str | None = None
        self.before: tuple[str | None, bool] = (None, False)  # what an `initialize` refused leaves
        # The request whose `_meta` version changed the version in force, until it is answered: a
        # refusal leaves the version before it (a server serving the handshake's revision refuses
        # a 2026-07-28 request: "A dual-era server MAY serve both eras", basic/versioning, so it
        # may also not; a server refuses a version it does not support with -32022).
        self.switch_id: int | str | None = None
        self.switched_from: tuple[str | None, bool] = (None, False)

    def request(self, method: str, request_id: int | str | None, params: Any) -> None:
        """A client->server request: `initialize` proposes a version, `_meta` states one."""
        stated = meta_version(params)
        if stated is not None:
            if (stated != self.version or not self.stateless) and self.switch_id is None:
                self.switch_id = request_id
                self.switched_from = (self.version, self.stateless)
            self.version = stated
            self.stateless = True
        elif method == "initialize":
            if self.init_id is None:
                self.before = (self.version, self.stateless)
            self.init_id = request_id
            proposed = params.get("protocolVersion") if type(params) is dict else None
            if type(proposed) is str:
                self.version = proposed
                self.stateless = False

    def response(self, request_id: int | str | None, result: Any) -> None:
        """The server's answer to `initialize` fixes the negotiated version."""
        if request_id is None or request_id != self.init_id:
            return
        self.init_id = None
        if type(result) is dict and type(result.get("protocolVersion")) is str:
            self.version = result["protocolVersion"]
            self.stateless = False

    def refused(self, request_id: int | str | None, code: Any = None) -> None:
        """An error (`code`) answers request `request_id`. For `initialize`: no version was
        negotiated, the one before it stays (a server that speaks only 2026-07-28 refuses the
        handshake and goes on serving that revision: "the server rejects `initialize` with a
        JSON-RPC error", basic/versioning). For the request that stated a new version in its
        `_meta`: the version before it stays when the server refused the version itself (-32022,
        `UnsupportedProtocolVersionError`) or kept the revision a handshake negotiated (any
        error); another refusal of a first 2026-07-28 request (an unknown tool, a header mismatch)
        leaves 2026-07-28 in force, as before."""
        if request_id is None:
            return
        if request_id == self.init_id:
            self.init_id = None
            self.version, self.stateless = self.before
        elif request_id == self.switch_id:
            self.switch_id = None
            version, stateless = self.switched_from
            if code == UNSUPPORTED_VERSION or (version is not None and not stateless):
                self.version, self.stateless = version, stateless

    def served(self, request_id: int | str | None) -> None:
        """A result answers request `request_id`: a version its `_meta` stated is in force."""
        if request_id == self.switch_id:
            self.switch_id = None
