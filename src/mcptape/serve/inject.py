"""Hard outputs for clients: the seed's failures, played on the server side (`serve --inject`).

Each case changes what serve writes at one place of the session, chosen at run time:

* the *first* or *second* response of the session (a banner before it, a log line before it);
* the *target* response: the answer to the first `tools/call` (or, when the recording has none, to
  the first request after the handshake, else to any request); two cases never share one;
* the *pair*: the first two requests the recorded client had in flight at once (the answer to the
  first is held until the client has sent the second);
* the *last* response: the answer to the last recorded request.

Two cases are valid traffic a correct client must take (`legal`): a response split across writes,
two responses in the other order. The others are not: a strict client closes the session or reports
an error. Every injected text carries a marker unique to the run and the case.

The two pair cases have a second form for a client with one request in flight (the official SDK
client and most clients wait for each answer): where the recording never has two requests in flight,
or the new client did not send the second one within `hold`, `concatenated-responses` glues a
`notifications/message` and the target response on one line, and `swapped-responses` writes the
recorded answer to the request the client will send next, under the id it will send it with (an id
not sent yet), before the answer it waits for. Neither is valid traffic.

The case table is `injectcases` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from mcptape.check.model import Message, RequestId
from mcptape.serve.injectcases import (
    BY_ID,
    HANDSHAKE,
    ONE_IN_FLIGHT,
    Case,
)
from mcptape.serve.pool import Entry, Pool
from mcptape.serve.render import dumps, render, same_id


@dataclass
class Write:
    """Bytes to write to the client, a pause after them, and whether stdout closes then."""

    data: bytes
    pause: float = 0.0
    close: bool = False


@dataclass
class Applied:
    """Where one case was played (or why it was not): the run-time facts the report judges."""

    case: Case
    marker: str
    done: bool = False
    na: str | None = None  # not applicable: why
    t: float | None = None  # when it was written
    request_id: RequestId | None = None  # the new client's id of the request it hit
    method: str | None = None
    injected_id: str | None = None  # the id of an injected message (unknown-id, server-request)
    expected: int = 0  # requests the recorded client sent after it had this answer
    early_id: RequestId | None = None  # swapped-responses, one in flight: the id answered before it was sent
    passed_over: str | None = None  # why a response that could have taken the case did not

    @property
    def open(self) -> bool:
        return not self.done and self.na is None


class Injector:
    """Turns the responses serve plays into the writes of the chosen cases."""

    def __init__(
        self, case_ids: Sequence[str], pool: Pool, *, token: str, pause: float = 0.3, hold: float = 2.0
    ):
        self.pool = pool
        self.pause = pause
        self.hold = hold
        self.cases = [Applied(BY_ID[c], f"mcptape-inject-{c}-{token}") for c in dict.fromkeys(case_ids)]
        self.count = 0  # responses played so far
        self.held: tuple[Applied, bytes, float] | None = None  # a pair's first answer, until its deadline
        self.sent: list[RequestId] = []  # the new client's ids answered so far
        methods = {e.method for e in pool.requests}
        self.prefer = "tools/call" if "tools/call" in methods else "other" if methods - HANDSHAKE else "any"
        answered = [e for e in pool.requests if e.response_t is not None]
        self.last = answered[-1] if answered else None
        for applied in self.cases:
            if applied.case.where == "pair" and pool.overlap is None:
                applied.case = ONE_IN_FLIGHT[applied.case.id]  # the recorded client waited for each answer

    @property
    def deadline(self) -> float | None:
        return None if self.held is None else self.held[2]

    def _wants(self, entry: Entry) -> bool:
        if self.prefer == "tools/call":
            return entry.method == "tools/call"
        return self.prefer == "any" or entry.method not in HANDSHAKE

    def response(
        self, entry: Entry, rid: RequestId | None, data: bytes, value: Any, now: float, stateless: bool
    ) -> list[Write]:
        """The writes for one response (`data`, the line as it would be played, `value` its JSON). The
        first answer of a pair case is held, not written (`release` gives it back at its deadline)."""
        self.count += 1
        if rid is not None:
            self.sent.append(rid)
        before: list[Write] = []
        writes = [Write(data)]
        claimed = False
        for applied in self.cases:
            case = applied.case
            if self.held is not None and self.held[0] is applied:
                if self.pool.overlap is not None and entry is self.pool.overlap[1]:
                    held = self.held[1]
                    self.held = None
                    applied.t = now  # the client's reaction is judged from the pair's write
                    applied.expected = self.pool.sent_after(entry)
                    swapped = case.id == "swapped-responses"
                    writes = [Write(data), Write(held)] if swapped else [Write(held.rstrip(b"\n") + data)]
                continue
            if not applied.open:
                continue
            marker = applied.marker.encode()
            if case.where == "first" and self.count == 1:
                before.append(Write(b"Server ready (" + marker + b")\n"))
            elif case.where == "second" and self.count == 2:
                before.append(Write(b"2026-12-01 10:00:00,000 INFO cache warmed (" + marker + b")\n"))
            elif case.where == "last" and entry is self.last:
                writes = [Write(data[: max(1, len(data) // 2)], close=True)]
            elif case.where == "pair":
                if self.pool.overlap is None or entry is not self.pool.overlap[0] or self.held is not None:
                    continue
                self._mark(applied, entry, rid, now)
                self.held = (applied, data, now + self.hold)
                return before  # the answer waits for the second request (or the deadline)
            elif case.where in ("target", "next") and not claimed and self._wants(entry):
                if case.id == "server-request" and not stateless:
                    applied.na = "the client's session is not 2026-07-28 (server requests are allowed)"
                    continue
                if case.where == "next":
                    early = self._early(entry, rid, None)
                    if isinstance(early, str):
                        applied.passed_over = _add_reason(applied.passed_over, early)
                        continue
                    applied.early_id = early[1]
                    writes = [Write(early[0]), Write(data)]
                else:
                    writes, extra = self._target(applied, data, value, rid)
                    before += extra
                claimed = True
            else:
                continue
            self._mark(applied, entry, rid, now)
        return before + writes

    def _target(
        self, applied: Applied, data: bytes, value: Any, rid: RequestId | None
    ) -> tuple[list[Write], list[Write]]:
        case = applied.case
        marker = applied.marker
        if case.id == "banner-same-line":
            return [Write(data.rstrip(b"\n") + b" Server ready (" + marker.encode() + b")\n")], []
        if case.id == "split-response":
            half = max(1, len(data) // 2)
            return [Write(data[:half], pause=self.pause), Write(data[half:])], []
        if case.id == "invalid-utf8":
            return [Write(_with_invalid_utf8(value, marker))], []
        if case.id == "concatenated-responses":  # one in flight: a notification glued to the response
            return [Write(_notification(marker) + data)], []
        if case.id == "unknown-id":
            applied.injected_id = marker
            copy = (
                {**value, "id": marker}
                if type(value) is dict
                else {"jsonrpc": "2.0", "id": marker, "result": {}}
            )
            return [Write(data)], [Write(dumps(copy) + b"\n")]  # any depth
        # server-request
        applied.injected_id = marker
        ask = {"jsonrpc": "2.0", "id": marker, "method": "roots/list"}
        return [Write(data)], [Write(orjson.dumps(ask) + b"\n")]

    def _mark(self, applied: Applied, entry: Entry, rid: RequestId | None, now: float) -> None:
        applied.done = True
        applied.t = now
        applied.request_id = rid
        applied.method = entry.method
        applied.expected = self.pool.sent_after(entry)

    def _early(
        self, entry: Entry, rid: RequestId | None, after: Entry | None
    ) -> tuple[bytes, RequestId] | str:
        """The recorded answer to the request the client will send after `entry` (`after`, or the
        next recorded one), under the id it will send it with; or why there is none."""
        following = [e for e in self.pool.requests if e.source == entry.source and e.order > entry.order]
        nxt = after or (following[0] if following else None)
        if nxt is None:
            return "no request follows it in the recording"
        if nxt.uses:
            return "the client had already sent the request that follows it (two in flight)"
        answer = _answer_of(nxt, self.pool)
        if answer is None:
            return "the recording has no answer to the request that follows it"
        predicted = _next_id(entry.id, rid, nxt.id)
        if predicted is None or any(same_id(predicted, s) for s in self.sent):
            return f"the client's ids do not follow the recorded ones ({rid!r} for {entry.id!r})"
        data, _ = render(answer, predicted, {}, exact=False)
        return data, predicted

    def release(self, now: float | None = None) -> list[Write]:
        """The held answer of a pair case whose second request did not come by the deadline (`now`):
        the case's one-in-flight form is played on it. At the end of the session (`now` None, the
        client gone), the answer is written as it is and the case is n/a."""
        if self.held is None:
            return []
        applied, data, _ = self.held
        self.held = None
        overlap = self.pool.overlap
        if now is not None and overlap is not None:
            single = ONE_IN_FLIGHT[applied.case.id]
            writes = [Write(_notification(applied.marker) + data)]
            if single.where == "next":
                early = self._early(overlap[0], applied.request_id, overlap[1])
                if isinstance(early, str):
                    applied.passed_over = early
                    applied.done = False
                    applied.na = f"one request in flight and {early}"
                    return [Write(data)]
                applied.early_id = early[1]
                writes = [Write(early[0]), Write(data)]
            applied.case = single
            applied.t = now
            applied.expected = self.pool.sent_after(overlap[0])
            return writes
        applied.done = False
        applied.t = None
        applied.na = "the session ended while the answer was held for the pair's second request"
        return [Write(data)]

    def not_reached(self) -> None:
        """At the end: the cases whose place never came."""
        for applied in self.cases:
            if applied.open:
                applied.na = (
                    f"not reached: {applied.passed_over}"
                    if applied.passed_over
                    else "not reached: the client never sent the request it needs"
                )


def _add_reason(reasons: str | None, reason: str) -> str:
    """`reasons` with `reason` added once ("; " between them; the same words before a bracket are
    the same reason: the first one's details are kept)."""
    if not reasons:
        return reason
    seen = {r.split(" (")[0] for r in reasons.split("; ")}
    return reasons if reason.split(" (")[0] in seen else f"{reasons}; {reason}"


def _notification(marker: str) -> bytes:
    """A log notification carrying the marker, without its newline (what is glued to a response)."""
    params = {"level": "info", "logger": "mcptape", "data": f"cache warmed ({marker})"}
    return orjson.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": params})


def _answer_of(request: Entry, pool: Pool) -> Message | None:
    """The recorded answer to `request` (usually among its own outputs)."""
    owners = [request, *pool.requests, *pool.notifications, *pool.answers.values()]
    for owner in owners:
        for out in owner.outputs:
            if out.answers is request and out.message is not None and out.protocol:
                return out.message
    return None


def _next_id(
    recorded: RequestId | None, sent: RequestId | None, following: RequestId | None
) -> RequestId | None:
    """The id the new client will give the request recorded as `following`: the recorded step from
    the request it sent as `sent` (integers), or the recorded id when it uses the recorded ids."""
    if type(recorded) is int and type(sent) is int and type(following) is int:
        step = following - recorded
        return sent + step if step > 0 else None
    if following is not None and same_id(recorded, sent) and not same_id(following, sent):
        return following
    return None


def _with_invalid_utf8(value: Any, marker: str) -> bytes:
    """The response with the bytes ff fe (not UTF-8) inside its first string of result or error."""
    mark = f"\x00{marker}\x00"
    body = value.get("result", value.get("error")) if type(value) is dict else None
    if type(body) is not dict:
        return b'{"jsonrpc":"2.0","result":{"text":"\xff\xfe"}}\n'
    copy = _put_mark(body, mark)
    out = dict(value)
    out["result" if "result" in value else "error"] = copy
    return dumps(out).replace(orjson.dumps(mark)[1:-1], marker.encode() + b"\xff\xfe") + b"\n"  # any depth


def _put_mark(body: dict[str, Any], mark: str) -> dict[str, Any]:
    """A copy of `body` whose longest string (a tool's text, usually) ends with `mark`; a new member
    when it holds no string. Iterative: a result may be deeply nested."""
    best: tuple[int, tuple[Any, ...]] | None = None
    stack: list[tuple[Any, tuple[Any, ...]]] = [(body, ())]
    while stack:
        item, path = stack.pop()
        if type(item) is str:
            if best is None or len(item) > best[0]:
                best = (len(item), path)
        elif type(item) is dict:
            stack.extend((item[k], (*path, k)) for k in reversed(list(item)))
        elif type(item) is list:
            stack.extend((item[i], (*path, i)) for i in reversed(range(len(item))))
    if best is None:
        return {**body, "mcptape-inject": mark}
    root: Any = dict(body)
    parent = root
    path = best[1]
    for step in path[:-1]:
        child = parent[step]
        parent[step] = dict(child) if type(child) is dict else list(child)
        parent = parent[step]
    parent[path[-1]] = parent[path[-1]] + mark
    out: dict[str, Any] = root
    return out
