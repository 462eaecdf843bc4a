"""Must show: a client request still in flight when the client closed the server's stdin (stdio's
shutdown: "the client SHOULD initiate shutdown by: First, closing the input stream to the child
process (the server)", basic/lifecycle) was abandoned by the client (info), while a request the
server left unanswered before it ended, or one of a batch nobody answered, stays the server's
warning. The recorded session is in test_real_verdicts.py (everything-client-leaves-mid-call.tape)."""

from __future__ import annotations

from tests.check.helpers import Item, initialize, line, request, run

CALL: Item = ("in", request(5, "tools/call", {"name": "slow", "arguments": {}}))
CLIENT_CLOSES: Item = ("eof", {"of": "in"})
SERVER_ENDS: list[Item] = [("eof", {"of": "out"}), ("exit", {"code": None, "signal": 15})]


def _unanswered(*items: Item) -> list[tuple[str, str, object]]:
    found = run(*initialize("2025-11-25"), *items).findings
    return [(f.severity.value, f.party, f.request_id) for f in found if f.rule == "unanswered-request"]


def test_a_request_in_flight_when_the_client_closes_stdin_is_the_clients_info() -> None:
    """The client closed stdin with the call in flight, then the server was ended: info, client."""
    assert _unanswered(CALL, CLIENT_CLOSES, *SERVER_ENDS) == [("info", "client", 5)]


def test_a_request_the_server_left_before_the_client_closed_stdin_is_the_servers() -> None:
    """The server ended (its stdout closed, it exited) with the call in flight, before the client
    closed stdin: the server's warning."""
    assert _unanswered(CALL, *SERVER_ENDS, CLIENT_CLOSES) == [("warning", "server", 5)]


def test_without_the_clients_close_a_request_in_flight_is_the_servers() -> None:
    """No close of stdin recorded: the server's warning."""
    assert _unanswered(CALL, *SERVER_ENDS) == [("warning", "server", 5)]


def test_a_batch_nobody_answered_stays_the_servers_when_the_client_closes_stdin() -> None:
    """2025-03-26 (batches allowed): a batch none of whose requests was answered was dropped."""
    batch = line(
        [{"jsonrpc": "2.0", "id": 7, "method": "ping"}, {"jsonrpc": "2.0", "id": 8, "method": "ping"}]
    )
    found = run(*initialize("2025-03-26"), ("in", batch), CLIENT_CLOSES, *SERVER_ENDS).findings
    assert [(f.severity.value, f.party, f.request_id) for f in found] == [
        ("warning", "server", 7),
        ("warning", "server", 8),
    ]
