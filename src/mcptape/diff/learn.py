"""Learn ignore rules from replays of one build (pure): what varies between runs is noise.

`mcptape replay FILE --learn N` replays the recording N times against the same build, then calls
`learn` with the diff of the recording against each replay and the diff of the first replay against
each other one. A place (method, target, path) whose value differs between two replays is noise and
gets a rule: the narrowest built-in shapes that explain every value seen (`|uuid`, `|time`, ...),
else the whole value. A place that differs from the recording but is the same in every replay is a
real difference, not noise, and is not learned, unless a shape explains it (a path, a date). Values
that the server minted and the client sent back (the replay carries the new server's value over)
are not noise either, and are set apart.

Notifications no request caused (a timer's log message, a resource update) are matched by content,
never by position (`mcptape.diff.loose`), so the learner never pairs two different messages to
hide what differs between them. One that has no partner in a diff *between two replays* comes and
goes with timing: its stream gets a `count=LOW..HIGH` rule, the range of counts seen in the
recording and every replay. One without a partner only against the recording (the same in every
replay) is a real difference, listed as unpaired, not learned.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcptape.diff.compare import MISSING, Change, compare
from mcptape.diff.ignore import JSON, Path, Pattern, Rule, count_rule_text, parse_rule, rule_text
from mcptape.diff.sessions import Diff, Pair
from mcptape.diff.shapes import NAMES, explain

VARIES = "varies between the replays"
COMES_AND_GOES = "comes and goes between the replays (sent by no request)"
SHAPED = "differs from the recording only by"
Stream = tuple[str, str | None]  # an unsolicited notification's method and stream, as a rule names them
MIN_MINTED = 6  # a shorter string sent back is too common to tell a minted value by


@dataclass
class Place:
    """One place that differed: where, the distinct values seen there, and between whom."""

    kind: str
    scope: str
    target: str | None
    pattern: Pattern
    title: str  # the first pair's title data, for the report: (kind, scope, key) rendered later
    values: list[Any] = field(default_factory=list)
    recorded: list[Any] = field(default_factory=list)  # the recording's value(s) there
    varies: bool = False  # differed between two replays
    # the values of each message seen there (by pair key and concrete path): a shape must explain
    # how one message varied between runs, not how two messages differ (`Resource 2 ... 12:54:51`
    # and `Resource 999 ... 12:55:06` are two calls whose clock varied: `|clock`, not `|number`)
    groups: dict[Any, list[Any]] = field(default_factory=dict)

    def add(self, value: Any, *, recorded: bool = False, group: Any = None) -> None:
        if not any(_same(value, v) for v in self.values):
            self.values.append(value)
        seen = self.groups.setdefault(group, [])
        if not any(_same(value, v) for v in seen):
            seen.append(value)
        if recorded and not any(_same(value, v) for v in self.recorded):
            self.recorded.append(value)


@dataclass
class Proposal:
    """A proposed ignore rule, why, and the values it was learned from."""

    rule: Rule
    why: str
    values: list[Any]


@dataclass
class Lesson:
    """What N replays taught: proposed rules, real differences, minted values, unpaired messages."""

    proposals: list[Proposal] = field(default_factory=list)
    steady: list[Place] = field(default_factory=list)  # differs from the recording in every replay
    minted: list[Place] = field(default_factory=list)  # a value the server minted and the client echoed
    unpaired: list[str] = field(default_factory=list)  # messages present on one side only

    @property
    def rules(self) -> list[Rule]:
        return [p.rule for p in self.proposals]


def learn(
    against_recording: Sequence[Diff],
    between_replays: Sequence[Diff],
    *,
    minted: Iterable[str] = (),
    known: Iterable[str] = (),
) -> Lesson:
    """Rules for what varied. `minted` are strings the server minted and the client sent back
    (they differ in what the client sent from one session to another); `known` the texts of rules
    already in force (never proposed twice)."""
    gathered = _Gathered()
    for diffs, varies in ((against_recording, False), (between_replays, True)):
        for diff in diffs:
            for pair in diff.differing:
                gathered.add(pair, varies)
    lesson = Lesson()
    taken = set(known)
    counts = _counts([*against_recording, *between_replays])
    counted = _count_proposals(gathered, counts, taken)  # after the rules of what varies inside messages
    lesson.unpaired = list(gathered.unpaired)
    echoed = [m for m in minted if len(m) >= MIN_MINTED]
    for place in gathered.places.values():
        if echoed and any(_holds(v, echoed) for v in place.values):
            lesson.minted.append(place)
            continue
        proposal = _propose(place)
        if proposal is None:
            lesson.steady.append(place)
        elif proposal.rule.text not in taken:
            taken.add(proposal.rule.text)
            lesson.proposals.append(proposal)
    lesson.proposals += counted
    return lesson


@dataclass
class _Gathered:
    """What the differing pairs of every diff say: the places whose values differ, and the
    messages left unpaired (by title), with the unsolicited streams they belong to."""

    places: dict[tuple[Any, ...], Place] = field(default_factory=dict)
    unpaired: dict[str, Stream | None] = field(default_factory=dict)  # title -> its unsolicited stream
    came_and_went: dict[Stream, None] = field(default_factory=dict)  # unpaired between two replays
    seen: dict[Stream, list[Any]] = field(default_factory=dict)  # their unpaired messages' params

    def add(self, pair: Pair, varies: bool) -> None:
        """One differing pair; `varies`: of a diff between two replays (not against the recording)."""
        if pair.old is None or pair.new is None:
            stream = (pair.scope, pair.target) if pair.unsolicited else None
            self.unpaired[_title(pair)] = stream
            if stream is not None:
                if varies:
                    self.came_and_went[stream] = None
                _add(self.seen.setdefault(stream, []), _params_of(pair.old or pair.new))
            return
        for change in _leaves(pair.changes):
            if change.path[:1] == ("request",):
                continue  # the request's method (two unrelated sessions), not a value
            place = _place(self.places, pair, change.path)
            group = (pair.key, change.path)
            place.add(change.old, recorded=not varies, group=group)
            place.add(change.new, group=group)
            place.varies = place.varies or varies


def _count_proposals(gathered: _Gathered, counts: dict[Stream, list[int]], taken: set[str]) -> list[Proposal]:
    """A count rule for each unsolicited stream that came and went between replays; its messages
    are then no longer listed as unpaired."""
    counted: list[Proposal] = []
    for stream in gathered.came_and_went:
        rule = _count_rule(stream, counts.get(stream, [0]))
        if rule is None:
            continue
        gathered.unpaired = {title: of for title, of in gathered.unpaired.items() if of != stream}
        if rule.text not in taken:
            taken.add(rule.text)
            low, high = rule.counts or (0, 0)
            why = f"{COMES_AND_GOES}: {low} to {high} a session"
            counted.append(Proposal(rule, why, gathered.seen.get(stream, [])))
    return counted


def _counts(diffs: Sequence[Diff]) -> dict[Stream, list[int]]:
    """How many unsolicited notifications of each stream each session of the diffs sent (0 for a
    session that sent none of a stream another session sent)."""
    per_diff = [
        {(method, None if s is None else str(s)): n for (method, s), n in diff.unsolicited.items()}
        for diff in diffs
    ]
    streams = {stream for counts in per_diff for stream in counts}
    return {stream: [n for counts in per_diff for n in counts.get(stream, (0, 0))] for stream in streams}


def _count_rule(stream: Stream, counts: Sequence[int]) -> Rule | None:
    """`METHOD[STREAM]:count=LOW..HIGH` for a stream that came and went (None when the stream
    cannot be named in a rule: a `]` in it)."""
    method, target = stream
    if target is not None and ("]" in target or not target):
        return None
    return parse_rule(count_rule_text(method, target, min(counts), max(counts)), "learned")


def _params_of(item: Any) -> Any:
    """What a notification says: its `params` (the whole value when it has none)."""
    value = getattr(item, "value", None)
    return value.get("params", value) if type(value) is dict else value


def _add(values: list[Any], value: Any) -> None:
    if not any(_same(value, v) for v in values):
        values.append(value)


def _propose(place: Place) -> Proposal | None:
    strings = [v for v in place.values if type(v) is str]
    shapes: tuple[str, ...] | None = None
    if len(strings) == len(place.values):
        shapes = _explain(place.groups.values())
        if shapes is None and place.varies:  # the runs' values alone (the recording differs by more)
            runs = [[v for v in seen if v not in place.recorded] for seen in place.groups.values()]
            shapes = _explain(runs) if any(len(r) > 1 for r in runs) else None
    if place.varies:
        why = f"{VARIES}, by {_shape_words(shapes)}" if shapes else VARIES
        return Proposal(_rule(place, shapes or ()), why, place.values)
    if shapes:
        return Proposal(_rule(place, shapes), f"{SHAPED} {_shape_words(shapes)}", place.values)
    return None


def _explain(groups: Iterable[Sequence[str]]) -> tuple[str, ...] | None:
    """The shapes that explain how each message's values varied (in NAMES order), or None."""
    chosen: set[str] = set()
    for values in groups:
        shapes = explain(values)
        if shapes is None:
            return None
        chosen.update(shapes)
    return tuple(name for name in NAMES if name in chosen)


