"""The rules of the stateless 2026-07-28 revision, judged only while a session speaks it.

Each rule cites its sentence of the specification in docs/check.md. The session calls these hooks
for good messages once the version tracker says the session is stateless (a transcript that falls
back to the `initialize` handshake leaves them: earlier revisions keep their own rules), except for
the messages they have nothing to judge (see the shortcuts in session.py: a plain request only tells
its progress token, `provided`; a plain result only closes its request's state, `close`).

Nothing is kept per request unless a rule needs it (a log level, a progress token, a cancel, a
subscription: `watched`); what a request was is the session's pairing (`client`: in flight and
recently closed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from mcptape.check import rules
from mcptape.check.findings import finding
from mcptape.check.model import IN, OUT, Finding, RequestId, Severity
from mcptape.check.pairing import Pairing, Pending

META_PREFIX = "io.modelcontextprotocol/"
REQUIRED_META = ("io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities")
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
REMOVED_CLIENT = frozenset(
    {
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "notifications/initialized",
        "notifications/roots/list_changed",
    }
)
REMOVED_SERVER = frozenset({"notifications/elicitation/complete"})
CACHEABLE = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    }
)
INPUT_REQUIRED_METHODS = frozenset({"prompts/get", "resources/read", "tools/call"})
INPUT_METHODS = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
RETIRED_CODES = {-32002: "resource not found (2025-11-25 and earlier)", -32042: "URL elicitation required"}
DEFINED_CODES = frozenset({-32020, -32021, -32022})
SUBSCRIBED = {
    "notifications/tools/list_changed": "toolsListChanged",
    "notifications/prompts/list_changed": "promptsListChanged",
    "notifications/resources/list_changed": "resourcesListChanged",
    "notifications/resources/updated": "resourceSubscriptions",
}
RACE = 0.1  # seconds: an answer this soon after a cancel may have crossed it on the wire
_KEPT = 4096

# Where a message is: channel, line, offset, raw line (text or bytes), time, transcript event index.
Where = tuple[str, int, int, "str | bytes", float, int]


# A progress token is a string or an integer; the token maps are keyed by the token itself (1 and "1"
# are different keys), so a token of another type (true == 1, 1.0 == 1) is looked up only with these.
TOKEN_TYPES = frozenset({int, str})
WATCHED_REQUESTS = REMOVED_CLIENT | {"subscriptions/listen"}  # request methods a rule looks at


def _meta(params: Any) -> dict[str, Any]:
    meta = params.get("_meta") if type(params) is dict else None
    return meta if type(meta) is dict else {}


def _target(method: str, params: Any) -> Any:
    """What a request is for, beside its method: the tool or prompt it names, the resource it reads."""
    if type(params) is not dict:
        return None
    found = params.get("uri") if method == "resources/read" else params.get("name")
    return found if type(found) is str else None


def _params(pending: Pending) -> dict[str, Any]:
    """The params of a request in flight, parsed again from its line (only for the rare rule that
    needs more than its method: the capabilities an `input_required` answer may ask for)."""
    try:
        value = orjson.loads(pending.raw)
    except orjson.JSONDecodeError:
        return {}
    params = value.get("params") if type(value) is dict else None
    return params if type(params) is dict else {}


class Recent:
    """A bounded memory of keys (and a value each): the last `kept` to `2 * kept` added, in two
    generations (dropping the oldest key one at a time from a dict costs a scan of its freed
    slots on every call; dropping a generation at once costs nothing)."""

    __slots__ = ("kept", "newer", "older")

    def __init__(self, kept: int = _KEPT) -> None:
        self.kept = kept
        self.newer: dict[Any, Any] = {}
        self.older: dict[Any, Any] = {}

    def add(self, key: Any, value: Any = None) -> None:
        newer = self.newer
        newer[key] = value
        if len(newer) > self.kept:
            self.older = newer
            self.newer = {}

    def __contains__(self, key: Any) -> bool:
        return key in self.newer or key in self.older

    def get(self, key: Any) -> Any:
        found = self.newer.get(key)
        return found if found is not None else self.older.get(key)


class Modern:
    """State and findings of the 2026-07-28 rules for one session."""

    def __init__(self, emit: Callable[[Finding], None], client: Pairing) -> None:
        self.emit = emit
        # The client's requests: in flight (`pending`, with their method and line) and recently
        # closed; what "a request the client sent" means. Nothing is kept per plain request here.
        self.client = client
        # The requests some rule keeps state for (below), and the progress token each provided
        # (None for none): their answer has something to close.
        self.watched: dict[RequestId, Any] = {}
        self.logging: dict[RequestId, str] = {}  # in-flight requests that asked for log messages
        self.tokens: dict[Any, RequestId] = {}  # progress tokens of in-flight requests
        self.done_tokens: dict[Any, None] = {}  # tokens whose request completed (and older ones)
        self.done_older: dict[Any, None] = {}
        self.cancelled: dict[RequestId, tuple[float, Pending]] = {}  # when, and the request
        self.listens: dict[RequestId, dict[str, Any]] = {}  # open subscriptions/listen: their filter
        self.states = Recent()  # issued requestState -> (request id, method, input keys asked, target)
        self.stateful = Recent()  # (method, target) the server issued a requestState for
        # Retries whose requestState the server did not issue for them, to a target that uses state:
        # (tampered, what the state is); judged by their answer (accepted-request-state).
        self.suspects: dict[RequestId, tuple[bool, str]] = {}
        self.server_capabilities: dict[str, Any] | None = None

    def _find(self, rule: str, where: Where, message: str, rid: RequestId | None = None) -> None:
        ch, line, offset, text, t, event = where
        raw = text.encode() if isinstance(text, str) else text  # only for a finding: not per line
        self.emit(
            finding(
                rule,
                channel=ch,
                line=line,
                offset=offset,
                raw=raw.rstrip(b"\n"),
                message=message,
                request_id=rid,
                t=t,
                event=event,
            )
        )

    # -- client -> server ---------------------------------------------------------------------
    def client_request(self, method: str, rid: RequestId, params: Any, where: Where) -> None:
        """A good client request (the session's pairing has it in flight already)."""
        meta = params.get("_meta") if type(params) is dict else None
        if type(meta) is not dict:
            meta = {}
        if REQUIRED_META[0] not in meta or REQUIRED_META[1] not in meta:
            missing = [k for k in REQUIRED_META if k not in meta]
            self._find(
                rules.MISSING_META,
                where,
                f"{method} (request {rid!r}) lacks {', '.join(missing)} in params._meta",
                rid,
            )
        if method in WATCHED_REQUESTS:
            if method in REMOVED_CLIENT:
                self._find(rules.REMOVED_METHOD, where, f"{method} was removed in 2026-07-28", rid)
            else:  # subscriptions/listen
                notifications = params.get("notifications") if type(params) is dict else None
                self.listens[rid] = notifications if type(notifications) is dict else {}
                self.watched.setdefault(rid, None)
        if LOG_LEVEL in meta:
            self.logging[rid] = str(meta[LOG_LEVEL])
            self.watched.setdefault(rid, None)
        if "progressToken" in meta:
            self.provided(rid, meta["progressToken"])
        if type(params) is dict and "requestState" in params:
            self._retry(method, rid, params, params["requestState"], where)
            self._suspect(method, rid, params, params["requestState"])

    def provided(self, rid: RequestId, token: Any) -> None:
        """Request `rid` provides a progress token: notifications may reference it until its answer."""
        if type(token) is int or type(token) is str:  # TOKEN_TYPES
            self.tokens[token] = rid
            self.watched[rid] = token

    def _retry(self, method: str, rid: RequestId, params: dict[str, Any], state: Any, where: Where) -> None:
        if state is None:
            return
        issued = self.states.get(state) if type(state) is str else None
        if issued is None:
            self._find(
                rules.MRTR_RETRY,
                where,
                f"{method} (request {rid!r}) carries a requestState the server never issued in this "
                "session (altered, foreign, or sent where none was given)",
                rid,
            )
            return
        original, original_method, asked, target = issued
        if type(original) is type(rid) and original == rid:
            self._find(
                rules.MRTR_RETRY, where, f"the retry reuses the id {rid!r} of the request it retries", rid
            )
        if original_method != method:
            self._find(
                rules.MRTR_RETRY,
                where,
                f"a requestState issued for {original_method} (request {original!r}) is used on {method}",
                rid,
            )
        elif target != _target(method, params):
            self._find(
                rules.MRTR_RETRY,
                where,
                f"a requestState issued for {method} {target!r} (request {original!r}) is used on "
                f"{method} {_target(method, params)!r}",
                rid,
            )
        responses = params.get("inputResponses")
        if type(responses) is dict:
            extra = sorted(k for k in responses if k not in asked)
            if extra:
                self._find(
                    rules.MRTR_INPUT_KEYS,
                    where,
                    f"inputResponses answers {', '.join(map(repr, extra[:5]))}, "
                    "which the server did not ask for",
                    rid,
                )

    def _suspect(self, method: str, rid: RequestId, params: dict[str, Any], state: Any) -> None:
        """A retry whose state was not issued for this very request, to a target the server issues
        state for (one that does not use state may ignore a stray one): its answer will tell whether
        the server verified it."""
        target = _target(method, params)
        if (method, target) not in self.stateful:
            return
        issued = self.states.get(state) if type(state) is str else None
        if issued is not None and issued[1] == method and issued[3] == target:
            return  # its own state
        if issued is not None:
            what = f"a requestState issued for {issued[1]} {issued[3]!r} (request {issued[0]!r})"
            self.suspects[rid] = (False, what)
        elif type(state) is str and self._altered(state):
            self.suspects[rid] = (True, "an altered copy of a requestState it issued")
        else:
            self.suspects[rid] = (False, "a requestState it never issued in this session (foreign)")

    def _altered(self, state: str) -> bool:
        """`state` differs from a state issued in this session in a few characters only (an edit of
        a token, not another token): same length and at most 1/8 of the characters changed, or one
        a prefix of the other with at most 8 characters more."""
        size = len(state)
        most = max(2, size // 8)
        for kept in (self.states.newer, self.states.older):
            for issued in kept:
                if len(issued) == size:
                    if sum(1 for a, b in zip(issued, state, strict=True) if a != b) <= most:
                        return True
                elif abs(len(issued) - size) <= 8 and (issued.startswith(state) or state.startswith(issued)):
                    return True
        return False

    def _accepted(self, rid: RequestId, method: str, suspect: tuple[bool, str], where: Where) -> None:
        tampered, what = suspect
        self.emit(
            finding(
                rules.STATE_ACCEPTED,
                channel=where[0],
                line=where[1],
                offset=where[2],
                raw=(where[3].encode() if isinstance(where[3], str) else where[3]).rstrip(b"\n"),
                message=f"{method} (request {rid!r}) carried {what}, and the server answered it with a "
                "success"
                + (
                    ": it MUST reject state that fails verification"
                    if tampered
                    else ": it SHOULD reject state presented on a request that does not match"
                ),
                request_id=rid,
                t=where[4],
                event=where[5],
                severity=None if tampered else Severity.WARNING,
            )
        )

    def client_notification(self, method: str, params: Any, where: Where) -> None:
        if method in REMOVED_CLIENT:
            self._find(rules.REMOVED_METHOD, where, f"{method} was removed in 2026-07-28")
        if method == "notifications/cancelled" and type(params) is dict:
            target: RequestId | None = params.get("requestId")
            if type(target) is int or type(target) is str:
                client = self.client
                pending = client.pending.get(target)
                if pending is not None:
                    self.cancelled[target] = (where[4], pending)
                    self.watched.setdefault(target, None)
                elif target not in client.closed and target not in client.older:
                    self._find(
                        rules.CANCEL_UNKNOWN,
                        where,
                        f"notifications/cancelled references request {target!r}, which the client never sent",
                    )

    # -- server -> client ---------------------------------------------------------------------
    def server_notification(self, method: str, params: Any, where: Where) -> None:
        if method in REMOVED_SERVER:
            self._find(rules.REMOVED_METHOD, where, f"{method} was removed in 2026-07-28")
        if method == "notifications/message":
            if not self.logging:
                self._find(
                    rules.UNREQUESTED_LOG,
                    where,
                    "notifications/message while no request in flight asked for log messages "
                    f"({LOG_LEVEL} in its _meta)",
                )
            caps = self.server_capabilities
            if caps is not None and "logging" not in caps:
                self._find(
                    rules.UNREQUESTED_LOG,
                    where,
                    "notifications/message from a server whose server/discover declared no "
                    "logging capability",
                )
        elif method == "notifications/progress" and type(params) is dict:
            token = params.get("progressToken")
            if token not in self.tokens or type(token) not in TOKEN_TYPES:
                late = type(token) in TOKEN_TYPES and (token in self.done_tokens or token in self.done_older)
                self._find(
                    rules.PROGRESS_AFTER_COMPLETION,
                    where,
                    f"notifications/progress for token {token!r} "
                    + ("after its request completed" if late else "that no request in flight provided"),
                )
        elif method == "notifications/cancelled" and type(params) is dict:
            target = params.get("requestId")
            if target not in self.listens:
                self._find(
                    rules.SERVER_CANCEL,
                    where,
                    f"the server cancels request {target!r}, which is not a subscriptions/listen request",
                )
        elif method in SUBSCRIBED:
            self._subscribed(method, params, where)

    def _subscribed(self, method: str, params: Any, where: Where) -> None:
        sub: Any = _meta(params).get(SUBSCRIPTION_ID)
        listen = self.listens.get(sub) if isinstance(sub, (int, str)) else None
        if listen is None:
            self._find(
                rules.SUBSCRIPTION,
                where,
                f"{method} without the {SUBSCRIPTION_ID} of an open subscriptions/listen request",
            )
            return
        wanted = listen.get(SUBSCRIBED[method])
        uri = params.get("uri") if type(params) is dict else None
        if not wanted or (type(wanted) is list and uri not in wanted):
            self._find(
                rules.SUBSCRIPTION,
                where,
                f"{method} on subscription {sub!r}, which did not ask for {SUBSCRIBED[method]}"
                + (f" {uri!r}" if type(wanted) is list else ""),
            )

    def answer(
        self, rid: RequestId, pending: Pending | None, value: dict[str, Any], where: Where
    ) -> str | None:
        """A response to client request `rid` (`pending`: the request it answers, None when the
        client had cancelled it); returns a reject reason for `input_required`."""
        if rid in self.watched:
            pending = self.close(rid, pending, where)
        method = pending.method if pending is not None else ""
        suspect = self.suspects.pop(rid, None) if self.suspects else None
        error = value.get("error")
        if type(error) is dict:
            code = error.get("code")
            if code in RETIRED_CODES:
                self._find(rules.ERROR_CODE, where, f"error code {code}, retired: {RETIRED_CODES[code]}", rid)
            elif type(code) is int and -32099 <= code <= -32020 and code not in DEFINED_CODES:
                self._find(
                    rules.ERROR_CODE,
                    where,
                    f"error code {code}, in the range reserved for the MCP specification "
                    "but not defined by it",
                    rid,
                )
            return None
        result = value.get("result")
        if type(result) is not dict:
            return None
        kind = result.get("resultType")
        if kind is None:
            self._find(
                rules.RESULT_TYPE, where, f"the result of {method or 'a request'} has no resultType", rid
            )
            kind = "complete"
        if kind == "complete" and method in CACHEABLE:
            ttl, scope = result.get("ttlMs"), result.get("cacheScope")
            valid_ttl = isinstance(ttl, (int, float)) and not isinstance(ttl, bool) and ttl >= 0
            if not valid_ttl or scope not in ("public", "private"):
                self._find(
                    rules.CACHE_HINTS,
                    where,
                    f"the {method} result lacks valid caching hints (ttlMs {ttl!r}, cacheScope {scope!r})",
                    rid,
                )
        if method == "server/discover":
            caps = result.get("capabilities")
            self.server_capabilities = caps if type(caps) is dict else {}
        if suspect is not None and kind == "complete" and result.get("isError") is not True:
            self._accepted(rid, method, suspect, where)
        if kind == "input_required":
            params = _params(pending) if pending is not None else {}
            self._input_required(method, rid, params, result, where)
            return "answered input_required: it needs the user's input before it may act"
        return None

    def close(self, rid: RequestId, pending: Pending | None, where: Where) -> Pending | None:
        """The answer to a request some rule keeps state for: that state goes (a cancelled
        request's answer is judged); returns the request (known from the cancel when the answer
        came after it)."""
        token = self.watched.pop(rid)
        if token is not None and self.tokens.pop(token, None) is not None:
            done = self.done_tokens  # remembered in two generations, like `Recent` (no call here)
            done[token] = None
            if len(done) > _KEPT:
                self.done_older, self.done_tokens = done, {}
        if self.logging or self.listens or self.cancelled:
            self.logging.pop(rid, None)
            self.listens.pop(rid, None)
            cancelled = self.cancelled.pop(rid, None)
            if cancelled is not None:
                when, pending = cancelled
                if where[4] - when > RACE:
                    self._find(
                        rules.ANSWER_AFTER_CANCEL,
                        where,
                        f"an answer to request {rid!r} {where[4] - when:.3f}s after the client cancelled it",
                        rid,
                    )
        return pending

    def _input_required(
        self, method: str, rid: RequestId, params: dict[str, Any], result: dict[str, Any], where: Where
    ) -> None:
        if method not in INPUT_REQUIRED_METHODS:
            self._find(rules.MRTR_SHAPE, where, f"input_required on {method}, which may not return it", rid)
        requests = result.get("inputRequests")
        state = result.get("requestState")
        if requests is None and state is None:
            self._find(
                rules.MRTR_SHAPE, where, "input_required with neither inputRequests nor requestState", rid
            )
        declared = _meta(params).get(CAPABILITIES)
        declared = declared if type(declared) is dict else {}
        asked: list[str] = []
        if type(requests) is dict:
            for key, request in requests.items():
                asked.append(key)
                wanted = request.get("method") if type(request) is dict else None
                capability = INPUT_METHODS.get(wanted) if type(wanted) is str else None
                if capability is None:
                    self._find(
                        rules.MRTR_SHAPE,
                        where,
                        f"inputRequests[{key!r}] is {wanted!r}, not elicitation/create, "
                        "sampling/createMessage or roots/list",
                        rid,
                    )
                elif capability not in declared:
                    self._find(
                        rules.MRTR_SHAPE,
                        where,
                        f"inputRequests[{key!r}] asks for {wanted}, a capability ({capability}) the client "
                        "did not declare on this request",
                        rid,
                    )
        if type(state) is str:
            target = _target(method, params)
            self.states.add(state, (rid, method, frozenset(asked), target))
            self.stateful.add((method, target))


__all__ = ["IN", "OUT", "Modern"]
