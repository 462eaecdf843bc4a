"""Must show: each session and status rule of Streamable HTTP (check/http/session.py) on recorded
sessions of real processes, through `mcptape record --http-upstream`: a small stdlib server breaking
it (tests/servers/hr_server.py, one fault per mode) driven by the official SDK client (and raw
requests for what no SDK client sends), and the same client code against the official SDK server
(stateful and stateless) and hr_server's clean mode keeping it: no finding but the raw client's own
mistake. A 403 for a foreign Origin carrying a JSON-RPC error without an id is no finding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcptape.check.analyze import analyze_file
from tests.check.http import hr_drive
from tests.check.rules.transport import HR_RULES
from tests.e2e.realhttp.helpers import record_sweep, verdicts

pytestmark = pytest.mark.slow

Recorded = tuple[Path, dict[str, Any]]


def hr_findings(path: Path) -> list[tuple[str, str | None, int]]:
    """The findings of the session and status rules: rule, party, exchange."""
    _, analysis = analyze_file(str(path))
    return [(f.rule, f.party, f.line) for f in analysis.findings if f.rule in HR_RULES]


async def _every_and_a_forgetful_client(url: str, tool: str) -> dict[str, Any]:
    seen = await hr_drive.every(tool)(url)
    seen.update(await hr_drive.without_session(url))
    return seen


async def _sdk_every(url: str) -> dict[str, Any]:
    return await _every_and_a_forgetful_client(url, "chatty")


async def _hr_every(url: str) -> dict[str, Any]:
    return await _every_and_a_forgetful_client(url, "steps")


@pytest.fixture(scope="module")
def sdk_stateful(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    path = tmp_path_factory.mktemp("hr") / "sdk-stateful.jsonl"
    seen, _, _ = record_sweep(path, _sdk_every)
    return path, seen


@pytest.fixture(scope="module")
def hr_clean(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    path = tmp_path_factory.mktemp("hr") / "hr-clean.jsonl"
    return path, hr_drive.record_hr(path, "clean", _hr_every)


EXPECTED = {
    "after_delete": 404,
    "without_session": 400,
    "unknown_method": 404,
    "unknown_version": 400,
    "origin": 403,
}


def _statuses(seen: dict[str, Any]) -> dict[str, Any]:
    return {key: seen.get(key) for key in EXPECTED}


# The SDK's MCPServer logs (`ctx.info`) without declaring the `logging` capability in its
# initialize result: "Servers that emit log message notifications MUST declare the `logging`
# capability" (server/utilities/logging), a known finding on it (docs/check.md).
SDK_LOG = "unrequested-log"


def _only_the_forgetful_client(path: Path, *, known: str | None = None) -> None:
    """Every verdict is the raw client's request without its session id (the last exchange), but
    the server's `known` finding of a reference implementation, present."""
    last = max(x for _, _, x in hr_findings(path))
    found = [(f.rule, f.party, f.line) for f in verdicts(path)]
    if known is not None:
        assert {(rule, party) for rule, party, _ in found if rule == known} == {(known, "server")}
        found = [one for one in found if one[0] != known]
    assert found == [("http-session-missing", "client", last)]


def test_the_sdk_server_stateful_keeps_every_rule(sdk_stateful: Recorded) -> None:
    """The official SDK server (stateful, SSE): visible-ASCII session ids, 404 for the session its
    DELETE ended, 400 for a request without the session id, no session id on 2026-07-28 answers, 404
    with -32601 and 400 with -32022, 403 for a foreign Origin: the only verdict is the raw client's."""
    path, seen = sdk_stateful
    assert seen["session"] and _statuses(seen) == EXPECTED and seen["session_headers"] == 0
    _only_the_forgetful_client(path, known=SDK_LOG)


def test_the_sdk_server_stateless_keeps_every_rule(tmp_path: Path) -> None:
    """The official SDK server, stateless and answering JSON: no session, the same statuses, no verdict."""
    path = tmp_path / "sdk-stateless.jsonl"
    seen, _, _ = record_sweep(path, hr_drive.every("chatty"), "--stateless", "--json")
    assert seen["session"] is None and (seen["unknown_method"], seen["unknown_version"]) == (404, 400)
    assert [(f.rule, f.message) for f in verdicts(path)] == []


