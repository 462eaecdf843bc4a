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
from mcptape.check.entry import Entry
from mcptape.check.findings import finding_at
from mcptape.check.model import IN, OUT, At, Finding, RequestId
from mcptape.check.mrtr import Mrtr, meta_of
from mcptape.check.pairing import Pairing, Pending
from mcptape.check.progresstokens import REPORTED as _REPORTED
from mcptape.check.progresstokens import provide, release
from mcptape.check.results import ERROR_TYPES, ResultRules, plain_call

META_PREFIX = "io.modelcontextprotocol/"
REQUIRED_META = ("io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities")
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
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
RETIRED_CODES = {-32002: "resource not found (2025-11-25 and earlier)", -32042: "URL elicitation required"}
DEFINED_CODES = frozenset({-32020, -32021, -32022})
SUBSCRIBED = {
    "notifications/tools/list_changed": "toolsListChanged",
    "notifications/prompts/list_changed": "promptsListChanged",
    "notifications/resources/list_changed": "resourcesListChanged",
    "notifications/resources/updated": "resourceSubscriptions",
}
RACE = 0.1  # seconds: an answer this soon after a cancel may have crossed it on the wire


# A progress token is a string or an integer; the token maps are keyed by the token itself (1 and "1"
# are different keys), so a token of another type (true == 1, 1.0 == 1) is looked up only with these.
TOKEN_TYPES = frozenset({int, str})
WATCHED_REQUESTS = REMOVED_CLIENT | {"subscriptions/listen"}  # request methods a rule looks at


