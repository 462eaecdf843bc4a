"""Which recorded request answers a new client's request (pure).

Three modes:

* `params` (the default): the same method and the same params, in any order: the first recorded
  request not served yet whose params compare equal (as JSON values, under the ignore rules);
* `method`: the same method, in recorded order;
* `strict`: the next recorded request, which must have the same method and params.

In `params` and `method` modes a request asked more often than the recording shows gets the last
matching answer again (counted as *repeated*). Params are compared by the diff's `compare`, with
replay's ignore rules (`[SCOPE[TARGET]:]params...`) plus serve's own: the per-request `_meta`
envelope (protocol version, client info and capabilities, progress token), and before 2026-07-28 its
equivalent in `initialize` (`clientInfo`, `capabilities`), are not compared unless `match_meta` is
set (`initialize`'s `protocolVersion` always is).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcptape.check.model import Message
from mcptape.diff.compare import Change, Hidden, compare
from mcptape.diff.ignore import Rule, target_of
from mcptape.serve.pool import Entry, Pool

MODES = ("params", "method", "strict")
META_RULE = Rule("*:params._meta", "*", ("params", "_meta"), "serve default")
# The same envelope before 2026-07-28: who the client is and what it can do, in `initialize`.
ENVELOPE = (
    META_RULE,
    Rule("initialize:params.clientInfo", "initialize", ("params", "clientInfo"), "serve default"),
    Rule("initialize:params.capabilities", "initialize", ("params", "capabilities"), "serve default"),
)


@dataclass
class Match:
    """The recorded request that answers a client request, or why none does."""

    entry: Entry | None
    repeated: bool = False
    hidden: list[Hidden] = field(default_factory=list)  # what the rules kept from comparing
    closest: Entry | None = None  # on a miss: the nearest recorded request of the same method
    changes: list[Change] = field(default_factory=list)  # ... and how it differs


class Matcher:
    """Finds the recorded request for each client request, and remembers which were served."""

    def __init__(
        self, pool: Pool, mode: str = "params", rules: Sequence[Rule] = (), *, match_meta: bool = False
    ):
        if mode not in MODES:
            raise ValueError(f"unknown match mode {mode!r}")
        self.pool = pool
        self.mode = mode
        self.rules = [*rules] if match_meta else [*rules, *ENVELOPE]
        self.next = 0  # strict: the position of the next recorded request
        self.last: dict[str, Entry] = {}  # method -> last entry served (method mode)

    def request(self, msg: Message) -> Match:
        """The recorded request that answers `msg` (a client request), marked as used."""
        method = msg.method or ""
        params = _params(msg.value)
        if self.mode == "strict":
            return self._strict(method, params)
        candidates = self.pool.by_method(method)
        if not candidates:
            return Match(None)
        if self.mode == "method":
            entry = next((e for e in candidates if e.uses == 0), None)
            repeated = entry is None
            entry = entry or candidates[-1]
            _, hidden = self.compare(entry, params)
            entry.uses += 1
            return Match(entry, repeated, hidden)
        best: Match | None = None
        best_rank = (True, 0)
        reuse: Match | None = None
        target = target_of(params)
        for entry in candidates:
            changes, hidden = self.compare(entry, params)
            if not changes:
                if entry.uses == 0:
                    entry.uses = 1
                    return Match(entry, False, hidden)
                reuse = Match(entry, True, hidden)
                continue
            # the nearest: a request of the same tool, prompt or resource first, then the fewest changes
            rank = (target_of(entry.params) != target, len(changes))
            if best is None or rank < best_rank:
                best, best_rank = Match(None, closest=entry, changes=changes), rank
        if reuse is not None:
            assert reuse.entry is not None
            reuse.entry.uses += 1
            return reuse
        return best or Match(None)

    def _strict(self, method: str, params: Any) -> Match:
        requests = self.pool.requests
        if self.next >= len(requests):
            return Match(None)
        entry = requests[self.next]
        changes, hidden = self.compare(entry, params) if entry.method == method else ([], [])
        if entry.method != method:
            changes = [Change(("method",), entry.method, method)]
        if changes:
            return Match(None, closest=entry, changes=changes)
        self.next += 1
        entry.uses += 1
        return Match(entry, False, hidden)

    def compare(self, entry: Entry, params: Any) -> tuple[list[Change], list[Hidden]]:
        """How `params` differs from the recorded request's, and what the rules hid."""
        scope, target = entry.method, target_of(entry.params)
        rules = [r for r in self.rules if r.applies_to(scope, target)]
        return compare(_wrap(entry.params), _wrap(params), rules)

    def unused(self) -> list[Entry]:
        """Recorded requests no client request was matched to."""
        return [e for e in self.pool.requests if e.uses == 0]


def _params(value: Any) -> Any:
    return value.get("params") if type(value) is dict else None


def _wrap(params: Any) -> dict[str, Any]:
    """The part of a request the rules' paths start from (`params...`); absent params are `{}`, as
    MCP reads them (a request without params matches one whose params held only `_meta`)."""
    return {"params": {} if params is None else params}
