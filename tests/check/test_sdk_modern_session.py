"""Must show: a session of the official SDK 2.x on both sides (MCPServer and Client, stateless
2026-07-28), recorded through the installed `mcptape record`, with an elicitation through MRTR,
logging with a level, progress, a cancel and arguments the server refuses, checks clean: no error,
no warning (the refused arguments are info, the client's mistake).

The SDK's stock server emits `notifications/message` without declaring the `logging` capability
(it declares it only beside a `logging/setLevel` handler, a method 2026-07-28 removed): a MUST of
server/utilities/logging broken, which check reports. The clean session's server declares it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from mcp import Client
from mcp_types import ElicitResult, LoggingMessageNotificationParams

from mcptape.check.analyze import analyze_file
from mcptape.check.model import Severity
from tests.clients import python_server, run_session
from tests.conftest import SERVERS

pytestmark = pytest.mark.slow

SERVER = SERVERS / "sdk_modern.py"


async def _confirm(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"ok": True})


def _session(path: Path, *server_args: str) -> dict[str, Any]:
    """Discover, list, deploy (elicitation through MRTR, a log line, three progress steps), a slow
    call cancelled after 0.5 s, a refused forecast of 9 days, then a good one."""
    logs: list[LoggingMessageNotificationParams] = []
    steps: list[float] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append(progress)

    async def script(client: Client) -> dict[str, Any]:
        deployed = await client.call_tool("deploy", {"branch": "main"}, progress_callback=on_progress)
        with anyio.move_on_after(0.5) as scope:
            await client.call_tool("slow", {"seconds": 5})
        refused = await client.call_tool("forecast", {"days": 9})
        good = await client.call_tool("forecast", {"days": 2})
        return {
            "version": client.protocol_version,
            "deployed": deployed.content[0].text,  # type: ignore[union-attr]
            "cancelled": scope.cancelled_caught,
            "refused": refused.is_error,
            "good": good.content[0].text,  # type: ignore[union-attr]
        }

    async def main() -> dict[str, Any]:
        session = await run_session(
            python_server(SERVER, *server_args),
            record_to=path,
            script=script,
            elicitation_callback=_confirm,
            logging_callback=on_log,
            log_level="info",
        )
        return {**session.results, "logs": [log.data for log in logs], "progress": steps}

    return anyio.run(main)


def _methods(path: Path) -> list[str]:
    """The methods of the recorded messages, in file order (`result` for an answer)."""
    out = []
    for line in path.read_bytes().splitlines()[1:]:
        record = orjson.loads(line)
        if record.get("ch") in ("in", "out"):
            message = orjson.loads(record["data"])
            out.append(message.get("method") or message.get("result", {}).get("resultType", "error"))
    return out


def test_a_modern_sdk_session_with_mrtr_logging_progress_and_a_cancel_checks_clean(tmp_path: Path) -> None:
    """Every feature happened on the wire, and the check finds only the client's refused arguments."""
    path = tmp_path / "modern.jsonl"
    seen = _session(path, "--declare-logging")
    assert seen["version"] == "2026-07-28" and seen["deployed"] == "deployed main"
    assert seen["cancelled"] and seen["refused"] and seen["good"] == "sunny for 2 days"
    assert seen["logs"] == ["deploying main"] and seen["progress"] == [1, 2, 3]
    methods = _methods(path)
    assert methods[0] == "server/discover" and "input_required" in methods
    assert {"notifications/message", "notifications/progress", "notifications/cancelled"} <= set(methods)
    _, analysis = analyze_file(str(path))
    assert analysis.stateless and analysis.protocol_version == "2026-07-28"
    loud = [(f.rule, f.message) for f in analysis.findings if f.severity is not Severity.INFO]
    assert loud == []
    assert [(f.rule, f.party) for f in analysis.findings] == [("schema-violation", "client")]


def test_the_stock_sdk_server_logs_without_declaring_the_logging_capability(tmp_path: Path) -> None:
    """The same session with MCPServer as it comes: its log line breaks a MUST, and check says so."""
    path = tmp_path / "stock.jsonl"
    seen = _session(path)
    assert seen["logs"] == ["deploying main"]
    _, analysis = analyze_file(str(path))
    loud = [(f.rule, f.severity, f.party) for f in analysis.findings if f.severity is not Severity.INFO]
    assert loud == [("unrequested-log", Severity.ERROR, "server")]
    [log] = [f for f in analysis.findings if f.rule == "unrequested-log"]
    assert "declared no logging capability" in log.message
