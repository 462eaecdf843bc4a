"""Must show: a number the model wrote as a string (`"max_count": "5"`), which the official Python
SDK's lax validation reads as the number and runs, is the client's mistake handled well (`info`),
not the server's fault; a quoted number still outside the schema once read stays an error when
answered as a success, and a refusal stays `info`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client

from mcptape.check.model import CLIENT, Severity
from tests.e2e.realtraffic.support import FEATURES, loud, record


def test_a_quoted_number_the_server_reads_and_runs_is_info_not_an_error(tmp_path: Path) -> None:
    """add(a="2") answered, count(n="50") and add(a="2.5") refused: three info findings, two rejects."""
    seen: dict[str, bool] = {}

    async def script(client: Client) -> None:
        await client.list_tools()
        calls: list[tuple[str, dict[str, Any]]] = [
            ("add", {"a": "2", "b": 3}),
            ("count", {"n": "50"}),
            ("add", {"a": "2.5", "b": 1}),
        ]
        for name, arguments in calls:
            seen[f"{name} {arguments}"] = (await client.call_tool(name, arguments)).is_error

    analysis = record(FEATURES, tmp_path / "s.jsonl", script)
    assert list(seen.values()) == [False, True, True]
    assert loud(analysis) == []
    found = [(f.request_id, f.severity, f.party, "accepted it" in f.message) for f in analysis.findings]
    info = (Severity.INFO, CLIENT)
    assert found == [(3, *info, True), (4, *info, False), (5, *info, False)]
    assert analysis.rejects == 2  # the refused calls; the accepted quoted number is no reject


def test_only_numbers_that_fit_once_read_are_lax() -> None:
    """A quoted integer or number is read; a quoted boolean, a word, or a refused number is not."""
    from mcptape.check.coercion import read_numbers
    from mcptape.check.schema import compile_schema

    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "maximum": 10},
            "x": {"anyOf": [{"type": "number"}, {"type": "null"}]},
            "flag": {"type": "boolean"},
        },
    }
    compiled = compile_schema(schema)

    def lax(arguments: dict[str, object]) -> bool:
        read = read_numbers(arguments, compiled.errors(arguments))
        return read is not None and not compiled.errors(read)

    assert lax({"n": "7", "x": "-1.5e3"})
    assert not lax({"n": "50"})  # read as 50: still above the maximum
    assert not lax({"n": "7.0"})  # not an integer
    assert not lax({"n": "seven"})
    assert not lax({"flag": "false"})  # a coerced boolean may be read as true
    assert not lax({"n": "7", "flag": "true"})
    assert not lax({"n": "1" * 5000})  # a hostile string of digits is not read (and never raises)
