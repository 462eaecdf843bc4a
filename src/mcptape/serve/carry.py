"""Values the new client chose that the recorded server had echoed (pure).

A request is matched with some of its params left out of the comparison (the `_meta` envelope,
the ignore rules). What the new client put there can differ from what the recorded client did: a
progress token, a correlation id. Where the recorded server sent the recorded client's value back
(a `notifications/progress` with its `progressToken`), serve sends the new client's value: found by
place (a member of the same name) and value (equal, type and all), never by a list of names. A value
that looks like a token (`mcptape.diff.minted.alike`: opaque, long enough, on both sides) is also
replaced inside longer strings, as replay's carry-over does (`minted.restore`): a tool's text that
quotes the client's correlation id.

Values the recorded *server* minted (an MRTR `requestState`, a cursor, a handle) need nothing: serve
sends them as recorded, and a client echoes what it was given, which is what the recording shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcptape.diff.compare import MISSING, Hidden, compare
from mcptape.diff.minted import alike, restore

Carry = dict[tuple[str, Any], Any]  # (member name, recorded value) -> the new client's value


def _key(value: Any) -> tuple[type, Any]:
    return (type(value), value)


def carried(hidden: Iterable[Hidden]) -> Carry:
    """The scalar values that differ under the hidden places, by member name and recorded value."""
    out: Carry = {}
    for item in hidden:
        changes, _ = compare(item.old, item.new)
        for change in changes:
            path = (*item.path, *change.path)
            names = [step for step in path if isinstance(step, str)]
            if not names or not _scalar(change.old) or not _scalar(change.new):
                continue
            out[(names[-1], _key(change.old))] = change.new
    return out


def _scalar(value: Any) -> bool:
    return value is not MISSING and (type(value) is str or type(value) is int)


def apply(value: Any, carry: Carry) -> tuple[Any, bool]:
    """`value` with each carried member put to the new client's value: a copy where something
    changed, and whether anything did."""
    if not carry:
        return value, False
    names = {name for name, _ in carry}
    changed = False

    def walk(item: Any) -> Any:
        nonlocal changed
        if type(item) is dict:
            out: dict[str, Any] | None = None
            for key, member in item.items():
                new = member
                if key in names and _scalar(member) and (key, _key(member)) in carry:
                    new = carry[(key, _key(member))]
                elif type(member) is dict or type(member) is list:
                    new = walk(member)
                if new is not member:
                    if out is None:
                        out = dict(item)
                    out[key] = new
                    changed = True
            return item if out is None else out
        if type(item) is list:
            items = [walk(x) for x in item]
            return item if all(a is b for a, b in zip(items, item, strict=True)) else items
        return item

    try:
        value = walk(value)
    except RecursionError:  # a value nested past Python's limit: sent as recorded
        return value, False
    tokens = {old: new for (_, (kind, old)), new in carry.items() if kind is str and type(new) is str}
    tokens = {old: new for old, new in tokens.items() if alike(old, new)}
    if tokens:
        restored = restore(value, tokens)
        changed = changed or restored is not value
        value = restored
    return value, changed
