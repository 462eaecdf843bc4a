"""Full JSON Schema for tool arguments: every violation, the right dialect, no network, no stall."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mcptape.check import schema
from mcptape.check.schema import DRAFT_07, DRAFT_2020_12, compile_schema, default_dialect, violations

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 2},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
        "units": {"enum": ["metric", "imperial"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"city": "Paris"}, []),
        ({"city": "Paris", "days": 3.0}, []),  # 3.0 is an integer in JSON Schema
        ({}, ["arguments: 'city' is a required property"]),
        ({"city": "P"}, ["arguments.city: 'P' is too short"]),
        ({"city": "Paris", "days": True}, ["arguments.days: True is not of type 'integer'"]),
        ({"city": "Paris", "days": 9}, ["arguments.days: 9 is greater than the maximum of 7"]),
        (
            {"city": "Paris", "units": "kelvin"},
            ["arguments.units: 'kelvin' is not one of ['metric', 'imperial']"],
        ),
        (
            {"city": "Paris", "extra": 1},
            ["arguments: Additional properties are not allowed ('extra' was unexpected)"],
        ),
        (
            {"days": 0, "units": 1, "extra": 1},
            [
                "arguments.days: 0 is less than the minimum of 1",
                "arguments.units: 1 is not one of ['metric', 'imperial']",
                "arguments: 'city' is a required property",
                "arguments: Additional properties are not allowed ('extra' was unexpected)",
            ],
        ),
    ],
)
def test_every_violation_of_a_call_is_reported(arguments: dict[str, Any], expected: list[str]) -> None:
    """Each way a call's arguments miss the schema is one sentence, with the argument's path."""
    assert violations(arguments, WEATHER) == expected


def test_violations_are_capped() -> None:
    """A call with a thousand bad items reports the first `limit` of them, not all."""
    many = {"type": "array", "items": {"type": "string"}}
    assert len(violations(list(range(1000)), many)) == schema.MAX_PROBLEMS
    assert len(violations(list(range(1000)), many, limit=3)) == 3


def test_unknown_arguments_are_judged_only_where_the_schema_forbids_them() -> None:
    """JSON Schema allows extra properties unless the schema says otherwise."""
    open_schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert violations({"a": "x", "b": 1}, open_schema) == []
    closed = {**open_schema, "unevaluatedProperties": False}
    assert violations({"a": "x", "b": 1}, closed) == [
        "arguments: Unevaluated properties are not allowed ('b' was unexpected)"
    ]


def test_local_refs_are_followed() -> None:
    """`$ref` into `$defs` (2020-12) and `definitions` (draft-07) is resolved inside the schema."""
    modern = {"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}
    assert violations({"a": "x"}, modern) == ["arguments.a: 'x' is not of type 'integer'"]
    old = {
        "$schema": DRAFT_07,
        "definitions": {"n": {"type": "integer"}},
        "properties": {"a": {"$ref": "#/definitions/n"}},
    }
    assert violations({"a": "x"}, old) == ["arguments.a: 'x' is not of type 'integer'"]


@pytest.mark.parametrize(
    ("version", "dialect"),
    [
        ("2024-11-05", DRAFT_07),
        ("2025-03-26", DRAFT_07),
        ("2025-06-18", DRAFT_07),
        ("2025-11-25", DRAFT_2020_12),
        ("2026-07-28", DRAFT_2020_12),
        (None, DRAFT_2020_12),
    ],
)
def test_the_default_dialect_follows_the_revision(version: str | None, dialect: str) -> None:
    """2020-12 is the default dialect from 2025-11-25 on; earlier revisions generated draft-07."""
    assert default_dialect(version) == dialect


def test_the_dialect_changes_the_verdict() -> None:
    """An array-form `items` is a tuple in draft-07 and a schema error in 2020-12 (not judged)."""
    tuple_items = {"properties": {"pair": {"items": [{"type": "string"}, {"type": "integer"}]}}}
    assert violations({"pair": [1, 2]}, tuple_items, dialect=DRAFT_07) == [
        "arguments.pair[0]: 1 is not of type 'string'"
    ]
    assert violations({"pair": [1, 2]}, tuple_items, dialect=DRAFT_2020_12) == []
    assert compile_schema(tuple_items, DRAFT_2020_12).problem is not None
    explicit = {"$schema": DRAFT_07, **tuple_items}
    assert violations({"pair": [1, 2]}, explicit, dialect=DRAFT_2020_12) != []


def test_formats_are_annotations() -> None:
    """`format` is not asserted (both dialects' default), so no finding hangs on a format library."""
    assert violations({"mail": "not an address"}, {"properties": {"mail": {"format": "email"}}}) == []


def test_boolean_schemas() -> None:
    """`true` accepts everything, `false` nothing."""
    assert violations({"a": 1}, True) == []
    assert violations({"a": 1}, False) == ["arguments: False schema does not allow {'a': 1}"]


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ({"type": 5}, "not a valid schema"),
        ({"properties": {"a": {"pattern": "("}}}, "not a valid schema"),
        ({"$schema": "https://example.com/my-dialect"}, "unsupported JSON Schema dialect"),
        ({"$schema": 7}, "$schema is not a string"),
        ([1, 2], "not a JSON Schema"),
        (None, "not a JSON Schema"),
    ],
)
def test_a_schema_that_cannot_judge_says_why_and_judges_nothing(bad: Any, problem: str) -> None:
    """An invalid schema, or one of an unknown dialect, gives no violation and names its problem."""
    compiled = compile_schema(bad)
    assert not compiled.judges
    assert compiled.problem is not None and compiled.problem.startswith(problem)
    assert compiled.violations({"a": 1}) == []


