"""The small part of JSON Schema needed to judge `tools/call` arguments against a tool's inputSchema.

Supported: `type` (one or a list), `required`, `properties`, `additionalProperties` (false or a
schema), `items`, `enum`, `const`, and `anyOf`/`oneOf`/`allOf` (each branch judged the same way).
Every other keyword (`$ref`, `pattern`, `minimum`, formats, ...) is accepted without judging: a
check that cannot be sure says nothing, so real sessions never get a false schema-violation.
"""

from __future__ import annotations

from typing import Any

_MAX_DEPTH = 32


def _is_type(value: Any, name: str) -> bool:
    t = type(value)
    if name == "object":
        return t is dict
    if name == "array":
        return t is list
    if name == "string":
        return t is str
    if name == "integer":
        return t is int or (t is float and value.is_integer())
    if name == "number":
        return t is int or t is float
    if name == "boolean":
        return t is bool
    if name == "null":
        return value is None
    return True  # an unknown type name is not judged


def violation(value: Any, schema: Any, path: str = "arguments", depth: int = 0) -> str | None:
    """The first way `value` falls outside `schema`, as one sentence, or None when it fits."""
    if type(schema) is not dict or depth > _MAX_DEPTH:
        return None
    expected = schema.get("type")
    if type(expected) is str and not _is_type(value, expected):
        return f"{path} should be of type {expected}"
    if (
        type(expected) is list
        and expected
        and not any(type(e) is str and _is_type(value, e) for e in expected)
    ):
        return f"{path} should be of type {' or '.join(str(e) for e in expected)}"
    if "const" in schema and not _equal(value, schema["const"]):
        return f"{path} should be {schema['const']!r}"
    enum = schema.get("enum")
    if type(enum) is list and not any(_equal(value, e) for e in enum):
        return f"{path} should be one of {enum!r}"[:200]
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if (
            type(branches) is list
            and branches
            and all(violation(value, b, path, depth + 1) is not None for b in branches)
        ):
            return f"{path} matches none of the {key} alternatives"
    branches = schema.get("allOf")
    if type(branches) is list:
        for branch in branches:
            problem = violation(value, branch, path, depth + 1)
            if problem is not None:
                return problem
    if type(value) is dict:
        return _object(value, schema, path, depth)
    if type(value) is list:
        items = schema.get("items")
        if type(items) is dict:
            for i, item in enumerate(value):
                problem = violation(item, items, f"{path}[{i}]", depth + 1)
                if problem is not None:
                    return problem
    return None


def _object(value: dict[str, Any], schema: dict[str, Any], path: str, depth: int) -> str | None:
    required = schema.get("required")
    if type(required) is list:
        for name in required:
            if type(name) is str and name not in value:
                return f"{path} lacks the required property {name!r}"
    properties = schema.get("properties")
    if type(properties) is not dict:
        properties = {}
    additional = schema.get("additionalProperties", True)
    for name, item in value.items():
        sub = properties.get(name)
        if sub is not None:
            problem = violation(item, sub, f"{path}.{name}", depth + 1)
            if problem is not None:
                return problem
        elif additional is False:
            return f"{path} has an unknown property {name!r} (additionalProperties is false)"
        elif type(additional) is dict:
            problem = violation(item, additional, f"{path}.{name}", depth + 1)
            if problem is not None:
                return problem
    return None


def _equal(a: Any, b: Any) -> bool:
    """JSON equality (True is not 1)."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    return bool(a == b)
