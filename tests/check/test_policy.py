"""The after-reject policy: `session` (default) flags every executor call after a rejected input
line; `request` flags only calls that no valid request accounts for (what `mcptape probe` accepts)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from mcptape.check.analyze import analyze
from mcptape.commands.check import check_command
from mcptape.transcript.writer import new_header, write_transcript
from tests.check.helpers import Item, error, events, initialize, request, result


def exec_line(**fields: Any) -> bytes:
    return orjson.dumps({"action": "deploy", **fields}) + b"\n"


def call(rid: int) -> bytes:
    return request(rid, "tools/call", {"name": "deploy", "arguments": {}})


HANDSHAKE = initialize("2025-06-18", rid=1)
BAD_LINE: Item = ("in", b"debug: connecting\n")

# name -> (session items, rule count under `session`, rule count under `request`)
CASES: dict[str, tuple[list[Item], int, int]] = {
    "the next valid request executes only itself": (
        [*HANDSHAKE, BAD_LINE, ("in", call(2)), ("exec", exec_line(request_id=2)), ("out", result(2))],
        1,
        0,
    ),
    "the next valid request, attributed by time": (
        [*HANDSHAKE, BAD_LINE, ("in", call(2)), ("exec", exec_line()), ("out", result(2))],
        1,
        0,
    ),
    "a call no request accounts for, after the bad line": (
        [
            *HANDSHAKE,
            ("in", call(2)),
            ("out", result(2)),
            ("in", BAD_LINE[1], 0.4),
            ("exec", exec_line(), 0.5),
        ],
        1,
        1,
    ),
    "a call for a rejected request": (
        [*HANDSHAKE, ("in", call(2)), ("exec", exec_line(request_id=2)), ("out", error(2))],
        1,
        1,
    ),
    "no bad line, an accepted call": (
        [*HANDSHAKE, ("in", call(2)), ("exec", exec_line(request_id=2)), ("out", result(2))],
        0,
        0,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_policies(name: str) -> None:
    """Each case gives the expected number of exec-after-reject findings under each policy."""
    items, under_session, under_request = CASES[name]
    for policy, expected in (("session", under_session), ("request", under_request)):
        analysis = analyze(events(*items), policy=policy)
        rules = [f.rule for f in analysis.findings if f.rule == "exec-after-reject"]
        assert len(rules) == expected, (policy, [f.message for f in analysis.findings])


def test_unknown_policy_is_refused() -> None:
    """A policy name that does not exist is a programming error, said plainly."""
    with pytest.raises(ValueError, match="unknown policy"):
        analyze([], policy="lenient")


def test_check_cli_policy_option(tmp_path: Any) -> None:
    """`mcptape check --policy request` changes the verdict on a server that goes on serving."""
    path = tmp_path / "t.jsonl"
    items, _, _ = CASES["the next valid request executes only itself"]
    write_transcript(path, new_header(["srv"], "/"), events(*items))
    strict = CliRunner().invoke(check_command, [str(path), "--json"])
    lenient = CliRunner().invoke(check_command, [str(path), "--json", "--policy", "request"])
    assert "exec-after-reject" in strict.output
    assert "exec-after-reject" not in lenient.output
