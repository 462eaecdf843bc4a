"""The clean start's variations of environment and working directory run together in one server
process; when they do not pass together, each runs again alone, so each verdict is its own."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mcptape.probe.cases import BY_ID
from mcptape.probe.observed import Verdict
from mcptape.probe.variations import TOGETHER, together, varies_the_process
from tests.probe.support import PB_SERVER, by_id, probe

pytestmark = pytest.mark.slow

VARIED = ("start-warnings", "start-verbose-env", "start-empty-cwd")


def test_the_variations_are_the_starts_whose_process_differs() -> None:
    """Environment and working directory vary the process; the clean, idle and stateless starts do not."""
    assert [c for c in BY_ID if varies_the_process(BY_ID[c])] == list(VARIED)
    merged = together([BY_ID[c] for c in VARIED])
    assert merged.empty_cwd and merged.env["PYTHONDEVMODE"] == "1" and merged.env["DEBUG"] == "*"


def test_a_server_that_passes_them_together_passes_each_from_one_process(tmp_path: Path) -> None:
    """One transcript, start-variations.jsonl, started with every variation at once (its header
    says so); each case passes, titled with the others it shared the process with."""
    result, _ = probe(tmp_path, PB_SERVER, cases=list(VARIED))
    rows = by_id(result)
    for case in VARIED:
        assert rows[case].verdict is Verdict.PASS, rows[case].reasons
        assert rows[case].transcript == tmp_path / f"{TOGETHER}.jsonl"
        assert "(in one process with " in rows[case].title
    assert not any((tmp_path / f"{case}.jsonl").exists() for case in VARIED)
    header = orjson.loads((tmp_path / f"{TOGETHER}.jsonl").read_bytes().split(b"\n", 1)[0])
    assert "start-warnings, start-verbose-env, start-empty-cwd at once" in header["probe"]["title"]


def test_a_failure_together_is_told_apart_by_running_each_alone(tmp_path: Path) -> None:
    """The verbose-noise server writes debug lines on stdout under DEBUG: together they fail, so each
    runs alone, and only start-verbose-env fails."""
    result, _ = probe(tmp_path, [*PB_SERVER, "--defect", "verbose-noise"], cases=list(VARIED))
    rows = by_id(result)
    assert rows["start-verbose-env"].verdict is Verdict.FAIL
    assert rows["start-verbose-env"].reasons[0].startswith("stdout is not protocol-only")
    for case in ("start-warnings", "start-empty-cwd"):
        assert rows[case].verdict is Verdict.PASS, rows[case].reasons
    for case in VARIED:
        assert rows[case].transcript == tmp_path / f"{case}.jsonl"
        assert f"(run alone: the variations together did not pass, {TOGETHER}.jsonl)" in rows[case].did
    assert (tmp_path / f"{TOGETHER}.jsonl").is_file()  # the evidence of the run together stays


def test_one_variation_chosen_runs_alone(tmp_path: Path) -> None:
    """`--case start-empty-cwd` alone: its own process, as before."""
    result, _ = probe(tmp_path, PB_SERVER, cases=["start-empty-cwd"])
    row = by_id(result)["start-empty-cwd"]
    assert row.verdict is Verdict.PASS and row.transcript == tmp_path / "start-empty-cwd.jsonl"
