"""The session model: what each good or rejected message means for pairing, versions, schemas,
rejects and executor attribution, and the findings that follow. `Analyzer` (analyze.py) has one
and feeds it messages in time order.

The parts, each in its own module: pending requests and what pairing finds (`pairing`), the
declared tool schemas (`tools`), rejected lines and the first of each direction (`rejects`),
executor attribution (`attribution`), the bounded list of findings (`findings`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from math import frexp
from typing import Any

import orjson

from mcptape.check import rules
from mcptape.check.attribution import RECENT_ANSWERS, Answered, Attributor, Closed
from mcptape.check.capabilities import Capabilities
from mcptape.check.classify import classify
from mcptape.check.findings import Findings
from mcptape.check.model import (
    BUCKETS,
    IN,
    OUT,
    Analysis,
    At,
    Callbacks,
    Frame,
    Kind,
    Message,
    Ref,
    RequestId,
)
from mcptape.check.modern import CACHEABLE, LOG_LEVEL, REQUIRED_META, WATCHED_REQUESTS, Modern
from mcptape.check.notices import Notices
from mcptape.check.pairing import (
    Pairing,
    Pending,
    Sessions,
    open_request,
    pair_lenient,
    pair_rejected,
    unknown_response_id,
)
from mcptape.check.promises import Promises
from mcptape.check.protocol import META_VERSION_KEY, VersionTracker
from mcptape.check.rejects import FirstLines, frame_finding
from mcptape.check.schema import default_dialect
from mcptape.check.tasks import answered_in_handshake
from mcptape.check.tools import ToolSchemas

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
_REQUEST, _NOTIFICATION, _RESPONSE, _ERROR = (
    Kind.REQUEST,
    Kind.NOTIFICATION,
    Kind.RESPONSE,
    Kind.ERROR_RESPONSE,
)
_new = tuple.__new__  # builds a NamedTuple at half its own constructor's cost (see pairing.Pending)
# Error codes that refuse the request's input itself (parse, invalid request, unknown method, invalid
# params, and the 2026-07-28 header/capability/version errors): certain rejects. Any other error,
# like `isError: true`, may report that the action itself failed (see attribution).
INPUT_REFUSALS = frozenset({-32700, -32600, -32601, -32602, -32020, -32021, -32022})
# Shortcuts for the 2026-07-28 rules (`Modern`): most messages give them nothing to judge, and a
# call for each cost ~6% of check's instructions. A request that repeats the version in force with
# the required `_meta` and nothing a rule watches (a log level, a `requestState`, a watched method)
# only tells `Modern` its progress token; a `complete` result of a method without caching hints only
# closes what a rule kept for its request; a progress notification for a token in flight is fine.
# The rest goes to `Modern`. tests/check/test_modern_shortcuts.py holds the shortcuts against
# sending every message to `Modern` (these three set so that none applies).
_CAPABILITIES = REQUIRED_META[1]  # a plain request carries it
_COMPLETE = "complete"  # a plain result's resultType


class Session(Notices):
    """Per-session state: versions, requests in flight, tool schemas, executor attribution, and the
    `Analysis` being built. Messages arrive in time order; `close()` ends the session."""

    def __init__(
        self, callbacks: Callbacks | None = None, *, max_findings: int = 10_000, policy: str = "session"
    ) -> None:
        self.callbacks: Callbacks = {} if callbacks is None else callbacks
        self.result = Analysis()
        self.findings = Findings(self.result, self.callbacks, max_findings)
        self.emit = self.findings.add
        self.tracker = VersionTracker()
        self.client = Pairing()  # requests the client sent on `in`, answered on `out`
        self.server = Pairing()  # requests the server sent on `out`, answered on `in`
        self.sessions = Sessions(self.client, self.server)  # an HTTP transcript's, each its own ids
        # The last answers to client requests, newest last: executor lines are attributed by them.
        self.answers: deque[Answered] = deque(maxlen=RECENT_ANSWERS)
        self.attribution = Attributor(self.emit, policy, self.answers)
        self.tools = ToolSchemas()
        self.capabilities = Capabilities()  # the features served without their capability
        self.promises = Promises(self.emit)  # tool annotations against the actions (check/promises.py)
        self.modern = Modern(self.emit, self.client)  # the 2026-07-28 rules, while the session speaks it
        self.lines = FirstLines(self.result.first_non_protocol)
        # The capabilities the server's answer to `initialize` declared (None: no handshake seen).
        self.handshake_capabilities: dict[str, Any] | None = None
        # Where that answer is, while a log message without the `logging` capability may still be
        # found there (once per session: the fault is the declaration, not each message).
        self.undeclared_logging: At | None = None
        self.explained: Callable[[Message], bool] | None = None  # a fault another rule already reported
        # When the client closed the server's stdin while the server still ran (stdio's shutdown):
        # the requests in flight then were abandoned by the client (see pairing.unanswered_request).
        self.client_left: float | None = None
        self.server_ended = False  # its stdout ended or it exited

    @property
    def version(self) -> str | None:
        """The protocol version in force at the point the analysis has reached."""
        return self.tracker.version

    # -- in/out lines ------------------------------------------------------------------------
    def frame(self, frame: Frame) -> None:
        """The general path: classify a frame of `in`/`out` with the one classifier."""
        msg = classify(frame, self.tracker.version)
        on_message = self.callbacks.get("on_message")
        if on_message is not None:
            on_message(msg)
        watch = self.callbacks.get("watch")
        if watch is not None:  # off the fast path: the watch filters what it hears itself
            watch.feed(msg)
        if msg.rule is not None:
            self._reject(msg)
        if msg.kind is Kind.BATCH:
            refused = msg.rule == rules.BATCH_NOT_ALLOWED  # its items are part of a rejected line
            for item in msg.items:
                if refused:
                    pair_rejected(item, self.client, self.server)
                else:
                    self._accept_message(item)
        elif msg.rule is None or msg.kind is Kind.INVALID:
            self._accept_message(msg)
        elif msg.rule != rules.INCOMPLETE_FRAME:
            pair_lenient(frame, self.tracker.version, self.client, self.server)
        if msg.rule is None:
            self.lines.good(frame)

    def _accept_message(self, msg: Message) -> None:
        frame = msg.frame
        value = msg.value
        if msg.rule is None:
            self.accept(msg.kind, msg.method, msg.id, value, At.of(frame))
        else:
            pair_rejected(msg, self.client, self.server)

    def _reject(self, msg: Message) -> None:
        frame = msg.frame
        if self.explained is None or not self.explained(msg):
            self.emit(frame_finding(msg))
        self.lines.rejected(frame, msg.problem or msg.rule or "")
        if frame.channel == IN:
            self.result.rejects += 1
            ref = Ref("rejected-input", IN, frame.line, frame.offset, frame.body, frame.event)
            self.attribution.frame_rejected(frame.t, ref, msg.problem or msg.rule or "")

    def accept(
        self, kind: Kind, method: str | None, rid: RequestId | None, value: dict[str, Any], at: At
    ) -> None:
        """A good message at `at`: count it, learn the version and schemas, pair it."""
        ch = at.channel
        self.result.messages[ch] += 1
        if ch == OUT and (kind is _RESPONSE or kind is _ERROR):
            self.answer(kind, rid, value, at)
        elif kind is _REQUEST:
            assert rid is not None and method is not None
            pending = Pending(*at, method, True)
            if ch == IN:
                self.client_request(rid, value, pending)
                return
            for found in (
                open_request(self.server, ch, rid, pending, self.tracker),
                self.capabilities.server_request(
                    method, value, at, self.tracker.version, self.client.declared
                ),
            ):
                if found is not None:
                    self.emit(found)
        elif kind is _NOTIFICATION:
            assert method is not None
            self._notification(method, value, at)
        elif rid is not None:  # a client's answer to a server request
            answered, why = self.server.close(rid)
            if answered is not None:
                self.result.latency.add(at.t - answered.t)
                on_pair = self.callbacks.get("on_pair")
                if on_pair is not None:
                    on_pair(answered.event, at.event, at.t - answered.t)
            elif why is not None:
                self.emit(unknown_response_id(rid, at, why))

    def client_request(self, rid: RequestId, value: dict[str, Any], pending: Pending) -> None:
        """A good client->server request (already counted; `pending`: its place and method, as it
        will be in flight): version, pairing, schema."""
        self.result.requests += 1
        method = pending.method
        params = value.get("params")
        plain = False  # nothing for the 2026-07-28 rules but its progress token (see _CAPABILITIES)
        if params is not None and "_meta" in params:
            meta = params["_meta"]
            tracker = self.tracker
            # Stateless requests all repeat the version: only a change needs the tracker.
            if tracker.stateless and type(meta) is dict and meta.get(META_VERSION_KEY) == tracker.version:
                plain = (
                    _CAPABILITIES in meta
                    and LOG_LEVEL not in meta
                    and method not in WATCHED_REQUESTS
                    and "requestState" not in params
                )
            else:
                tracker.request(method, rid, params)
        elif method == "initialize":
            self.tracker.request(method, rid, params)
            self.client.new_session()
            self.server.new_session()
            self.capabilities.client_declared(params, self.client)
        client = self.client
        in_flight = client.pending
        if rid in in_flight or rid in client.closed or rid in client.older:  # ids seldom repeat
            found = open_request(client, IN, rid, pending, self.tracker)
            if found is not None:
                self.emit(found)
        else:
            in_flight[rid] = pending
        if plain:
            if "progressToken" in meta:
                self.modern.provided(rid, meta["progressToken"])
        elif self.tracker.stateless:
            self.modern.client_request(method, rid, params, pending.at)
        elif params is not None and "_meta" in params and type(meta) is dict and "progressToken" in meta:
            self.modern.provided(rid, meta["progressToken"])  # the handshake revisions' progress too
        if method == "tools/call":
            tools = self.tools
            if tools.judging:
                tools.check(rid, params, pending, default_dialect(self.tracker.version))
            if tools.outputs:
                tools.expect(pending, params, default_dialect(self.tracker.version), in_flight[rid])
            if self.promises.watching:
                self.promises.call(rid, params, pending, in_flight)  # type: ignore[arg-type]

    def answer(self, kind: Kind, rid: RequestId | None, value: dict[str, Any], at: At) -> None:
        """A server response at `at` to a client request: latency, rejects, what it teaches. The
        common answer is judged here; a refusal's bookkeeping and the rarer cases are below.
        Over 60 lines on purpose: once per response of every check (bench/bench_check.py), the
        latency's buckets and the common answer inlined rather than a call each."""
        if rid is None:
            return  # an error answering a line whose id could not be read
        pending = self.client.take(rid)
        if pending is None:
            pending = self._unpaired(rid, value, at)
            if pending is None:
                return
        t = at.t
        seconds = t - pending.t
        lat = self.result.latency  # Latency.add, inlined: once per response
        lat.count += 1
        lat.total += seconds
        if seconds > lat.max:
            lat.max = seconds
        slot = frexp(seconds * 1e6)[1] if seconds > 1e-6 else 0
        lat.buckets[slot if slot < BUCKETS else BUCKETS - 1] += 1
        on_pair = self.callbacks.get("on_pair")
        if on_pair is not None:
            on_pair(pending.event, at.event, seconds)
        method = pending.method
        reason: str | None = None
        soft = False  # a refusal that may report the action's own failure (see attribution)
        if not self.tracker.stateless and (rid in self.modern.watched or self.modern.task_tokens):
            answered_in_handshake(self.modern, rid, pending, kind is _ERROR, value, at)
        if kind is _ERROR:
            reason, soft = self._error(rid, pending, value, at)
        else:
            result = value["result"]
            if self.tracker.switch_id is not None:
                self.tracker.served(rid)
            if self.tracker.stateless:  # most answers have nothing for the 2026-07-28 rules (see _COMPLETE)
                modern = self.modern
                if (
                    method in CACHEABLE
                    or result.get("resultType") != _COMPLETE
                    or (modern.suspects and rid in modern.suspects)  # a retry with a state to verify
                ):
                    # input_required: the server needs the user's input before it may act
                    reason = modern.answer(rid, pending, value, at)
                else:
                    modern.complete(rid, pending, result, at)
            if reason is not None:
                pass
            elif method == "tools/call":
                if result.get("isError") is True:
                    reason = "the tools/call result has isError: true"
                    soft = True
            elif method == "tools/list" or method == "initialize" or method == "server/discover":
                self._learn(method, rid, result, at)
            if reason is None and self.capabilities.watch and method in self.capabilities.watch:
                undeclared = self.capabilities.served(method, rid, result, at)
                if undeclared is not None:
                    self.emit(undeclared)
        tools = self.tools
        if tools.outside or rid in tools.early:
            reason, soft, found = tools.settle(rid, reason, soft)
            if found is not None:
                self.emit(found)
        if tools.expecting and pending in tools.expecting:
            structured = tools.returned(
                rid, pending, None if kind is _ERROR or reason is not None else value["result"], at
            )
            if structured is not None:
                self.emit(structured)
        response = None if reason is None else self._refused(kind, reason, at)
        closed = (t, rid, pending, reason, response, soft)  # once per answer: a plain `Answered`
        self.answers.append(closed)
        attribution = self.attribution
        if reason is not None or attribution.waiting:
            attribution.answered(_new(Closed, closed))

    def _unpaired(self, rid: RequestId, value: dict[str, Any], at: At) -> Pending | None:
        """The request an answer `take` could not pair answers (one of several with its id in
        flight), or None: an answer to no request in flight, unknown or answered twice (a
        finding), or cancelled."""
        pending, why = self.client.close(rid)
        if pending is None:
            if why is not None:
                self.emit(unknown_response_id(rid, at, why))
            elif self.tracker.stateless:  # an answer to a cancelled request
                self.modern.answer(rid, None, value, at)
        return pending

    def _error(self, rid: RequestId, pending: Pending, value: dict[str, Any], at: At) -> tuple[str, bool]:
        """An error answer: why it rejects the request, and whether the refusal is soft (a code that
        may report the action's own failure rather than refuse the input)."""
        tracker = self.tracker
        if tracker.stateless:  # the 2026-07-28 error codes
            self.modern.answer(rid, pending, value, at)
        error = value["error"]
        if tracker.switch_id is not None or tracker.init_id is not None:
            tracker.refused(rid, error["code"])  # a refused handshake or version change (see there)
        return f"error {error['code']}: {error['message']}", error["code"] not in INPUT_REFUSALS

    def _learn(self, method: str, rid: RequestId, result: dict[str, Any], at: At) -> None:
        """What a listing or a handshake's answer teaches: the tools' schemas and annotations, the version."""
        if method == "initialize":
            self.tracker.response(rid, result)
            capabilities = result.get("capabilities")
            self.handshake_capabilities = capabilities if type(capabilities) is dict else None
            declared = self.handshake_capabilities
            self.undeclared_logging = at if declared is not None and "logging" not in declared else None
            self.capabilities.declared(declared, self.tracker.version, at)
            return
        if method == "server/discover":
            self.capabilities.declared(result.get("capabilities"), self.tracker.version, at)
            return
        for late in self.tools.learn(result):  # calls sent before the list arrived
            self.emit(late)
        self.promises.listed(result, at.ref("tools/list"))

    def _refused(self, kind: Kind, reason: str, at: At) -> Ref:
        """An answer that rejects its request: counted, told, and pointed at."""
        self.result.rejects += 1
        on_reject = self.callbacks.get("on_reject")
        if on_reject is not None:
            on_reject(at.event, reason)
        return at.ref("error-response" if kind is _ERROR else "response")

    # -- executor lines ------------------------------------------------------------------------
    def executor(self, frame: Frame) -> None:
        """One line of `exec` or `http`: attributed, and judged against the rejects so far."""
        try:
            value = _loads(frame.body)
        except _JSONDecodeError:
            value = None
        call = self.attribution.executor(frame, value, self.client.pending)
        self.promises.action(call, self.client.pending, self.answers)
        on_exec = self.callbacks.get("on_exec")
        if on_exec is not None:
            on_exec(call)

    # -- the end -------------------------------------------------------------------------------
    def close(self) -> Analysis:
        """The session ended: the requests still in flight are reported; the analysis is done."""
        for unanswered in self.sessions.unanswered(self.client_left):
            self.emit(unanswered)
        for rid in list(self.tools.outside):
            _, found = self.tools.answered(rid, refused=None)
            if found is not None:
                self.emit(found)
        self.promises.close(self.client)
        result = self.result
        result.findings.sort(key=lambda f: f.t if f.t is not None else 0.0)
        result.protocol_version = self.tracker.version
        result.stateless = self.tracker.stateless
        result.exec_calls = self.attribution.calls
        return result