def _params(pending: Pending) -> dict[str, Any]:
    """The params of a request in flight, parsed again from its line (only for the rare rule that
    needs more than its method: the capabilities an `input_required` answer may ask for)."""
    try:
        value = orjson.loads(pending.raw)
    except orjson.JSONDecodeError:
        return {}
    params = value.get("params") if type(value) is dict else None
    return params if type(params) is dict else {}


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
        self.reached: dict[Any, Any] = {}  # the last progress value of each token in `tokens`
        self.sharing: dict[Any, int] = {}  # tokens provided again while active (progresstokens.py)
        self.done_tokens: dict[Any, None] = {}  # tokens whose request completed (and older ones)
        self.done_older: dict[Any, None] = {}
        self.task_tokens: dict[str, Any] = {}  # a task's id -> the progress token it keeps (2025-11-25)
        self.cancelled: dict[RequestId, tuple[float, Pending]] = {}  # when, and the request
        self.listens: dict[RequestId, dict[str, Any]] = {}  # open subscriptions/listen: their filter
        self.mrtr = Mrtr(self._find, emit)  # input_required answers and their retries (check/mrtr.py)
        self.suspects = self.mrtr.suspects  # retries whose state the answer will tell about
        self.entry = Entry(self._find)  # required _meta, versions, server/discover (check/entry.py)
        self.schema = ResultRules(self._find)  # results against the published schema (check/results.py)
        self.server_capabilities: dict[str, Any] | None = None
        # What the server has shown of its era: True once it answered server/discover or gave a
        # result a resultType (it speaks 2026-07-28); False once a result without one came first
        # (an earlier-era server answering under its own semantics, basic/versioning); None: not yet.
        self.modern_server: bool | None = None

    def _find(self, rule: str, at: At, message: str, rid: RequestId | None = None) -> None:
        self.emit(finding_at(rule, at, message, rid))

    # -- client -> server ---------------------------------------------------------------------
    def client_request(self, method: str, rid: RequestId, params: Any, at: At) -> None:
        """A good client request (the session's pairing has it in flight already)."""
        meta = params.get("_meta") if type(params) is dict else None
        if type(meta) is not dict:
            meta = {}
        missing = [k for k in REQUIRED_META if k not in meta]
        if missing:
            self._find(
                rules.MISSING_META,
                at,
                f"{method} (request {rid!r}) lacks {', '.join(missing)} in params._meta",
                rid,
            )
        if self.entry.request(rid, meta, missing):  # its answer is judged (check/entry.py)
            self.watched.setdefault(rid, None)
        if method in WATCHED_REQUESTS:
            if method in REMOVED_CLIENT:
                self._find(rules.REMOVED_METHOD, at, f"{method} was removed in 2026-07-28", rid)
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
            self.mrtr.retry(method, rid, params, params["requestState"], at)

    def provided(self, rid: RequestId, token: Any) -> None:
        """Request `rid` provides a progress token: notifications may reference it until its answer."""
        provide(self, rid, token)

    def client_notification(self, method: str, params: Any, at: At) -> None:
        if method in REMOVED_CLIENT:
            self._find(rules.REMOVED_METHOD, at, f"{method} was removed in 2026-07-28")
        if method == "notifications/cancelled" and type(params) is dict:
            target: RequestId | None = params.get("requestId")
            if type(target) is int or type(target) is str:
                client = self.client
                pending = client.pending.get(target)
                if pending is not None:
                    self.cancelled[target] = (at.t, pending)
                    self.watched.setdefault(target, None)
                elif target not in client.closed and target not in client.older:
                    self._find(
                        rules.CANCEL_UNKNOWN,
                        at,
                        f"notifications/cancelled references request {target!r}, which the client never sent",
                    )

    # -- server -> client ---------------------------------------------------------------------
    def server_notification(self, method: str, params: Any, at: At) -> None:
        if method in REMOVED_SERVER:
            self._find(rules.REMOVED_METHOD, at, f"{method} was removed in 2026-07-28")
        if method == "notifications/message" and self.modern_server is not False:
            if not self.logging:
                self._find(
                    rules.UNREQUESTED_LOG,
                    at,
                    "notifications/message while no request in flight asked for log messages "
                    f"({LOG_LEVEL} in its _meta)",
                )
            caps = self.server_capabilities
            if caps is not None and "logging" not in caps:
                self._find(
                    rules.UNREQUESTED_LOG,
                    at,
                    "notifications/message from a server whose server/discover declared no "
                    "logging capability",
                )
        elif method == "notifications/progress" and type(params) is dict:
            self.progress(params.get("progressToken"), params.get("progress"), at)
        elif method == "notifications/cancelled" and type(params) is dict:
            target = params.get("requestId")
            if target not in self.listens:
                self._find(
                    rules.SERVER_CANCEL,
                    at,
                    f"the server cancels request {target!r}, which is not a subscriptions/listen request",
                )
        elif method in SUBSCRIBED:
            self._subscribed(method, params, at)

    def advance(self, token: Any, value: Any, at: At) -> None:
        """Progress `value` for the active `token`: "The `progress` value **MUST** increase with
        each notification, even if the total is unknown." (patterns/progress; utilities before)."""
        last = self.reached.get(token)
        if (type(value) is int or type(value) is float) and last is not _REPORTED:  # once a token
            self.reached[token] = value if last is None or value > last else _REPORTED
            if last is not None and not value > last:
                said = f"notifications/progress for token {token!r}: {value!r} after {last!r}, no increase"
                self._find(rules.PROGRESS_ORDER, at, said)

    def progress(self, token: Any, value: Any, at: At) -> None:
        """A server's `notifications/progress` for `token`: "Progress notifications **MUST** only
        reference tokens that: Were provided in an active request" and "**MUST** stop after
        completion" (basic/patterns/progress; basic/utilities/progress before 2026-07-28)."""
        if token in self.tokens and type(token) in TOKEN_TYPES:
            self.advance(token, value, at)
        else:
            late = type(token) in TOKEN_TYPES and (token in self.done_tokens or token in self.done_older)
            self._find(
                rules.PROGRESS_AFTER_COMPLETION,
                at,
                f"notifications/progress for token {token!r} "
                + ("after its request completed" if late else "that no request in flight provided"),
            )

    def _subscribed(self, method: str, params: Any, at: At) -> None:
        sub: Any = meta_of(params).get(SUBSCRIPTION_ID)
        listen = self.listens.get(sub) if isinstance(sub, (int, str)) else None
        if listen is None:
            self._find(
                rules.SUBSCRIPTION,
                at,
                f"{method} without the {SUBSCRIPTION_ID} of an open subscriptions/listen request",
            )
            return
        wanted = listen.get(SUBSCRIBED[method])
        uri = params.get("uri") if type(params) is dict else None
        if not wanted or (type(wanted) is list and uri not in wanted):
            self._find(
                rules.SUBSCRIPTION,
                at,
                f"{method} on subscription {sub!r}, which did not ask for {SUBSCRIBED[method]}"
                + (f" {uri!r}" if type(wanted) is list else ""),
            )

    def answer(self, rid: RequestId, pending: Pending | None, value: dict[str, Any], at: At) -> str | None:
        """A response to client request `rid` (`pending`: the request it answers, None when the
        client had cancelled it); returns a reject reason for `input_required`."""
        if rid in self.watched:
            pending = self.close(rid, pending, at)
        method = pending.method if pending is not None else ""
        suspect = self.suspects.pop(rid, None) if self.suspects else None
        error = value.get("error")
        if type(error) is dict:
            code = error.get("code")
            self.entry.refused(rid, method, error, at, self.modern_server is True)
            if code in ERROR_TYPES:
                self.schema.error(code, value, at, rid)
            if code in RETIRED_CODES:
                self._find(rules.ERROR_CODE, at, f"error code {code}, retired: {RETIRED_CODES[code]}", rid)
            elif type(code) is int and -32099 <= code <= -32020 and code not in DEFINED_CODES:
                self._find(
                    rules.ERROR_CODE,
                    at,
                    f"error code {code}, in the range reserved for the MCP specification "
                    "but not defined by it",
                    rid,
                )
            return None
        result = value.get("result")
        if type(result) is not dict:
            return None
        kind = result.get("resultType")
        if self.modern_server is not True and self._legacy(method, kind, at, rid):
            return None
        if kind is None:
            self._find(rules.RESULT_TYPE, at, f"the result of {method or 'a request'} has no resultType", rid)
            kind = "complete"
        self.entry.served(rid, method, result, at)
        self.schema.result(method, kind, result, at, rid)
        if kind == "complete" and method in CACHEABLE:
            ttl, scope = result.get("ttlMs"), result.get("cacheScope")
            valid_ttl = isinstance(ttl, (int, float)) and not isinstance(ttl, bool) and ttl >= 0
            if not valid_ttl or scope not in ("public", "private"):
                self._find(
                    rules.CACHE_HINTS,
                    at,
                    f"the {method} result lacks valid caching hints (ttlMs {ttl!r}, cacheScope {scope!r})",
                    rid,
                )
        if method == "server/discover":
            caps = result.get("capabilities")
            self.server_capabilities = caps if type(caps) is dict else {}
        if suspect is not None and kind == "complete" and result.get("isError") is not True:
            self.mrtr.accepted(rid, method, suspect, at)
        if kind == "input_required":
            params = _params(pending) if pending is not None else {}
            self.mrtr.input_required(method, rid, params, result, at)
            return "answered input_required: it needs the user's input before it may act"
        return None

    def _legacy(self, method: str, kind: Any, at: At, rid: RequestId) -> bool:
        """Whether this result comes from a server of an earlier era (its 2026-07-28 rules are
        then not judged). A client that adopts 2026-07-28 without `server/discover` may be talking
        to a server that predates it: "Modern client, legacy server: Fails. The server may ...
        process an era-ambiguous method under legacy semantics. On stdio, clients SHOULD send
        `server/discover` first" (basic/versioning). Its first result then has no resultType: the
        client's doing (a warning), not a broken MUST of the server."""
        if self.modern_server is False:
            return True
        if kind is not None or method == "server/discover":
            self._modern()
            return False
        self.modern_server = False
        self._find(
            rules.LEGACY_SERVER,
            at,
            f"the result of {method or 'a request'} has no resultType and the server never answered "
            "server/discover: a server of an earlier era, answering a 2026-07-28 client that did not "
            "probe it first (its 2026-07-28 rules are not judged in this session)",
            rid,
        )
        return True

    def _modern(self) -> None:
        """The server has shown it speaks 2026-07-28 (a result with a resultType)."""
        self.modern_server = True
        if self.entry.waiting:
            self.entry.modern()

    def complete(self, rid: RequestId, pending: Pending, result: dict[str, Any], at: At) -> None:
        """A `complete` result of a method without caching hints: the server speaks 2026-07-28 (it
        gave a resultType), the result is judged against the schema, and the state a rule kept for
        the request goes."""
        if self.modern_server is False:  # a server of an earlier era: not judged, as `answer` does
            if rid in self.watched:
                self.close(rid, pending, at)
            return
        if self.modern_server is None:
            self._modern()
        method = pending.method
        if rid in self.watched:  # in the order `answer` judges: the state, the entry, the schema
            closed = self.close(rid, pending, at)  # the cancelled request, when the answer came after
            method = closed.method if closed is not None else ""
            self.entry.served(rid, method, result, at)
        if method != "tools/call" or not plain_call(result, self.schema.meta):  # results.plain_call
            self.schema.result(method, "complete", result, at, rid)

    def keep_for_task(self, rid: RequestId, task_id: str, pending: Pending | None, at: At) -> None:
        """Request `rid` was answered with a `CreateTaskResult`: its progress token stays valid until
        the task reaches a terminal status ("the `progressToken` provided in the original request
        **MUST** continue to be used for progress notifications throughout the task's lifetime,
        even after the `CreateTaskResult` has been returned", 2025-11-25 basic/utilities/progress)."""
        token = self.watched.get(rid)
        if token is not None and token in self.tokens:
            self.watched[rid] = None  # closed without its token
            self.task_tokens[task_id] = token
        self.close(rid, pending, at)

    def task_ended(self, task_id: Any) -> None:
        """Task `task_id` reached a terminal status: its progress token is done ("Progress
        notifications for tasks **MUST** stop after the task reaches a terminal status")."""
        token = self.task_tokens.pop(task_id, None) if isinstance(task_id, str) else None
        if token is not None and self.tokens.pop(token, None) is not None:
            self.done_tokens[token] = None
            self.reached.pop(token, None)

    def close(self, rid: RequestId, pending: Pending | None, at: At) -> Pending | None:
        """The answer to a request some rule keeps state for: that state goes (a cancelled
        request's answer is judged); returns the request (known from the cancel when the answer
        came after it)."""
        token = self.watched.pop(rid)
        if token is not None:
            release(self, token)
        if self.logging or self.listens or self.cancelled:
            self.logging.pop(rid, None)
            self.listens.pop(rid, None)
            cancelled = self.cancelled.pop(rid, None)
            if cancelled is not None:
                when, pending = cancelled
                if at.t - when > RACE:
                    self._find(
                        rules.ANSWER_AFTER_CANCEL,
                        at,
                        f"an answer to request {rid!r} {at.t - when:.3f}s after the client cancelled it",
                        rid,
                    )
        return pending


__all__ = ["IN", "OUT", "Modern"]
