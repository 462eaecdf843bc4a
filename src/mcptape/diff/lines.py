"""Lines compared as multisets: what one session printed that the other did not (stdout's
non-protocol lines, findings, stderr), counting repeats and keeping order."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

_DIGITS = re.compile(rb"[0-9]+")
# A log line's leading time column, as Rich's handler (the official Python SDK's server logging)
# writes it: `[12/02/26 00:26:17] ERROR ...`, and the same width of spaces when the second has not
# changed since the line before. Which line of a run gets the time depends on the clock.
_TIME_COLUMN = re.compile(rb"\[[0-9][0-9/:.,\- T]*\] ")


def multiset(new: Sequence[Any], old: Sequence[Any], key: Any) -> tuple[list[Any], list[Any]]:
    """(items of `new` not in `old`, items of `old` not in `new`), counting repeats, in order."""
    return _unmatched(new, old, key), _unmatched(old, new, key)


def _unmatched(items: Sequence[Any], others: Sequence[Any], key: Any) -> list[Any]:
    """The items of `items` that no item of `others` matches by `key` (each match used once)."""
    left = Counter(key(x) for x in others)
    unmatched = []
    for x in items:
        k = key(x)
        if left[k] > 0:
            left[k] -= 1
        else:
            unmatched.append(x)
    return unmatched


def digits_masked(line: bytes) -> bytes:
    """A line with every run of digits made `0`: what it says without its times, pids and counts
    (a leading log time column, present or left blank, is blank)."""
    column = _TIME_COLUMN.match(line)
    if column is not None:
        line = b" " * column.end() + line[column.end() :]
    return _DIGITS.sub(b"0", line)


def stderr_changes(
    new: Sequence[bytes], old: Sequence[bytes], *, exact: bool
) -> tuple[list[bytes], list[bytes], int]:
    """(new lines not in old, old lines not in new, new lines that differ from an old one only in
    their digits). `exact` (stderr compared): every byte counts and the last is 0; otherwise a line
    whose only change is a log time or a pid is counted there, not listed."""
    added, removed = multiset(new, old, lambda x: x)
    if exact:
        return added, removed, 0
    loose_added, loose_removed = multiset(new, old, digits_masked)
    return loose_added, loose_removed, len(added) - len(loose_added)
