"""Whose is an executor or HTTP line that names no request, in a process many frames share?

A line that names a request (`request_id` on the tap) or carries a case's marker is that request's
or that case's, wherever it lands. A line that names nothing (an HTTP attempt, a command, a tap
without `request_id`) is attributed by time: to the window it lands in. That is a guess for a
server that acts late (in the background, after its answer): the valid call before a hard input
acts during the hard input's window, and a correct server would fail.

The ledger removes the guess for the valid calls. The clean start runs in a process of its own,
to its exit, so it counts every line one valid call makes (`OneCall`: how many in all, how many
name no request). In a shared transcript each valid call answered with a result (the same tool and
arguments as the clean start's, no marker: the handshake's valid call, each valid request after a
hard input, an MRTR probe of that tool) owes that many nameless lines from the moment it is sent.
Walking the transcript in time order, a nameless line is the valid calls' while any is owed; only
the lines beyond what they owe are left to the windows. A correct server's late actions are thus
never a hard input's, and any line beyond them (a frame that acted) still is someone's: which
frame's is the window's guess, their number is exact. A transcript with fewer nameless lines in all
than its valid calls owe is one where the valid call does not always make as many (a cache): there
owing would hide a frame's line, so the windows decide alone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from mcptape.check.attribution import named_value
from mcptape.check.model import IN, OUT, ExecCall
from mcptape.probe.cases import Call


@dataclass(frozen=True)
class OneCall:
    """The executor/HTTP lines one valid call makes: in all, and those naming no request.
    `whole`: counted in a process that ran only the clean start, to its exit (else in its window)."""

    total: int
    unnamed: int = 0
    whole: bool = False


@dataclass(frozen=True)
class Owing:
    """What a judge of a shared transcript needs to give valid calls their nameless lines: the valid
    call, the run's token (which every hard input carries), and what one valid call makes."""

    call: Call | None
    token: str
    one: OneCall | None

    def owed(self, messages: list[Any], calls: list[ExecCall], also: Collection[Any] = ()) -> set[int]:
        return owed_lines(messages, calls, self.call, self.token, self.one, also)


Later = Callable[[], "Owing | None"]  # the facts above, once the clean start has ended


def token_of(marker: str) -> str:
    """The run's token, which ends every marker the probe sends (`mcptape-probe-<case>-<token>`)."""
    return marker.rsplit("-", 1)[-1]


def _key(rid: Any) -> tuple[str, Any] | None:
    """A JSON-RPC id as a set key that keeps its type (`true` is not `1`); None when unhashable."""
    try:
        hash(rid)
    except TypeError:
        return None
    return (type(rid).__name__, rid)


def owed_lines(
    messages: list[Any],
    calls: list[ExecCall],
    call: Call | None,
    token: str,
    one: OneCall | None,
    also: Collection[Any] = (),
) -> set[int]:
    """The events of the nameless lines that valid calls sent before them own (see above).

    `messages`: the transcript's `in` messages and the `out` answers (`judge.Seen`); `calls` its
    executor and HTTP lines; `call`: the valid call; `token`: the run's (a request carrying it is a
    hard input, never a valid call); `also`: ids of other requests that owe as much when answered
    with a result (a per-tool frame of the valid call's tool that ran its declared arguments)."""
    if one is None or one.unnamed <= 0 or call is None:
        return set()
    marker = token.encode()
    answered: set[tuple[str, Any]] = set()
    for message in messages:
        value = message.value
        if message.channel == OUT and isinstance(value, dict) and _succeeded(value):
            key = _key(value.get("id"))
            if key is not None:
                answered.add(key)
    extra = {k for k in (_key(rid) for rid in also) if k is not None}
    events: list[tuple[float, int, ExecCall | None]] = []
    for message in messages:
        if message.channel != IN or not isinstance(message.value, dict):
            continue
        key = _key(message.value.get("id"))
        if key is None or key not in answered:
            continue
        if key in extra or (marker not in message.frame.raw and _is_valid(message.value, call)):
            events.append((message.frame.t, 0, None))
    for call_line in calls:
        if named_value(call_line.value) is None and marker not in call_line.frame.raw:
            events.append((call_line.frame.t, 1, call_line))
    requests = sum(1 for e in events if e[2] is None)
    if len(events) - requests < requests * one.unnamed:
        # Fewer nameless lines than the valid calls owe: they do not all make what the clean start's
        # did (a cache, say), so owing would hide a frame's line. The windows decide, as without it.
        return set()
    events.sort(key=lambda e: (e[0], e[1]))
    owed = 0
    theirs: set[int] = set()
    for _, _order, line in events:
        if line is None:
            owed += one.unnamed
        elif owed:
            owed -= 1
            theirs.add(line.frame.event)
    return theirs


def _succeeded(value: dict[str, Any]) -> bool:
    result = value.get("result")
    return (
        isinstance(result, dict)
        and result.get("isError") is not True
        and result.get("resultType") != "input_required"  # MRTR: nothing ran yet
        and "error" not in value
    )


def _is_valid(request: dict[str, Any], call: Call) -> bool:
    """The valid request: `tools/call` of its tool with exactly its arguments (or `tools/list`)."""
    params = request.get("params")
    if call.tool is None:
        return request.get("method") == "tools/list"
    return (
        request.get("method") == "tools/call"
        and isinstance(params, dict)
        and params.get("name") == call.tool
        and params.get("arguments") == call.arguments
    )
