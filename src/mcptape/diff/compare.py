"""Compare two JSON values path by path, with ignore rules: the changes, and what the rules hid.

Objects are compared by member name (order never matters), arrays element by element, numbers by
value (`1` and `1.0` are the same number; `true` is not `1`), strings exactly. A rule that reaches
a path hides the whole value there; a rule with a `|json` step makes a string that differs be
parsed as JSON on both sides and compared inside.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from mcptape.diff.ignore import JSON, Path, Rule, render_path


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
        return render_path(self.path)


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
    """JSON equality: no order for object members, booleans are not numbers."""
    ta, tb = type(a), type(b)
    if ta is dict:
        return tb is dict and a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if ta is list:
        return tb is list and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if ta is bool or tb is bool or a is None or b is None:
        return ta is tb and a == b
    if ta in (int, float):
        return tb in (int, float) and a == b
    return bool(ta is tb and a == b)


def _walk(
    a: Any, b: Any, path: Path, rules: Sequence[Rule], changes: list[Change], hidden: list[Hidden]
) -> None:
    if rules:
        for rule in rules:
            if rule.matches(path):
                if not same_value(a, b):
                    hidden.append(Hidden(rule, path, a, b))
                return
    ta, tb = type(a), type(b)
    if ta is dict and tb is dict:
        for key in a:
            _walk(a[key], b.get(key, MISSING), (*path, key), rules, changes, hidden)
        for key in b:
            if key not in a:
                _walk(MISSING, b[key], (*path, key), rules, changes, hidden)
        return
    if ta is list and tb is list:
        for i in range(max(len(a), len(b))):
            _walk(
                a[i] if i < len(a) else MISSING,
                b[i] if i < len(b) else MISSING,
                (*path, i),
                rules,
                changes,
                hidden,
            )
        return
    if same_value(a, b):
        return
    if ta is str and tb is str and rules and any(rule.enters_json(path) for rule in rules):
        try:
            pa, pb = orjson.loads(a), orjson.loads(b)
        except orjson.JSONDecodeError:
            pass
        else:
            _walk(pa, pb, (*path, JSON), rules, changes, hidden)
            return
    changes.append(Change(path, a, b))
