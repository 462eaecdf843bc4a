"""Every schema rule of `tools diff`, one row each: what the old inputSchema (or outputSchema)
accepted against the new one, and the severity that follows."""

from __future__ import annotations

from typing import Any

import pytest

from mcptape.surface.schemadiff import compare_schemas

S = {"type": "string"}
N = {"type": "integer"}


def obj(properties: dict[str, Any], required: list[str] | None = None, **more: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, **more}
    if required is not None:
        schema["required"] = required
    return schema


INPUT = [
    # name, old, new, expected [(severity, path, words in the detail)]
    (
        "property removed",
        obj({"a": S, "b": S}),
        obj({"a": S}),
        [("breaking", "/properties/b", "property b removed")],
    ),
    (
        "required added",
        obj({"a": S}),
        obj({"a": S, "b": S}, ["b"]),
        [("breaking", "/properties/b", "required property b added")],
    ),
    (
        "optional added",
        obj({"a": S}),
        obj({"a": S, "b": S}),
        [("compatible", "/properties/b", "optional property b added")],
    ),
    ("now required", obj({"a": S}), obj({"a": S}, ["a"]), [("breaking", "/properties/a", "now required")]),
    (
        "no longer required",
        obj({"a": S}, ["a"]),
        obj({"a": S}),
        [("compatible", "/properties/a", "no longer required")],
    ),
    (
        "type changed",
        obj({"a": S}),
        obj({"a": N}),
        [("breaking", "/properties/a/type", "string -> integer (changed)")],
    ),
    (
        "type narrowed",
        obj({"a": {"type": "number"}}),
        obj({"a": N}),
        [("breaking", "/properties/a/type", "narrowed")],
    ),
    (
        "type widened",
        obj({"a": N}),
        obj({"a": {"type": "number"}}),
        [("compatible", "/properties/a/type", "widened")],
    ),
    (
        "optional made nullable (anyOf)",
        obj({"a": S}),
        obj({"a": {"anyOf": [S, {"type": "null"}]}}),
        [("compatible", "/properties/a/type", "string -> null|string (widened)")],
    ),
    (
        "enum value removed",
        obj({"u": {"enum": ["c", "f", "k"]}}),
        obj({"u": {"enum": ["c", "f"]}}),
        [("breaking", "/properties/u/enum", 'removed: "k"')],
    ),
    (
        "enum widened",
        obj({"u": {"enum": ["c"]}}),
        obj({"u": {"enum": ["c", "f"]}}),
        [("compatible", "/properties/u/enum", 'added: "f"')],
    ),
    (
        "enum added",
        obj({"u": S}),
        obj({"u": {"type": "string", "enum": ["c"]}}),
        [("breaking", "/properties/u/enum", "limited")],
    ),
    (
        "additionalProperties turned false",
        obj({"a": S}),
        obj({"a": S}, additionalProperties=False),
        [("breaking", "/additionalProperties", "turned false")],
    ),
    (
        "bound tightened",
        obj({"n": {"type": "integer", "maximum": 10}}),
        obj({"n": {"type": "integer", "maximum": 5}}),
        [("breaking", "/properties/n/maximum", "tighter")],
    ),
    (
        "bound loosened",
        obj({"s": {"type": "string", "maxLength": 5}}),
        obj({"s": {"type": "string", "maxLength": 9}}),
        [("compatible", "/properties/s/maxLength", "looser")],
    ),
    (
        "nested object property removed",
        obj({"o": obj({"x": S, "y": S})}),
        obj({"o": obj({"x": S})}),
        [("breaking", "/properties/o/properties/y", "property y removed")],
    ),
    (
        "array items narrowed",
        obj({"l": {"type": "array", "items": {"type": "number"}}}),
        obj({"l": {"type": "array", "items": N}}),
        [("breaking", "/properties/l/items/type", "narrowed")],
    ),
    (
        "a change behind $ref is followed",
        {"$defs": {"U": {"enum": ["c", "f"]}}, **obj({"u": {"$ref": "#/$defs/U"}})},
        {"$defs": {"U": {"enum": ["c"]}}, **obj({"u": {"$ref": "#/$defs/U"}})},
        [("breaking", "/properties/u/enum", 'removed: "f"')],
    ),
    (
        "an unresolvable $ref could not be compared",
        obj({"u": S}),
        obj({"u": {"$ref": "https://example.invalid/u.json"}}),
        [("suspicious", "/properties/u", "could not compare: $ref")],
    ),
    (
        "oneOf of objects could not be compared",
        obj({"v": {"oneOf": [obj({"a": S}), obj({"b": S})]}}),
        obj({"v": {"oneOf": [obj({"a": S}), obj({"c": S})]}}),
        [("suspicious", "/properties/v/oneOf", "could not compare: oneOf changed")],
    ),
    (
        "allOf could not be compared",
        obj({"a": S}),
        obj({"a": S}, allOf=[{"required": ["a"]}]),
        [("suspicious", "/allOf", "could not compare")],
    ),
    (
        "a default changed is an annotation",
        obj({"a": {"type": "string", "default": "x"}}),
        obj({"a": {"type": "string", "default": "y"}}),
        [("compatible", "/properties/a/default", "annotation")],
    ),
    ("nothing changed but key order", {"properties": {"a": S}, "type": "object"}, obj({"a": S}), []),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"), [row[1:] for row in INPUT], ids=[row[0] for row in INPUT]
)
def test_input_schema_rules(old: Any, new: Any, expected: list[tuple[str, str, str]]) -> None:
    """A client sends the input: accepting less is breaking, more is compatible."""
    found, _ = compare_schemas(old, new, "", output=False)
    assert [(f.severity.value, f.path) for f in found] == [(s, p) for s, p, _ in expected]
    for change, (_, _, words) in zip(found, expected, strict=True):
        assert words in change.detail


