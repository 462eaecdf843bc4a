"""Promises against evidence: a tool's annotations, held against what its calls did.

A tool's annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, from the
last `tools/list` before the call) are claims; the executor tap, the HTTP sink or cassette and the
command stubs are evidence. The session feeds `Promises` the listings, the calls, the cancels and
every executor line once attribution (check/attribution.py) has tied it to a request: no framing
and no pairing of its own. The rules, and the sentence of the specification each rests on, are in
docs/check.md.

What an action is (`Action`), read from its line:
- a tap line (`exec`): its `kind` when it gives one (`mcptape.tap.KINDS`); without one, an action
  that may change state;
- a stub run (`exec`, `"source": "stub"`): may change state, unless it only asks the command for its
  version or help (`node -v`, as readabilipy does to find node);
- an HTTP request (`http`): GET, HEAD and OPTIONS read; a CONNECT (an HTTPS tunnel through the sink)
  says nothing of the request inside it; any other method may change state. A request to a host
  that is not loopback reaches outside.
An action *ran* unless its line says `"outcome": "failed"` (the stub did not run the command, the
sink refused the tunnel): a second try after a failure is no second run.

Nothing is kept per message: a call gets a record when it is sent only if a listing gave its tool
annotations or left it out; otherwise when an action or a cancel first concerns it. Records are
bounded (KEPT).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from ipaddress import ip_address
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import orjson

from mcptape.check import rules
from mcptape.check.findings import finding, frame_ref
from mcptape.check.model import CLIENT, HTTP, IN, ExecCall, Finding, Ref, RequestId, Severity
from mcptape.check.pairing import Pairing, Pending
from mcptape.tap import KINDS

READ, CREATE, UPDATE, DELETE, EXTERNAL = KINDS
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
QUERIES = frozenset({"-v", "-V", "--version", "version", "-h", "--help", "help"})
"""A stub run whose only argument is one of these asks for a version or help: it changes nothing."""
IGNORED_KEYS = frozenset({"request_id", "requestId", "kind", "outcome"})
"""Keys of a tap line that do not say which effect it had (compared across calls, idempotency)."""
KEPT = 4096  # call records kept (the oldest go first), and idempotent calls remembered by arguments
RECENT = 256  # calls without a record whose first action is remembered (see `Promises.action`)
GAVE_UP = 64  # cancelled calls that acted, held against the calls sent after them
SCAN = 64  # other calls in flight looked at for an identical one
TOOLS_CALL = "tools/call"
LOOPBACK_NAMES = ("localhost", "localhost.")


class Hints(NamedTuple):
    """The annotations a listing gave one tool (None: not given), and the answer that gave them."""

    read_only: bool | None
    destructive: bool | None
    idempotent: bool | None
    open_world: bool | None
    where: Ref  # the tools/list answer


def hints_of(tool: dict[str, Any], where: Ref) -> Hints | None:
    """A listed tool's annotations; None when it gives none of the four hints (judged by nothing)."""
    annotations = tool.get("annotations")
    if type(annotations) is not dict:
        return None
    values = [
        annotations.get(key) for key in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    ]
    read_only, destructive, idempotent, open_world = (v if type(v) is bool else None for v in values)
    if read_only is None and destructive is None and idempotent is None and open_world is None:
        return None
    return Hints(read_only, destructive, idempotent, open_world, where)


class Action(NamedTuple):
    """What one executor line says its action was (`what(action)` names it, for a report)."""

    call: ExecCall
    changes: bool  # may change state
    outbound: bool  # reaches outside the tool's domain (a non-loopback host, a tap kind `external`)
    kind: str | None  # the tap's `kind`, when it is one of KINDS
    ran: bool  # not reported as failed

    @property
    def what(self) -> str:
        """How a report names the action (built only for a finding)."""
        value = self.call.value
        if self.call.frame.channel == HTTP:
            if value is None:
                return "an HTTP request line that is not a JSON object"
            return f"HTTP {value.get('method')} {value.get('url') or value.get('target')}"
        if value is None:
            return "an executor line that is not a JSON object"
        if value.get("source") == "stub":
            argv = value.get("argv")
            shown = " ".join(str(a) for a in argv[:6]) if type(argv) is list else "?"
            return f"a run of the stubbed command `{shown}`"
        kind = f"kind {self.kind}" if self.kind is not None else "no kind"
        return f"tap action {value.get('action')!r} ({kind})"


