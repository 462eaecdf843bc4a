"""Must show: `mcptape report` (the bug bundle) includes report.html, made from the bundle's redacted
transcript: the findings are there, the secret is not; an existing report.html is kept without
--overwrite."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests import inprocess
from tests.export.helpers import answer, call, request, tool_session, write_transcript

pytestmark = pytest.mark.slow

SECRET = "hunter2-very-secret"


def report(*args: str) -> subprocess.CompletedProcess[str]:
    return inprocess.run("report", *args, text=True)  # as the process gives it (tests/inprocess.py)


def test_the_bundle_has_the_html_report_of_its_redacted_transcript(tmp_path: Path) -> None:
    """report.html sits next to report.md, names the findings, and holds no secret."""
    records = tool_session()
    records[3:3] = [
        request(0.05, 7, "tools/call", call("login", password=SECRET)),
        answer(0.06, 7, {"content": []}),
    ]
    transcript = write_transcript(tmp_path / "secret.jsonl", records)
    bundle = tmp_path / "bundle"
    done = report(str(transcript), "-o", str(bundle))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in bundle.iterdir()) == [
        "report.html",
        "report.md",
        "stderr.txt",
        "transcript.jsonl",
    ]
    page = (bundle / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "exec-after-reject" in page and "tools/call login" in page
    assert SECRET not in page and "[redacted:" in page
    assert SECRET in transcript.read_text()  # the input is as it was


def test_an_existing_html_report_is_kept_without_overwrite(tmp_path: Path) -> None:
    """A bundle directory that has a report.html already: refused before anything is written."""
    transcript = write_transcript(tmp_path / "t.jsonl", tool_session())
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "report.html").write_text("mine")
    done = report(str(transcript), "-o", str(bundle))
    assert done.returncode == 2 and "report.html already exists" in done.stderr
    assert sorted(p.name for p in bundle.iterdir()) == ["report.html"]
    assert (bundle / "report.html").read_text() == "mine"
    assert report(str(transcript), "-o", str(bundle), "--overwrite").returncode == 0
    assert (bundle / "report.html").read_text().startswith("<!DOCTYPE html>")
