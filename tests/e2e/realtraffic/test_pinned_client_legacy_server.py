"""Must show: the SDK client pinned to 2026-07-28 (`mode="2026-07-28"`: no `server/discover`) in
front of a server of an earlier era (server-everything, 2025-11-25) is the client's warning
(`legacy-server`), not two errors of a server that never agreed to 2026-07-28 ("Modern client,
legacy server: Fails ... On stdio, clients SHOULD send server/discover first", basic/versioning);
in front of a 2026-07-28 server the same client checks clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from pydantic import ValidationError

from mcptape.check.model import CLIENT, Severity
from tests.conftest import server_everything
from tests.e2e.realtraffic.support import FEATURES, record


async def _list_and_call(client: Client) -> None:
    tools = {tool.name for tool in (await client.list_tools()).tools}
    name, arguments = ("echo", {"message": "hi"}) if "echo" in tools else ("add", {"a": 1, "b": 2})
    assert not (await client.call_tool(name, arguments)).is_error


async def _list_fails(client: Client) -> None:
    with pytest.raises(ValidationError):  # the session fails, as the spec says it does
        await client.list_tools()


@pytest.mark.node
def test_a_pinned_modern_client_before_a_legacy_server_is_the_clients_warning(tmp_path: Path) -> None:
    """No missing-result-type or cache-hints error of the server: one legacy-server warning, client."""
    analysis = record(server_everything(), tmp_path / "s.jsonl", _list_fails, mode="2026-07-28")
    found = [(f.rule, f.severity, f.party) for f in analysis.findings]
    assert found == [("legacy-server", Severity.WARNING, CLIENT)]


def test_a_pinned_modern_client_before_a_modern_server_checks_clean(tmp_path: Path) -> None:
    """The same client against an SDK MCPServer: every result has its resultType, nothing found."""
    analysis = record(FEATURES, tmp_path / "s.jsonl", _list_and_call, mode="2026-07-28")
    assert analysis.findings == [] and analysis.stateless