def _shape_words(shapes: tuple[str, ...]) -> str:
    return ", ".join(f"a {name}" for name in shapes)


def _rule(place: Place, shapes: tuple[str, ...]) -> Rule:
    target = place.target if place.target is not None and "]" not in place.target else None
    return parse_rule(rule_text(place.scope, target, place.pattern, shapes), "learned")


def _place(places: dict[tuple[Any, ...], Place], pair: Pair, path: Path) -> Place:
    pattern: Pattern = tuple(-1 if isinstance(step, int) else step for step in path)
    key = (pair.kind, pair.scope, pair.target, pattern)
    place = places.get(key)
    if place is None:
        place = places[key] = Place(pair.kind, pair.scope, pair.target, pattern, _title(pair))
    return place


def _title(pair: Pair) -> str:
    name = f"{pair.scope}[{pair.target}]" if pair.target is not None else pair.scope
    side = "only in the recording" if pair.new is None else "only in a replay" if pair.old is None else ""
    what = {"response": "response to", "server-request": "server request"}.get(pair.kind, pair.kind)
    return f"{what} {name}" + (f" ({side})" if side else "")


def _leaves(changes: Iterable[Change]) -> Iterable[Change]:
    """The changes, with a string holding a JSON document on both sides compared inside it."""
    for change in changes:
        inner = _inside(change)
        if inner is None:
            yield change
        else:
            yield from _leaves(inner)


def _inside(change: Change) -> list[Change] | None:
    old, new = change.old, change.new
    if type(old) is not str or type(new) is not str:
        return None
    try:
        a, b = orjson.loads(old), orjson.loads(new)
    except orjson.JSONDecodeError:
        return None
    if type(a) not in (dict, list) or type(b) not in (dict, list):
        return None
    changes, _ = compare(a, b)
    return [Change((*change.path, JSON, *c.path), c.old, c.new) for c in changes]


def _holds(value: Any, minted: Sequence[str]) -> bool:
    return type(value) is str and any(m in value for m in minted)


def _same(a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING:
        return a is b
    return type(a) is type(b) and a == b