def _host(target: Any, connect: bool) -> str | None:
    if type(target) is not str:
        return None
    try:
        return urlsplit("//" + target if connect else target).hostname
    except ValueError:
        return None


def _loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def action_of(call: ExecCall) -> Action:
    """Read an executor line as an action (see the module's docstring)."""
    value = call.value
    if value is None:
        return Action(call, call.frame.channel != HTTP, False, None, True)
    ran = value.get("outcome") != "failed"
    if call.frame.channel == HTTP:
        method = value.get("method")
        verb = method.upper() if type(method) is str else ""
        host = _host(value.get("url") or value.get("target"), verb == "CONNECT")
        # an unreadable line said nothing of its method; a CONNECT hides the request it tunnels
        changes = bool(verb) and verb not in SAFE_METHODS and verb != "CONNECT"
        return Action(call, changes, not _loopback(host), None, ran)
    if value.get("source") == "stub":
        argv = value.get("argv")
        query = type(argv) is list and len(argv) == 2 and type(argv[1]) is str and argv[1] in QUERIES
        return Action(call, not query, False, None, ran)
    kind = value.get("kind")
    kind = kind if type(kind) is str and kind in KINDS else None
    return Action(call, kind != READ, kind == EXTERNAL, kind, ran)


def _ran_effect(call: ExecCall) -> bool:
    """`action_of(call)` ran and may change state: the common tap line read without building it."""
    value = call.value
    if value is None or call.frame.channel == HTTP or value.get("source") == "stub":
        action = action_of(call)
        return action.ran and action.changes
    return value.get("kind") != READ and value.get("outcome") != "failed"


def same_line(call: ExecCall) -> bytes | None:
    """What makes two actions of one request the same one: a tap or stub line's bytes; an HTTP
    request's method, URL and body when the line keeps the body (the cassette). None: the line
    cannot be told apart from another (the sink keeps no body)."""
    value = call.value
    if call.frame.channel != HTTP:
        return call.frame.body
    if value is None or "body" not in value:
        return None
    return _dumps([value.get("method"), value.get("url") or value.get("target"), value.get("body")])


def effect_key(call: ExecCall) -> bytes:
    """What makes actions of two calls the same effect: the line without its request id, kind and
    outcome (keys sorted); an HTTP request's method, URL and body (or body size)."""
    value = call.value
    if value is None:
        return call.frame.body
    if call.frame.channel == HTTP:
        body = value.get("body") if "body" in value else value.get("body_size")
        return _dumps([value.get("method"), value.get("url") or value.get("target"), body])
    return _dumps({k: v for k, v in value.items() if k not in IGNORED_KEYS}, call.frame.body)


def _dumps(value: Any, fallback: bytes = b"") -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError):  # nested deeper than orjson writes
        return fallback or repr(value).encode()


def call_key(params: Any) -> bytes | None:
    """A tools/call's name and arguments, canonical (None when they cannot be written)."""
    if type(params) is not dict:
        return None
    key = _dumps([params.get("name"), params.get("arguments", {})])
    return key or None


