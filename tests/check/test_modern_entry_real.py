"""The entry-point and schema rules on real processes over real pipes, recorded by `mcptape record`:
the official SDK's MCPServer refuses what it must (-32602, -32022) and checks clean at the server;
a planted server that serves everything is caught on each rule.

Each session writes its requests one at a time and waits for each answer before the next, as a
client does; stdin is closed at the end and the server leaves by itself.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.check.analyze import analyze_file
from mcptape.check.model import Analysis
from tests.conftest import PYTHON, SERVERS, console_script

pytestmark = pytest.mark.slow

V = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
GOOD = {V: "2026-07-28", CAPS: {}}


def call(rid: int, method: str, meta: dict[str, Any], **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": meta}}


SESSION = [
    call(1, "server/discover", GOOD),
    call(2, "tools/list", {V: "2026-07-28"}),  # no clientCapabilities: -32602
    call(3, "tools/list", {V: "1900-01-01", CAPS: {}}),  # a version nobody serves: -32022
]


def record(tmp_path: Path, server: list[str], requests: list[dict[str, Any]]) -> tuple[list[Any], Analysis]:
    """Record a session of `requests` against `server`; its answers and the check's analysis."""
    path = tmp_path / "entry.jsonl"
    process = subprocess.Popen(
        [console_script(), "record", "-o", str(path), "--", *server],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    answers = []
    try:
        for request in requests:
            process.stdin.write(orjson.dumps(request) + b"\n")
            process.stdin.flush()
            answers.append(orjson.loads(process.stdout.readline()))
        process.stdin.close()
        process.wait(timeout=20)
    finally:
        process.kill()
    _, analysis = analyze_file(str(path))
    return answers, analysis


def test_the_sdk_server_refuses_a_missing_meta_and_an_unsupported_version_and_checks_clean(
    tmp_path: Path,
) -> None:
    """MCPServer answers -32602 and -32022 (listing 2026-07-28); only the client's omission is found."""
    sdk = [PYTHON, str(SERVERS / "sdk_modern.py")]
    forecast = call(4, "tools/call", GOOD, name="forecast", arguments={"days": 2})
    answers, analysis = record(tmp_path, sdk, [*SESSION, forecast])
    assert answers[0]["result"]["supportedVersions"] == ["2026-07-28"]
    assert answers[1]["error"]["code"] == -32602
    assert answers[2]["error"]["code"] == -32022 and answers[2]["error"]["data"]["supported"] == [
        "2026-07-28"
    ]
    assert answers[3]["result"]["content"][0]["type"] == "text"
    assert [(f.rule, f.party) for f in analysis.findings] == [("missing-meta", "client")]


def test_a_server_that_serves_everything_is_caught_on_each_rule(tmp_path: Path) -> None:
    """The planted server serves the request without clientCapabilities and the one naming
    1900-01-01, and returns an image without mimeType: three server errors."""
    planted = [PYTHON, str(SERVERS / "entry_server.py")]
    snap = call(4, "tools/call", GOOD, name="snap", arguments={})
    answers, analysis = record(tmp_path, planted, [*SESSION, snap])
    assert all("result" in a for a in answers)
    server = [f.rule for f in analysis.findings if f.party == "server"]
    assert server == ["meta-not-refused", "unsupported-version", "result-schema"]
    [schema] = [f for f in analysis.findings if f.rule == "result-schema"]
    assert "'mimeType' is a required property" in schema.message


def test_a_server_without_server_discover_is_caught_once_it_answers_in_2026_07_28(tmp_path: Path) -> None:
    """-32601 to server/discover, then a result with resultType: discover-not-implemented."""
    planted = [PYTHON, str(SERVERS / "entry_server.py"), "--no-discover"]
    answers, analysis = record(tmp_path, planted, [SESSION[0], call(2, "tools/list", GOOD)])
    assert answers[0]["error"]["code"] == -32601 and answers[1]["result"]["resultType"] == "complete"
    assert [(f.rule, f.party) for f in analysis.findings] == [("discover-not-implemented", "server")]
