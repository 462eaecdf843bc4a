"""The case table: every hard input carries its marker and is a frame the check core rejects."""

from __future__ import annotations

import pytest

from mcptape.check.classify import classify_line
from mcptape.probe.cases import BY_ID, CASES, INPUT, Call, Case

CALL = Call("deploy", {"target": "x"})
MARKER = "mcptape-probe-test-0123"
HARD = [c for c in CASES if c.group == INPUT]


def test_case_ids_are_unique_and_cover_the_seed_list() -> None:
    """Every hard input of the seed has a case, and no two cases share an id (unknown arguments go to
    every tool: see probe/tools.py)."""
    assert len(BY_ID) == len(CASES)
    assert {c.id for c in HARD} == {
        "debug-line",
        "banner-after-request",
        "truncated-eof",
        "concatenated",
        "string-params",
        "boolean-id",
        "batch",
        "invalid-utf8",
        "oversized-line",
    }


@pytest.mark.parametrize("case", HARD, ids=lambda c: c.id)
def test_each_hard_input_carries_the_marker(case: Case) -> None:
    """The bytes of every hard input hold the run's marker, so an action can be traced to them."""
    assert case.build is not None
    bad = case.build(CALL, MARKER, 4096)
    assert MARKER.encode() in bad.data
    assert all(i is True or MARKER in str(i) for i in bad.ids)


@pytest.mark.parametrize("case", [c for c in HARD if not c.lenient], ids=lambda c: c.id)
def test_the_check_core_rejects_each_malformed_hard_input(case: Case) -> None:
    """The probe's malformed frames are bad by the check core's own rules, not by a second classifier."""
    assert case.build is not None
    message = classify_line(case.build(CALL, MARKER, 4096).data, "in", "2025-06-18")
    assert message.rule is not None, message


@pytest.mark.parametrize("case", [c for c in HARD if c.lenient], ids=lambda c: c.id)
def test_lenient_hard_inputs_are_well_formed_requests(case: Case) -> None:
    """Unknown arguments and the oversized line are valid JSON-RPC: only the server can refuse them."""
    assert case.build is not None
    message = classify_line(case.build(CALL, MARKER, 4096).data, "in", "2025-06-18")
    assert message.rule is None and message.method == "tools/call"


def test_the_oversized_line_has_the_requested_size() -> None:
    """The oversized line is one line of exactly the asked number of bytes."""
    bad = BY_ID["oversized-line"].build
    assert bad is not None
    data = bad(CALL, MARKER, 3 << 20).data
    assert len(data) == 3 << 20 and data.count(b"\n") == 1 and data.endswith(b"\n")


def test_a_server_without_tools_gets_tools_list_as_the_valid_request() -> None:
    """With no tool to call, the hard inputs wrap tools/list instead of tools/call."""
    assert Call(None).request(5) == {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}}


@pytest.mark.parametrize("case", HARD, ids=lambda c: c.id)
def test_a_title_names_the_request_the_case_sent(case: Case) -> None:
    """Each hard input's title names what its frame carries: `tools/call <tool>` when built on a call,
    `tools/list` when the probe may name no tool, never a tools/call it did not send."""
    from mcptape.probe.cases import title_for

    assert case.build is not None
    on_tool, on_list = title_for(case, CALL), title_for(case, Call(None))
    if case.id == "debug-line":
        assert on_tool == "a debug line, then a valid tools/call deploy"
    sent_list = case.build(Call(None), MARKER, 4096).data
    if b'"method":"tools/list"' in sent_list or b'\\"method\\"' in sent_list:
        assert "tools/list" in on_list and "tools/call" not in on_list, on_list
    assert "tools/call deploy" in on_tool and "{request}" not in on_tool + on_list
    assert b'"tools/call"' not in sent_list
