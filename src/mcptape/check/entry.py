"""The entry points of the 2026-07-28 revision, judged at the server: a request without a required
`_meta` field must be refused with -32602, a protocol version the server does not support with
-32022 (UnsupportedProtocolVersionError), and `server/discover` must exist. `Modern`
(check/modern.py) owns one `Entry`; each rule cites its spec sentence in docs/check.md.

Which versions a server supports is what it said itself: the `supportedVersions` of its
`server/discover` answer, or the `data.supported` of its last -32022 error. Nothing is guessed from
a version's name.

A refusal with the wrong code, or `server/discover` answered "method not found", is a fault only of
a server that speaks 2026-07-28: a server of an earlier era answers a modern request with whatever
error it has ("the server may reject the request with an implementation-defined error",
basic/versioning). Such a finding waits (`waiting`) until the server shows its era by a result with
a `resultType`, and is dropped if it never does.
"""

from __future__ import annotations

from typing import Any

from mcptape.check import rules
from mcptape.check.model import At, RequestId
from mcptape.check.mrtr import Find
from mcptape.check.protocol import META_VERSION_KEY

INVALID_PARAMS = -32602
UNSUPPORTED_VERSION = -32022
METHOD_NOT_FOUND = -32601
# Codes that may come before the one a rule prescribes: the request is not JSON-RPC, names no method
# the server has, or (HTTP) its headers disagree with its body (-32020 is checked first there).
EARLIER_REFUSALS = frozenset({-32700, -32600, METHOD_NOT_FOUND, -32020})
MAX_WAITING = 64  # findings kept until the server shows its era (a legacy server may answer many)


class Entry:
    """The requests whose answer an entry-point rule judges, and what the server said it supports."""

    def __init__(self, find: Find) -> None:
        self._find = find
        self.malformed: dict[RequestId, str] = {}  # requests without a required _meta field: which
        self.asked: dict[RequestId, str] = {}  # requests naming a version not known to be supported
        self.supported: frozenset[str] | None = None  # what the server said it supports, last
        self.waiting: list[tuple[str, At, str, RequestId | None]] = []  # until the server is modern

    def request(self, rid: RequestId, meta: dict[str, Any], missing: list[str]) -> bool:
        """A 2026-07-28 request; True when its answer is to be judged here."""
        if missing:
            self.malformed[rid] = ", ".join(missing)
        version = meta.get(META_VERSION_KEY)
        if type(version) is str and (self.supported is None or version not in self.supported):
            self.asked[rid] = version
        return rid in self.malformed or rid in self.asked

    def served(self, rid: RequestId, method: str, result: dict[str, Any], at: At) -> None:
        """Request `rid` got a result from a server that speaks 2026-07-28."""
        if method == "server/discover":
            self._learn(result.get("supportedVersions"))
        missing = self.malformed.pop(rid, None)
        if missing is not None:
            self._find(
                rules.META_NOT_REFUSED,
                at,
                f"{method or 'a request'} (request {rid!r}) lacks {missing} in params._meta and was served: "
                "the server MUST reject it with -32602 (Invalid params)",
                rid,
            )
        version = self.asked.pop(rid, None)
        if version is not None and self.supported is not None and version not in self.supported:
            self._find(
                rules.UNSUPPORTED_VERSION,
                at,
                f"{method or 'a request'} (request {rid!r}) names protocol version {version!r}, which the "
                f"server does not support ({self._listed()}), and was served: it MUST answer -32022",
                rid,
            )

    def refused(self, rid: RequestId, method: str, error: dict[str, Any], at: At, modern: bool) -> None:
        """Request `rid` got an error (`modern`: the server has shown it speaks 2026-07-28)."""
        code = error.get("code")
        if code == UNSUPPORTED_VERSION:
            data = error.get("data")
            self._learn(data.get("supported") if type(data) is dict else None)
        missing = self.malformed.pop(rid, None)
        version = self.asked.pop(rid, None)
        if missing is not None and code != INVALID_PARAMS and code not in EARLIER_REFUSALS:
            self._judge(
                rules.META_NOT_REFUSED,
                at,
                f"{method or 'a request'} (request {rid!r}) lacks {missing} in params._meta and was refused "
                f"with {code!r}, not -32602 (Invalid params)",
                rid,
                modern,
            )
        unsupported = version is not None and self.supported is not None and version not in self.supported
        allowed = (
            code == UNSUPPORTED_VERSION
            or code in EARLIER_REFUSALS
            or (missing is not None and code == INVALID_PARAMS)
        )
        if unsupported and not allowed:
            self._judge(
                rules.UNSUPPORTED_VERSION,
                at,
                f"{method or 'a request'} (request {rid!r}) names protocol version {version!r}, which the "
                f"server does not support ({self._listed()}), and was refused with {code!r}, not -32022 "
                "(UnsupportedProtocolVersionError)",
                rid,
                modern,
            )
        if method == "server/discover" and code == METHOD_NOT_FOUND:
            self._judge(
                rules.DISCOVER_MISSING,
                at,
                "server/discover answered -32601 (method not found) by a server that speaks 2026-07-28 "
                "(its results carry a resultType): servers MUST implement server/discover",
                rid,
                modern,
            )

    def modern(self) -> None:
        """The server has shown it speaks 2026-07-28: the findings that waited for it are made."""
        waiting, self.waiting = self.waiting, []
        for found in waiting:
            self._find(*found)

    def _judge(self, rule: str, at: At, message: str, rid: RequestId, modern: bool) -> None:
        if modern:
            self._find(rule, at, message, rid)
        elif len(self.waiting) < MAX_WAITING:
            self.waiting.append((rule, at, message, rid))

    def _learn(self, versions: Any) -> None:
        if type(versions) is list and all(type(v) is str for v in versions):
            self.supported = frozenset(versions)

    def _listed(self) -> str:
        listed = sorted(self.supported or ())
        return "it lists " + ", ".join(listed) if listed else "it lists no version"
