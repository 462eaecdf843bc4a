"""`probe` sends a tampered and a foreign `requestState` to the tools that use MRTR: both must be
refused with nothing run. Real processes: a hand-written stateless server that verifies its state
(and its planted twin that trusts any), and the official SDK's MCPServer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.check.analyze import analyze_file
from mcptape.probe.observed import Verdict
from tests.conftest import PYTHON, SERVERS
from tests.probe.support import PB_SERVER, by_id, probe

pytestmark = pytest.mark.slow

MRTR = [PYTHON, str(SERVERS / "mrtr_server.py")]
# `release` declares no readOnlyHint: the probe calls it only when told it may (a stand-in server)
RELEASE: dict[str, Any] = {"tool": "release", "arguments": {"version": "1.0"}, "allow_mutating": True}


def test_a_server_that_verifies_its_state_refuses_both(tmp_path: Path) -> None:
    """An HMAC-bound state: the altered one and one issued for other arguments are refused (-32602),
    nothing runs: both pass."""
    result, _ = probe(tmp_path, MRTR, cases=["tools"], **RELEASE)
    cases = by_id(result)
    for case in ("tampered-state:release", "foreign-state:release"):
        assert cases[case].verdict is Verdict.PASS, cases[case]
        assert cases[case].did == "refused it (error -32602)"
        assert cases[case].transcript == tmp_path / "mrtr-1.jsonl"


def test_a_server_that_trusts_any_state_and_acts_fails_both(tmp_path: Path) -> None:
    """The planted defect: the altered state is believed and the release runs: FAIL, naming the
    action; check flags both acceptances in the same transcript: the altered state an error, the one
    issued for other arguments of the same tool a warning (a state crossing requests)."""
    result, _ = probe(tmp_path, [*MRTR, "--trust-state"], cases=["tools"], **RELEASE)
    cases = by_id(result)
    assert result.failed
    for case in ("tampered-state:release", "foreign-state:release"):
        assert cases[case].verdict is Verdict.FAIL and cases[case].executed == 1, cases[case]
        assert "executor call" in cases[case].reasons[0]
    _, analysis = analyze_file(str(tmp_path / "mrtr-1.jsonl"))
    accepted = [f for f in analysis.findings if f.rule == "accepted-request-state"]
    assert sorted((f.severity.value, f.party) for f in accepted) == [
        ("error", "server"),
        ("warning", "server"),
    ]
    [crossing] = [f for f in accepted if f.severity.value == "warning"]
    assert "with other arguments" in crossing.message


def test_accepting_an_altered_state_fails_and_a_foreign_one_warns_even_without_an_action(
    tmp_path: Path,
) -> None:
    """No action seen: an altered state answered with a success still fails (MUST reject what fails
    verification); a state issued for another request is a warning (SHOULD reject)."""
    result, _ = probe(tmp_path, [*MRTR, "--trust-state", "--no-action"], cases=["tools"], **RELEASE)
    cases = by_id(result)
    tampered, foreign = cases["tampered-state:release"], cases["foreign-state:release"]
    assert (
        tampered.verdict is Verdict.FAIL
        and "MUST reject state that fails verification" in tampered.reasons[0]
    )
    assert foreign.verdict is Verdict.WARN and foreign.reasons[0].startswith(
        "warning: accepted a requestState"
    )


def test_the_official_sdk_server_refuses_both(tmp_path: Path) -> None:
    """MCPServer seals its state (AES-GCM, bound to the request): the altered one fails the seal,
    the one issued for other arguments the binding; each after a real first round."""
    sdk = [PYTHON, str(SERVERS / "sdk_modern.py")]
    result, _ = probe(
        tmp_path,
        sdk,
        cases=["tools"],
        tool="deploy",
        arguments={"branch": "main"},
        timeout=10,
        allow_mutating=True,
    )
    cases = by_id(result)
    for case in ("tampered-state:deploy", "foreign-state:deploy"):
        assert cases[case].verdict is Verdict.PASS and cases[case].did == "refused it (error -32602)"
    sent = [orjson.loads(e) for e in (tmp_path / "mrtr-1.jsonl").read_bytes().splitlines()[1:]]
    retries = [r for r in sent if r.get("ch") == "in" and b"requestState" in r["data"].encode()]
    assert len(retries) == 2  # the two bad retries, each after its own first round


def test_a_server_without_the_stateless_revision_gets_no_state_cases(tmp_path: Path) -> None:
    """No server/discover, no MRTR: no case is added."""
    result, _ = probe(tmp_path, PB_SERVER, cases=["tools"])
    assert not [r for r in result.results if "-state:" in r.case.id]
