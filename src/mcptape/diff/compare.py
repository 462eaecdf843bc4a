"""Compare two JSON values path by path, with ignore rules: the changes, and what the rules hid.

Objects are compared by member name (order never matters), arrays element by element, numbers by
value (`1` and `1.0` are the same number; `true` is not `1`), strings exactly. A rule that reaches
a path hides the whole value there; a rule with a `|json` step makes a string that differs be
parsed as JSON on both sides and compared inside; a rule ending in shapes (`|uuid`) compares the
strings at or under its path with those shapes masked (`mcptape.diff.shapes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from mcptape.diff.ignore import JSON, Path, Rule, masked_by, render_path
from mcptape.jsonsafe import equal


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()  # the value on the side where a member or element does not exist


@dataclass(frozen=True)
class Change:
    """One path whose value differs: `old` or `new` is MISSING when the path exists on one side only."""

    path: Path
    old: Any
    new: Any

    @property
    def where(self) -> str:
        return render_path(self.path) or "(the whole message)"

    @property
    def kind(self) -> str:
        if self.old is MISSING:
            return "added"
        if self.new is MISSING:
            return "removed"
        return "changed"


@dataclass(frozen=True)
class Hidden:
    """A difference an ignore rule hid: the rule, the path it reached, both values."""

    rule: Rule
    path: Path
    old: Any
    new: Any

    @property
    def where(self) -> str:
        return render_path(self.path) or "(the whole message)"


def compare(old: Any, new: Any, rules: Sequence[Rule] = ()) -> tuple[list[Change], list[Hidden]]:
    """The differences between two JSON values, and the ones `rules` hid."""
    text = _canonical(old)
    if text is not None and text == _canonical(new):
        return [], []  # the same text in canonical form is the same value (the common case, in C)
    changes: list[Change] = []
    hidden: list[Hidden] = []
    _walk(old, new, (), rules, changes, hidden)
    return changes, hidden


def _canonical(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None


def same_value(a: Any, b: Any) -> bool:
    """JSON equality: no order for object members, booleans are not numbers (at any depth)."""
    return equal(a, b)


def _walk(
    a: Any, b: Any, path: Path, rules: Sequence[Rule], changes: list[Change], hidden: list[Hidden]
) -> None:
    """Both values side by side, path by path, with an explicit stack (a message may be 1024 levels
    deep): members and elements are visited in document order, as the changes are reported."""
    stack: list[tuple[Any, Any, Path]] = [(a, b, path)]
    while stack:
        a, b, path = stack.pop()
        if rules and _hidden(a, b, path, rules, hidden):
            continue
        ta, tb = type(a), type(b)
        if ta is dict and tb is dict:
            pending = [(a[key], b.get(key, MISSING), (*path, key)) for key in a]
            pending += [(MISSING, b[key], (*path, key)) for key in b if key not in a]
            stack.extend(reversed(pending))
            continue
        if ta is list and tb is list:
            stack.extend(
                (
                    a[i] if i < len(a) else MISSING,
                    b[i] if i < len(b) else MISSING,
                    (*path, i),
                )
                for i in reversed(range(max(len(a), len(b))))
            )
            continue
        if equal(a, b):
            continue
        if ta is str and tb is str and rules and any(rule.enters_json(path) for rule in rules):
            try:
                pa, pb = orjson.loads(a), orjson.loads(b)
            except orjson.JSONDecodeError:
                pass
            else:
                stack.append((pa, pb, (*path, JSON)))
                continue
        changes.append(Change(path, a, b))


def _hidden(a: Any, b: Any, path: Path, rules: Sequence[Rule], hidden: list[Hidden]) -> bool:
    """Does a rule reach `path` (then the whole value there is hidden, and noted if it differs)? Or
    do shape rules (`|uuid`, ...) make the two strings there equal (noted the same way)?"""
    for rule in rules:
        if rule.matches(path):
            if not equal(a, b):
                hidden.append(Hidden(rule, path, a, b))
            return True
    masking = masked_by(rules, path, a, b)
    hidden.extend(Hidden(rule, path, a, b) for rule in masking)
    return bool(masking)
