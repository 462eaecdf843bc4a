"""JSON values of any depth: encode, compare and walk them without recursion.

A transcript is attacker-controlled: a message nested a few hundred levels deep is valid JSON (the
check core's `orjson.loads` accepts up to 1024 levels), but `orjson.dumps` refuses more than 254
and Python's own recursion stops near 1000. Every place that walks, compares, encodes or prints a
decoded JSON value from a transcript uses this module, which has no depth limit: `dumps` takes
orjson's fast path and falls back to an iterative encoder that writes the same text; `equal` and
`walk` keep their own stack.

Pure and light (orjson only): `share/` and `diff/` both build on it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import orjson

Path = tuple[str | int, ...]  # object member names and array indices from the root

_END: Any = object()


def dumps(
    value: Any,
    *,
    indent: bool = False,
    sort_keys: bool = False,
    default: Callable[[Any], Any] | None = None,
    not_utf8: Callable[[str], str] | None = None,
) -> str:
    """The JSON text of `value`, as `orjson.dumps` writes it (compact, or indented by two spaces
    with `indent`), at any depth.

    Where orjson refuses (nesting past 254 levels, a string holding a lone surrogate, an integer
    beyond 64 bits, a non-string member name) the iterative encoder writes it instead: a big
    integer in full, a member name as `str(name)`, a string with a lone surrogate (a file name
    that is not UTF-8) as `not_utf8(string)` gives it, else with `\\udcXX` escapes. `default` is
    called for any other type (a TypeError without it).
    """
    option = (orjson.OPT_INDENT_2 if indent else 0) | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    try:
        return orjson.dumps(value, option=option, default=default).decode("utf-8")
    except orjson.JSONEncodeError:
        return _Encoder(default, not_utf8).encode(value, indent, sort_keys)


class _Encoder:
    """The iterative encoder: one explicit stack of open containers, no recursion."""

    def __init__(self, default: Callable[[Any], Any] | None, not_utf8: Callable[[str], str] | None) -> None:
        self.default = default
        self.not_utf8 = not_utf8

    def scalar(self, value: Any) -> str | None:
        """The text of a value that is not a non-empty container (None for a container to open)."""
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, str):
            try:
                return orjson.dumps(value).decode("utf-8")
            except orjson.JSONEncodeError:  # a lone surrogate
                if self.not_utf8 is not None:
                    return self.scalar(self.not_utf8(value).encode("utf-8", "replace").decode("utf-8"))
                return json.dumps(value, ensure_ascii=False)
        if isinstance(value, int):
            return str(int(value))
        if isinstance(value, float):
            return orjson.dumps(value).decode(
                "utf-8"
            )  # NaN and infinities become null, as orjson writes them
        if isinstance(value, dict):
            return "{}" if not value else None
        if isinstance(value, list | tuple):
            return "[]" if not value else None
        if self.default is None:
            raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")
        converted = self.default(value)
        if isinstance(converted, dict | list | tuple) and converted:
            return _Encoder(None, self.not_utf8).encode(converted, False, False)
        return _Encoder(None, self.not_utf8).scalar(converted)

    def encode(self, value: Any, indent: bool, sort_keys: bool) -> str:
        out: list[str] = []
        colon = ": " if indent else ":"
        # open containers: [iterator of members or elements, is an object, nothing written yet]
        stack: list[list[Any]] = []

        def start(item: Any) -> None:
            text = self.scalar(item)
            if text is not None:
                out.append(text)
            elif isinstance(item, dict):
                out.append("{")
                items = sorted(item.items(), key=lambda kv: str(kv[0])) if sort_keys else item.items()
                stack.append([iter(items), True, True])
            else:
                out.append("[")
                stack.append([iter(item), False, True])

        start(value)
        while stack:
            frame = stack[-1]
            member: Any = next(frame[0], _END)
            if member is _END:
                stack.pop()
                if indent:
                    out.append("\n" + "  " * len(stack))
                out.append("}" if frame[1] else "]")
                continue
            if not frame[2]:
                out.append(",")
            frame[2] = False
            if indent:
                out.append("\n" + "  " * len(stack))
            if frame[1]:
                name: Any = member[0]
                member = member[1]
                out.append(self.scalar(name if isinstance(name, str) else str(name)) or '""')
                out.append(colon)
            start(member)
        return "".join(out)


def equal(a: Any, b: Any) -> bool:
    """JSON equality at any depth: object members in any order, `1 == 1.0`, `true` is not `1`."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        tx, ty = type(x), type(y)
        if tx is dict:
            if ty is not dict or x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif tx is list:
            if ty is not list or len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif tx is bool or ty is bool or x is None or y is None:
            if tx is not ty or x != y:
                return False
        elif tx in (int, float):
            if ty not in (int, float) or x != y:
                return False
        elif tx is not ty or x != y:
            return False
    return True


def walk(value: Any) -> Iterator[tuple[Path, Any]]:
    """Every value inside `value` (itself first) with its path, depth first, in document order."""
    stack: list[tuple[Path, Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        yield path, item
        if isinstance(item, dict):
            stack.extend(((*path, k), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(item))))


def depth(value: Any) -> int:
    """How many containers deep `value` goes (0 for a scalar, 1 for `[1]` or `{}`)."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            level += 1
            stack.extend((v, level) for v in item.values())
        elif isinstance(item, list):
            level += 1
            stack.extend((v, level) for v in item)
        deepest = max(deepest, level)
    return deepest
