"""The 2026-07-28 rules' tables (tests/check/rules/modern.py) through the analysis, and the cases a
table cannot say: every rule has a positive case, an action for an input_required answer, a legacy
session's own rules, an altered or a foreign state accepted."""

from __future__ import annotations

import pytest

from mcptape.check.analyze import analyze
from mcptape.check.model import Severity
from tests.check.helpers import line, request, result
from tests.check.rules.modern import RETRY_OK, STATE_ACCEPTED, TABLES, found, recorded


@pytest.mark.parametrize(
    ("items", "expected"),
    [pytest.param(i, e, id=f"{rule}: {name}") for rule, t in TABLES.items() for name, i, e in t],
)
def test_modern_rule_table(items: list[tuple[str, bytes]], expected: list[str]) -> None:
    """Each 2026-07-28 session raises exactly the expected findings."""
    assert found(items) == expected


def test_every_modern_rule_has_a_positive_case() -> None:
    """No 2026-07-28 rule goes untested."""
    for rule, table in TABLES.items():
        assert any(rule in expected for _, _, expected in table), rule


def test_an_action_for_an_input_required_answer_is_exec_after_reject() -> None:
    """An action run before the user's answer arrived belongs to a request the server did not accept."""
    items = [*RETRY_OK[:1], ("exec", line({"action": "deploy", "request_id": 1})), RETRY_OK[1]]
    analysis = analyze(recorded(items))
    [finding] = analysis.findings
    assert finding.rule == "exec-after-reject" and finding.severity is Severity.ERROR
    assert "input_required" in finding.message and finding.party == "server"


def test_a_legacy_session_keeps_its_own_rules() -> None:
    """Before 2026-07-28 (initialize handshake), a result without resultType or a ping is fine."""
    items = [
        ("in", request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})),
        ("out", result(0, {"protocolVersion": "2025-06-18", "capabilities": {}})),
        ("in", request(1, "ping")),
        ("out", result(1, {})),
        ("in", request(2, "tools/list")),
        ("out", result(2, {"tools": []})),
    ]
    assert found(items) == []


def test_an_altered_state_accepted_is_an_error_and_a_foreign_one_a_warning() -> None:
    """Tampering that went through breaks a MUST (the server issued state for this tool, so its state
    matters); a state of another session or request is a SHOULD (a server may share keys)."""
    by_name = {name: items for name, items, _ in STATE_ACCEPTED}
    for name, severity in (
        ("altered state answered with a success", Severity.ERROR),
        ("foreign state answered with a success", Severity.WARNING),
        ("another tool's state answered with a success", Severity.WARNING),
    ):
        [accepted] = [
            f for f in analyze(recorded(by_name[name])).findings if f.rule == "accepted-request-state"
        ]
        assert (accepted.severity, accepted.party) == (severity, "server"), name
