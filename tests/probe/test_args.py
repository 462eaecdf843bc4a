"""Minimal tool arguments derived from an inputSchema."""

from __future__ import annotations

from typing import Any

import pytest

from mcptape.probe.args import PLACEHOLDER, minimal_arguments


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (None, {}),
        ({"type": "object"}, {}),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["a"],
            },
            {"a": PLACEHOLDER},
        ),
        (
            {
                "type": "object",
                "properties": {"tz": {"type": "string", "default": "UTC"}},
                "required": ["tz"],
            },
            {"tz": "UTC"},
        ),
        ({"properties": {"m": {"enum": ["fast", "slow"]}}, "required": ["m"]}, {"m": "fast"}),
        ({"properties": {"m": {"const": 7}}, "required": ["m"]}, {"m": 7}),
        (
            {"properties": {"m": {"type": "string", "examples": ["Europe/Paris"]}}, "required": ["m"]},
            {"m": "Europe/Paris"},
        ),
        ({"properties": {"n": {"type": "integer", "minimum": 5}}, "required": ["n"]}, {"n": 5}),
        ({"properties": {"n": {"type": "number", "exclusiveMinimum": 0}}, "required": ["n"]}, {"n": 1}),
        ({"properties": {"n": {"type": "integer", "maximum": -3}}, "required": ["n"]}, {"n": -3}),
        ({"properties": {"f": {"type": "boolean"}}, "required": ["f"]}, {"f": False}),
        (
            {"properties": {"s": {"type": "string", "minLength": 20}}, "required": ["s"]},
            {"s": PLACEHOLDER + "x" * 7},
        ),
        (
            {"properties": {"s": {"type": "string", "maxLength": 3}}, "required": ["s"]},
            {"s": PLACEHOLDER[:3]},
        ),
        (
            {
                "properties": {"xs": {"type": "array", "minItems": 2, "items": {"type": "integer"}}},
                "required": ["xs"],
            },
            {"xs": [1, 1]},
        ),
        ({"properties": {"o": {"type": ["null", "integer"]}}, "required": ["o"]}, {"o": 1}),
        (
            {"properties": {"o": {"anyOf": [{"type": "null"}, {"type": "boolean"}]}}, "required": ["o"]},
            {"o": False},
        ),
        (
            {
                "$defs": {
                    "Point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}
                },
                "properties": {"p": {"$ref": "#/$defs/Point"}},
                "required": ["p"],
            },
            {"p": {"x": 1}},
        ),
    ],
)
def test_minimal_arguments_meet_the_required_part_of_the_schema(
    schema: Any, expected: dict[str, Any]
) -> None:
    """Only required properties get a value: the schema's own one if it has one, else the smallest valid."""
    assert minimal_arguments(schema) == expected


def test_minimal_arguments_survive_a_recursive_schema() -> None:
    """A schema that refers to itself gives a bounded value instead of recursing forever."""
    schema = {
        "$ref": "#/$defs/N",
        "$defs": {"N": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}, "required": ["n"]}},
    }
    value = minimal_arguments(schema)
    depth = 0
    while isinstance(value, dict):
        value = value["n"]
        depth += 1
    assert 1 < depth < 20
