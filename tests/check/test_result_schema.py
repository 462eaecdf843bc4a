"""The result-schema rule's fast path has a twin: the published schema's validator.

`plain_call` says a `tools/call` result is valid without asking the validator; on valid and damaged
results alike, it may say so only of results the validator accepts. The memo of verdicts gives the
validator's own answer. The bundled schema is the published one (its `$defs` are the revision's).
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.check import results
from mcptape.check.results import plain_call, problems

TEXT: dict[str, Any] = {"type": "text", "text": "hello"}
BASE: dict[str, Any] = {
    "content": [TEXT],
    "isError": False,
    "resultType": "complete",
    "structuredContent": {"n": 1},
}
SERVER_META = {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}

# Values to put at a place of a result: the right kind, the wrong kind, and nothing.
ODD = [None, 1, 1.5, "x", True, [], {}, [TEXT], {"type": "text"}, {"type": "image", "data": "x"}]
PLACES: list[tuple[str, ...]] = [
    ("content",),
    ("content", "0"),
    ("content", "0", "type"),
    ("content", "0", "text"),
    ("content", "0", "annotations"),
    ("content", "0", "_meta"),
    ("isError",),
    ("resultType",),
    ("_meta",),
    ("_meta", "io.modelcontextprotocol/serverInfo"),
    ("structuredContent",),
]


def damaged(place: tuple[str, ...], value: Any, start: dict[str, Any]) -> dict[str, Any] | None:
    """`start` with `value` at `place` (None when the place does not exist in it)."""
    result = copy.deepcopy(start)
    node: Any = result
    for key in place[:-1]:
        node = (node[int(key)] if int(key) < len(node) else None) if type(node) is list else node.get(key)
        if type(node) not in (dict, list):
            return None
    last = place[-1]
    if type(node) is list:
        if int(last) >= len(node):
            return None
        node[int(last)] = value
    else:
        node[last] = value
    return result


def cases() -> list[dict[str, Any]]:
    starts: list[dict[str, Any]] = [
        BASE,
        {**BASE, "_meta": SERVER_META},
        {"content": [], "resultType": "complete"},
    ]
    out: list[dict[str, Any]] = list(starts)
    for start in starts:
        for place in PLACES:
            for value in ODD:
                changed = damaged(place, value, start)
                if changed is not None:
                    out.append(changed)
        for place in PLACES:  # and without the place at all
            if len(place) == 1:
                out.append({k: v for k, v in start.items() if k != place[0]})
    return out


def test_the_fast_path_accepts_only_what_the_validator_accepts() -> None:
    """Every damaged result the fast path calls valid is valid by the schema; and it does call the
    common ones valid (it is a real fast path)."""
    fast = 0
    for result in cases():
        for meta in (None, SERVER_META):
            if plain_call(result, meta):
                fast += 1
                assert problems(result, "CallToolResult") == [], result
    assert fast > 20


def test_the_fast_path_trusts_a_meta_only_once_the_validator_judged_it() -> None:
    """A result `_meta` is taken as valid only when it equals one the validator accepted."""
    result = {**BASE, "_meta": SERVER_META}
    assert not plain_call(result, None)
    assert plain_call(result, SERVER_META)
    assert not plain_call({**BASE, "_meta": {"io.modelcontextprotocol/serverInfo": {}}}, SERVER_META)


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", "text", "image"]))
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["type", "text", "data", "mimeType", "_meta", "x"]), inner, max_size=3
        ),
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(
    content=st.lists(
        st.one_of(
            st.just(TEXT), json_value, st.fixed_dictionaries({"type": st.just("text"), "text": json_value})
        ),
        max_size=3,
    ),
    is_error=st.one_of(st.none(), st.booleans(), json_leaf),
)
def test_generated_results_the_fast_path_accepts_are_valid(content: list[Any], is_error: Any) -> None:
    """Generated content blocks and isError values: what the fast path accepts, the validator accepts."""
    result: dict[str, Any] = {"content": content, "resultType": "complete"}
    if is_error is not None:
        result["isError"] = is_error
    if plain_call(result, None):
        assert problems(result, "CallToolResult") == []


def test_a_memoised_verdict_is_the_validators() -> None:
    """The same value judged twice gets the same sentences, from the memo the second time."""
    bad = {"content": [{"type": "audio", "data": "x"}], "resultType": "complete"}
    first = problems(bad, "CallToolResult")
    assert first == ["result.content[0]: 'mimeType' is a required property"]
    assert any(
        key[3] == b'{"content":[{"data":"x","type":"audio"}],"resultType":"complete"}'
        for key in results._memo
    )
    assert problems(bad, "CallToolResult") == first


def test_the_bundled_schema_is_the_published_2026_07_28_one() -> None:
    """The file carries the published document: its dialect and the definitions the rules name."""
    document = results._schema("2026-07-28")
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    names = {*results.RESULT_TYPES.values(), results.INPUT_REQUIRED, *results.ERROR_TYPES.values()}
    assert names <= set(document["$defs"])
    assert document["$defs"]["ImageContent"]["required"] == ["data", "mimeType", "type"]
