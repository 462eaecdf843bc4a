"""Must show: verdicts on sessions recorded from real servers (trimmed to the lines that matter,
under tests/check/realdata/, named `.tape` so the transcript plugin does not replay them) name the
right rule, severity and party.

Each file is real bytes of `mcptape record` around a reference server, driven by a raw client
that makes the mistakes a model-driven client makes (see docs/check.md, "Known findings on
reference implementations").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.check.analyze import analyze_file

DATA = Path(__file__).parent / "realdata"
Verdict = tuple[str, str, str, object]  # rule, severity, party, request id


def _verdicts(name: str) -> list[Verdict]:
    _, analysis = analyze_file(str(DATA / name))
    return [(f.rule, f.severity.value, f.party, f.request_id) for f in analysis.findings]


CASES = [
    pytest.param(
        # server-everything asks roots/list twice (at start, then after roots/list_changed); the
        # client answers the first and closes without answering the second: the client's fault.
        "everything-roots-unanswered.tape",
        [("unanswered-request", "warning", "client", 2)],
        id="a-server-request-the-client-never-answered-is-the-clients",
    ),
    pytest.param(
        # mcp-server-time (SDK 2.3.0) negotiates 2025-03-26, which "MUST support receiving JSON-RPC
        # batches", and drops a batch of ping + tools/call without a word: the server's fault.
        "time-2025-03-26-batch-dropped.tape",
        [("unanswered-request", "warning", "server", 2), ("unanswered-request", "warning", "server", 3)],
        id="a-client-request-the-server-never-answered-is-the-servers",
    ),
]


@pytest.mark.parametrize(("name", "expected"), CASES)
def test_a_real_sessions_findings_name_the_party_that_broke_the_rule(
    name: str, expected: list[Verdict]
) -> None:
    """The recorded session gives exactly these findings, each with the party at fault."""
    assert _verdicts(name) == expected
