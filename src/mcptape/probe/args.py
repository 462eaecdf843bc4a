"""Minimal arguments for a tool, derived from its `inputSchema` (JSON Schema).

Only the required properties get a value: the schema's `const`, `default`, first `enum` value or
first `examples` entry when it has one, else the smallest value of its type that meets the
declared bounds (a string of `minLength` letters, `minimum`, `minItems` items...). `$ref` to a local
`$defs`/`definitions` entry is followed; `anyOf`/`oneOf` take their first non-null branch. The
result is a guess: `--args` replaces it when a tool needs real values.

A schema is the server's, so every value taken from it is bounded (`mcptape.limits`): a string
is at most 64 Ki characters whatever its `minLength`, a number within ±2**53 whatever its
`minimum`, an array at most 16 items, and a `const`/`default`/`enum`/`examples` value that
cannot be sent as JSON (nested past 64 levels, or larger than 64 KiB) is not used.
"""

from __future__ import annotations

import math
from typing import Any

import orjson

from mcptape.jsonsafe import depth as json_depth
from mcptape.limits import MAX_ARGUMENT_CHARS, MAX_ARGUMENT_NUMBER

PLACEHOLDER = "mcptape-probe"
_MAX_DEPTH = 8
_MAX_GIVEN_DEPTH = 64  # a schema's own value (const, default...) nested deeper is not sent


def minimal_arguments(schema: Any) -> dict[str, Any]:
    """Arguments that satisfy the required part of `schema` (an empty object when it says nothing)."""
    value = _value(schema, schema, 0)
    return value if isinstance(value, dict) else {}


def _resolve(node: Any, root: Any) -> Any:
    for _ in range(_MAX_DEPTH):
        if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
            return node
        ref: str = node["$ref"]
        if not ref.startswith("#/"):
            return {}
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        node = target if isinstance(target, dict) else {}
    return node


def _value(node: Any, root: Any, depth: int) -> Any:
    node = _resolve(node, root)
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return PLACEHOLDER
    for key in ("const", "default"):
        if key in node and _sendable(node[key]):
            return node[key]
    for key in ("enum", "examples"):
        options = node.get(key)
        if isinstance(options, list) and options and _sendable(options[0]):
            return options[0]
    for key in ("anyOf", "oneOf", "allOf"):
        branches = node.get(key)
        if isinstance(branches, list) and branches:
            usable = [b for b in branches if _resolve(b, root) != {"type": "null"}] or branches
            return _value(usable[0], root, depth + 1)
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in node else "string"
    return _of_type(str(kind), node, root, depth)


def _of_type(kind: str, node: dict[str, Any], root: Any, depth: int) -> Any:
    if kind == "object":
        properties = node.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = node.get("required")
        names = [n for n in required if isinstance(n, str)] if isinstance(required, list) else []
        return {name: _value(properties.get(name, {}), root, depth + 1) for name in names}
    if kind == "array":
        count = node.get("minItems")
        count = count if isinstance(count, int) and 0 < count <= 16 else 0
        return [_value(node.get("items", {}), root, depth + 1) for _ in range(count)]
    if kind in ("integer", "number"):
        for key in ("minimum", "exclusiveMinimum"):
            bound = _number(node.get(key))
            if bound is not None:
                low = bound + 1 if key == "exclusiveMinimum" else bound
                if kind == "integer":
                    low = math.floor(bound) + 1 if key == "exclusiveMinimum" else math.ceil(bound)
                return _clamp(low)
        maximum = _number(node.get("maximum"))
        if maximum is not None and maximum < 1:
            return _clamp(math.floor(maximum) if kind == "integer" else maximum)
        return 1
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    length = node.get("minLength")
    text = PLACEHOLDER
    if isinstance(length, int) and length > len(text):
        text = text + "x" * (min(length, MAX_ARGUMENT_CHARS) - len(text))
    maximum = node.get("maxLength")
    if isinstance(maximum, int) and 0 <= maximum < len(text):
        text = text[:maximum]
    return text


def _number(value: Any) -> float | int | None:
    """A finite JSON number, or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if isinstance(value, int) or math.isfinite(value) else None


def _clamp(value: float | int) -> float | int:
    """`value` within ±2**53 (every integer there is exact as a double; orjson sends it)."""
    return max(-MAX_ARGUMENT_NUMBER, min(MAX_ARGUMENT_NUMBER, value))


def _sendable(value: Any) -> bool:
    """Can the schema's own value be sent as an argument (encodable, shallow and small)?"""
    if isinstance(value, dict | list) and json_depth(value) > _MAX_GIVEN_DEPTH:
        return False
    try:
        return len(orjson.dumps(value)) <= MAX_ARGUMENT_CHARS
    except orjson.JSONEncodeError:
        return False
