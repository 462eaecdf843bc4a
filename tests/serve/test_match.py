"""Matching a client request to a recorded one: the three modes, the rules, what is carried."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from mcptape.check.classify import classify_line
from mcptape.check.model import Message
from mcptape.diff.ignore import parse_rule
from mcptape.serve.carry import apply, carried
from mcptape.serve.match import Matcher
from mcptape.serve.pool import Pool, load_pool
from tests.serve.tapes import Tape, call, request, result, text, time_tape


def msg(value: dict[str, Any]) -> Message:
    return classify_line(orjson.dumps(value) + b"\n", "in")


def pool(tmp_path: Path) -> Pool:
    path = tmp_path / "t.jsonl"
    return load_pool([path if path.exists() else time_tape().write(path)])


def test_params_mode_matches_by_method_and_params_in_any_order(tmp_path: Path) -> None:
    """A call asked before the others gets its own recorded answer, whatever its id."""
    matcher = Matcher(pool(tmp_path))
    found = matcher.request(msg(call("a", "now", zone="Asia/Tokyo")))
    assert found.entry is not None and found.entry.id == 5 and not found.repeated
    assert matcher.request(msg(call(99, "now", zone="UTC"))).entry.id == 3  # type: ignore[union-attr]


def test_the_meta_envelope_is_not_compared_unless_asked(tmp_path: Path) -> None:
    """Another client version in _meta still matches; with match_meta it does not."""
    asked = call(1, "now", zone="UTC")
    asked["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] = {"name": "other", "version": "9"}
    assert Matcher(pool(tmp_path)).request(msg(asked)).entry is not None
    missed = Matcher(pool(tmp_path), match_meta=True).request(msg(asked))
    assert missed.entry is None and missed.changes[0].where.startswith("params._meta")


def test_an_ignore_rule_leaves_a_param_out_of_the_comparison(tmp_path: Path) -> None:
    """`tools/call[now]:params.arguments.zone` makes any zone match the first recorded call."""
    rules = [parse_rule("tools/call[now]:params.arguments.zone")]
    found = Matcher(pool(tmp_path), rules=rules).request(msg(call(1, "now", zone="Mars/Olympus")))
    assert found.entry is not None and found.entry.id == 3
    assert [h.where for h in found.hidden] == ["params.arguments.zone"]


def test_method_mode_takes_the_recorded_order(tmp_path: Path) -> None:
    """Any tools/call gets the next recorded tools/call answer."""
    matcher = Matcher(pool(tmp_path), "method")
    ids = [matcher.request(msg(call(i, "now", zone="X"))).entry.id for i in range(3)]  # type: ignore[union-attr]
    assert ids == [3, 4, 5]


def test_strict_mode_needs_the_recorded_order_and_params(tmp_path: Path) -> None:
    """Out of order is a miss that names the recorded request expected; in order, each matches."""
    matcher = Matcher(pool(tmp_path), "strict")
    missed = matcher.request(msg(request(1, "tools/list", meta=True)))
    assert missed.entry is None and missed.closest is not None and missed.closest.method == "server/discover"
    assert matcher.request(msg(request(1, "server/discover", meta=True))).entry is not None
    assert matcher.request(msg(request(2, "tools/list", meta=True))).entry is not None


def test_a_request_asked_more_often_than_recorded_gets_the_answer_again(tmp_path: Path) -> None:
    """The second tools/list is served with the one recorded answer, counted as repeated."""
    matcher = Matcher(pool(tmp_path))
    assert not matcher.request(msg(request(1, "tools/list", meta=True))).repeated
    again = matcher.request(msg(request(2, "tools/list", meta=True)))
    assert again.entry is not None and again.repeated


def test_a_miss_names_the_nearest_recorded_request_and_where_it_differs(tmp_path: Path) -> None:
    """An unrecorded zone: no answer; the nearest call and the path that differs are given."""
    found = Matcher(pool(tmp_path)).request(msg(call(1, "now", zone="Mars/Olympus")))
    assert found.entry is None and found.closest is not None
    assert [(c.where, c.new) for c in found.changes] == [("params.arguments.zone", "Mars/Olympus")]


def test_the_nearest_request_is_one_of_the_same_tool_first(tmp_path: Path) -> None:
    """A call of `log` with other arguments is nearer than a call of another tool that differs
    only by its name (what a client author looks for first)."""
    tape = (
        Tape()
        .client(request(1, "tools/list"))
        .server(result(1, {"tools": [{"name": "status"}, {"name": "log"}]}))
    )
    tape.client(call(2, "status", repo="/r")).server(text(2, "clean"))
    tape.client(call(3, "log", repo="/r", max=2)).server(text(3, "two commits"))
    matcher = Matcher(load_pool([tape.end().write(tmp_path / "git.jsonl")]))

    found = matcher.request(msg(call(9, "log", repo="/r")))

    assert found.entry is None and found.closest is not None and found.closest.id == 3
    assert [(c.where, c.old) for c in found.changes] == [("params.arguments.max", 2)]


def test_unused_lists_the_recorded_requests_no_client_asked(tmp_path: Path) -> None:
    """After two requests, the three others are unused."""
    matcher = Matcher(pool(tmp_path))
    matcher.request(msg(request(1, "server/discover", meta=True)))
    matcher.request(msg(call(2, "now", zone="UTC")))
    assert [e.id for e in matcher.unused()] == [2, 4, 5]


def test_a_value_the_client_chose_in_an_ignored_place_is_carried_where_it_was_echoed(tmp_path: Path) -> None:
    """A new progress token in _meta replaces the recorded one in the notification that echoed it."""
    recorded = call(3, "now", zone="UTC")
    recorded["params"]["_meta"]["progressToken"] = 3
    asked = call(8, "now", zone="UTC")
    asked["params"]["_meta"]["progressToken"] = "tok-8"
    tape = time_tape()
    tape.events.clear()
    tape.client(recorded).server(
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 3, "progress": 3}}
    )
    tape.server({"jsonrpc": "2.0", "id": 3, "result": {}}).end()
    found = Matcher(load_pool([tape.write(tmp_path / "p.jsonl")])).request(msg(asked))
    carry = carried(found.hidden)
    value, changed = apply(
        {"method": "notifications/progress", "params": {"progressToken": 3, "progress": 3}}, carry
    )
    assert changed and value["params"] == {"progressToken": "tok-8", "progress": 3}


def test_a_legacy_handshake_matches_another_client_build(tmp_path: Path) -> None:
    """initialize's clientInfo and capabilities are the envelope before 2026-07-28: not compared;
    the proposed protocol version is."""
    from tests.serve.tapes import Tape, result

    hello = request(
        1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "a"}}
    )
    path = (
        Tape()
        .client(hello)
        .server(result(1, {"protocolVersion": "2025-06-18"}))
        .end()
        .write(tmp_path / "l.jsonl")
    )
    other = request(
        1,
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}}, "clientInfo": {"name": "b"}},
    )
    assert Matcher(load_pool([path])).request(msg(other)).entry is not None
    newer = request(
        1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "a"}}
    )
    assert Matcher(load_pool([path])).request(msg(newer)).entry is None


def test_a_token_the_client_chose_is_carried_inside_longer_strings_too(tmp_path: Path) -> None:
    """An ignored correlation id the server quoted in its text: the new client's id is put there."""
    from mcptape.diff.compare import Hidden

    rule = parse_rule("tools/call:params.arguments.request_key")
    hidden = [Hidden(rule, ("params", "arguments", "request_key"), "req-0001-aaaa", "req-0042-bbbb")]
    answer = {"content": [{"type": "text", "text": "done: req-0001-aaaa"}], "request_key": "req-0001-aaaa"}
    value, changed = apply(answer, carried(hidden))
    assert changed and value == {
        "content": [{"type": "text", "text": "done: req-0042-bbbb"}],
        "request_key": "req-0042-bbbb",
    }
    short = [Hidden(rule, ("params", "arguments", "request_key"), "a", "b")]
    assert apply({"text": "a cat"}, carried(short)) == ({"text": "a cat"}, False)  # not a token: not in text
