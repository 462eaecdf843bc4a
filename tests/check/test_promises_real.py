"""Promises against evidence with real processes: the official SDK client drives a server whose tools
declare annotations (tests/servers/promises_server.py) and the real mcp-server-fetch, each
under the installed `mcptape record --http-sink` (and `--stub`), and `check` holds what the tools
promised against what the tap, the sink and the stub saw."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from mcptape.check.analyze import analyze_file
from mcptape.check.model import Analysis, Severity
from mcptape.commands.check import check_command
from tests.clients import recorded
from tests.conftest import SERVERS

pytestmark = pytest.mark.slow

SERVER = SERVERS / "promises_server.py"
FETCH = Path(sys.executable).parent / "mcp-server-fetch"
Script = Callable[[Client], Awaitable[None]]


def _record(path: Path, command: list[str], script: Script, *extra: str) -> Analysis:
    """Run `script` against `command` recorded to `path`; return check's analysis of the recording."""
    argv = recorded(command, path, *extra)

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(StdioServerParameters(command=argv[0], args=argv[1:])) as client:
                await client.list_tools()
                await script(client)

    anyio.run(main)
    return analyze_file(str(path))[1]


async def _cancel_then_resend(client: Client, name: str, arguments: dict[str, Any]) -> None:
    """The client gives up on a call after 0.3 s (notifications/cancelled), then sends it again."""
    with anyio.move_on_after(0.3):
        await client.call_tool(name, arguments)
    await client.call_tool(name, arguments)


def _seen(analysis: Analysis) -> list[tuple[str, str, str]]:
    return [(f.rule, f.severity.value, f.party) for f in analysis.findings]


def test_tools_that_keep_their_promises_check_clean(tmp_path: Path) -> None:
    """A read-only lookup (a tap line of kind read and a GET), an idempotent upsert called twice,
    and a call cancelled before it acted, sent again: no finding at all, exit 0."""

    async def script(client: Client) -> None:
        await client.call_tool("lookup", {"key": "a"})
        await client.call_tool("upsert", {"key": "a", "value": "1"})
        await client.call_tool("upsert", {"key": "a", "value": "1"})
        await _cancel_then_resend(client, "late", {"key": "b", "seconds": 1.0})

    path = tmp_path / "kept.jsonl"
    analysis = _record(path, [sys.executable, str(SERVER)], script, "--http-sink")
    assert analysis.exec_calls >= 4  # lookup's tap line and GET, two upserts, the late provision
    assert _seen(analysis) == []
    assert CliRunner().invoke(check_command, [str(path)]).exit_code == 0


def test_tools_that_break_their_promises_are_each_reported(tmp_path: Path) -> None:
    """peek writes (read-only), append adds a row each time (idempotent), purge deletes (additive),
    notify POSTs away (closed world), slow ran twice after a cancel and a re-send, a tool nobody
    listed, and ship's POST went through for a refused call while its stub run is excused."""

    async def script(client: Client) -> None:
        await client.call_tool("peek", {"key": "a"})
        await client.call_tool("append", {"key": "a", "value": "x"})
        await client.call_tool("append", {"key": "a", "value": "x"})
        await client.call_tool("purge", {"key": "a"})
        await client.call_tool("notify", {"message": "hi"})
        await _cancel_then_resend(client, "slow", {"key": "c", "seconds": 0.6})
        await client.call_tool("no_such_tool", {})
        await client.call_tool("ship", {"target": "web"})

    path = tmp_path / "broken.jsonl"
    analysis = _record(path, [sys.executable, str(SERVER)], script, "--http-sink", "--stub", "shipit")
    seen = _seen(analysis)
    assert sorted(seen) == sorted(
        [
            ("hint-read-only", "error", "server"),
            ("hint-idempotent", "warning", "server"),
            ("hint-destructive", "warning", "server"),
            ("hint-open-world", "warning", "server"),
            ("ran-twice", "warning", "client"),
            ("unknown-tool", "info", "client"),
            ("exec-after-reject", "error", "server"),
        ]
    ), seen
    reject = next(f for f in analysis.findings if f.rule == "exec-after-reject")
    assert reject.channel == "http" and b"deploy.invalid" in reject.raw  # the POST, not the stub run
    twice = next(f for f in analysis.findings if f.rule == "ran-twice")
    assert [r.role for r in twice.related] == ["request", "exec", "cancel", "retry", "exec"]
    result = CliRunner().invoke(check_command, [str(path)])
    assert result.exit_code == 1 and "hint-read-only" in result.output


def test_the_real_fetch_server_keeps_its_promises_through_the_sink(tmp_path: Path) -> None:
    """mcp-server-fetch declares fetch readOnlyHint, idempotentHint and openWorldHint true: its GETs
    (robots.txt, then the page), the same call again, and an HTTPS URL (a CONNECT the sink refuses)
    break none; a call of a tool it never listed is the client's info."""

    async def script(client: Client) -> None:
        listed = await client.list_tools()
        (fetch,) = listed.tools
        assert fetch.annotations is not None and fetch.annotations.read_only_hint is True
        await client.call_tool("fetch", {"url": "http://example.test/page"})
        await client.call_tool("fetch", {"url": "http://example.test/page"})
        await client.call_tool("fetch", {"url": "https://example.test/secure"})
        with pytest.raises(MCPError, match="Unknown tool"):  # the server refuses it: -32602
            await client.call_tool("fetch_all", {"url": "http://example.test/"})

    path = tmp_path / "fetch.jsonl"
    # readabilipy runs `npm install` when node is on PATH: `--stub node`, as test_fetch_cassette.py does
    analysis = _record(path, [str(FETCH)], script, "--http-sink", "--stub", "node")
    assert analysis.exec_calls >= 5
    assert _seen(analysis) == [("unknown-tool", "info", "client")]
    assert CliRunner().invoke(check_command, [str(path)]).exit_code == 0


def test_a_closed_world_promise_is_broken_by_the_real_fetch_server_when_the_listing_says_so(
    tmp_path: Path,
) -> None:
    """The same fetch GETs, judged against a listing that declares openWorldHint false (a wrapper that
    rewrote the server's annotations): a warning at the first GET; the real evidence decides."""

    async def script(client: Client) -> None:
        await client.call_tool("fetch", {"url": "http://example.test/page"})

    path = tmp_path / "fetch.jsonl"
    _record(path, [str(FETCH)], script, "--http-sink", "--stub", "node")
    text = path.read_text()
    assert text.count('\\"openWorldHint\\":true') == 1
    path.write_text(text.replace('\\"openWorldHint\\":true', '\\"openWorldHint\\":false'))
    analysis = analyze_file(str(path))[1]
    assert _seen(analysis) == [("hint-open-world", "warning", "server")]
    assert analysis.findings[0].channel == "http"
    assert Severity.ERROR not in {f.severity for f in analysis.findings}
