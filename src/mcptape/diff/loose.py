"""Unsolicited notifications matched by content (pure): which message of one session is which of
the other's.

A notification no request caused (a log message a timer sends, a resource update, a list change)
may come earlier, later, more often or not at all from one run to the next: its position says
nothing. The two sessions' notifications of one stream are matched as a multiset, in three passes,
each only among those still without a partner:

1. equal values (the common case);
2. values the rules make equal (`compare` finds no change once they hide or mask what they name);
3. values that differ only where a built-in shape (`uuid`, `time`, `clock`, ...; not `number`,
   which would make "Resource 1" and "Resource 2" one message) varies: the same message whose
   noise differs, so the diff shows the change and `--learn` can learn its shape.

Whatever is left has no partner: it is a difference of its own, never paired with a message it
is not, so no rule can hide the difference between two different messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from mcptape.diff.compare import compare
from mcptape.diff.ignore import Rule
from mcptape.diff.shapes import NAMES, mask
from mcptape.jsonsafe import dumps, walk

Group = tuple[str, str | int | None]  # (method, stream): the stream is a logger, a token or a uri
SAME_MESSAGE_SHAPES = tuple(name for name in NAMES if name != "number")
MAX_TRIED = 250_000  # pairs compared under the rules in pass 2 (a flood must not cost n*m)


def match_loose(
    olds: Sequence[Any], news: Sequence[Any], rules: Sequence[Rule] = ()
) -> list[tuple[int | None, int | None]]:
    """`(i, j)` for the old value i and the new value j that are the same message, `(i, None)` and
    `(None, j)` for those without a partner: every old index in order (matched or not), then the
    new ones left over, in order."""
    partner: dict[int, int] = {}
    free_new = list(range(len(news)))
    _by_key(olds, news, partner, free_new, _canonical)
    if rules and len(olds) - len(partner) and free_new:
        left = [i for i in range(len(olds)) if i not in partner]
        if len(left) * len(free_new) <= MAX_TRIED:
            for i in left:
                for j in free_new:
                    if not compare(olds[i], news[j], rules)[0]:
                        partner[i] = j
                        free_new.remove(j)
                        break
    if len(olds) - len(partner) and free_new:
        _by_key(olds, news, partner, free_new, _masked)
    out: list[tuple[int | None, int | None]] = [(i, partner.get(i)) for i in range(len(olds))]
    out.extend((None, j) for j in free_new)
    return out


def _by_key(
    olds: Sequence[Any], news: Sequence[Any], partner: dict[int, int], free_new: list[int], key: Any
) -> None:
    """Match the old values without a partner to free new ones with the same `key(value)`, in order."""
    waiting: dict[bytes, list[int]] = {}
    for j in free_new:
        waiting.setdefault(key(news[j]), []).append(j)
    taken: set[int] = set()
    for i in range(len(olds)):
        if i in partner:
            continue
        candidates = waiting.get(key(olds[i]))
        if candidates:
            j = candidates.pop(0)
            partner[i] = j
            taken.add(j)
    free_new[:] = [j for j in free_new if j not in taken]


def _canonical(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # past orjson's 254 levels: the iterative encoder
        return dumps(value, sort_keys=True, default=repr).encode("utf-8", "surrogatepass")


def _masked(value: Any) -> bytes:
    """The value with every string's varying shapes masked: its places (member names in any order,
    array positions), its other scalars as they are. Iterative (a message may be 1024 levels deep)."""
    places: list[tuple[str, str]] = []
    for path, item in walk(value):
        kind = type(item)
        if kind is str:
            places.append((repr(path), "s" + mask(item, SAME_MESSAGE_SHAPES)))
        elif kind is dict:
            places.append((repr(path), "{"))
        elif kind is list:
            places.append((repr(path), f"[{len(item)}"))
        else:
            places.append((repr(path), "v" + _canonical(item).decode()))
    places.sort()
    return repr(places).encode("utf-8", "surrogatepass")
