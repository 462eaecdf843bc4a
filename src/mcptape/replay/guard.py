"""Replay changes no data unless the user said so: a client frame that a server could run as a
`tools/call` of a tool that may change data is held back, not sent (`--allow-mutating` sends it).

A tool may change data unless its `tools/list` entry says `readOnlyHint: true` ("If true, the tool
does not modify its environment. Default: false", schema `ToolAnnotations`; `check.hints`). Both
listings count: the recorded server's, read by the plan, and the new server's, heard by the driver
as it answers the replayed `tools/list` (a tool that became a writer in the new build is held too).

Held, for a frame a tolerant server might run as such a call (the probe's rule, `probe.safety`):
* a `tools/call` naming a tool either listing marks as a possible writer, whatever its arguments or
  the frame's other faults (a wrong `jsonrpc`, no id, `params` as a JSON string: tolerant servers
  read them all);
* a `tools/call` of any tool when no listing came before it (nothing says the tool is read-only);
* a line that is not JSON but mentions `tools/call`, when it names such a tool or no listing came.
A call of a tool no listing names is sent: a server answers it with an error (an LLM's wrong tool
name is common traffic). What a held call would have caused is not compared (`Pair.held`), and the
replay fails with one issue naming the tools (a replay that skipped calls did not test them).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import orjson

from mcptape.check.hints import ToolHints
from mcptape.check.model import Kind, Message, RequestId
from mcptape.diff.model import Diff
from mcptape.diff.side import EXECUTOR, NOTIFICATION, RESPONSE
from mcptape.replay.kinds import is_answer

ENV = "MCPTAPE_ALLOW_MUTATING"  # "1": as --allow-mutating (a CI job whose servers use scratch data)
LISTING = "tools/list"
CALL = "tools/call"
NO_LISTING = "no tools/list answer says the tool is read-only"


def allowed_by_env(env: Mapping[str, str] | None = None) -> bool:
    """MCPTAPE_ALLOW_MUTATING set to 1/true/yes in the environment."""
    value = (os.environ if env is None else env).get(ENV, "")
    return value.strip().lower() in ("1", "true", "yes")


@dataclass(frozen=True)
class Call:
    """A client frame (or batch item) a server could run as a `tools/call`."""

    name: str | None  # the tool it names (None: none a server could read)
    parsed: bool  # False: a line that is not JSON, which only mentions tools/call
    why: str | None  # why the recording says it may write (None: read-only or unknown there)
    request: tuple[RequestId, int] | None = None  # its id and which request with that id it was
    token: Any = None  # its progressToken, if any
    raw: bytes = b""  # a line that is not JSON: its bytes (searched for the names of writers)


@dataclass(frozen=True)
class HeldCall:
    """A frame replay did not send: the calls it carried and why."""

    event: int  # where it was in the recording: its event index (stdio), its exchange (HTTP)
    calls: tuple[Call, ...]
    why: str

    @property
    def tools(self) -> list[str]:
        return [c.name for c in self.calls if c.name is not None]


class RecordedGuard:
    """Fed the recording's messages in file order (each item of a batch alone): which client
    messages are calls (`client`), and, once every listing was read (`judge`), what the recorded
    listings say of their tools: any entry of a tool that may write, in any listing of the
    recording, holds its calls (a client that pipelined its requests sent them before the answer)."""

    def __init__(self) -> None:
        self.hints = ToolHints()
        self.listing_ids: set[RequestId] = set()
        self.ids: Counter[RequestId] = Counter()

    def client(self, one: Message) -> Call | None:
        """A client message: the call it is, if it is one."""
        request = None
        if one.kind is Kind.REQUEST and one.id is not None:
            self.ids[one.id] += 1
            request = (one.id, self.ids[one.id])
            if one.method == LISTING:
                self.listing_ids.add(one.id)
        call = _call_of(one)
        if call is None:
            return None
        name, parsed, token = call
        return Call(name, parsed, None, request, token, b"" if parsed else one.frame.raw)

    def server(self, one: Message) -> None:
        """A server message: a `tools/list` answer teaches the listing."""
        learn_listing(self.hints, self.listing_ids, one, keep_risks=True)

    def judge(self, call: Call) -> Call:
        """The call with why the recording's listings say it may write (after the last message)."""
        why = why_held(call.name, call.parsed, call.raw, (self.hints,))
        return call if why is None else replace(call, why=why)


