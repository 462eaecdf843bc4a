"""The session model: what each good or rejected message means for pairing, versions, schemas,
rejects and executor attribution, and the findings that follow. `Analyzer` (analyze.py) feeds it.
"""

from __future__ import annotations

from collections.abc import Callable
from math import frexp
from typing import Any

import orjson

from mcptape.check import rules
from mcptape.check.attribution import Attributor, request_ref
from mcptape.check.classify import classify
from mcptape.check.model import (
    IN,
    OUT,
    Analysis,
    ExecCall,
    Finding,
    FirstNonProtocol,
    Frame,
    Kind,
    Message,
    Ref,
    Severity,
)
from mcptape.check.pairing import BUCKETS, Pairing, Pending, RequestId, bucket
from mcptape.check.protocol import LONG_LIVED_REQUESTS, META_VERSION_KEY, VersionTracker
from mcptape.check.schema import violation

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
_REQUEST, _NOTIFICATION, _RESPONSE, _ERROR = (
    Kind.REQUEST,
    Kind.NOTIFICATION,
    Kind.RESPONSE,
    Kind.ERROR_RESPONSE,
)


def _bytes(raw: str | bytes) -> bytes:
    return raw.encode() if isinstance(raw, str) else raw


class Session:
    """Per-session state: versions, requests in flight, tool schemas, executor attribution."""

    def __init__(
        self,
        *,
        on_message: Callable[[Message], None] | None = None,
        on_exec: Callable[[ExecCall], None] | None = None,
        on_finding: Callable[[Finding], None] | None = None,
        on_pair: Callable[[int, int, float], None] | None = None,
        on_reject: Callable[[int, str], None] | None = None,
        max_findings: int = 10_000,
        policy: str = "session",
    ) -> None:
        self.result = Analysis()
        self.on_message = on_message
        self.on_exec = on_exec
        self.on_finding = on_finding
        self.on_pair = on_pair  # (request event index, response event index, latency in seconds)
        self.on_reject = on_reject  # (response event index, why): a client request was rejected
        self.max_findings = max_findings
        self.tracker = VersionTracker()
        self.client = Pairing()  # requests the client sent on `in`, answered on `out`
        self.server = Pairing()  # requests the server sent on `out`, answered on `in`
        self.attribution = Attributor(self._emit, policy)
        self.schemas: dict[str, Any] = {}
        self.schema_rejected: dict[RequestId, str] = {}
        # The last good line of each direction, until its first rejected line: a record
        # `(t, channel, raw, event index or indexes)` (the hot loop stores its own record as is).
        self._prev: dict[str, tuple[float, str, Any, int | tuple[int, ...]] | None] = {IN: None, OUT: None}
        self._first = self.result.first_non_protocol

    @property
    def version(self) -> str | None:
        """The protocol version in force at the point the analysis has reached."""
        return self.tracker.version

    def _frame(self, frame: Frame) -> None:
        """The general path: classify a frame of `in`/`out` with the one classifier."""
        msg = classify(frame, self.tracker.version)
        if self.on_message is not None:
            self.on_message(msg)
        ch = frame.channel
        if msg.rule is not None:
            self._reject(msg)
        if msg.kind is Kind.BATCH:
            for item in msg.items:
                self._accept_message(item)
        elif msg.rule is None or msg.kind is Kind.INVALID:
            self._accept_message(msg)
        if msg.rule is None and self._first[ch] is None:
            self._prev[ch] = (frame.t, ch, frame.raw, frame.events)

    def _accept_message(self, msg: Message) -> None:
        frame = msg.frame
        value = msg.value
        if msg.rule is None:
            self._accept(
                frame.channel,
                msg.kind,
                msg.method,
                msg.id,
                value,
                frame.line,
                frame.offset,
                frame.raw,
                frame.t,
                frame.event,
            )
        elif msg.id is not None and type(value) is dict:
            # A rejected line that still names a request or an answer: pair it, judge nothing more.
            pairing = self.client if frame.channel == IN else self.server
            answers = self.server if frame.channel == IN else self.client
            if msg.method is not None:
                pending = (frame.t, frame.line, frame.offset, frame.raw, frame.event, msg.method, False)
                pairing.open(msg.id, pending)
            elif "result" in value or "error" in value:
                answers.close(msg.id)

    def _reject(self, msg: Message) -> None:
        frame = msg.frame
        rule = msg.rule
        assert rule is not None
        problem = msg.problem or rule
        ch = frame.channel
        body = frame.body
        self._emit(
            Finding(
                rule,
                rules.severity(rule),
                ch,
                frame.line,
                frame.offset,
                body,
                f"{ch} line {frame.line}: {problem}",
                msg.id,
                frame.t,
                frame.event,
            )
        )
        if self._first[ch] is None:
            prev = self._prev[ch]
            previous = None
            if prev is not None:
                t, _, text, where = prev
                raw = _bytes(text)
                if not raw.endswith(b"\n"):
                    raw += b"\n"
                events = (where,) if isinstance(where, int) else where
                previous = Frame(ch, frame.line - 1, frame.offset - len(raw), raw, t, True, events)
            self._first[ch] = FirstNonProtocol(frame, problem, previous)
        if ch == IN:
            self.result.rejects += 1
            ref = Ref("rejected-input", IN, frame.line, frame.offset, body, frame.event)
            self.attribution.frame_rejected(frame.t, ref, problem)

    def _accept(
        self,
        ch: str,
        kind: Kind,
        method: str | None,
        rid: RequestId | None,
        value: dict[str, Any],
        line: int,
        offset: int,
        raw: str | bytes,
        t: float,
        index: int,
    ) -> None:
        """A good message: count it, learn the version and schemas, pair it."""
        self.result.messages[ch] += 1
        if ch == OUT and (kind is _RESPONSE or kind is _ERROR):
            self._answer(kind, rid, value, line, offset, raw, t, index)
        elif kind is _REQUEST:
            assert rid is not None and method is not None
            if ch == IN:
                self._client_request(method, rid, value, line, offset, raw, t, index)
                return
            pending: Pending = (t, line, offset, raw, index, method, True)
            previous = self.server.open(rid, pending)
            if previous is not None:
                self._duplicate(ch, rid, pending, previous)
        elif kind is _NOTIFICATION:
            if method == "notifications/cancelled":
                params = value.get("params")
                if type(params) is dict:
                    (self.client if ch == IN else self.server).cancel(params.get("requestId"))
        elif rid is not None:
            pending_or_none, why = self.server.close(rid)
            if pending_or_none is not None:
                self._latency(t - pending_or_none[0])
                if self.on_pair is not None:
                    self.on_pair(pending_or_none[4], index, t - pending_or_none[0])
            elif why is not None:
                self._unknown(ch, rid, line, offset, raw, t, index, why)

    def _client_request(
        self,
        method: str,
        rid: RequestId,
        value: dict[str, Any],
        line: int,
        offset: int,
        raw: str | bytes,
        t: float,
        index: int,
    ) -> None:
        """A good client->server request (already counted): version, pairing, schema."""
        self.result.requests += 1
        pending: Pending = (t, line, offset, raw, index, method, True)
        params = value.get("params")
        if params is not None and "_meta" in params:
            meta = params["_meta"]
            tracker = self.tracker
            # Stateless requests all repeat the version: only a change needs the tracker.
            if (
                not tracker.stateless
                or type(meta) is not dict
                or meta.get(META_VERSION_KEY) != tracker.version
            ):
                tracker.request(method, rid, params)
        elif method == "initialize":
            self.tracker.request(method, rid, params)
        in_flight = self.client.pending
        if rid in in_flight:
            previous = self.client.open(rid, pending)
            if previous is not None:
                self._duplicate(IN, rid, pending, previous)
        else:
            in_flight[rid] = pending
        if method == "tools/call" and self.schemas:
            self._check_arguments(rid, params, pending)

    def _answer(
        self,
        kind: Kind,
        rid: RequestId | None,
        value: dict[str, Any],
        line: int,
        offset: int,
        raw: str | bytes,
        t: float,
        index: int,
    ) -> None:
        """A server response to a client request: latency, rejects, what it teaches."""
        if rid is None:
            return  # an error answering a line whose id could not be read
        client = self.client
        pending = client.pending.get(rid)
        if pending is None or client.extra:
            pending, why = client.close(rid)
            if pending is None:
                if why is not None:
                    self._unknown(OUT, rid, line, offset, raw, t, index, why)
                return
        else:
            del client.pending[rid]
            client.remember(rid)
        seconds = t - pending[0]
        lat = self.result.latency
        lat.count += 1
        lat.total += seconds
        if seconds > lat.max:
            lat.max = seconds
        slot = frexp(seconds * 1e6)[1] if seconds > 1e-6 else 0  # pairing.bucket, inlined
        lat.buckets[slot if slot < BUCKETS else BUCKETS - 1] += 1
        if self.on_pair is not None:
            self.on_pair(pending[4], index, seconds)
        method = pending[5]
        reason: str | None = None
        if kind is _ERROR:
            error = value["error"]
            reason = f"error {error['code']}: {error['message']}"
        else:
            result = value["result"]
            if method == "tools/call":
                if result.get("isError") is True:
                    reason = "the tools/call result has isError: true"
            elif method == "tools/list":
                self._learn_tools(result)
            elif method == "initialize":
                self.tracker.response(rid, result)
        if self.schema_rejected:
            outside = self.schema_rejected.pop(rid, None)
            if outside is not None and reason is None:
                reason = outside
        attribution = self.attribution
        if reason is None and not attribution.waiting:
            attribution.recent.append((t, rid, pending, None, None))
            return
        response = None
        if reason is not None:
            self.result.rejects += 1
            if self.on_reject is not None:
                self.on_reject(index, reason)
            role = "error-response" if kind is _ERROR else "response"
            response = Ref(role, OUT, line, offset, _bytes(raw).rstrip(b"\n"), index)
        attribution.answered(rid, t, pending, reason, response)

    def _latency(self, seconds: float) -> None:
        lat = self.result.latency
        lat.count += 1
        lat.total += seconds
        if seconds > lat.max:
            lat.max = seconds
        lat.buckets[bucket(seconds)] += 1

    def _learn_tools(self, result: dict[str, Any]) -> None:
        tools = result.get("tools")
        if type(tools) is not list:
            return
        for tool in tools:
            if type(tool) is dict and type(tool.get("name")) is str:
                schema = tool.get("inputSchema")
                if type(schema) is dict:
                    self.schemas[tool["name"]] = schema
                else:
                    self.schemas.pop(tool["name"], None)

    def _check_arguments(self, rid: RequestId, params: Any, pending: Pending) -> None:
        schema = self.schemas.get(params.get("name"))
        if schema is None:
            return
        arguments = params.get("arguments", {})
        problem = violation(arguments, schema)
        if problem is None:
            return
        name = params["name"]
        self.schema_rejected[rid] = f"arguments outside the inputSchema of {name}: {problem}"
        ref = request_ref(pending)
        self._emit(
            Finding(
                rules.SCHEMA_VIOLATION,
                rules.severity(rules.SCHEMA_VIOLATION),
                IN,
                ref.line,
                ref.offset,
                ref.raw,
                f"tools/call {name} (request {rid!r}): {problem}, against the inputSchema the "
                "server declared in tools/list",
                rid,
                pending[0],
                ref.event,
            )
        )

    # -- findings --------------------------------------------------------------------------
    def _duplicate(self, ch: str, rid: RequestId, pending: Pending, previous: Pending) -> None:
        body = _bytes(pending[3]).rstrip(b"\n")
        self._emit(
            Finding(
                rules.DUPLICATE_ID,
                rules.severity(rules.DUPLICATE_ID),
                ch,
                pending[1],
                pending[2],
                body,
                f"request id {rid!r} ({pending[5]}) is already in flight: {ch} line {previous[1]} "
                f"({previous[5]}) has not been answered",
                rid,
                pending[0],
                pending[4],
                (request_ref(previous),) if ch == IN else (),
            )
        )

    def _unknown(
        self,
        ch: str,
        rid: RequestId,
        line: int,
        offset: int,
        raw: str | bytes,
        t: float,
        index: int,
        why: str,
    ) -> None:
        self._emit(
            Finding(
                rules.UNKNOWN_RESPONSE_ID,
                rules.severity(rules.UNKNOWN_RESPONSE_ID),
                ch,
                line,
                offset,
                _bytes(raw).rstrip(b"\n"),
                f"response to id {rid!r}: {why}",
                rid,
                t,
                index,
            )
        )

    def _unanswered(self, ch: str, rid: RequestId, pending: Pending) -> None:
        if not pending[6] or pending[5] in LONG_LIVED_REQUESTS:
            return
        other = OUT if ch == IN else IN
        self._emit(
            Finding(
                rules.UNANSWERED_REQUEST,
                rules.severity(rules.UNANSWERED_REQUEST),
                ch,
                pending[1],
                pending[2],
                _bytes(pending[3]).rstrip(b"\n"),
                f"request {rid!r} ({pending[5]}) never got a response on {other}",
                rid,
                pending[0],
                pending[4],
            )
        )

    def _emit(self, finding: Finding) -> None:
        if self.on_finding is not None:
            self.on_finding(finding)
        if len(self.result.findings) < self.max_findings:
            self.result.findings.append(finding)
        else:
            self.result.findings_truncated += 1
            if finding.severity is Severity.ERROR:
                self.result.errors_truncated += 1

    # -- executor lines --------------------------------------------------------------------
    def _exec(self, frame: Frame) -> None:
        try:
            value = _loads(frame.body)
        except _JSONDecodeError:
            value = None
        call = self.attribution.executor(frame, value, self.client.pending)
        if self.on_exec is not None:
            self.on_exec(call)
