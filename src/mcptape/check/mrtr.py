"""The multi round-trip rules of 2026-07-28 (basic/patterns/mrtr): the shape of an `input_required`
answer, the client's retry (its `requestState` echoed exactly, only for the request it was issued
for, a new id, input keys that were asked for), and whether the server verified a state it did not
issue for the retry (`accepted-request-state`). `Modern` (check/modern.py) owns one `Mrtr` and
calls it; each rule cites its spec sentence in docs/check.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from mcptape.check import rules
from mcptape.check.findings import finding_at
from mcptape.check.model import At, Finding, RequestId, Severity

CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
INPUT_REQUIRED_METHODS = frozenset({"prompts/get", "resources/read", "tools/call"})
INPUT_METHODS = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
_KEPT = 4096

# How a rule reports a finding at a message: (rule, the message's place, message, request id).
Find = Callable[[str, At, str, "RequestId | None"], None]


def meta_of(params: Any) -> dict[str, Any]:
    """A request's `params._meta` (an empty dict when it has none)."""
    meta = params.get("_meta") if type(params) is dict else None
    return meta if type(meta) is dict else {}


def salient(params: Any) -> bytes | None:
    """A request's salient parameters beside its target: its `arguments` (a tool's, a prompt's),
    in a canonical form ("a digest of its salient parameters", mrtr server requirements)."""
    arguments = params.get("arguments") if type(params) is dict else None
    if arguments is None:
        return None
    try:
        return orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None


def target_of(method: str, params: Any) -> Any:
    """What a request is for, beside its method: the tool or prompt it names, the resource it reads."""
    if type(params) is not dict:
        return None
    found = params.get("uri") if method == "resources/read" else params.get("name")
    return found if type(found) is str else None


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


class Mrtr:
    """The issued states of a session, and the retries whose answer will tell whether the server
    verified a state it did not issue for them."""

    def __init__(self, find: Find, emit: Callable[[Finding], None]) -> None:
        self._find = find
        self.emit = emit
        # issued requestState -> (request id, method, input keys asked, target, salient arguments)
        self.states = Recent()
        self.stateful = Recent()  # (method, target) the server issued a requestState for
        # Retries whose requestState the server did not issue for them, to a target that uses state:
        # (tampered, what the state is); judged by their answer (accepted-request-state).
        self.suspects: dict[RequestId, tuple[bool, str]] = {}

    def retry(self, method: str, rid: RequestId, params: dict[str, Any], state: Any, at: At) -> None:
        """A client request carrying `requestState`: judged as a retry, and kept for its answer when
        the state was not issued for it."""
        self._retry(method, rid, params, state, at)
        self._suspect(method, rid, params, state)

    def _retry(self, method: str, rid: RequestId, params: dict[str, Any], state: Any, at: At) -> None:
        if state is None:
            return
        issued = self.states.get(state) if type(state) is str else None
        if issued is None:
            self._find(
                rules.MRTR_RETRY,
                at,
                f"{method} (request {rid!r}) carries a requestState the server never issued in this "
                "session (altered, foreign, or sent where none was given)",
                rid,
            )
            return
        original, original_method, asked, target, arguments = issued
        if type(original) is type(rid) and original == rid:
            self._find(
                rules.MRTR_RETRY, at, f"the retry reuses the id {rid!r} of the request it retries", rid
            )
        if original_method != method:
            self._find(
                rules.MRTR_RETRY,
                at,
                f"a requestState issued for {original_method} (request {original!r}) is used on {method}",
                rid,
            )
        elif target != target_of(method, params):
            self._find(
                rules.MRTR_RETRY,
                at,
                f"a requestState issued for {method} {target!r} (request {original!r}) is used on "
                f"{method} {target_of(method, params)!r}",
                rid,
            )
        elif arguments != salient(params):
            self._find(
                rules.MRTR_RETRY,
                at,
                f"a requestState issued for {method} {target!r} (request {original!r}) is used on a "
                "request with other arguments: it is not a retry of that request",
                rid,
            )
        else:  # a retry of the request the state was issued for: it answers what was asked
            self._answers(rid, original, asked, params.get("inputResponses"), at)
        responses = params.get("inputResponses")
        if type(responses) is dict:
            extra = sorted(k for k in responses if k not in asked)
            if extra:
                self._find(
                    rules.MRTR_INPUT_KEYS,
                    at,
                    f"inputResponses answers {', '.join(map(repr, extra[:5]))}, "
                    "which the server did not ask for",
                    rid,
                )

    def _answers(
        self, rid: RequestId, original: RequestId, asked: frozenset[str], responses: Any, at: At
    ) -> None:
        """ "If a client receives an InputRequiredResult that contains the inputRequests field, the
        client MUST construct the requested inputs before retrying" (mrtr, client requirements)."""
        unanswered = sorted(k for k in asked if type(responses) is not dict or k not in responses)
        if unanswered:
            self._find(
                rules.RETRY_MISSING_INPUT,
                at,
                f"the retry of request {original!r} does not answer inputRequests "
                f"{', '.join(map(repr, unanswered[:5]))}: the client MUST construct the requested inputs",
                rid,
            )

    def _suspect(self, method: str, rid: RequestId, params: dict[str, Any], state: Any) -> None:
        """A retry whose state was not issued for this very request, to a target the server issues
        state for (one that does not use state may ignore a stray one): its answer will tell whether
        the server verified it."""
        target = target_of(method, params)
        if (method, target) not in self.stateful:
            return
        issued = self.states.get(state) if type(state) is str else None
        own = issued is not None and issued[1] == method and issued[3] == target
        if own and issued is not None and issued[4] == salient(params):
            return  # its own state
        if issued is not None:
            other = " with other arguments" if own else ""
            what = f"a requestState issued for {issued[1]} {issued[3]!r}{other} (request {issued[0]!r})"
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

    def accepted(self, rid: RequestId, method: str, suspect: tuple[bool, str], at: At) -> None:
        tampered, what = suspect
        must = (
            ": it MUST reject state that fails verification"
            if tampered
            else ": it SHOULD reject state presented on a request that does not match"
        )
        self.emit(
            finding_at(
                rules.STATE_ACCEPTED,
                at,
                f"{method} (request {rid!r}) carried {what}, and the server answered it with a success{must}",
                rid,
                severity=None if tampered else Severity.WARNING,
            )
        )

    def input_required(
        self, method: str, rid: RequestId, params: dict[str, Any], result: dict[str, Any], at: At
    ) -> None:
        if method not in INPUT_REQUIRED_METHODS:
            self._find(rules.MRTR_SHAPE, at, f"input_required on {method}, which may not return it", rid)
        requests = result.get("inputRequests")
        state = result.get("requestState")
        if requests is None and state is None:
            self._find(
                rules.MRTR_SHAPE, at, "input_required with neither inputRequests nor requestState", rid
            )
        declared = meta_of(params).get(CAPABILITIES)
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
                        at,
                        f"inputRequests[{key!r}] is {wanted!r}, not elicitation/create, "
                        "sampling/createMessage or roots/list",
                        rid,
                    )
                elif capability not in declared:
                    self._find(
                        rules.MRTR_SHAPE,
                        at,
                        f"inputRequests[{key!r}] asks for {wanted}, a capability ({capability}) the client "
                        "did not declare on this request",
                        rid,
                    )
        if type(state) is str:
            target = target_of(method, params)
            self.states.add(state, (rid, method, frozenset(asked), target, salient(params)))
            self.stateful.add((method, target))
