"""Replay changes no data unless the user said so: a client frame that a server could run as a
`tools/call` of a tool that may change data is held back, not sent (`--allow-mutating` sends it).

A tool may change data unless its `tools/list` entry says `readOnlyHint: true` ("If true, the tool
does not modify its environment. Default: false", schema `ToolAnnotations`; `check.hints`). Both
listings count: the recorded server's, read by the plan, and the new server's, heard by the driver
as it answers the replayed `tools/list` (a tool that became a writer in the new build is held too).

Held, for a frame a tolerant server might run as such a call (the probe's rule, `probe.safety`):
* a `tools/call` naming a tool either listing marks as a possible writer, whatever its arguments or
  the frame's other faults (a wrong `jsonrpc`, no id, `params` as a JSON string, in a batch);
* a line mcptape cannot read as JSON is read as a tolerant server reads it (invalid UTF-8 replaced,
  the first JSON value after a banner, escapes decoded); one that still cannot be read but mentions
  `call` is held when any writer is listed or nothing is;
* a `tools/call` whose name is not a string, when any writer is listed or nothing is;
* any `tools/call` when the recording has no `tools/list` answer (nothing says a tool is read-only);
* a call of a tool no listing names that the recorded server ran (it exists: a page of the listing
  the client never read, say).
A call of a tool no listing names that the recorded server refused is sent: an LLM's wrong tool name
is common traffic. Each frame is judged once, whole (a line recorded in pieces is held or sent as
one), and the bytes actually sent are judged again after minted values and secrets are put in.
What a held call would have caused is not compared (`Pair.held`: its answer, and what the recording
shows missing from the new session while it was in flight), and the replay fails with one issue
naming the tools (a replay that skipped calls did not test them).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import orjson

from mcptape.check.hints import ToolHints
from mcptape.check.model import ExecCall, Kind, Message, RequestId
from mcptape.diff.model import Diff
from mcptape.diff.side import RESPONSE
from mcptape.replay.kinds import is_answer

ENV = "MCPTAPE_ALLOW_MUTATING"  # "1": as --allow-mutating (a CI job whose servers use scratch data)
LISTING = "tools/list"
CALL = "tools/call"
NO_LISTING = "no tools/list answer says the tool is read-only"
NOT_A_STRING = object()  # a tools/call whose name is not a string
UNREADABLE = object()  # a line no tolerant reading makes JSON of, which mentions a call


def allowed_by_env(env: Mapping[str, str] | None = None) -> bool:
    """MCPTAPE_ALLOW_MUTATING set to 1/true/yes in the environment."""
    value = (os.environ if env is None else env).get(ENV, "")
    return value.strip().lower() in ("1", "true", "yes")


@dataclass(frozen=True)
class Call:
    """A client frame (or batch item) a server could run as a `tools/call`."""

    name: str | None  # the tool it names (None: not a string, or a line that cannot be read)
    parsed: bool  # False: a line no tolerant reading makes JSON of, which mentions a call
    why: str | None  # why the recording says it may write (None: read-only or unknown there)
    request: tuple[RequestId, int] | None = None  # its id and which request with that id it was
    token: Any = None  # its progressToken, if any
    raw: bytes = b""  # the frame's bytes (a line that is not JSON is searched for writers' names)
    since: float = 0.0  # when the recorded client sent it
    until: float | None = None  # when the recorded server answered it (None: never)
    ran: bool = False  # the recorded server answered it with a result that is not an error
    odd_name: bool = False  # its name is not a string


@dataclass(frozen=True)
class HeldCall:
    """A frame replay did not send: the calls it carried and why."""

    event: int  # where it was in the recording: its event index (stdio), its exchange (HTTP)
    calls: tuple[Call, ...]
    why: str

    @property
    def tools(self) -> list[str]:
        return [c.name for c in self.calls if c.name is not None]


Listings = Sequence[tuple[ToolHints, str]]  # a listing and whose it is ("the recorded server's")


class RecordedGuard:
    """Fed the recording's messages in file order (each item of a batch alone): which client
    messages are calls (`client`), how the recorded server answered them (`server`), and, once every
    listing was read (`judge`), what the recorded listings say of their tools: any entry of a tool
    that may write, in any listing of the recording, holds its calls (a client that pipelined its
    requests sent them before the answer)."""

    def __init__(self) -> None:
        self.hints = ToolHints()
        self.listing_ids: set[RequestId] = set()
        self.ids: Counter[RequestId] = Counter()
        self.answers: dict[tuple[RequestId, int], tuple[float, bool]] = {}  # -> (when, ran)

    def client(self, one: Message) -> Call | None:
        """A client message: the call it is, if it is one."""
        request = None
        if one.kind is Kind.REQUEST and one.id is not None:  # numbered as the diff numbers them
            self.ids[one.id] += 1
            request = (one.id, self.ids[one.id])
            if one.method == LISTING:
                self.listing_ids.add(one.id)
        found = calls_in_message(one)
        if not found:
            return None
        name, token = found[0]
        return Call(
            name if isinstance(name, str) else None,
            name is not UNREADABLE,
            None,
            request,
            token,
            one.frame.raw,
            one.frame.t,
            odd_name=name is NOT_A_STRING,
        )

    def server(self, one: Message) -> None:
        """A server message: a `tools/list` answer teaches the listing; an answer is remembered."""
        learn_listing(self.hints, self.listing_ids, one, keep_risks=True)
        if one.id is not None and is_answer(one) and self.ids[one.id]:
            key = (one.id, self.ids[one.id])
            if key not in self.answers:
                result = one.value.get("result") if type(one.value) is dict else None
                ran = type(result) is dict and result.get("isError") is not True
                self.answers[key] = (one.frame.t, ran)

    def judge(self, call: Call) -> Call:
        """The call with why the recording's listings say it may write, and when it was answered
        (after the last message)."""
        until, ran = self.answers.get(call.request, (None, False)) if call.request else (None, False)
        call = replace(call, until=until, ran=ran)
        why = judge_call(call, [(self.hints, "the recorded server's")], recorded=True)
        return call if why is None else replace(call, why=why)


class LiveGuard:
    """The driver's side: the new server's listing, heard as it answers, and the decision to hold,
    made once a frame (`decide`: its pieces share their `Call`s)."""

    def __init__(self, allow: bool, recorded: ToolHints | None = None) -> None:
        self.allow = allow
        self.recorded = recorded or ToolHints()
        self.hints = ToolHints()
        self.listing_ids: set[RequestId] = set()
        self.ran: dict[str, None] = {}  # with `allow`: the tools that may write whose calls were sent
        self.decided: dict[int, str | None] = {}  # id(call) -> why it is held (None: sent)

    def sent(self, requests: Iterable[Message]) -> None:
        for request in requests:
            if request.method == LISTING and request.id is not None:
                self.listing_ids.add(request.id)

    def heard(self, one: Message) -> None:
        learn_listing(self.hints, self.listing_ids, one)

    def decide(self, calls: Sequence[Call]) -> str | None:
        """Why the frame carrying `calls` is held back (None: send it), decided at its first piece.
        With `allow`, nothing is held and the tools that may write are remembered in `ran`."""
        known = [self.decided[id(c)] for c in calls if id(c) in self.decided]
        if known:
            return next((why for why in known if why is not None), None)
        why = None
        for call in calls:
            why = call.why or judge_call(call, [(self.hints, "the new server's")], recorded=False)
            if why is not None:
                break
        why = self._allowed(why, [c.name for c in calls])
        for call in calls:
            self.decided[id(call)] = why
        return why

    def sending(self, data: bytes) -> tuple[str, Call] | None:
        """The bytes about to be sent, judged again (minted values and secrets were put in): why
        they are held and the call (None: send them). Whole lines that can be read only (the frame
        as recorded was judged whole by `decide`); their calls against both listings."""
        whole = data[: data.rfind(b"\n") + 1]
        listings = [(self.recorded, "the recorded server's"), (self.hints, "the new server's")]
        for line in whole.splitlines():
            for name, _ in calls_in_bytes(line):
                if name is UNREADABLE:
                    continue
                call = Call(
                    name if isinstance(name, str) else None,
                    name is not UNREADABLE,
                    None,
                    raw=line,
                    odd_name=name is NOT_A_STRING,
                )
                why = self._allowed(judge_call(call, listings, recorded=False), [call.name])
                if why is not None:
                    return why, call
        return None

    def _allowed(self, why: str | None, names: Iterable[str | None]) -> str | None:
        if why is None or not self.allow:
            return why
        for name in names:
            self.ran[name or "(a call it could not name)"] = None
        return None


def learn_listing(
    hints: ToolHints, listing_ids: set[RequestId], one: Message, *, keep_risks: bool = False
) -> None:
    """A `tools/list` answer (by the ids of the listings asked) teaches `hints`; with `keep_risks`,
    a tool once listed as a possible writer stays one whatever a later listing says."""
    if one.kind is Kind.RESPONSE and one.id in listing_ids and is_answer(one) and type(one.value) is dict:
        risky = {name: why for name, why in hints.risks.items() if why is not None} if keep_risks else {}
        hints.learn(one.value.get("result"))
        hints.risks.update(risky)


def judge_call(call: Call, listings: Listings, *, recorded: bool) -> str | None:
    """Why `call` may change data by these listings (None: nothing says it may). `recorded`: the
    listings are the recording's (then no listing at all holds every call, and a call of a tool no
    listing names holds when the recorded server ran it)."""
    any_writer = any(risk is not None for hints, _ in listings for risk in hints.risks.values())
    none_listed = not any(hints.listed for hints, _ in listings)
    if not call.parsed:
        for hints, whose in listings:
            for tool, risk in hints.risks.items():
                if risk is not None and orjson.dumps(tool) in call.raw:
                    return f"{tool}: {risk} in {whose} tools/list (a line mcptape cannot read names it)"
        if any_writer or (recorded and none_listed):
            return "a line mcptape cannot read mentions a call, and a tolerant server may run it"
        return None
    if call.name is None:
        if call.odd_name and (any_writer or (recorded and none_listed)):
            return "a tools/call whose name is not a string (a tolerant server may read it as one)"
        return None
    for hints, whose in listings:
        risk = hints.risks.get(call.name)
        if risk is not None:
            return f"{call.name}: {risk} in {whose} tools/list"
    if not recorded:
        return None
    if none_listed:
        return f"{call.name}: {NO_LISTING}"
    if call.ran and not any(call.name in hints.risks for hints, _ in listings):
        return f"{call.name}: not in the recorded tools/list, and the recorded server ran it"
    return None


def calls_in_message(one: Message) -> list[tuple[Any, Any]]:
    """The calls a tolerant server could read in a classified message: (name, progressToken)."""
    value = one.value
    if type(value) is dict:
        return _calls_in_value(value)
    if one.kind is Kind.BATCH:
        return []  # its items are judged one by one
    return calls_in_bytes(one.frame.raw)


def calls_in_bytes(raw: bytes) -> list[tuple[Any, Any]]:
    """The calls a tolerant server could read in a line's bytes: (name, progressToken) each, the
    name `UNREADABLE` for a line that no reading makes JSON of but that mentions a call."""
    value = _tolerant(raw)
    if value is UNREADABLE:
        return [(UNREADABLE, None)] if b"call" in raw else []
    items = value if isinstance(value, list) else [value]
    return [found for item in items if isinstance(item, dict) for found in _calls_in_value(item)]


def _calls_in_value(value: dict[str, Any]) -> list[tuple[Any, Any]]:
    if value.get("method") != CALL:
        return []
    params = value.get("params")
    if isinstance(params, str):  # a tolerant server decodes params sent as a JSON string
        decoded = _tolerant(params.encode("utf-8", "replace"))
        params = decoded if isinstance(decoded, dict) else None
    if type(params) is not dict:
        return [(None, None)]
    name = params.get("name")
    meta = params.get("_meta")
    token = meta.get("progressToken") if type(meta) is dict else None
    return [(name if isinstance(name, str) else (NOT_A_STRING if name is not None else None), token)]


def _tolerant(raw: bytes) -> Any:
    """A line read as a tolerant server reads it: invalid UTF-8 replaced, then JSON, else the first
    JSON value from its first `{` or `[` (a banner before it); `UNREADABLE` when none."""
    text = raw.decode("utf-8", "replace").strip()
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if starts:
        try:
            return json.JSONDecoder().raw_decode(text, min(starts))[0]
        except (ValueError, RecursionError):
            pass
    return UNREADABLE


def settled_by(
    calls: Iterable[Call],
    span: tuple[float, float | None],
    server_requests: Sequence[str],
    asked_at: Sequence[float],
) -> tuple[list[tuple[Any, ...]], Counter[str]]:
    """What a held frame would have brought, which nothing may wait for: the places its requests'
    answers would have minted values at (the diff's keys), and the server's own requests the
    recording shows while it was in flight (`span`: from its sending to its last answer; None: it
    got none), by method."""
    keys = [("id", *c.request) for c in calls if c.request is not None]
    start, end = span
    waived: Counter[str] = Counter(
        method
        for method, t in zip(server_requests, asked_at, strict=False)
        if end is not None and start <= t <= end
    )
    return keys, waived


def mark_held(diff: Diff, held: Sequence[HeldCall]) -> None:
    """What the held calls would have caused is not compared: their answers, and whatever the
    recording shows while one was in flight that the new session lacks (its progress, its log
    messages, the server's requests during it, the actions attributed to it), and the findings
    of that time that the new session lacks."""
    why_of: dict[tuple[Any, ...], str] = {}
    spans: list[tuple[float, float, str]] = []
    for item in held:
        for call in item.calls:
            if call.request is not None:
                why_of[("id", *call.request)] = item.why
            if call.until is not None:
                spans.append((call.since, call.until, item.why))

    def during(t: float) -> str | None:
        return next((why for start, end, why in spans if start <= t <= end), None)

    for pair in diff.pairs:
        if pair.new is not None:
            continue
        why = why_of.get(pair.key) if pair.kind == RESPONSE else None
        if why is None and isinstance(pair.old, Message | ExecCall):
            why = during(pair.old.frame.t)
        if why is not None:
            pair.held = f"not replayed ({why})"
    diff.findings_removed = [f for f in diff.findings_removed if f.t is None or during(f.t) is None]


def held_message(held: list[HeldCall]) -> str:
    """The one issue of a replay that held calls back."""
    tools = sorted({t for item in held for t in item.tools})
    named = ", ".join(tools) if tools else "a tool it could not name"
    n = len(held)
    return (
        f"{n} client frame{'s' if n != 1 else ''} not replayed: a tools/call of {named} may change "
        f"data ({held[0].why}); pass --allow-mutating (or set {ENV}=1) to replay "
        f"{'them' if n != 1 else 'it'}, with the server pointed at a scratch copy of its data"
    )
