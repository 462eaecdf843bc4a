"""Depth: a message nested as deep as the check core accepts is walked, compared, encoded and
printed by every command without a crash."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape import jsonsafe

DEEPEST = 1024  # what orjson.loads (the check core's parser) accepts


def nested(levels: int, leaf: Any = 1) -> Any:
    """`levels` containers around `leaf`, objects and arrays alternating."""
    value = leaf
    for i in range(levels):
        value = {"a": value, "n": i} if i % 2 else [value, i]
    return value


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(value=json_values, indent=st.booleans(), sort_keys=st.booleans())
def test_the_iterative_encoder_writes_what_orjson_writes(value: Any, indent: bool, sort_keys: bool) -> None:
    """The fallback encoder is the fast path's twin: the same text for every value orjson accepts."""
    option = (orjson.OPT_INDENT_2 if indent else 0) | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    assert jsonsafe._encode(value, indent, sort_keys, None) == orjson.dumps(value, option=option).decode()


@pytest.mark.parametrize("indent", [False, True])
def test_dumps_encodes_the_deepest_value_the_parser_accepts(indent: bool) -> None:
    """A value 1024 levels deep (orjson.dumps refuses past 254) encodes and reads back the same."""
    value = nested(DEEPEST - 1)
    text = jsonsafe.dumps(value, indent=indent)
    assert jsonsafe.equal(orjson.loads(text), value)
    assert jsonsafe.depth(value) == DEEPEST - 1


def test_dumps_writes_what_orjson_refuses_as_readable_json() -> None:
    """Lone surrogates, big integers and non-string names are written instead of raising."""
    text = jsonsafe.dumps({"s": "a\udcff", 1: 2**70, "deep": nested(300)})
    back = json.loads(text)
    assert back["s"] == "a\udcff" and back["1"] == 2**70


def test_dumps_calls_default_for_other_types_and_raises_without_it() -> None:
    """A value that is not JSON goes through `default`, as with orjson."""
    assert jsonsafe.dumps(nested(300, leaf=object()), default=lambda _: "x").count('"x"') == 1
    with pytest.raises(TypeError):
        jsonsafe.dumps(nested(300, leaf=object()))


def test_equal_compares_deep_values_as_json() -> None:
    """equal: member order ignored, 1 == 1.0, true is not 1, at 1024 levels."""
    assert jsonsafe.equal(nested(DEEPEST, {"x": 1, "y": 2}), nested(DEEPEST, {"y": 2, "x": 1.0}))
    assert not jsonsafe.equal(nested(DEEPEST, 1), nested(DEEPEST, True))
    assert not jsonsafe.equal(nested(DEEPEST, [1]), nested(DEEPEST, [1, 2]))
    assert not jsonsafe.equal({"a": None}, {"a": 0})


def test_walk_visits_every_value_with_its_path_in_document_order() -> None:
    """walk yields the root first, then members and elements in order, however deep."""
    assert list(jsonsafe.walk({"a": [1, {"b": 2}], "c": 3})) == [
        ((), {"a": [1, {"b": 2}], "c": 3}),
        (("a",), [1, {"b": 2}]),
        (("a", 0), 1),
        (("a", 1), {"b": 2}),
        (("a", 1, "b"), 2),
        (("c",), 3),
    ]
    assert max(len(path) for path, _ in jsonsafe.walk(nested(DEEPEST))) == DEEPEST
