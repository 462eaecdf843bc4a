"""Must show: `mcptape check`'s verdicts on live sessions of reference servers driven by a raw client
making the mistakes a model-driven client makes, each finding judged against the specification
(docs/check.md, "Known findings on reference implementations"): the client's mistakes are the
client's, a server that breaks a MUST is found, and a correct server gets nothing.

Recorded here through the installed `mcptape record`; the trimmed copies the unit tests replay are
tests/check/realdata/ (tests/check/test_real_verdicts.py).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mcptape.check.analyze import analyze_file
from tests.conftest import SERVERS, server_everything
from tests.e2e.realtraffic.raw import Raw, modern_meta

pytestmark = pytest.mark.slow

TIME = [str(Path(sys.executable).parent / "mcp-server-time")]
FEATURES = [sys.executable, str(SERVERS / "features.py")]
Verdict = tuple[str, str, str, Any]


def _verdicts(path: Path) -> tuple[str | None, list[Verdict]]:
    _, analysis = analyze_file(str(path))
    assert analysis.exited  # the recording is whole
    found = [(f.rule, f.severity.value, f.party, f.request_id) for f in analysis.findings]
    return analysis.protocol_version, found


@pytest.mark.node
def test_server_everything_refusing_a_models_mistakes_leaves_only_the_clients_findings(
    tmp_path: Path,
) -> None:
    """2025-06-18 with server-everything: ping, an unknown method, an unknown tool, wrong argument
    types, a missing resource, a prompt without its argument, a long call with a progress token
    cancelled mid-way, roots asked and answered: the server handles each; the findings are the
    client's (info for what the server refused, an error for the cancel of a request never sent)."""
    path = tmp_path / "everything.jsonl"
    raw = Raw(server_everything(), path)
    assert raw.handshake("2025-06-18", {"roots": {"listChanged": True}}) is not None
    assert raw.request(1, "tools/list") is not None
    answers = {
        "ping": raw.request(2, "ping"),
        "unknown method": raw.request(3, "no/such/method", {}),
        "unknown tool": raw.request(4, "tools/call", {"name": "nope", "arguments": {}}),
        "quoted number": raw.request(5, "tools/call", {"name": "get-sum", "arguments": {"a": "1", "b": 2}}),
        "wrong type": raw.request(6, "tools/call", {"name": "echo", "arguments": {"message": 5}}),
        "missing resource": raw.request(
            7, "resources/read", {"uri": "demo://resource/static/document/no.md"}
        ),
        "prompt argument": raw.request(8, "prompts/get", {"name": "args-prompt", "arguments": {}}),
    }
    long_call = {"name": "trigger-long-running-operation", "arguments": {"duration": 0.8, "steps": 4}}
    raw.send(
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {**long_call, "_meta": {"progressToken": "p9"}},
        }
    )
    time.sleep(0.3)
    raw.notify("notifications/cancelled", {"requestId": 9, "reason": "the user pressed stop"})
    raw.notify("notifications/cancelled", {"requestId": 999})
    raw.notify("notifications/roots/list_changed")
    assert raw.request(10, "tools/call", {"name": "get-roots-list", "arguments": {}}) is not None
    assert raw.close() == 0
    assert all(answer is not None for answer in answers.values()), answers
    assert _verdicts(path) == (
        "2025-06-18",
        [
            ("unknown-tool", "info", "client", 4),
            ("schema-violation", "info", "client", 5),
            ("schema-violation", "info", "client", 6),
            ("cancel-unknown-request", "error", "client", None),
        ],
    )


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(TIME, id="mcp-server-time"),
        pytest.param(server_everything, id="server-everything", marks=pytest.mark.node),
    ],
)
def test_a_2025_03_26_batch_the_server_drops_is_the_servers_unanswered_requests(
    command: Any, tmp_path: Path
) -> None:
    """Both reference SDKs negotiate 2025-03-26, which "MUST support receiving JSON-RPC batches",
    and drop a batch of ping and tools/call without an answer: two unanswered requests, the
    server's (a known finding); the next plain request is answered."""
    path = tmp_path / "batch.jsonl"
    raw = Raw(command() if callable(command) else command, path)
    assert raw.handshake("2025-03-26") is not None
    batch = [
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    ]
    raw.send(batch)
    assert raw.wait(2, timeout=0.5) is None
    assert raw.request(4, "ping") is not None
    assert raw.close() == 0
    assert _verdicts(path) == (
        "2025-03-26",
        [("unanswered-request", "warning", "server", 2), ("unanswered-request", "warning", "server", 3)],
    )


