"""Ignore rules: their syntax, and how the comparison applies them."""

from __future__ import annotations

from typing import Any

import pytest

from mcptape.diff.compare import MISSING, compare, same_value
from mcptape.diff.ignore import JSON, parse_rule, render_path
from mcptape.errors import UsageError


@pytest.mark.parametrize(
    ("text", "scope", "pattern"),
    [
        ("tools/call:result.content[*].text", "tools/call", ("result", "content", -1, "text")),
        (
            "tools/call:result.content[*].text|json.timestamp",
            "tools/call",
            ("result", "content", -1, "text", JSON, "timestamp"),
        ),
        ("result._meta", "*", ("result", "_meta")),
        ("*:result.*.id", "*", ("result", "*", "id")),
        ('notifications/message:params["a.b"][2]', "notifications/message", ("params", "a.b", 2)),
        ("exec:pid", "exec", ("pid",)),
        (
            "tools/call:result.content[0].text|json|json.x",
            "tools/call",
            ("result", "content", 0, "text", JSON, JSON, "x"),
        ),
    ],
)
def test_rules_parse_into_a_scope_and_a_path_pattern(text: str, scope: str, pattern: tuple[Any, ...]) -> None:
    """`[SCOPE:]PATH` with members, indexes, wildcards, quoted names and |json steps."""
    rule = parse_rule(text)
    assert (rule.scope, rule.pattern) == (scope, pattern)


@pytest.mark.parametrize(
    "text", ["", "tools/call:", "result..x", "result[abc]", "result[1", "result.", "a b"]
)
def test_a_malformed_rule_is_a_usage_error_naming_it(text: str) -> None:
    """A rule that cannot be parsed is refused with its text in the message (exit 2 from the CLI)."""
    with pytest.raises(UsageError) as info:
        parse_rule(text)
    assert repr(text) in info.value.message


def test_paths_render_back_in_rule_syntax() -> None:
    """A changed path is shown in the syntax a rule would use to ignore it."""
    assert render_path(("result", "content", 0, "text", JSON, "ts")) == "result.content[0].text|json.ts"
    assert render_path(("params", "a.b", "c d")) == 'params["a.b"]["c d"]'


def test_member_order_never_matters_and_booleans_are_not_numbers() -> None:
    """Objects compare by member; 1 == 1.0; true != 1; a missing member is a change."""
    assert same_value({"a": 1, "b": [1, 2]}, {"b": [1, 2.0], "a": 1.0})
    assert not same_value({"a": True}, {"a": 1})
    changes, hidden = compare({"a": 1, "b": 2}, {"b": 3, "c": 4})
    assert [(c.where, c.kind) for c in changes] == [("a", "removed"), ("b", "changed"), ("c", "added")]
    assert changes[0].new is MISSING and not hidden


def test_a_rule_hides_a_subtree_and_records_what_it_hid() -> None:
    """A hidden difference is not a change, and is listed with the rule and both values."""
    rule = parse_rule("x:result.content[*].text")
    old = {"result": {"content": [{"text": "a"}, {"text": "b"}], "n": 1}}
    new = {"result": {"content": [{"text": "A"}, {"text": "b"}], "n": 2}}
    changes, hidden = compare(old, new, [rule])
    assert [c.where for c in changes] == ["result.n"]
    assert [(h.where, h.old, h.new) for h in hidden] == [("result.content[0].text", "a", "A")]


def test_a_json_step_compares_inside_an_embedded_document() -> None:
    """`|json` hides one member of a JSON text; other members of that text still count."""
    rule = parse_rule("tools/call:result.content[*].text|json.ts")
    old = {"result": {"content": [{"text": '{"ts": 1, "v": "a"}'}]}}
    same_doc = {"result": {"content": [{"text": '{"v": "a", "ts": 2}'}]}}
    other_doc = {"result": {"content": [{"text": '{"v": "b", "ts": 3}'}]}}
    changes, hidden = compare(old, same_doc, [rule])
    assert not changes and [h.where for h in hidden] == ["result.content[0].text|json.ts"]
    changes, _ = compare(old, other_doc, [rule])
    assert [(c.where, c.old, c.new) for c in changes] == [("result.content[0].text|json.v", "a", "b")]
    changes, _ = compare(old, {"result": {"content": [{"text": "not json"}]}}, [rule])
    assert [c.where for c in changes] == ["result.content[0].text"]


def test_scopes_select_the_messages_a_rule_applies_to() -> None:
    """A method scope, `*` for every method, and exec/http only for executor lines."""
    assert parse_rule("tools/call:result").applies_to("tools/call")
    assert not parse_rule("tools/call:result").applies_to("tools/list")
    assert parse_rule("result").applies_to("prompts/get")
    assert not parse_rule("result").applies_to("exec")
    assert parse_rule("exec:pid").applies_to("exec") and not parse_rule("exec:pid").applies_to("tools/call")