@dataclass(slots=True, eq=False)
class Call:
    """A tools/call that something is judged on: its annotations in force when it was sent, and
    what its actions showed so far."""

    rid: RequestId
    request: Pending
    hints: Hints | None = None
    unlisted: Ref | None = None  # the complete listing that did not list its tool
    previous: Call | None = None  # the last identical call (idempotent tool), answered before it
    cancelled: Ref | None = None  # the client's notifications/cancelled for it
    ran: dict[bytes, ExecCall] | None = None  # same_line -> the first action of that kind that ran
    effects: set[bytes] | None = None  # effect keys of its actions that ran (idempotent tools only)
    first: ExecCall | None = None  # its first action that ran and may change state
    flagged: set[str] | None = None  # rules already reported for it (one finding each)
    parsed: Any = None

    def params(self) -> dict[str, Any]:
        """The request's params (parsed again from its line when not given)."""
        if self.parsed is None:
            try:
                value = orjson.loads(self.request.raw)
            except orjson.JSONDecodeError:
                value = None
            found = value.get("params") if type(value) is dict else None
            self.parsed = found if type(found) is dict else {}
        params: dict[str, Any] = self.parsed
        return params

    @property
    def name(self) -> str:
        return str(self.params().get("name"))

    def describe(self) -> str:
        return f"tools/call {self.name} (request {self.rid!r}, in line {self.request.line})"


