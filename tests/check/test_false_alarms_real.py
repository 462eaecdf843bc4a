"""Must show: correct traffic recorded from real peers checks clean under the rules that judge request
ids, capabilities, structured results and progress (each case a recording under tests/check/realdata/
that once drew a false finding)."""

from __future__ import annotations

from pathlib import Path

import orjson

from mcptape.check.analyze import analyze_file

DATA = Path(__file__).parent / "realdata"


def _rules(name: str) -> list[str]:
    _, analysis = analyze_file(str(DATA / name))
    return [f.rule for f in analysis.findings]


def test_concurrent_clients_of_a_stateless_http_server_may_share_ids() -> None:
    """Three SDK clients of a stateless server (no Mcp-Session-Id) at once each number their ids from
    1: an id two of them have in flight together is no duplicate-id (nothing tells whose it is)."""
    ids: list[object] = []
    for line in (DATA / "sweep-http-stateless-concurrent-clients.tape").read_bytes().splitlines():
        event = orjson.loads(line)
        if event.get("ch") == "in" and '"method":"tools/call"' in str(event.get("data", "")):
            ids.append(orjson.loads(event["data"])["id"])
    assert len(ids) > len(set(ids))  # the clients did send the same ids
    assert _rules("sweep-http-stateless-concurrent-clients.tape") == []


def test_a_progress_token_two_active_requests_share_is_not_judged_against_the_server() -> None:
    """A client giving two calls at once the same progress token (its mistake) gets each call's own
    progress 1, 2, ... interleaved from a correct server: no progress-not-increasing, and the token
    stays active until the last of them is answered (no progress-after-completion for the longer)."""
    assert _rules("shared-progress-token.tape") == []


def test_a_call_after_tools_list_changed_is_not_held_to_the_stale_output_schema() -> None:
    """A tool that drops its outputSchema, announced with notifications/tools/list_changed, answers the
    next call (made without listing anew) unstructured: no output-schema finding against the listing
    the notification made stale."""
    assert _rules("stale-listing.tape") == []


def test_each_http_session_is_held_to_its_own_clients_capabilities() -> None:
    """Two SDK clients of one stateful server: A declares elicitation, B (initialized after A)
    declares none; the form elicitation the server sends A, in A's session, is no client-capability
    finding (B's declaration is not A's)."""
    assert _rules("sweep-http-two-clients-different-capabilities.tape") == []


def test_progress_tokens_several_http_sessions_have_active_at_once_are_not_the_servers_fault() -> None:
    """Three SDK clients of one stateful server report progress under the same tokens (each session's
    request ids) at once: no progress-after-completion once one session's call is answered, and no
    progress-not-increasing from their interleaved values (the SDK's undeclared logging stays)."""
    assert _rules("sweep-http-concurrent-progress.tape") == ["unrequested-log"]


def test_calls_of_two_http_sessions_with_one_id_are_each_judged_against_their_own_tool() -> None:
    """Two SDK clients of one stateful server call, with the same request id, a tool answering text
    and, while that call is in flight, one answering a number: the text answer is not held to the
    number tool's outputSchema (nor the other way round)."""
    assert _rules("http-overlapping-calls.tape") == []


def test_each_http_session_calls_the_tools_its_own_listing_named() -> None:
    """server-everything lists trigger-sampling-request only to the client that declared sampling:
    that client's call of it is no unknown-tool although another session's later listing leaves it
    out (each of three concurrent sessions is held to its own complete tools/list)."""
    assert _rules("everything-http-three-clients.tape") == []
