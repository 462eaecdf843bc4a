"""Built-in recognisers: value shapes that change on every run, found inside strings.

An ignore rule can end in `|uuid`, `|time`, ... : before two strings are compared, every match of
those shapes is replaced by a typed placeholder (`<uuid>`, `<time>`), so `"created 3f2a...-..."`
and `"created 9b1c...-..."` compare equal while the rest of the text is still compared.

    uuid    8-4-4-4-12 hex digits                          3f2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f
    time    an RFC 3339 / ISO 8601 date-time or date,      2026-11-29T19:44:55.123+00:00, 2026-11-29
            an HTTP date, or a JavaScript date string      Sun, 29 Nov 2026 19:44:55 GMT,
            (Date.prototype.toString, what Node prints)    Sun Nov 29 2026 19:44:55 GMT+0000 (UTC)
    clock   a time of day with seconds                     19:44:55, 7:44:55 PM
    weekday a day's full English name                      Monday, Sunday
    epoch   a Unix time in seconds or milliseconds          1796000000, 1796000000123
    path    an absolute local path or file:// URI          /tmp/tmpx81/out.txt, C:\\Users\\me\\x
    hex     a hex id of 16 digits or more (digits and a-f)  9f86d081884c7d65
    number  any decimal number                             42, -3.5

They are applied in this order (a placeholder holds no digit, so a later shape never eats into an
earlier one's match). The learner (`mcptape replay --learn`) picks the fewest that explain what
varied, narrowest first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_HEX = "[0-9a-fA-F]"
_DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"

SHAPES: dict[str, re.Pattern[str]] = {
    "uuid": re.compile(rf"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"),
    "time": re.compile(
        r"(?<!\d)\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?"
        rf"|{_DAY}, \d{{2}} {_MONTH} \d{{4}} \d{{2}}:\d{{2}}:\d{{2}} GMT"
        rf"|{_DAY} {_MONTH} \d{{2}} \d{{4}} \d{{2}}:\d{{2}}:\d{{2}} GMT[+-]\d{{4}}(?: \([^()\n]{{1,64}}\))?"
    ),
    "clock": re.compile(r"(?<![\d:])\d{1,2}:\d{2}:\d{2}(?:\.\d+)?(?:\s?[AaPp]\.?[Mm]\.?)?(?![\d:])"),
    "weekday": re.compile(r"\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b"),
    "epoch": re.compile(r"(?<![\d.])1\d{9}(?:\d{3})?(?:\.\d+)?(?![\d.])"),
    "path": re.compile(
        r"file://[^\s\"'<>]+"
        r"|(?<![\w/.~\-])/(?:[\w.\-@+~%]+/)*[\w.\-@+~%]*[\w\-@+~%]/?"
        r"|(?<![\w])[A-Za-z]:\\(?:[^\s\"'<>|:*?\\]+\\)*[^\s\"'<>|:*?\\]*"
    ),
    "hex": re.compile(r"(?<![0-9a-zA-Z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{16,}(?![0-9a-zA-Z])"),
    "number": re.compile(r"-?\d+(?:\.\d+)?"),
}

NAMES = tuple(SHAPES)  # the order they are applied in, narrowest first


def placeholder(name: str) -> str:
    return f"<{name}>"


def mask(text: str, names: Iterable[str]) -> str:
    """`text` with every match of the named shapes replaced by its placeholder (in NAMES order)."""
    wanted = set(names)
    for name in NAMES:
        if name in wanted:
            text = SHAPES[name].sub(placeholder(name), text)
    return text


def explain(values: Sequence[str]) -> tuple[str, ...] | None:
    """The fewest shapes (in NAMES order) whose masks make all `values` equal, or None when even all
    of them together leave a difference (the values differ by more than those shapes)."""
    if len(set(values)) <= 1:
        return ()
    chosen = list(NAMES)
    if len({mask(v, chosen) for v in values}) != 1:
        return None
    for name in reversed(NAMES):  # drop the broadest first: keep the narrowest that suffice
        fewer = [n for n in chosen if n != name]
        if len({mask(v, fewer) for v in values}) == 1:
            chosen = fewer
    return tuple(chosen)
