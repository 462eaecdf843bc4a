"""2026-07-28 `Mcp-Param-*` headers: "When a server's tool definition includes `x-mcp-header`
annotations, conforming clients MUST mirror the designated parameter values into HTTP headers"
(streamable-http, Custom Headers from Tool Parameters). The official SDK client does: its session
checks clean; the same recording with a header changed or dropped is the client's
`http-header-mismatch`, and the server that answered it anyway gets `http-mismatch-accepted`."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client

from mcptape.check.analyze import analyze_file
from mcptape.check.http.paramheaders import param_mismatches
from tests.conftest import PYTHON, SERVERS
from tests.recorder.http.helpers import free_port, recording

SERVER = SERVERS / "param_headers.py"


async def _two_queries(url: str) -> tuple[str, str]:
    async with Client(url) as client:
        await client.list_tools()
        arguments = {"region": "eu-west1", "sql": "select 1", "tier": 2, "dry": True}
        first = await client.call_tool("query", arguments)
        second = await client.call_tool("query", {"region": "Zürich ", "sql": "x"})  # base64 in the header
        return first.content[0].text, second.content[0].text  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def tape(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("param-headers") / "params.jsonl"
    port = free_port()
    with recording(f"http://127.0.0.1:{port}/mcp", path, [PYTHON, str(SERVER), str(port)]) as rec:
        seen = anyio.run(_two_queries, rec.url)
        rec.stop()
    assert seen == ("eu-west1: select 1 (tier 2, dry)", "Zürich : x (tier 1)")
    data = path.read_bytes()
    assert b"Mcp-Param-Region: eu-west1" in data and b"Mcp-Param-Region: =?base64?" in data
    return path


def _http_rules(path: Path) -> list[tuple[str, str]]:
    _, analysis = analyze_file(str(path))
    return [(f.rule, f.party) for f in analysis.findings if f.rule.startswith("http-")]


def test_the_sdk_clients_param_headers_check_clean(tape: Path) -> None:
    """Three annotated parameters (a string, an integer, a boolean), one sent base64: no finding."""
    assert _http_rules(tape) == []


@pytest.mark.parametrize(
    ("recorded", "tampered"),
    [
        (b"Mcp-Param-Region: eu-west1", b"Mcp-Param-Region: us-west1"),  # differs from the body
        (b"Mcp-Param-Tier: 2", b"X-Not-Mcp-Tier: 2"),  # missing
    ],
    ids=["differs", "missing"],
)
def test_a_param_header_that_does_not_mirror_the_body_is_found(
    tape: Path, tmp_path: Path, recorded: bytes, tampered: bytes
) -> None:
    """The client's mismatch, and the server's for answering it 200."""
    changed = tmp_path / "changed.jsonl"
    changed.write_bytes(tape.read_bytes().replace(recorded, tampered, 1))
    assert _http_rules(changed) == [("http-header-mismatch", "client"), ("http-mismatch-accepted", "server")]


def test_only_headers_a_properties_chain_reaches_are_expected() -> None:
    """An annotation under `items` or `anyOf` is not followed; an absent value wants no header."""
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "x-mcp-header": "A"},
            "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "L"}},
            "either": {"anyOf": [{"type": "string", "x-mcp-header": "E"}]},
            "nested": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
        },
    }
    headers = {"mcp-param-a": "x", "mcp-param-n": "=?base64?Nw==?="}
    assert param_mismatches(schema, {"a": "x", "nested": {"n": 7}, "list": ["y"]}, headers.get) == []
    assert param_mismatches(schema, {"nested": {"n": 7}}, headers.get) == [
        "Mcp-Param-A is 'x', but arguments.a is absent (the header is then omitted)"
    ]