def test_a_clean_server_refusing_a_foreign_origin_with_an_error_without_id_is_no_finding(
    hr_clean: Recorded,
) -> None:
    """hr_server's clean mode answers like the SDK server, and its 403 body is a JSON-RPC error with no
    `id` ("The HTTP response body MAY comprise a JSON-RPC error response that has no id"): it is not
    an invalid message; the only verdict is the raw client's missing session id."""
    path, seen = hr_clean
    assert _statuses(seen) == EXPECTED and '"id"' not in seen["origin_body"]
    assert '"error"' in seen["origin_body"]
    _only_the_forgetful_client(path)


def test_a_session_id_with_spaces_is_found_once(tmp_path: Path, sdk_stateful: Recorded) -> None:
    """`hr session 1` (0x20 is not visible ASCII) is found on the initialize answer that assigned it,
    once, though every later answer repeats it; the SDK server's ids are not."""
    path = tmp_path / "spaced.jsonl"
    seen = hr_drive.record_hr(path, "spaced-id", hr_drive.handshake_session)
    assert seen == {"session": "hr session 1", "text": "done 2"}
    assert hr_findings(path) == [("http-session-id-chars", "server", 1)]
    assert "http-session-id-chars" not in {rule for rule, _, _ in hr_findings(sdk_stateful[0])}


def test_a_session_served_after_its_delete_is_found(tmp_path: Path, sdk_stateful: Recorded) -> None:
    """The SDK client leaves (DELETE, 200); a request with that session id answered 200 is found; the
    SDK server answers it 404."""
    path = tmp_path / "alive.jsonl"
    seen = hr_drive.record_hr(path, "alive-after-delete", hr_drive.after_delete)
    assert seen["after_delete"] == 200
    last = max(x for _, _, x in hr_findings(path))
    assert hr_findings(path) == [("http-ended-session-served", "server", last)]
    assert sdk_stateful[1]["after_delete"] == 404


def test_a_message_broadcast_on_two_streams_is_found(tmp_path: Path, sdk_stateful: Recorded) -> None:
    """hr_server sends each progress notification of a call on its POST stream and on the session's
    GET stream: each is found, on its second stream; the SDK server, its GET stream open too, sends
    them on the call's stream only."""
    path = tmp_path / "broadcast.jsonl"
    seen = hr_drive.record_hr(path, "broadcast", hr_drive.handshake_session)
    assert seen["text"] == "done 2"
    assert [(rule, party) for rule, party, _ in hr_findings(path)] == [("http-broadcast", "server")] * 2
    assert "http-broadcast" not in {rule for rule, _, _ in hr_findings(sdk_stateful[0])}


def test_a_request_without_its_session_id_is_the_clients_even_when_served(tmp_path: Path) -> None:
    """A raw client drops the session id after its handshake: the client's error, served 200 by
    hr_server or refused 400 by the SDK server. Serving it is no finding: "Servers that require a
    session ID SHOULD respond ... with HTTP 400" binds a server that requires one, and a server that
    serves the request does not."""
    path = tmp_path / "sessionless.jsonl"
    assert hr_drive.record_hr(path, "sessionless-ok", hr_drive.without_session) == {"without_session": 200}
    assert hr_findings(path) == [("http-session-missing", "client", 3)]


def test_a_2026_07_28_only_server_echoing_a_session_id_is_found_once(
    tmp_path: Path, sdk_stateful: Recorded
) -> None:
    """hr_server supporting only 2026-07-28 (its server/discover says so) echoes the session id two
    requests carry: one warning, on the first; the ids it mints on the SDK client's requests, which
    carry none, are not the sentence's case. The SDK server speaks both revisions: not judged."""
    path = tmp_path / "modern-session.jsonl"
    seen = hr_drive.record_hr(path, "modern-session", hr_drive.stale_session)
    assert seen == {"text": "3", "session_headers": 3, "stale": ["stale-1", "stale-1"]}
    assert hr_findings(path) == [("http-modern-session", "server", 4)]
    assert "http-modern-session" not in {rule for rule, _, _ in hr_findings(sdk_stateful[0])}


def test_2026_07_28_errors_sent_with_200_are_found(tmp_path: Path, sdk_stateful: Recorded) -> None:
    """Method not found and unsupported version answered 200 are found (MUST be 404 and 400); the SDK
    server answers 404 and 400."""
    path = tmp_path / "modern-200.jsonl"
    seen = hr_drive.record_hr(path, "modern-200", hr_drive.modern_errors)
    assert (seen["unknown_method"], seen["unknown_version"]) == (200, 200)
    assert hr_findings(path) == [("http-error-status", "server", 4), ("http-error-status", "server", 5)]
    assert "http-error-status" not in {rule for rule, _, _ in hr_findings(sdk_stateful[0])}