OUTPUT = [
    (
        "output field removed",
        obj({"r": N, "t": S}),
        obj({"r": N}),
        [("breaking", "/properties/t", "output field t removed")],
    ),
    ("output type changed", obj({"r": N}), obj({"r": S}), [("breaking", "/properties/r/type", "changed")]),
    (
        "output type widened",
        obj({"r": N}),
        obj({"r": {"type": "number"}}),
        [("breaking", "/properties/r/type", "widened")],
    ),
    (
        "output field added",
        obj({"r": N}),
        obj({"r": N, "t": S}),
        [("compatible", "/properties/t", "output field t added")],
    ),
    (
        "output field no longer always present",
        obj({"r": N}, ["r"]),
        obj({"r": N}),
        [("breaking", "/properties/r", "no longer always present")],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"), [row[1:] for row in OUTPUT], ids=[row[0] for row in OUTPUT]
)
def test_output_schema_rules(old: Any, new: Any, expected: list[tuple[str, str, str]]) -> None:
    """A client reads the output: a field removed or a type changed is breaking, a field added is not."""
    found, _ = compare_schemas(old, new, "", output=True)
    assert [(f.severity.value, f.path) for f in found] == [(s, p) for s, p, _ in expected]
    for change, (_, _, words) in zip(found, expected, strict=True):
        assert words in change.detail


def test_a_parameter_description_comes_back_as_text() -> None:
    """A description inside the schema is returned for the caller to judge (suspicious)."""
    _, texts = compare_schemas(
        obj({"a": {"type": "string", "description": "x"}}),
        obj({"a": {"type": "string", "description": "y"}}),
        "/inputSchema",
        output=False,
    )
    assert [(t.path, t.old, t.new) for t in texts] == [("/inputSchema/properties/a/description", "x", "y")]


def test_a_schema_nested_past_the_bound_could_not_be_compared() -> None:
    """A hostile schema hundreds of levels deep is reported, not walked to the bottom."""
    old: dict[str, Any] = S
    new: dict[str, Any] = N
    for _ in range(400):
        old, new = obj({"n": old}), obj({"n": new})
    found, _ = compare_schemas(old, new, "", output=False)
    assert [f.severity.value for f in found] == ["suspicious"]
    assert "nested deeper than" in found[0].detail


def test_a_property_name_is_escaped_in_its_pointer() -> None:
    """A property named with `/` or `~` keeps a readable JSON pointer (RFC 6901)."""
    found, _ = compare_schemas(obj({"a/b~c": S}), obj({}), "", output=False)
    assert found[0].path == "/properties/a~1b~0c"


def test_a_recursive_schema_through_ref_is_compared_once() -> None:
    """A tree whose node refers to itself, unchanged, is no change (not "nested too deep"); a change
    in the node is found once."""
    node = {
        "type": "object",
        "properties": {"label": S, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
    }
    old = {"$defs": {"Node": node}, **obj({"root": {"$ref": "#/$defs/Node"}})}
    assert compare_schemas(old, old, "", output=False) == ([], [])
    changed_node = {**node, "required": ["label"]}
    new = {"$defs": {"Node": changed_node}, **obj({"root": {"$ref": "#/$defs/Node"}})}
    found, _ = compare_schemas(old, new, "", output=False)
    assert [(f.severity.value, f.path) for f in found] == [("breaking", "/properties/root/properties/label")]
