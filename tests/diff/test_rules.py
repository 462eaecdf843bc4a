"""Ignore rules with a target (`tools/call[NAME]`) and shapes (`|uuid`): syntax and effect."""

from __future__ import annotations

from typing import Any

import pytest

from mcptape.diff.compare import compare
from mcptape.diff.ignore import JSON, masked_by, parse_rule, rule_text
from mcptape.errors import UsageError


@pytest.mark.parametrize(
    ("text", "scope", "target", "pattern", "shapes"),
    [
        (
            "tools/call[get_current_time]:result.content[*].text|json.datetime|time",
            "tools/call",
            "get_current_time",
            ("result", "content", -1, "text", JSON, "datetime"),
            ("time",),
        ),
        (
            "resources/read[demo://resource/dynamic/blob/1]:result.contents[*].blob",
            "resources/read",
            "demo://resource/dynamic/blob/1",
            ("result", "contents", -1, "blob"),
            (),
        ),
        (
            "tools/call:result.content[*].text|uuid|path",
            "tools/call",
            None,
            ("result", "content", -1, "text"),
            ("uuid", "path"),
        ),
        ('result["a:b"]', "*", None, ("result", "a:b"), ()),
        ("x:result.text|json|uuid", "x", None, ("result", "text", JSON), ("uuid",)),
    ],
)
def test_a_rule_names_a_target_and_shapes(
    text: str, scope: str, target: str | None, pattern: tuple[Any, ...], shapes: tuple[str, ...]
) -> None:
    """`METHOD[TARGET]:PATH|shape...` parses into its parts, and renders back to the same text."""
    rule = parse_rule(text)
    assert (rule.scope, rule.target, rule.pattern, rule.shapes) == (scope, target, pattern, shapes)
    if rule.scope != "*":
        assert rule_text(rule.scope, rule.target, rule.pattern, rule.shapes) == text


@pytest.mark.parametrize("text", ["tools/call[]:result", "tools/call:result.text|guid", "result|Uuid"])
def test_an_empty_target_or_an_unknown_shape_is_refused(text: str) -> None:
    """A rule with `[]` or a shape that does not exist is a usage error naming the rule."""
    with pytest.raises(UsageError) as info:
        parse_rule(text)
    assert repr(text) in info.value.message


def test_a_targeted_rule_applies_only_to_its_tool() -> None:
    """`tools/call[a]` covers calls of tool a, not of tool b, nor another method."""
    rule = parse_rule("tools/call[a]:result")
    assert rule.applies_to("tools/call", "a")
    assert not rule.applies_to("tools/call", "b")
    assert not rule.applies_to("tools/call", None)
    assert not rule.applies_to("prompts/get", "a")
    assert parse_rule("tools/call:result").applies_to("tools/call", "b")


def test_a_shape_rule_masks_strings_at_and_under_its_path_and_hides_nothing_whole() -> None:
    """A shape rule never hides a value whole; it makes two strings equal when only its shapes differ."""
    rule = parse_rule("tools/call:result|uuid")
    assert not rule.matches(("result",))
    path = ("result", "content", 0, "text")
    u1, u2 = "3f2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f", "9b2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f"
    assert masked_by([rule], path, f"id {u1}", f"id {u2}") == [rule]
    assert masked_by([rule], path, f"id {u1}", f"ID {u2}") == []
    assert masked_by([rule], ("error",), f"id {u1}", f"id {u2}") == []


def test_two_shape_rules_at_one_place_mask_together() -> None:
    """A UUID rule and a time rule that reach the same string each take their part of the change."""
    uuid_rule, time_rule = parse_rule("*:result|uuid"), parse_rule("*:result.text|time")
    old = "3f2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f at 2026-11-29T19:44:55Z"
    new = "9b2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f at 2026-11-30T08:00:00Z"
    assert masked_by([uuid_rule, time_rule], ("result", "text"), old, new) == [uuid_rule, time_rule]


def test_the_diff_hides_a_uuid_inside_a_tool_text_and_still_shows_a_changed_word() -> None:
    """`|uuid` hides the new UUID in a text (noted as hidden) but not a change of the words around it."""
    rules = [parse_rule("tools/call[url]:result.content[*].text|uuid")]
    old = {"result": {"content": [{"type": "text", "text": "ID: 3f2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f"}]}}
    new = {"result": {"content": [{"type": "text", "text": "ID: 9b2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f"}]}}
    changes, hidden = compare(old, new, rules)
    assert not changes and [h.where for h in hidden] == ["result.content[0].text"]
    worse = {"result": {"content": [{"type": "text", "text": "Id: 9b2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f"}]}}
    changes, hidden = compare(old, worse, rules)
    assert [c.where for c in changes] == ["result.content[0].text"] and not hidden
