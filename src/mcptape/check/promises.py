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
from collections.abc import Callable
from typing import Any

from mcptape.check import rules
from mcptape.check.attribution import Answered, newest
from mcptape.check.evidence import (
    DELETE,
    GAVE_UP,
    KEPT,
    RECENT,
    SCAN,
    TOOLS_CALL,
    UPDATE,
    Action,
    Call,
    Hints,
    action_of,
    call_key,
    effect_key,
    hints_of,
    ran_effect,
    same_line,
)
from mcptape.check.findings import finding, frame_ref
from mcptape.check.model import CLIENT, IN, ExecCall, Finding, Ref, RequestId, Severity
from mcptape.check.pairing import Pairing, Pending
from mcptape.check.promisefindings import PromiseFindings


class Promises(PromiseFindings):
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

    def action(self, call: ExecCall, in_flight: dict[RequestId, Pending], answers: deque[Answered]) -> None:
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
            for closed in newest(answers):
                if closed.request_id == rid and type(closed.request_id) is type(rid):
                    pending = closed.request
                    break
        if pending is None or pending.method != TOOLS_CALL:
            return
        record = self.calls.get(rid) if self.calls else None
        if record is None or record.request is not pending:
            if not ran_effect(call):
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
        if record is None and type(rid) is str and rid.isascii() and rid.isdigit() and len(rid) <= 4300:
            record = self.calls.get(int(rid))
        if record is None and type(rid) is int:
            record = self.calls.get(str(rid))
        return record

    # -- judgement ------------------------------------------------------------------------------
    def _judge(self, record: Call, act: Action, in_flight: dict[RequestId, Pending]) -> None:
        """One action of a tools/call: against the tool's annotations, the tools listed, and the
        call's other actions (and an identical call's)."""
        if record.hints is not None:
            self._hints(record, record.hints, act)
        if record.unlisted is not None:
            self._at_action(
                record,
                rules.UNKNOWN_TOOL,
                act,
                f"{act.what} performed for {record.describe()}, a tool the server's complete tools/list "
                f"({self._where(record.unlisted)}) does not list",
                severity=Severity.ERROR,
            )
        if act.ran and act.changes:
            self._ran(record, act, in_flight)

    def _hints(self, record: Call, hints: Hints, act: Action) -> None:
        """An action against the annotations the tool declared (readOnly, destructive, openWorld)."""
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

    def _ran(self, record: Call, act: Action, in_flight: dict[RequestId, Pending]) -> None:
        """An action that ran and may change state: the same action twice for one call, an identical
        call acting again (a retry), an idempotent tool whose second call did something else."""
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
