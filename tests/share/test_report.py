"""`mcptape report`: the bundle a user attaches to an issue, computed by the check core, secret-free."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mcptape.check.analyze import analyze_file
from mcptape.transcript import Event, open_transcript
from mcptape.transcript.writer import new_header, write_transcript
from tests import inprocess
from tests.share.leaky import ENV, PLANTED, Session


def _report(*args: str) -> subprocess.CompletedProcess[str]:
    return inprocess.run("report", *args, env=ENV, text=True)  # as the process gives it


@pytest.fixture(scope="module")
def bundle(plain: Session, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("bundle") / "bug-report"
    result = _report(str(plain.transcript), "-o", str(directory))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "report written to" in result.stderr and "1 finding(s)" in result.stderr
    return directory


@pytest.mark.parametrize("name", ["report.md", "stderr.txt", "transcript.jsonl"])
@pytest.mark.parametrize("where", sorted(PLANTED))
def test_no_planted_secret_reaches_the_bundle(bundle: Path, name: str, where: str) -> None:
    """report.md, stderr.txt and the transcript copy hold none of the planted values."""
    assert PLANTED[where].encode() not in (bundle / name).read_bytes()


def test_the_report_says_what_a_maintainer_needs(bundle: Path) -> None:
    """Command, versions, protocol version, verdict, the first offending line with its neighbours."""
    text = (bundle / "report.md").read_text()
    assert "**Verdict: 1 finding(s), 1 error(s)**" in text
    assert "sh_leaky.py --api-key '[redacted:" in text
    assert "| Protocol version | ` 2025-06-18 ` |" in text
    assert "mcptape 0.1.0, Python 3." in text
    assert "Line 1, byte offset 0: ` not JSON" in text
    assert ">     1 | sh_leaky banner: using key [redacted:" in text
    assert "00000000  73 68 5f 6c 65 61 6b 79" in text  # the hex dump of its first bytes
    assert "(response id=1)" in text  # the message after it, classified by the check core
    assert "- **non-protocol-output** (error), ` out ` line 1" in text


def test_stderr_is_its_own_attachment(bundle: Path) -> None:
    """stderr.txt is the server's whole stderr, redacted, as raw bytes."""
    copy = bundle / "transcript.jsonl"
    err = b"".join(e.data for e in open_transcript(copy).events() if e.ch == "err")
    assert (bundle / "stderr.txt").read_bytes() == err
    assert err.count(b"\n") == 7 and b"[redacted:" in err  # 3 lines and a 4-line PEM key


def test_redaction_keeps_the_check_verdict(plain: Session, bundle: Path) -> None:
    """The check core finds the same rules on the same lines in the original and the redacted copy."""
    _, before = analyze_file(str(plain.transcript))
    _, after = analyze_file(str(bundle / "transcript.jsonl"))
    assert [(f.rule, f.channel, f.line) for f in before.findings] == [
        (f.rule, f.channel, f.line) for f in after.findings
    ]
    for ch, first in before.first_non_protocol.items():
        other = after.first_non_protocol[ch]
        assert (first and first.frame.line) == (other and other.frame.line), ch
    assert before.protocol_version == after.protocol_version
    assert before.messages == after.messages


def test_terminal_bytes_are_escaped_in_the_report(tmp_path: Path) -> None:
    """A server's ESC, BEL and backticks cannot drive a terminal or break the markdown."""
    src = tmp_path / "esc.jsonl"
    events = [
        Event(0.1, "out", text="\x1b[31mred```\x07 banner\n"),
        Event(0.2, "err", text="\x1b]0;title\x07\n"),
    ]
    write_transcript(src, new_header(["srv"], "/tmp"), events)
    result = _report(str(src), "-o", str(tmp_path / "b"))
    assert result.returncode == 0, result.stderr
    body = (tmp_path / "b" / "report.md").read_bytes()
    assert b"\x1b" not in body and b"\x07" not in body
    assert b"\\x1b[31mred```\\x07 banner" in body
    assert b"````\n" in body  # the fence outgrows the backticks inside
    assert (tmp_path / "b" / "stderr.txt").read_bytes() == b"\x1b]0;title\x07\n"  # an attachment, as sent


def test_no_redact_copies_the_transcript_exactly(plain: Session, tmp_path: Path) -> None:
    """--no-redact (a report that stays local) keeps the original bytes and says so."""
    result = _report(str(plain.transcript), "-o", str(tmp_path / "b"), "--no-redact")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "b" / "transcript.jsonl").read_bytes() == plain.transcript.read_bytes()
    assert "**not redacted**" in (tmp_path / "b" / "report.md").read_text()


def test_bad_input_gives_one_error_line(plain: Session, tmp_path: Path) -> None:
    """Missing input, malformed regex, an existing bundle: `Error:` on stderr, exit 2, nothing written."""
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "report.md").write_text("keep")
    cases = [
        ([str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "a")], "does not exist", tmp_path / "a"),
        (
            [str(plain.transcript), "-o", str(tmp_path / "b"), "--redact", "("],
            "not a valid regular",
            tmp_path / "b",
        ),
        ([str(plain.transcript), "-o", str(existing)], "already exists", None),
    ]
    for args, message, absent in cases:
        result = _report(*args)
        assert result.returncode == 2, args
        assert result.stderr.startswith("Error: ") and message in result.stderr, result.stderr
        if absent is not None:
            assert not absent.exists()
    assert (existing / "report.md").read_text() == "keep"
