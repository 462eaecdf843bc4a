"""The entry-point and schema rules' tables (tests/check/rules/modern_entry.py) through the analysis,
and what a table cannot say: every rule has a breaking and a clean session, the schema finding names
the block and the field, a legacy session is not judged by the 2026 schema."""

from __future__ import annotations

import pytest

from mcptape.check.analyze import analyze
from mcptape.check.model import Severity
from tests.check.helpers import request, result
from tests.check.rules.modern import found, recorded
from tests.check.rules.modern_entry import RESULT_SCHEMA, TABLES


@pytest.mark.parametrize(
    ("items", "expected"),
    [pytest.param(i, e, id=f"{rule}: {name}") for rule, t in TABLES.items() for name, i, e in t],
)
def test_entry_and_schema_rule_table(items: list[tuple[str, bytes]], expected: list[str]) -> None:
    """Each 2026-07-28 session raises exactly the expected findings."""
    assert found(items) == expected


def test_every_entry_rule_has_a_breaking_and_a_clean_session() -> None:
    """Each rule's table holds a session that raises it and one that does not."""
    for rule, table in TABLES.items():
        assert any(rule in expected for _, _, expected in table), rule
        assert any(rule not in expected for _, _, expected in table), rule


def test_the_schema_finding_names_the_block_and_the_missing_field() -> None:
    """The finding says where the result breaks the schema and how, at the server's answer."""
    [finding] = analyze(recorded(RESULT_SCHEMA[0][1])).findings
    assert (finding.party, finding.severity, finding.channel) == ("server", Severity.ERROR, "out")
    assert "result.content[0]: 'mimeType' is a required property" in finding.message
    assert "CallToolResult" in finding.message


def test_a_legacy_session_is_not_judged_by_the_2026_schema() -> None:
    """Before 2026-07-28 (initialize handshake) results are not held to the 2026-07-28 schema."""
    items = [
        ("in", request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})),
        ("out", result(0, {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}})),
        ("in", request(1, "tools/call", {"name": "t"})),
        ("out", result(1, {"content": [{"type": "image", "data": "x"}]})),
    ]
    assert found(items) == []
