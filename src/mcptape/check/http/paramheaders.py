"""`Mcp-Param-{Name}` headers (2026-07-28, Streamable HTTP): what a `tools/call` POST must carry for
the tool parameters its `inputSchema` marks with `x-mcp-header`.

"When a server's tool definition includes `x-mcp-header` annotations, conforming clients **MUST**
mirror the designated parameter values into HTTP headers." The value is read "at the exact property
path of the annotated property (the chain of `properties` keys leading to it). If no value is present
at that path in the call arguments, the header is omitted." A string is sent as it is, an integer in
decimal, a boolean as `true`/`false` (Value Encoding); a `=?base64?...?=` value is decoded first.
An annotation anywhere else (under `items`, a composition keyword, `$ref`) makes the tool invalid for
a client, which drops it: such annotations are not followed here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcptape.check.http.values import decoded, differs, quoted_header

MAX_DEPTH = 32  # property chains followed (a schema from the wire can nest without end)
_ABSENT = object()


def header_paths(schema: Any) -> list[tuple[tuple[str, ...], str]]:
    """(the property path, the header name part) of every `x-mcp-header` reachable by `properties`."""
    found: list[tuple[tuple[str, ...], str]] = []
    stack: list[tuple[Any, tuple[str, ...]]] = [(schema, ())]
    while stack:
        node, path = stack.pop()
        properties = node.get("properties") if type(node) is dict else None
        if type(properties) is not dict or len(path) >= MAX_DEPTH:
            continue
        for key, sub in properties.items():
            if type(sub) is not dict:
                continue
            name = sub.get("x-mcp-header")
            if type(name) is str and name:
                found.append(((*path, key), name))
            stack.append((sub, (*path, key)))
    return found


def _at(arguments: Any, path: tuple[str, ...]) -> Any:
    value = arguments
    for key in path:
        if type(value) is not dict or key not in value:
            return _ABSENT
        value = value[key]
    return value


def _text(value: Any) -> str | None:
    """A parameter value as its header carries it (None: not a primitive a header can carry)."""
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is int or type(value) is str:
        return str(value)
    return None


def param_mismatches(schema: Any, arguments: Any, header: Callable[[str], str | None]) -> list[str]:
    """What is wrong with a `tools/call`'s `Mcp-Param-*` headers (`header(name)`: a header's value,
    names lower-cased), against its tool's `inputSchema`: a missing header, or one that differs."""
    wrong: list[str] = []
    for path, name in header_paths(schema):
        field = f"Mcp-Param-{name}"
        got = header(field.lower())
        value = _at(arguments, path)
        where = "arguments." + ".".join(path)
        if value is _ABSENT:
            if got is not None:
                shown = quoted_header(got)
                wrong.append(f"{field} is {shown}, but {where} is absent (the header is then omitted)")
            continue
        expected = _text(value)
        if expected is not None and decoded(got) != expected:
            wrong.append(differs(field, got, expected, where))
    return wrong