class Promises:
    """The promise rules of one session (see the module's docstring)."""

    def __init__(self, emit: Callable[[Finding], None]) -> None:
        self.emit = emit
        self.watching = False  # a tools/list answer was seen: calls are looked at when sent
        self.hints: dict[str, Hints] = {}  # annotations in force, by tool name
        self.names: frozenset[str] | None = None  # the complete listing in force (None: none is)
        self.listing: Ref | None = None  # the answer that completed it
        self.pages: dict[str, Hints | None] | None = None  # a listing whose next page is still due
        # oldest first; an OrderedDict drops its oldest in O(1) (a dict's next(iter()) walks the holes
        # its deleted first entries leave: ~20 us per drop at this size)
        self.calls: OrderedDict[RequestId, Call] = OrderedDict()
        self.by_key: OrderedDict[bytes, Call] = OrderedDict()  # idempotent tools' calls, by arguments
        # calls with no record: their first action that ran and may change state (see `action`); a
        # small bound, so that the dict churns instead of growing (growth makes the cyclic GC run)
        self.acted: OrderedDict[RequestId, tuple[Pending, ExecCall]] = OrderedDict()
        self.gave_up: deque[Call] = deque(maxlen=GAVE_UP)  # cancelled calls, newest last
        self.pairs: deque[tuple[Call, Call]] = deque(maxlen=GAVE_UP)  # identical calls both in flight
        self.retried: set[int] = set()  # the calls (ids of records) a ran-twice finding names

    # -- what the session tells ---------------------------------------------------------------
    def listed(self, result: dict[str, Any], where: Ref) -> None:
        """A `tools/list` result (one page): the annotations it declares; the listing is complete
        once a page comes without `nextCursor`."""
        tools = result.get("tools")
        if type(tools) is not list:
            return
        pages = self.pages if self.pages is not None else {}
        for tool in tools:
            if type(tool) is dict and type(name := tool.get("name")) is str:
                hints = pages[name] = hints_of(tool, where)
                if hints is None:
                    self.hints.pop(name, None)
                else:
                    self.hints[name] = hints
        self.watching = True
        if type(result.get("nextCursor")) is str:
            self.pages, self.names = pages, None  # a cursor still due: no complete listing
            return
        self.pages = None
        self.names, self.listing = frozenset(pages), where
        self.hints = {name: hints for name, hints in pages.items() if hints is not None}

    def changed(self) -> None:
        """notifications/tools/list_changed: the listing in force is stale until the next one."""
        self.names = None

    def call(
        self, rid: RequestId, params: dict[str, Any], pending: Pending, in_flight: dict[RequestId, Pending]
    ) -> None:
        """A tools/call, sent after a listing: recorded when its tool has annotations or is unlisted."""
        name = params.get("name")
        hints = self.hints.get(name) if type(name) is str else None
        unlisted = self.names is not None and name not in self.names
        if hints is None and not unlisted:
            return
        record = Call(rid, pending, hints, self.listing if unlisted else None, parsed=params)
        if unlisted:
            ref = pending.ref()
            self.emit(
                finding(
                    rules.UNKNOWN_TOOL,
                    channel=IN,
                    line=ref.line,
                    offset=ref.offset,
                    raw=ref.raw,
                    message=f"{record.describe()}: the server's complete tools/list "
                    f"({self._where(record.unlisted)}) does not list this tool",
                    request_id=rid,
                    t=pending.t,
                    event=ref.event,
                    related=(record.unlisted,) if record.unlisted is not None else (),
                    party=CLIENT,
                )
            )
        if hints is not None and hints.idempotent is True and hints.read_only is not True:
            key = call_key(params)
            if key is not None:
                previous = self.by_key.get(key)
                if (
                    previous is not None
                    and previous.cancelled is None
                    and in_flight.get(previous.rid) is not previous.request
                ):
                    record.previous = previous
                self.by_key[key] = record
                self.by_key.move_to_end(key)
                if len(self.by_key) > KEPT:
                    self.by_key.popitem(last=False)
            record.effects = set()
        self._keep(record)

    def cancelled(self, target: Any, in_flight: dict[RequestId, Pending], ref: Ref) -> None:
        """The client's notifications/cancelled for request `target` (still in flight)."""
        if type(target) is not int and type(target) is not str:
            return
        pending = in_flight.get(target)
        if pending is not None and pending.method == TOOLS_CALL:
            record = self._record(target, pending)
            record.cancelled = ref
            self.gave_up.append(record)

    def action(self, call: ExecCall, in_flight: dict[RequestId, Pending], answers: Sequence[Any]) -> None:
        """An executor line, attributed: judged against the call it served, if that is a tools/call.

        A call nothing was promised for (no record) costs a dict entry for its first action that ran
        and may change state, and nothing for the others (reads, failures); a second one makes it a
        record (one request's action twice?), as a cancel does."""
        rid = call.attributed_to
        if rid is None:
            # a line naming a cancelled call (attribution no longer sees it: it was never answered)
            named = call.request_id
            record = self._named(named) if named is not None else None
            if record is not None and record.cancelled is not None:
                self._judge(record, action_of(call), in_flight)
            return
        pending = in_flight.get(rid)
        if pending is None:
            for closed in reversed(answers):
                if closed.request_id == rid and type(closed.request_id) is type(rid):
                    pending = closed.request
                    break
        if pending is None or pending.method != TOOLS_CALL:
            return
        record = self.calls.get(rid) if self.calls else None
        if record is None or record.request is not pending:
            if not _ran_effect(call):
                return
            seen = self.acted.get(rid)
            if seen is None or seen[0] is not pending:
                self.acted[rid] = (pending, call)
                if len(self.acted) > RECENT:
                    self.acted.popitem(last=False)
                if self.gave_up or len(in_flight) > 1:
                    self._again(rid, pending, in_flight)
                return
            record = self._record(rid, pending)
        self._judge(record, action_of(call), in_flight)

    def close(self, client: Pairing) -> None:
        """The session ended: a call still in flight when an identical one was sent, both acting, that
        was cancelled since or never answered (timed out) ran twice."""
        for first, again in self.pairs:
            if id(first) in self.retried or id(again) in self.retried:
                continue
            unanswered = client.pending.get(first.rid) is first.request
            cancelled = (client.closed.get(first.rid) or client.older.get(first.rid)) == "cancelled"
            if first.cancelled is not None or unanswered or cancelled:
                self._retried(first, again)

    def _again(self, rid: RequestId, pending: Pending, in_flight: dict[RequestId, Pending]) -> None:
        """Call `rid` acted for the first time: is it an earlier call sent again? One cancelled before
        (that acted) ran twice now; one still in flight is judged at the end (`close`)."""
        key: bytes | None = None
        again: Call | None = None
        for first in reversed(self.gave_up):
            if (
                first.first is None
                or first.rid == rid
                or first.request.t > pending.t
                or id(first) in self.retried
            ):
                continue
            if again is None:
                again = self._record(rid, pending)
                key = call_key(again.params())
            if key is not None and call_key(first.params()) == key:
                self._retried(first, again)
                return
        for i, other in enumerate(reversed(in_flight)):
            if i >= SCAN:
                break
            if other == rid or (other not in self.acted and other not in self.calls):
                continue
            request = in_flight[other]
            if request.method != TOOLS_CALL or request.t > pending.t:
                continue
            first = self._record(other, request)
            if first.first is None or first.cancelled is not None:
                continue
            if again is None:
                again = self._record(rid, pending)
                key = call_key(again.params())
            if key is not None and call_key(first.params()) == key:
                self.pairs.append((first, again))
                return

    # -- records --------------------------------------------------------------------------------
    def _keep(self, record: Call) -> None:
        calls = self.calls
        calls[record.rid] = record
        calls.move_to_end(record.rid)  # a reused id: the newest request is the one in force
        if len(calls) > KEPT:
            calls.popitem(last=False)

    def _record(self, rid: RequestId, pending: Pending) -> Call:
        """The record of call `rid`, made now if need be (from its first action, if it had one)."""
        record = self.calls.get(rid)
        if record is None or record.request is not pending:
            record = Call(rid, pending)
            seen = self.acted.pop(rid, None)
            if seen is not None and seen[0] is pending:
                first = record.first = seen[1]
                signature = same_line(first)
                record.ran = {signature: first} if signature is not None else {}
            self._keep(record)
        return record

    def _named(self, rid: RequestId) -> Call | None:
        record = self.calls.get(rid)
        if record is None and type(rid) is str and rid.isdigit():
            record = self.calls.get(int(rid))
        if record is None and type(rid) is int:
            record = self.calls.get(str(rid))
        return record

    # -- judgement ------------------------------------------------------------------------------
    def _judge(self, record: Call, act: Action, in_flight: dict[RequestId, Pending]) -> None:
        hints = record.hints
        if hints is not None:
            said = f"the tool declares {{}} in tools/list ({self._where(hints.where)})"
            if hints.read_only is True:
                if act.changes:
                    self._at_action(
                        record,
                        rules.HINT_READ_ONLY,
                        act,
                        f"{record.describe()} caused {act.what}, an action that may change state, but "
                        + said.format("readOnlyHint: true")
                        + ": a read-only tool does not modify its environment",
                    )
            elif hints.destructive is False and act.kind in (UPDATE, DELETE):
                self._at_action(
                    record,
                    rules.HINT_DESTRUCTIVE,
                    act,
                    f"{record.describe()} caused {act.what}, but "
                    + said.format("destructiveHint: false")
                    + ": it performs only additive updates",
                )
            if hints.open_world is False and act.outbound:
                self._at_action(
                    record,
                    rules.HINT_OPEN_WORLD,
                    act,
                    f"{record.describe()} reached outside: {act.what}, but "
                    + said.format("openWorldHint: false")
                    + ": its domain of interaction is closed",
                )
        if record.unlisted is not None:
            self._at_action(
                record,
                rules.UNKNOWN_TOOL,
                act,
                f"{act.what} performed for {record.describe()}, a tool the server's complete tools/list "
                f"({self._where(record.unlisted)}) does not list",
                severity=Severity.ERROR,
            )
        if not (act.ran and act.changes):
            return
        call = act.call
        if record.first is None:
            record.first = call
            if self.gave_up or len(in_flight) > 1:
                self._again(record.rid, record.request, in_flight)
        signature = same_line(call)
        if signature is not None:
            if record.ran is None:
                record.ran = {}
            earlier = record.ran.get(signature)
            if earlier is None:
                record.ran[signature] = call
            else:
                self._at_action(
                    record,
                    rules.RAN_TWICE,
                    act,
                    f"{act.what} performed twice for {record.describe()}: the same action ran at "
                    f"{earlier.frame.channel} line {earlier.frame.line} already",
                    extra=(frame_ref(earlier.frame.channel, earlier.frame),),
                )
        if record.effects is not None:
            key = effect_key(call)
            record.effects.add(key)
            previous = record.previous
            if previous is not None and previous.effects and key not in previous.effects:
                self._idempotent(record, previous, act)

    def _idempotent(self, record: Call, previous: Call, act: Action) -> None:
        if not self._first(record, rules.HINT_IDEMPOTENT):
            return
        hints = record.hints
        assert hints is not None
        ref = record.request.ref()
        seen = previous.first
        related = (
            frame_ref(act.call.frame.channel, act.call.frame),
            previous.request.ref(role="first-request"),
            *((frame_ref(seen.frame.channel, seen.frame),) if seen is not None else ()),
            hints.where,
        )
        self.emit(
            finding(
                rules.HINT_IDEMPOTENT,
                channel=IN,
                line=ref.line,
                offset=ref.offset,
                raw=ref.raw,
                message=f"{record.describe()} repeats request {previous.rid!r} "
                f"(in line {previous.request.line}) with the same arguments and caused {act.what}, which "
                "that call did not; the tool declares "
                f"idempotentHint: true in tools/list ({self._where(hints.where)}): calling it again with the "
                "same arguments has no additional effect",
                request_id=record.rid,
                t=act.call.frame.t,
                event=ref.event,
                related=related,
            )
        )

    def _retried(self, first: Call, again: Call) -> None:
        """`first` was cancelled or never answered, `again` is the same call sent with a new id, and
        both ran an action: a warning for the client (info when the tool declares itself idempotent)."""
        self.retried.update((id(first), id(again)))
        hints = again.hints or first.hints
        idempotent = hints is not None and hints.idempotent is True and hints.read_only is not True
        a, b = first.first, again.first
        assert a is not None and b is not None
        if first.cancelled is not None:
            how = f"cancelled (notifications/cancelled, in line {first.cancelled.line})"
        else:
            how = "never answered (cancelled by the transport, or timed out)"
        why = (
            "the tool declares idempotentHint: true, so sending it again is allowed"
            if idempotent
            else "the tool does not declare idempotentHint: true, so the client re-sent a call that had "
            "already acted"
        )
        ref = again.request.ref()
        related = (
            first.request.ref(),
            frame_ref(a.frame.channel, a.frame),
            *((first.cancelled,) if first.cancelled is not None else ()),
            again.request.ref(role="retry"),
            frame_ref(b.frame.channel, b.frame),
        )
        self.emit(
            finding(
                rules.RAN_TWICE,
                channel=IN,
                line=ref.line,
                offset=ref.offset,
                raw=ref.raw,
                message=f"ran twice: {again.describe()} is request {first.rid!r} "
                f"(in line {first.request.line}) sent again with the same name and arguments after it was "
                f"{how}, and both ran: "
                f"{a.frame.channel} line {a.frame.line} for the first, {b.frame.channel} line {b.frame.line} "
                f"for the second; {why}",
                request_id=again.rid,
                t=again.request.t,
                event=ref.event,
                related=related,
                severity=Severity.INFO if idempotent else Severity.WARNING,
                party=CLIENT,
            )
        )

    def _at_action(
        self,
        record: Call,
        rule: str,
        act: Action,
        message: str,
        severity: Severity | None = None,
        extra: tuple[Ref, ...] = (),
    ) -> None:
        """A finding at the action's line (one per call and rule): the action, its request and the
        listing that made the promise."""
        if not self._first(record, rule):
            return
        frame = act.call.frame
        ref = frame_ref(frame.channel, frame)
        where = (
            record.hints.where if record.hints is not None and rule != rules.UNKNOWN_TOOL else record.unlisted
        )
        related = (ref, *extra, record.request.ref(), *((where,) if where is not None else ()))
        self.emit(
            finding(
                rule,
                channel=frame.channel,
                line=frame.line,
                offset=frame.offset,
                raw=frame.body,
                message=message,
                request_id=record.rid,
                t=frame.t,
                event=frame.event,
                related=related,
                severity=severity,
            )
        )

    @staticmethod
    def _first(record: Call, rule: str) -> bool:
        if record.flagged is None:
            record.flagged = set()
        if rule in record.flagged:
            return False
        record.flagged.add(rule)
        return True

    @staticmethod
    def _where(ref: Ref | None) -> str:
        return f"{ref.channel} line {ref.line}" if ref is not None else "not kept"
