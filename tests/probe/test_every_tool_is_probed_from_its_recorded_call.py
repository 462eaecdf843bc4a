"""`--from`: each tool's hard inputs are built from its own recorded successful call; a tool whose
derived arguments are refused makes the cases built on them inconclusive, never a pass."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mcptape.probe.observed import Verdict
from mcptape.probe.recorded import recorded_calls
from tests.conftest import PYTHON, ROOT
from tests.probe.support import by_id, probe

pytestmark = pytest.mark.slow

TIME = [str(Path(PYTHON).parent / "mcp-server-time"), "--local-timezone", "UTC"]
RECORDING = ROOT / "transcripts" / "mcp-server-time-handshake.jsonl"


def sent(path: Path) -> list[dict[str, object]]:
    """The requests the probe sent in a transcript (the lines of the `in` channel that parse)."""
    out = []
    for line in path.read_bytes().splitlines()[1:]:
        record = orjson.loads(line)
        if record.get("ch") == "in" and "data" in record:
            try:
                out.append(orjson.loads(record["data"]))
            except orjson.JSONDecodeError:
                pass
    return out


def test_a_recorded_call_is_the_base_of_its_tools_hard_inputs(tmp_path: Path) -> None:
    """convert_time's unknown-arguments frame carries the recorded time zones, and is judged."""
    result, _ = probe(tmp_path, TIME, cases=["tools"], recorded=recorded_calls(RECORDING), timeout=10)
    rows = by_id(result)
    frame = next(
        m
        for m in sent(tmp_path / "tools-1.jsonl")
        if isinstance(m, dict) and str(m.get("id", "")).endswith("-unknown") and "convert_time" in str(m)
    )
    assert frame["params"]["arguments"]["source_timezone"] == "Europe/Paris"  # type: ignore[index]
    for case in ("unknown-arguments:convert_time", "string-params:convert_time"):
        assert rows[case].verdict in (Verdict.PASS, Verdict.WARN), (case, rows[case].reasons)
    assert not result.inconclusive


def test_cases_built_on_refused_derived_arguments_are_inconclusive(tmp_path: Path) -> None:
    """Without a recorded convert_time, its derived time zones ("mcptape-probe") are refused: what is
    built on them proves nothing; the wrong-types frame replaces every argument and still counts."""
    result, _ = probe(
        tmp_path, TIME, cases=["tools"], tool="get_current_time", arguments={"timezone": "UTC"}, timeout=10
    )
    rows = by_id(result)
    for case in ("unknown-arguments:convert_time", "string-params:convert_time"):
        assert rows[case].verdict is Verdict.INCONCLUSIVE, (case, rows[case].reasons)
        assert "convert_time" in rows[case].reasons[0] and "--from TRANSCRIPT" in rows[case].reasons[0]
    assert rows["wrong-types:convert_time"].verdict is Verdict.PASS
    assert rows["unknown-arguments:get_current_time"].verdict is not Verdict.INCONCLUSIVE
    assert result.inconclusive and not result.passed
