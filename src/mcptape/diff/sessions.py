"""The semantic diff of two sessions (pure): what the new build answered differently.

Built on the check core (`analyze` with its `on_message`/`on_exec` callbacks: the one framer and
classifier). Compared:

* responses to the client's requests, paired by request id (the n-th request with an id is paired
  with the n-th in the other session) and compared as JSON values;
* server->client requests, per method, in order (a server request's own id is not compared: it is
  the new server's to choose);
* notifications a request caused (progress for a `progressToken` the client sent), per method and
  stream (the token), in order;
* notifications no request caused (unsolicited: a log message, a resource update, a list change;
  whatever a timer or another client may send at any time) per method and stream (a `logger`, a
  resource `uri`), by content, as a multiset: one pairs with an equal one of the other session, or
  one equal under the rules, or one that differs only by shapes that vary between runs (a uuid, a
  time: the same message, whose differences are shown); never by position. One left without a
  partner is a difference, unless a `count=LOW..HIGH` rule says that stream comes and goes and
  both sessions are within its range. So a rule never hides a difference between two messages that
  are not the same message;
* executor calls (`exec`, `http`), per request they are attributed to, in order;
* stdout cleanliness (lines that are not protocol), the other findings (`exec-after-reject`, ...)
  and the exit status; stderr only when asked (without it, the lines of its first 64 KiB that
  differ are still listed, as not compared).

Server-minted values (`diff.minted`) are compared by presence and place (`Diff.carried`); executor
calls on a channel one session did not watch (`diff.channels`) are listed, not compared.

`old` is the recorded session, `new` the replay (or any second transcript).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mcptape.check.framing import lines_of
from mcptape.check.model import ERR, IN, OUT, ExecCall, Finding, Message
from mcptape.check.rules import FRAME_RULES, INCOMPLETE_CAPTURE, UNANSWERED_REQUEST
from mcptape.diff.channels import NOT_OBSERVED, why_unobserved
from mcptape.diff.compare import MISSING, Change, Hidden, compare
from mcptape.diff.ignore import BUILTIN, Rule, target_of
from mcptape.diff.lines import multiset, stderr_changes
from mcptape.diff.loose import Group, match_loose
from mcptape.diff.minted import Carried, carry, places, restore
from mcptape.diff.model import Diff, ExitInfo, Pair
from mcptape.diff.side import (
    EXECUTOR,
    NOTIFICATION,
    RESPONSE,
    SERVER_REQUEST,
    STDERR_KEPT,
    STDERR_NOTED,
    STDOUT_KEPT,
    Key,
    Side,
    collect,
)
from mcptape.transcript.events import Event

__all__ = [
    "EXECUTOR",
    "NOTIFICATION",
    "RESPONSE",
    "SERVER_REQUEST",
    "STDERR_KEPT",
    "STDERR_NOTED",
    "STDOUT_KEPT",
    "Diff",
    "ExitInfo",
    "Key",
    "Pair",
    "Side",
    "collect",
    "diff_events",
    "diff_sides",
]


def diff_sides(
    old: Side,
    new: Side,
    rules: Sequence[Rule] = (),
    *,
    stderr: bool = False,
    unobserved: tuple[frozenset[str], frozenset[str]] = (NOT_OBSERVED, NOT_OBSERVED),
) -> Diff:
    """Compare two collected sessions. `unobserved` names, for the old and the new session, the
    executor channels it did not watch (`http` without a sink): their calls are not compared."""
    all_rules = [*rules, *BUILTIN]
    result = Diff(rules=list(all_rules), stderr_compared=stderr)
    result.old_analysis, result.new_analysis = old.analysis, new.analysis
    keys = list(old.order) + [k for k in new.order if k not in old.items]
    loose = {k: g for side in (old, new) for g, ks in side.unsolicited.items() for k in ks}
    groups_done: set[Group] = set()
    blind = (unobserved[0] - old.channels, unobserved[1] - new.channels)
    carried_at, mapping = _minted(old, new)
    for key in keys:
        group = loose.get(key)
        if group is None:
            result.pairs.append(_pair(old, new, key, all_rules, blind, carried_at, mapping))
        elif group not in groups_done:
            groups_done.add(group)
            result.pairs.extend(_loose_pairs(old, new, group, all_rules, mapping))
            result.unsolicited[group] = (
                len(old.unsolicited.get(group, ())),
                len(new.unsolicited.get(group, ())),
            )
    _compare_the_rest(old, new, result, stderr)
    return result


def _minted(old: Side, new: Side) -> tuple[dict[Key, list[Carried]], dict[str, str]]:
    """Where each side's minted values were carried, and each value the new server minted -> the
    recorded one (restored before comparing)."""
    carried_at: dict[Key, list[Carried]] = {}
    mapping: dict[str, str] = {}
    for key, paths in places(old.minted.uses, new.minted.uses).items():
        o, n = old.items.get(key), new.items.get(key)
        if o is not None and n is not None:
            carried_at[key] = carry(_value(o[2], o[0]), _value(n[2], n[0]), key, paths)
            for carried in carried_at[key]:
                mapping.setdefault(carried.new, carried.old)
    return carried_at, mapping


def _pair(
    old: Side,
    new: Side,
    key: Key,
    all_rules: Sequence[Rule],
    blind: tuple[frozenset[str], frozenset[str]],
    carried_at: dict[Key, list[Carried]],
    mapping: dict[str, str],
) -> Pair:
    """The pair of one key (a message or an action matched by place), compared under the rules."""
    o = old.items.get(key)
    n = new.items.get(key)
    kind, scope, _ = o if o is not None else n  # type: ignore[misc]
    if kind == RESPONSE and scope == "?" and n is not None:
        scope = n[1]
    pair = Pair(kind, scope, key, o[2] if o else None, n[2] if n else None)
    if kind == RESPONSE:
        pair.request = old.request_msgs.get(key) or new.request_msgs.get(key)
        pair.target = target_of(_params(pair.request))
    elif kind == NOTIFICATION and len(key) == 4:
        pair.target = str(key[3])
    if kind == EXECUTOR:
        pair.unobserved = why_unobserved(scope, pair.old is None, pair.new is None, blind)
    if pair.old is not None and pair.new is not None:
        pair.carried = carried_at.get(key, [])
        scoped = [r for r in all_rules if r.applies_to(scope, pair.target)]
        pair.changes, pair.hidden = compare(
            _value(pair.old, kind), restore(_value(pair.new, kind), mapping), scoped
        )
        if kind == RESPONSE:
            pair.changes[:0] = _request_method_change(old.request_msgs.get(key), new.request_msgs.get(key))
    return pair


def _compare_the_rest(old: Side, new: Side, result: Diff, stderr: bool) -> None:
    """What is compared as a whole: stdout that is not protocol, findings, exits, stderr."""
    result.stdout_added, result.stdout_removed = multiset(new.stdout, old.stdout, lambda f: f.raw)
    result.stdout_not_compared = (old.stdout_dropped, new.stdout_dropped)
    ours = [f for f in old.analysis.findings if _counted(f)]
    theirs = [f for f in new.analysis.findings if _counted(f)]
    result.findings_added, result.findings_removed = multiset(theirs, ours, _signature)
    a, b = old.analysis, new.analysis
    result.exit_old = ExitInfo(a.exited, a.exit_code, a.exit_signal)
    result.exit_new = ExitInfo(b.exited, b.exit_code, b.exit_signal)
    old_lines = lines_of(bytes(old.stderr), ERR)
    new_lines = lines_of(bytes(new.stderr), ERR)
    result.stderr_added, result.stderr_removed, result.stderr_numbers_only = stderr_changes(
        new_lines, old_lines, exact=stderr
    )


def diff_events(
    old: Iterable[Event],
    new: Iterable[Event],
    rules: Sequence[Rule] = (),
    *,
    stderr: bool = False,
    unobserved: tuple[frozenset[str], frozenset[str]] = (NOT_OBSERVED, NOT_OBSERVED),
) -> Diff:
    """The diff of two sessions given as transcript events (old = the recording)."""
    return diff_sides(
        collect(old, keep_stderr=stderr),
        collect(new, keep_stderr=stderr),
        rules,
        stderr=stderr,
        unobserved=unobserved,
    )


def _loose_pairs(
    old: Side, new: Side, group: Group, rules: Sequence[Rule], mapping: dict[str, str]
) -> list[Pair]:
    """The pairs of one stream of unsolicited notifications, matched by content (`diff.loose`);
    those left without a partner are allowed by the stream's `count=` rule while both sessions'
    counts are within its range."""
    method, stream = group
    target = None if stream is None else str(stream)
    old_keys = old.unsolicited.get(group, [])
    new_keys = new.unsolicited.get(group, [])
    old_msgs = [old.items[k][2] for k in old_keys]
    new_msgs = [new.items[k][2] for k in new_keys]
    olds = [_value(m, NOTIFICATION) for m in old_msgs]
    news = [restore(_value(m, NOTIFICATION), mapping) for m in new_msgs]
    scoped = [r for r in rules if r.counts is None and r.applies_to(method, target)]
    counted = next((r for r in rules if r.counts_for(method, target)), None)
    allowed = counted if counted is not None and counted.allows(len(olds), len(news)) else None
    pairs = []
    for i, j in match_loose(olds, news, scoped):
        key = old_keys[i] if i is not None else new_keys[j]  # type: ignore[index]
        pair = Pair(NOTIFICATION, method, key, target=target, unsolicited=True)
        pair.old = old_msgs[i] if i is not None else None
        pair.new = new_msgs[j] if j is not None else None
        if i is not None and j is not None:
            pair.changes, pair.hidden = compare(olds[i], news[j], scoped)
        elif allowed is not None:
            pair.allowed = allowed
            a = olds[i] if i is not None else MISSING
            b = news[j] if j is not None else MISSING
            pair.hidden = [Hidden(allowed, (), a, b)]
        pairs.append(pair)
    return pairs


def _params(request: Message | None) -> Any:
    """A request's `params` (None when there is no request or its value is not an object)."""
    value = request.value if request is not None else None
    return value.get("params") if type(value) is dict else None


def _request_method_change(old: Message | None, new: Message | None) -> list[Change]:
    """Two sessions whose requests with the same id call different methods (`mcptape diff` of
    independent recordings: e.g. `initialize` then, in a stateless session, `server/discover`)."""
    if old is None or new is None or old.method == new.method:
        return []
    return [Change(("request", "method"), old.method, new.method)]


def _value(item: Message | ExecCall, kind: str) -> Any:
    if isinstance(item, ExecCall):
        return item.value if item.value is not None else item.frame.body.decode("utf-8", "replace")
    value = item.value
    if kind == SERVER_REQUEST and type(value) is dict:
        return {k: v for k, v in value.items() if k != "id"}
    return value


def _counted(finding: Finding) -> bool:
    """Findings compared in the findings section (stdout lines, missing answers, the exit have their own)."""
    if finding.rule in (UNANSWERED_REQUEST, INCOMPLETE_CAPTURE):
        return False
    return not (finding.channel == OUT and finding.rule in FRAME_RULES)


def _signature(finding: Finding) -> tuple[Any, ...]:
    raw = finding.raw if finding.channel in (IN, OUT) else b""
    return (finding.rule, finding.channel, finding.request_id, raw)