def test_2026_requests_refused_on_a_handshake_connection_leave_the_session_in_its_revision(
    tmp_path: Path,
) -> None:
    """An SDK MCPServer negotiates 2025-11-25 by handshake, refuses the client's server/discover and
    tools/list with the 2026-07-28 _meta (-32600: the connection serves the handshake era, as "A
    dual-era server MAY serve both eras" allows), and serves the handshake's ping,
    logging/setLevel and calls after: no finding but the client's cancel of a request never sent."""
    path = tmp_path / "handshake-then-modern.jsonl"
    raw = Raw(FEATURES, path, env=dict(os.environ))
    assert raw.handshake("2025-11-25") is not None
    refused = [
        raw.request(1, "server/discover", {"_meta": modern_meta()}),
        raw.request(2, "tools/list", {"_meta": modern_meta()}),
    ]
    served = [
        raw.request(3, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}),
        raw.request(4, "ping"),
        raw.request(5, "logging/setLevel", {"level": "info"}),
        raw.request(6, "tools/call", {"name": "count", "arguments": {"n": 2}, "_meta": {"progressToken": 6}}),
    ]
    raw.notify("notifications/cancelled", {"requestId": 31337})
    assert raw.request(7, "ping") is not None
    assert raw.close() == 0
    assert all(isinstance(a, dict) and "error" in a for a in refused), refused
    assert all(isinstance(a, dict) and "result" in a for a in served), served
    assert _verdicts(path) == ("2025-11-25", [("cancel-unknown-request", "error", "client", None)])


def test_a_handshake_refused_by_a_2026_server_leaves_2026_in_force(tmp_path: Path) -> None:
    """mcp-server-time speaks only 2026-07-28: it refuses a request naming 2099-01-01 (-32022) and a
    legacy client's initialize; the client goes on without _meta: its notifications/initialized and
    ping are removed methods and its requests lack the required _meta (the client's errors), and
    the session stays 2026-07-28."""
    path = tmp_path / "refused-handshake.jsonl"
    raw = Raw(TIME, path)
    assert raw.request(0, "server/discover", {"_meta": modern_meta()}) is not None
    unsupported = raw.request(1, "tools/list", {"_meta": modern_meta("2099-01-01")})
    refused = raw.handshake("2025-06-18", rid=2)
    assert raw.request(3, "tools/list") is not None
    assert raw.close() == 0
    assert isinstance(unsupported, dict) and unsupported["error"]["code"] == -32022
    assert isinstance(refused, dict) and "error" in refused
    assert _verdicts(path) == (
        "2026-07-28",
        [("removed-method", "error", "client", None), ("missing-meta", "error", "client", 3)],
    )


def test_a_batch_in_2025_06_18_is_the_clients_error_alone(tmp_path: Path) -> None:
    """2025-06-18 removed batching: a client's batch is its `batch-not-allowed` error, and the
    server that drops it without an answer is not blamed for the requests inside it."""
    path = tmp_path / "batch-2025-06-18.jsonl"
    raw = Raw(TIME, path)
    assert raw.handshake("2025-06-18") is not None
    raw.send(
        [{"jsonrpc": "2.0", "id": 2, "method": "ping"}, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}]
    )
    assert raw.wait(2, timeout=0.5) is None
    assert raw.request(4, "ping") is not None
    assert raw.close() == 0
    assert _verdicts(path) == ("2025-06-18", [("batch-not-allowed", "error", "client", None)])
