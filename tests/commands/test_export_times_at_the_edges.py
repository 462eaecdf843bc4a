"""A header's `started` is anyone's to write: a start in year 9999 (one microsecond and a record
later is year 10000, which no datetime takes: the HAR and HTML exports and report died with
ValueError) or before 1970 is an unknown start, and every export and report still works, the OTLP
protobuf encoding included (its nanoseconds are unsigned 64-bit: year 2554 at most)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcptape.export.otlp import protobuf
from mcptape.export.session import load
from mcptape.export.spans import trace
from tests.commands.tapes import HEADER, line, message, record, write
from tests.inprocess import run


@pytest.mark.parametrize(
    "started", ["9999-12-31T23:59:59.999999Z", "2600-01-01T00:00:00Z", "0001-01-01T00:00:00Z"]
)
@pytest.mark.parametrize("t", [0.3, 9.9e8, -9.9e8], ids=["t 0.3", "t 31 years", "t -31 years"])
def test_a_start_out_of_range_exports(tmp_path: Path, started: str, t: float) -> None:
    """Exit 0 for each export and the report; the spans encode as OTLP protobuf."""
    path = write(
        tmp_path / "s.jsonl",
        [
            line(0.1, "in", message(id=1, method="ping")),
            line(0.2, "out", message(id=1, result={})),
            line(t, "err", "late\n"),
            record(t=0.4, ch="exit", code=0, signal=None),
        ],
        header={**HEADER, "started": started},
    )
    for name in ("har", "otlp", "html"):
        result = run("export", path, "--format", name, "-o", tmp_path / f"s.{name}", text=True)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-1500:]
    report = run("report", path, "-o", tmp_path / "bundle", text=True)
    assert report.returncode == 0, report.stderr[-1500:]
    assert json.loads((tmp_path / "s.har").read_text())["log"]["entries"]
    assert protobuf([trace(load(path))])