def test_a_network_ref_is_never_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `$ref` to a network URI stays unresolved: the call is not judged, and nothing is fetched."""
    import urllib.request

    def no_network(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the validator tried to fetch a remote $ref")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    remote = {"properties": {"a": {"$ref": "https://schemas.example/a.json"}}}
    compiled = compile_schema(remote)
    assert compiled.violations({"a": 1}) == []
    assert (compiled.unjudged({"a": 1}) or "").startswith("a $ref does not resolve inside the schema")


def test_a_dangling_local_ref_is_unjudged() -> None:
    """A local `$ref` to nothing is the schema's problem, not the call's."""
    compiled = compile_schema({"properties": {"a": {"$ref": "#/$defs/missing"}}})
    assert compiled.violations({"a": 1}) == []
    assert "does not resolve" in (compiled.unjudged({"a": 1}) or "")


def _nested(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth):
        node["items"] = {}
        node = node["items"]
    return root


def test_hostile_schemas_are_refused_quickly() -> None:
    """Too deep, too large, or exponential through `$ref`s: refused or stopped within a budget."""
    assert (compile_schema(_nested(500)).problem or "").startswith("nested deeper than")
    huge = {"properties": {f"p{i}": {"type": "string"} for i in range(schema.MAX_SCHEMA_NODES)}}
    assert (compile_schema(huge).problem or "").startswith("more than")
    defs: dict[str, Any] = {
        f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(40)
    }
    defs["d40"] = {"type": "string"}
    exploding = compile_schema({"$defs": defs, "$ref": "#/$defs/d0"})
    started = time.monotonic()
    assert exploding.violations(5) == []
    assert time.monotonic() - started < 5
    assert not exploding.judges  # once over budget, the schema judges nothing more
    assert (exploding.problem or "").startswith("needs more than")
    assert exploding.violations(5) == []


def test_a_self_referencing_schema_and_a_deep_value_do_not_crash() -> None:
    """`{"$ref": "#"}` loops and a 900-level value recurse: both end as unjudged, not a crash."""
    value: list[Any] = []
    node = value
    for _ in range(900):
        child: list[Any] = []
        node.append(child)
        node = child
    assert compile_schema({"items": {"$ref": "#"}}).violations(value) == []
    assert compile_schema({"$ref": "#"}).violations(1) == []


def test_hostile_values_do_not_stall_the_check() -> None:
    """A backtracking pattern and a huge `uniqueItems` array are skipped, not run."""
    started = time.monotonic()
    assert violations("a" * 60 + "!", {"pattern": "^(a+)+$"}) == []
    assert violations([{"k": i} for i in range(50_000)], {"uniqueItems": True}) == []
    assert time.monotonic() - started < 2
    assert violations("b", {"pattern": "^a"}) == ["arguments: 'b' does not match '^a'"]
    assert violations([1, 1], {"uniqueItems": True}) == ["arguments: [1, 1] has non-unique elements"]


def test_compiled_schemas_are_cached() -> None:
    """The same schema (or an equal one) compiles once."""
    first = compile_schema({"type": "object", "required": ["x"]})
    assert compile_schema({"required": ["x"], "type": "object"}) is first
    same = {"type": "object", "required": ["y"]}
    assert compile_schema(same) is compile_schema(same)
    assert compile_schema(same, DRAFT_07) is not compile_schema(same, DRAFT_2020_12)