class LiveGuard:
    """The driver's side: the new server's listing, heard as it answers, and the decision to hold."""

    def __init__(self, allow: bool) -> None:
        self.allow = allow
        self.hints = ToolHints()
        self.listing_ids: set[RequestId] = set()
        self.ran: dict[str, None] = {}  # with `allow`: the tools that may write whose calls were sent

    def sent(self, requests: Iterable[Message]) -> None:
        for request in requests:
            if request.method == LISTING and request.id is not None:
                self.listing_ids.add(request.id)

    def heard(self, one: Message) -> None:
        learn_listing(self.hints, self.listing_ids, one)

    def why(self, calls: Iterable[Call], data: bytes) -> str | None:
        """Why the frame carrying `calls` is held back (None: send it). With `allow`, nothing is held
        and the tools that may write are remembered in `ran` (the report names them)."""
        for call in calls:
            why = call.why or why_held(call.name, call.parsed, data, (self.hints,), recorded=False)
            if why is not None and not self.allow:
                return why
            if why is not None:
                self.ran[call.name or "(a line that is not JSON)"] = None
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


def why_held(
    name: str | None, parsed: bool, raw: bytes, listings: Iterable[ToolHints], *, recorded: bool = True
) -> str | None:
    """Why a call of `name` may change data by these listings (None: nothing says it may)."""
    whose = "the recorded server's" if recorded else "the new server's"
    listings = list(listings)
    if not parsed:
        for hints in listings:
            for tool, risk in hints.risks.items():
                if risk is not None and orjson.dumps(tool) in raw:
                    return f"{tool}: {risk} in {whose} tools/list (a line that is not JSON names it)"
        if recorded and not any(h.listed for h in listings):
            return NO_LISTING
        return None
    if name is None:
        return None
    for hints in listings:
        risk = hints.risks.get(name)
        if risk is not None:
            return f"{name}: {risk} in {whose} tools/list"
    if recorded and not any(h.listed for h in listings):
        return f"{name}: {NO_LISTING}"
    return None


def _call_of(one: Message) -> tuple[str | None, bool, Any] | None:
    """(the tool named, parsed, progressToken) when a tolerant server could run `one` as a call."""
    value = one.value
    if type(value) is not dict:
        if one.kind is Kind.BATCH or CALL.encode() not in one.frame.raw:
            return None
        return None, False, None
    if value.get("method") != CALL:
        return None
    params = value.get("params")
    if isinstance(params, str):  # a tolerant server decodes params sent as a JSON string
        try:
            params = orjson.loads(params)
        except orjson.JSONDecodeError:
            params = None
    if type(params) is not dict:
        return None, True, None
    name = params.get("name")
    meta = params.get("_meta")
    token = meta.get("progressToken") if type(meta) is dict else None
    return (name if isinstance(name, str) else None), True, token


def mark_held(diff: Diff, held: Iterable[HeldCall]) -> None:
    """What the held calls would have caused is not compared: their answers, the actions and the
    progress attributed to them, missing from the new session."""
    requests: dict[tuple[Any, ...], str] = {}
    ids: dict[Any, str] = {}
    tokens: dict[Any, str] = {}
    for item in held:
        for call in item.calls:
            if call.request is not None:
                requests[("id", *call.request)] = item.why
                ids[call.request[0]] = item.why
            if call.token is not None:
                tokens[call.token] = item.why
    for pair in diff.pairs:
        if pair.new is not None:
            continue
        if pair.kind == RESPONSE:
            why = requests.get(pair.key)
        elif pair.kind == EXECUTOR:
            why = ids.get(pair.key[2]) if len(pair.key) > 2 else None
        elif pair.kind == NOTIFICATION and len(pair.key) == 4:
            why = tokens.get(pair.key[3])
        else:
            why = None
        if why is not None:
            pair.held = f"not replayed ({why})"


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
