"""The probe against two real servers, reported as they behave today (see docs/probe.md).

Both `mcp-server-time` (Python SDK) and `@modelcontextprotocol/server-everything` (TypeScript SDK)
keep stdout clean on every start variation and silently drop malformed lines (tolerant: warnings).
Both also decode bytes that are not UTF-8 with replacement characters and run the request: the
probe fails them on `invalid-utf8`. Neither reports actions on the tap, so no executor call is seen.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcptape.probe.observed import Verdict
from mcptape.probe.runner import ProbeResult
from tests.conftest import server_everything
from tests.probe.support import by_id, probe

pytestmark = pytest.mark.slow

TIME_SERVER = [str(Path(sys.executable).parent / "mcp-server-time")]
TOLERANT = ("debug-line", "banner-after-request", "concatenated", "string-params", "boolean-id", "batch")
STARTS = ("start", "start-warnings", "start-verbose-env", "start-empty-cwd", "start-idle", "start-discover")


@pytest.fixture(scope="module")
def time_probe(tmp_path_factory: pytest.TempPathFactory) -> ProbeResult:
    out = tmp_path_factory.mktemp("probe-time")
    result, _ = probe(
        out,
        TIME_SERVER,
        timeout=10,
        start_timeout=60,
        jobs=4,
        tool="get_current_time",
        arguments={"timezone": "UTC"},
    )
    sys.stderr.write(f"probe of mcp-server-time: {result.seconds:.1f}s\n")
    return result


@pytest.fixture(scope="module")
def everything_probe(tmp_path_factory: pytest.TempPathFactory) -> ProbeResult:
    out = tmp_path_factory.mktemp("probe-everything")
    result, _ = probe(out, server_everything(), timeout=10, start_timeout=60, jobs=4)
    sys.stderr.write(f"probe of server-everything: {result.seconds:.1f}s\n")
    return result


def _expected_today(result: ProbeResult) -> None:
    rows = by_id(result)
    for case in STARTS:
        assert rows[case].verdict is Verdict.PASS, (case, rows[case].reasons)
    for case in TOLERANT:
        assert rows[case].verdict is Verdict.WARN, (case, rows[case].reasons)
        assert rows[case].reasons == ["warning: tolerant: dropped the bad frame silently (no error response)"]
        assert "next request ran alone (0 calls)" in rows[case].did
    assert rows["truncated-eof"].verdict is Verdict.PASS
    for case in ("oversized-line",):
        assert rows[case].verdict is Verdict.WARN
        assert rows[case].reasons == ["warning: accepted it (answered with a result); no executor call seen"]
    assert rows["invalid-utf8"].verdict is Verdict.FAIL
    assert rows["invalid-utf8"].reasons == ["accepted the bad frame (answered it with a result)"]
    assert all(r.executed == 0 and r.http == 0 for r in result.results)
    assert result.failed and result.baseline == 0
    per_tool = [r for r in result.results if r.case.group == "tool"]
    assert per_tool and all(r.verdict is not Verdict.FAIL for r in per_tool), [
        (r.case.id, r.reasons) for r in per_tool if r.verdict is Verdict.FAIL
    ]


def test_mcp_server_time_is_tolerant_and_accepts_invalid_utf8(time_probe: ProbeResult) -> None:
    """mcp-server-time: clean stdout, malformed lines dropped silently, non-UTF-8 bytes accepted."""
    _expected_today(time_probe)
    assert "server/discover answered (2026-07-28)" in by_id(time_probe)["start-discover"].did


def test_server_everything_is_tolerant_and_accepts_invalid_utf8(everything_probe: ProbeResult) -> None:
    """server-everything: the same picture; it has no stateless revision (server/discover is -32601)."""
    _expected_today(everything_probe)
    assert everything_probe.call is not None and everything_probe.call.tool == "echo"
    assert "answered error -32601" in by_id(everything_probe)["start-discover"].did
