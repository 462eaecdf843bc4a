"""The seed's deploy-preview story end to end: record with the HTTP sink, then `mcptape check`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcptape.check.analyze import analyze
from mcptape.check.model import ExecCall
from mcptape.transcript.events import Event
from tests.conftest import console_script
from tests.recorder.outbound.helpers import call_span, events, recorder, records, server

pytestmark = pytest.mark.slow

DEPLOY = server("fx_deploy_preview")


async def _deploy(out: Path, command: list[str], tokens: list[str]) -> list[str]:
    """Call `deploy_preview` once per token through `mcptape record --http-sink`; say how each ended."""
    outcomes: list[str] = []
    async with Client(recorder(out, command, ["--http-sink"])) as client:
        for token in tokens:
            try:
                await client.call_tool("deploy_preview", {"branch": "pr-12", "token": token})
                outcomes.append("ok")
            except MCPError as exc:
                outcomes.append(f"error {exc.code}")
    return outcomes


def _check(path: Path) -> tuple[int, dict[str, Any]]:
    done = subprocess.run([console_script(), "check", "--json", str(path)], capture_output=True, text=True)
    return done.returncode, json.loads(done.stdout)


async def test_an_http_call_before_the_authorisation_check_is_reported_as_exec_after_reject(
    tmp_path: Path,
) -> None:
    """The buggy server's POST for a rejected request is an `http` event; check flags it, exit 1."""
    out = tmp_path / "buggy.jsonl"
    assert await _deploy(out, DEPLOY, ["stolen"]) == ["error -32001"]
    evs = events(out)
    [(t_http, post)] = records(evs, "http")
    assert (post["method"], post["target"], post["reply"]) == ("POST", "http://deploy.invalid/previews", 200)
    assert post["outcome"] == "ok"  # the deploy request was delivered: the refusal came after acting
    rid, t_request, t_response = call_span(evs, "deploy_preview", {"branch": "pr-12", "token": "stolen"})
    assert t_request <= t_http <= t_response
    code, report = _check(out)
    assert code == 1
    [finding] = [f for f in report["findings"] if f["rule"] == "exec-after-reject"]
    assert (finding["channel"], finding["request_id"], finding["line"]) == ("http", rid, 1)
    assert {r["role"] for r in finding["related"]} >= {"request", "error-response"}


async def test_the_fixed_order_is_clean(tmp_path: Path) -> None:
    """Authorisation first: the rejected call makes no request, the accepted one does; check is clean."""
    out = tmp_path / "fixed.jsonl"
    assert await _deploy(out, [*DEPLOY, "--fixed"], ["stolen", "valid-token"]) == ["error -32001", "ok"]
    evs = events(out)
    [(t_http, _)] = records(evs, "http")
    _, t_request, t_response = call_span(evs, "deploy_preview", {"branch": "pr-12", "token": "valid-token"})
    assert t_request <= t_http <= t_response
    code, report = _check(out)
    assert (code, report["findings"]) == (0, []), json.dumps(report["findings"], indent=1)
    assert report["summary"]["exec_calls"] == 1 and report["summary"]["rejects"] == 1


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj) + "\n"


def test_an_http_request_belongs_to_the_request_in_flight_not_to_one_just_rejected() -> None:
    """An `http` line 3 ms after a reject, once the next call started, belongs to that call (no lag)."""
    call = {"name": "deploy_preview", "arguments": {}}
    evs = [
        Event(1.0000, "in", text=_line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})),
        Event(
            1.0010, "out", text=_line({"jsonrpc": "2.0", "id": 2, "error": {"code": -32001, "message": "no"}})
        ),
        Event(1.0017, "in", text=_line({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})),
        Event(1.0044, "http", text=_line({"method": "POST", "target": "http://deploy.invalid/previews"})),
        Event(1.0060, "out", text=_line({"jsonrpc": "2.0", "id": 3, "result": {"content": []}})),
        Event(1.0070, "exit", fields={"code": 0}),
    ]
    calls: list[ExecCall] = []
    analysis = analyze(evs, on_exec=calls.append)
    assert [c.attributed_to for c in calls] == [3]
    assert analysis.findings == []
